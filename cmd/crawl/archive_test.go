package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"crawler/crawlertest"
	"crawler/graph"
	"crawler/warc"
)

// The acceptance test of -warc, with -graph and -near-dups on the same
// crawl of 1,500 pages: every record of every file verifies with our
// reader (and with warcio.js where WARCIO_JS names it), each file starts
// with its one warcinfo, and there is one response or revisit record per
// request the server counted, robots.txt included; the graph has a node
// per HTML page fetched; the -out lines name near-duplicates of the same
// family.
func TestWARCGraphNearDups(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 4, Hosts: 16, PagesPerHost: 100, NearDuplicates: 4})
	t.Cleanup(w.Close)
	dir := t.TempDir()
	archive, graphFile, out := filepath.Join(dir, "warc"), filepath.Join(dir, "g.bin"), filepath.Join(dir, "pages.jsonl")
	cmd := crawlCommand(t.Context(), "-max-pages", "1500", "-delay", "-1s", "-delay-factor", "-1", "-progress", "-1s",
		"-warc", archive, "-warc-max-size", "1000000", "-graph", graphFile, "-near-dups", "-out", out, w.Seeds()[0])
	cmd.Env = append(cmd.Env, "HTTP_PROXY="+w.ProxyURL().String())
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	requests := w.TotalRequests()
	for _, h := range w.Hosts() {
		requests += w.RobotsRequests(h)
	}

	files, _ := filepath.Glob(filepath.Join(archive, "*.warc.gz"))
	tool := os.Getenv("WARCIO_JS") // warcio.js, an independent reader (see .ci/run)
	if tool == "" && os.Getenv("CRAWLER_CI") == "1" {
		t.Error("WARCIO_JS is not set: CI must check the archive with warcio.js")
	}
	exchanges := 0
	for _, name := range files {
		types := readWARC(t, name)
		if len(types) == 0 || types[0] != "warcinfo" || strings.Count(strings.Join(types, " "), "warcinfo") != 1 {
			t.Errorf("%s: records %v..., want one warcinfo, first", filepath.Base(name), types[:min(3, len(types))])
		}
		inFile := 0
		for _, typ := range types {
			if typ == "response" || typ == "revisit" {
				inFile++
			}
		}
		exchanges += inFile
		if tool != "" { // one CDX line per response and revisit record
			cdx, err := exec.Command("node", tool, "cdx-index", name).Output()
			if lines := strings.Count(string(cdx), "\n"); err != nil || lines != inFile {
				t.Errorf("warcio.js cdx-index %s: %v, %d lines for %d response and revisit records", filepath.Base(name), err, lines, inFile)
			}
		}
	}
	if len(files) < 2 || exchanges != requests {
		t.Errorf("%d files, %d response and revisit records; want several files and the %d requests the server counted", len(files), exchanges, requests)
	}

	html, nearDups := 0, 0
	family := map[string]int{}
	for i, f := range w.NearDuplicateFamilies() {
		for _, u := range f {
			family[u] = i + 1
		}
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Status == 200 && strings.HasPrefix(r.ContentType, "text/html") {
			html++
		}
		if r.NearDupOf != "" {
			nearDups++
			if family[r.URL] == 0 || family[r.URL] != family[r.NearDupOf] {
				t.Errorf("%s: near_duplicate_of %s, not of its family", r.URL, r.NearDupOf)
			}
		}
	}
	g, err := graph.Load(graphFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d requests, %d WARC files; graph of %d nodes and %d edges for %d HTML pages; %d near-duplicates", requests, len(files), g.Len(), g.Edges(), html, nearDups)
	if g.Len() != html || g.Edges() == 0 || nearDups == 0 {
		t.Errorf("graph of %d nodes (%d edges) for %d HTML pages, %d near-duplicates marked", g.Len(), g.Edges(), html, nearDups)
	}
}

// A durable crawl killed with SIGKILL three times and run to its end with
// -warc: every file reads and verifies to its end (a kill can tear the
// record being written, even in one write, which the next run cuts), and
// every URL the server answered has a response record (a page is done only
// once its records are written; with -state, synced first).
func TestWARCSurvivesKill9(t *testing.T) {
	t.Parallel()
	archive := filepath.Join(t.TempDir(), "warc")
	w := testKill9(t, "-warc", archive)
	recorded := map[string]bool{}
	// The files the kills left named .open were repaired and named by the
	// runs after, each at its start; the last run closed its own.
	if open, _ := filepath.Glob(filepath.Join(archive, "*.open")); len(open) > 0 {
		t.Errorf("files left open after the last run: %q", open)
	}
	files, _ := filepath.Glob(filepath.Join(archive, "*.warc.gz"))
	for _, name := range files {
		forEachRecord(t, name, func(rec *warc.Record) {
			if rec.Type() == "response" {
				recorded[rec.Get("WARC-Target-URI")] = true
			}
		})
	}
	for u := range w.RequestCounts() {
		if !recorded[u] {
			t.Errorf("%s fetched, with no response record", u)
		}
	}
	t.Logf("%d files, %d URLs recorded", len(files), len(recorded))
}

// readWARC reads the WARC file name, verifying every record, and returns
// their types in order.
func readWARC(t *testing.T, name string) []string {
	var types []string
	forEachRecord(t, name, func(rec *warc.Record) { types = append(types, rec.Type()) })
	return types
}

// forEachRecord reads the WARC file name, verifying every record, and
// calls f with each.
func forEachRecord(t *testing.T, name string, f func(*warc.Record)) {
	t.Helper()
	file, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for rec, err := range warc.NewReader(file).All() {
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(name), err)
		}
		if err := rec.Verify(); err != nil {
			t.Errorf("%s: %s record of %s: %v", filepath.Base(name), rec.Type(), rec.Get("WARC-Target-URI"), err)
		}
		f(rec)
	}
}
