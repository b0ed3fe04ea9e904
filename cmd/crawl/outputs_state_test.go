package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
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
	if before := countLines(t, out); before == 0 {
		t.Fatal("-out is empty after three runs")
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
	for _, r := range readRecords(t, out) {
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

// readRecords reads the -out file name.
func readRecords(t *testing.T, name string) []record {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var rs []record
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var r record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%s line %d: %v: %q", name, i+1, err, line)
		}
		rs = append(rs, r)
	}
	return rs
}

// countLines counts the lines of the file name.
func countLines(t *testing.T, name string) int {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(data, []byte("\n"))
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
