package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"crawler/graph"
	"crawler/warc"
)

// kill -9 three times, then the same command to the end, with -out, -graph
// and -warc: by the web server's own count, every page requested is in
// -out exactly once, every HTML page and redirect in the graph exactly
// once, and every page in the archive, as many times as the server
// served it at most.
func TestStateOutputsSurviveKill9(t *testing.T) {
	t.Parallel()
	w := stateWeb(t, 2*time.Millisecond)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "state")
	out, graphFile, archive := filepath.Join(tmp, "pages.jsonl"), filepath.Join(tmp, "crawl.graph"), filepath.Join(tmp, "warc")
	flags := []string{"-workers", "4", "-out", out, "-graph", graphFile, "-warc", archive}
	want := w.Depths(w.Seeds()...)
	for kill := 1; kill <= 3; kill++ {
		killAfter(t, w, dir, len(want)/5, nil, flags...)
		t.Logf("kill %d after %d page requests", kill, w.TotalRequests())
	}
	if data, err := os.ReadFile(out); err != nil || bytes.IndexByte(data, '\n') < 0 {
		t.Fatalf("-out holds no line after three runs (%v)", err)
	}
	// -stats on the state a kill -9 left: what waits, what was seen.
	r := runCrawl(t, nil, "-state", dir, "-stats")
	var state struct {
		Seen, Waiting, Hosts int
		Requests             int64
		Done                 bool `json:"finished"`
		Total                summary
	}
	if err := json.Unmarshal([]byte(r.stdout), &state); err != nil || r.code != 0 {
		t.Fatalf("-stats: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if state.Seen == 0 || state.Waiting == 0 || state.Hosts == 0 || state.Done || state.Requests == 0 || state.Requests > int64(w.TotalRequests()) ||
		state.Total.Seen != state.Seen || state.Total.Frontier != state.Waiting || state.Total.Hosts != state.Hosts || !state.Total.Interrupted {
		t.Errorf("-stats after a kill -9: %+v; want what was seen and waits, not finished, interrupted\n%s", state, r.stdout)
	}
	last, err := crawlState(t.Context(), w, dir, flags...).CombinedOutput()
	if err != nil {
		t.Fatalf("the last run: %v\n%s", err, last)
	}
	if !strings.Contains(string(last), "appending to -out "+out+" and -graph "+graphFile) {
		t.Errorf("the last run does not say it appends to its outputs:\n%s", last)
	}
	served := w.RequestCounts()
	if lost, _ := w.Coverage(); lost != 0 {
		t.Fatalf("%d pages never fetched", lost)
	}

	// -out: each page requested, once.
	lines := map[string]int{}
	graphed := map[string]bool{} // the pages -out says the graph records
	for _, r := range readJSONLines(t, out) {
		lines[r.URL]++
		if r.Error == "" && (r.Redirect != "" || r.Status/100 == 2 && strings.HasPrefix(r.ContentType, "text/html")) {
			graphed[r.URL] = true
		}
	}
	twice := 0
	for u, n := range served {
		if n > 1 {
			twice++
		}
		if lines[u] != 1 {
			t.Errorf("%s: served %d times, in -out %d times; want once", u, n, lines[u])
		}
	}
	for u := range lines {
		if served[u] == 0 {
			t.Errorf("%s is in -out but was never served", u)
		}
	}
	t.Logf("%d pages served, %d of them twice (in flight at a kill); %d lines in -out", len(served), twice, len(lines))
	if twice == 0 {
		t.Log("no page was served twice: the kills cut no page in flight")
	}

	// -graph: reads whole, one record for each HTML page and redirect.
	g, err := graph.Load(graphFile)
	if err != nil {
		t.Fatalf("-graph: %v", err)
	}
	records := graphRecords(t, graphFile)
	for u := range graphed {
		if records[u] != 1 {
			t.Errorf("%s: %d records in -graph, want 1", u, records[u])
		}
	}
	if len(records) != len(graphed) {
		t.Errorf("-graph has records of %d URLs, -out names %d HTML pages and redirects", len(records), len(graphed))
	}
	if g.Pages() == 0 {
		t.Error("-graph has no pages")
	}

	// -warc: every page, at most as often as served.
	archived := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(archive, "*.warc.gz"))
	for _, f := range files {
		forEachRecord(t, f, func(rec *warc.Record) {
			if rec.Type() == "response" && !strings.HasSuffix(rec.Get("WARC-Target-URI"), "/robots.txt") {
				archived[rec.Get("WARC-Target-URI")]++
			}
		})
	}
	for u, n := range served {
		if archived[u] < 1 || archived[u] > n {
			t.Errorf("%s: served %d times, archived %d times", u, n, archived[u])
		}
	}
}

// graphRecords counts the records of each page or redirect source in the
// graph file name, read by the format package graph documents (its reader
// keeps only the last record of each URL).
func graphRecords(t *testing.T, name string) map[string]int {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(bytes.NewReader(data))
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	var urls []string // by ID
	counts := map[string]int{}
	for {
		n, err := binary.ReadUvarint(r)
		if err != nil {
			return counts // the end
		}
		body := make([]byte, n+4)
		if _, err := io.ReadFull(r, body); err != nil {
			t.Fatalf("%s: record of %d bytes cut: %v", name, n, err)
		}
		b := bytes.NewReader(body[1:n]) // kind byte skipped
		names, _ := binary.ReadUvarint(b)
		for range names {
			l, _ := binary.ReadUvarint(b)
			u := make([]byte, l)
			io.ReadFull(b, u)
			urls = append(urls, string(u))
		}
		src, err := binary.ReadUvarint(b)
		if err != nil || src >= uint64(len(urls)) {
			t.Fatalf("%s: a record's source %d of %d URLs: %v", name, src, len(urls), err)
		}
		counts[urls[src]]++
	}
}

// -state refuses a directory of other files before anything starts, and
// writes nothing there; -out refuses a file of an earlier run that lost
// what the state counts, and a new -out path starts a new file.
func TestStateRefuses(t *testing.T) {
	t.Parallel()
	site := t.TempDir()
	if err := os.WriteFile(filepath.Join(site, "index.html"), []byte("<p>a copy of a site</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCrawl(t, nil, "-state", site, "-demo")
	if r.code != 2 || !strings.Contains(r.stderr, "holds files but no crawl state") || strings.Contains(r.stderr, "demo web of") {
		t.Errorf("-state on a site's copy: exit %d, stderr %q; want 2, refused before the demo web starts", r.code, r.stderr)
	}
	if names, _ := os.ReadDir(site); len(names) != 1 {
		t.Errorf("the directory holds %d files, want its 1", len(names))
	}

	w := stateWeb(t, 0)
	tmp := t.TempDir()
	dir, out := filepath.Join(tmp, "state"), filepath.Join(tmp, "pages.jsonl")
	if b, err := crawlState(t.Context(), w, dir, "-max-pages", "20", "-out", out).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if err := os.Truncate(out, 10); err != nil {
		t.Fatal(err)
	}
	b, err := crawlState(t.Context(), w, dir, "-max-pages", "40", "-out", out).CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(b), "holds 10 bytes, fewer than the") || w.TotalRequests() != 20 {
		t.Errorf("-out cut after a run: exit %d, %d requests\n%s; want 2, nothing fetched", code, w.TotalRequests(), b)
	}
	other := filepath.Join(tmp, "more.jsonl")
	if b, err := crawlState(t.Context(), w, dir, "-max-pages", "40", "-out", other).CombinedOutput(); err != nil || strings.Contains(string(b), "appending") {
		t.Fatalf("a new -out path: %v\n%s", err, b)
	}
	if n := len(readJSONLines(t, other)); n != 20 {
		t.Errorf("a new -out path holds %d lines, want the run's 20", n)
	}
}

// exitCode is the exit status of a command's error from Run or Output.
func exitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// The whole crawl's line gives the URLs waiting as the frontier in use
// counts them: an AOPIC on the state keeps its own count (the line said 0).
func TestStateTotalWaiting(t *testing.T) {
	w := stateWeb(t, 0)
	dir := filepath.Join(t.TempDir(), "state")
	for _, order := range []string{"fifo", "aopic"} {
		out, err := crawlState(t.Context(), w, filepath.Join(dir, order), "-frontier", order, "-max-pages", "20").CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", order, err, out)
		}
		run := regexp.MustCompile(`crawl: fetched 20 .*, frontier (\d+),`).FindSubmatch(out)
		total := regexp.MustCompile(`every run: fetched 20 .*, frontier (\d+),`).FindSubmatch(out)
		if run == nil || total == nil || string(run[1]) != string(total[1]) || string(run[1]) == "0" {
			t.Errorf("%s: the run's and the whole crawl's frontier differ, or are 0:\n%s", order, out)
		}
	}
}
