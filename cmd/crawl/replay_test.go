package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"crawler/crawlertest"
	"crawler/graph"
	"crawler/replay"
	"crawler/warc"
)

// The acceptance test of -replay: a crawl with -warc, then the same crawl
// with -replay and the web stopped, give the same -out records (fetch_ms
// aside), -extract texts included, and the same -graph. Then a file of
// the archive is damaged in the middle: the replay says where, on
// stderr, and replays the rest, the pages of the damaged record failing
// as not-archived.
func TestReplaySameCrawl(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 7, Hosts: 6, PagesPerHost: 40})
	dir := t.TempDir()
	archive := filepath.Join(dir, "warc")
	crawl := func(name string, extra ...string) (records map[string]record, g map[string][]string, stderr string) {
		out, graphFile := filepath.Join(dir, name+".jsonl"), filepath.Join(dir, name+".graph")
		// One worker: with several, the order pages are found in, and so
		// their depth, varies from run to run, live or replayed alike.
		args := append([]string{"-delay", "-1s", "-delay-factor", "-1", "-progress", "-1s", "-workers", "1",
			"-out", out, "-graph", graphFile, "-extract", "title=title", "-extract", "links=a"}, extra...)
		cmd := crawlCommand(t.Context(), append(args, w.Seeds()[0])...)
		cmd.Env = append(cmd.Env, "HTTP_PROXY="+w.ProxyURL().String())
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		return readRecords(t, out), readGraph(t, graphFile), string(b)
	}
	liveOut, liveGraph, _ := crawl("live", "-warc", archive)
	requests := w.TotalRequests()
	w.Close()
	replayOut, replayGraph, stderr := crawl("replay", "-replay", archive)
	if len(liveOut) < 200 || len(liveGraph) < 200 {
		t.Fatalf("the live crawl wrote %d records and a graph of %d pages: too few to compare", len(liveOut), len(liveGraph))
	}
	if !reflect.DeepEqual(replayOut, liveOut) {
		for u, r := range liveOut {
			if !reflect.DeepEqual(replayOut[u], r) {
				t.Errorf("%s: replayed %+v\nlive %+v", u, replayOut[u], r)
			}
		}
		t.Errorf("-out: %d records replayed, %d live", len(replayOut), len(liveOut))
	}
	if !reflect.DeepEqual(replayGraph, liveGraph) {
		t.Errorf("-graph: %d pages replayed, %d live", len(replayGraph), len(liveGraph))
	}
	if !strings.Contains(stderr, "crawl: replaying ") || !strings.Contains(stderr, replay.IndexName+" rebuilt") {
		t.Errorf("stderr of the replay: %s", stderr)
	}
	t.Logf("%d requests live, %d records, graph of %d pages", requests, len(liveOut), len(liveGraph))

	// Damage the response record of a page in the middle of a file.
	files, _ := filepath.Glob(filepath.Join(archive, "*.warc.gz"))
	name := files[0]
	var victim string
	var at int64
	n := 0
	forEachRecord(t, name, func(rec *warc.Record) {
		if rec.Type() == "response" && !strings.HasSuffix(rec.Get("WARC-Target-URI"), "/robots.txt") {
			if n++; n == 10 {
				victim, at = rec.Get("WARC-Target-URI"), rec.Offset
			}
		}
	})
	b, err := os.ReadFile(name)
	if err != nil || victim == "" {
		t.Fatal(err, victim)
	}
	copy(b[at+30:], "spoilt spoilt spoilt spoilt spoilt")
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	damagedOut, _, stderr := crawl("damaged", "-replay", archive)
	if want := "damaged at offset " + itoa(at); !strings.Contains(stderr, name+": "+want) {
		t.Errorf("the damage is not reported (want %q):\n%s", want, stderr)
	}
	if r := damagedOut[victim]; !strings.Contains(r.Error, "not archived") {
		t.Errorf("%s, in the damaged record: %+v, want not archived", victim, r)
	}
	whole := 0
	for u, r := range damagedOut {
		if r.Error == "" && reflect.DeepEqual(r, liveOut[u]) {
			whole++
		}
	}
	// The pages only the damaged one links to are not found; the others are replayed as they were.
	if whole < len(liveOut)/2 {
		t.Errorf("%d of %d pages replayed as live after the damage", whole, len(liveOut))
	}
	t.Logf("after damage at offset %d of %s: %d of %d records as live", at, filepath.Base(name), whole, len(liveOut))
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// readRecords reads the -out file at path, by URL, fetch_ms zeroed.
func readRecords(t *testing.T, path string) map[string]record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]record{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		r.FetchMS = 0
		out[r.URL] = r
	}
	return out
}

// readGraph reads the -graph file at path: each node's URL and those it
// links to, sorted.
func readGraph(t *testing.T, path string) map[string][]string {
	t.Helper()
	g, err := graph.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for k := range g.Len() {
		var to []string
		for _, d := range g.Out(k) {
			to = append(to, g.URL(int(d)))
		}
		slices.Sort(to)
		out[g.URL(k)] = to
	}
	return out
}

// -replay-miss takes fail or live, and live needs -replay; -replay needs a
// directory that exists: else the command exits 2, before any fetch.
func TestReplayFlags(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-replay", t.TempDir(), "-replay-miss", "sometimes"}, `-replay-miss "sometimes": want fail or live`},
		{[]string{"-replay-miss", "live"}, "-replay-miss live needs -replay DIR"},
		{[]string{"-replay", filepath.Join(t.TempDir(), "none")}, "-replay "},
		{[]string{"-replay", t.TempDir(), "-render"}, "-replay: -render"},
	} {
		cmd := crawlCommand(t.Context(), append(c.args, "-allow", s.addr(), s.URL+"/")...)
		b, err := cmd.CombinedOutput()
		if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(b), c.want) {
			t.Errorf("%q: %v, want exit 2 and %q:\n%s", c.args, err, c.want, b)
		}
	}
	if n := s.requests.Load(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// A replay of an archive that holds part of a site: with -replay-miss
// fail the pages it lacks fail as not-archived, nothing sent; with live,
// they are fetched, and recorded with -warc, and the archived ones are not
// asked for again.
func TestReplayMiss(t *testing.T) {
	t.Parallel()
	s := newSite(t) // / links to /a and /b
	dir := t.TempDir()
	archive, more := filepath.Join(dir, "warc"), filepath.Join(dir, "more")
	run := func(args ...string) map[string]record {
		out := filepath.Join(dir, "out.jsonl")
		cmd := crawlCommand(t.Context(), append(append([]string{"-delay", "-1s", "-progress", "-1s", "-out", out, "-allow", s.addr()}, args...), s.URL+"/")...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, b)
		}
		return readRecords(t, out)
	}
	run("-warc", archive, "-max-pages", "1") // robots.txt and /
	before := s.requests.Load()
	got := run("-replay", archive)
	if s.requests.Load() != before {
		t.Errorf("-replay-miss fail sent %d requests", s.requests.Load()-before)
	}
	if got[s.URL+"/"].Status != 200 || !strings.Contains(got[s.URL+"/a"].Error, "not archived") || !strings.Contains(got[s.URL+"/b"].Error, "not archived") {
		t.Errorf("-replay-miss fail: %+v", got)
	}
	got = run("-replay", archive, "-replay-miss", "live", "-warc", more)
	if n := s.requests.Load() - before; n != 2 || got[s.URL+"/a"].Status != 200 || got[s.URL+"/b"].Status != 200 {
		t.Errorf("-replay-miss live: %d requests (want 2: /a and /b), %+v", n, got)
	}
	recorded := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(more, "*.warc.gz"))
	for _, f := range files {
		forEachRecord(t, f, func(rec *warc.Record) {
			if rec.Type() == "response" {
				recorded[rec.Get("WARC-Target-URI")] = true
			}
		})
	}
	if want := map[string]bool{s.URL + "/a": true, s.URL + "/b": true}; !reflect.DeepEqual(recorded, want) {
		t.Errorf("-warc of the live misses holds %v, want %v", recorded, want)
	}
}
