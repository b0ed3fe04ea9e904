package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDemoCrawl(t *testing.T) {
	out := filepath.Join(t.TempDir(), "pages.jsonl")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-demo", "-max-pages", "300", "-out", out, "-json"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	var s summary
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		t.Fatalf("summary is not JSON: %v\n%s", err, stdout.String())
	}
	if s.Requests != 300 || s.Fetched != 300 || s.Interrupted || s.Hosts < 2 || s.RobotsFetched < 1 {
		t.Errorf("summary = %+v", s)
	}

	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines, urls := 0, map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d: %v: %s", lines+1, err, sc.Text())
		}
		if r.URL == "" || r.Status == 0 || urls[r.URL] {
			t.Errorf("line %d: bad or duplicate record %+v", lines+1, r)
		}
		urls[r.URL] = true
		lines++
	}
	if lines != 300 {
		t.Errorf("%d records in -out, want 300", lines)
	}
}

func TestSeenSets(t *testing.T) {
	for _, set := range []string{"exact", "bloom", "bitmap"} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), []string{"-demo", "-max-pages", "200", "-json", "-seen", set, "-seen-size", "100000"}, &stdout, &stderr); err != nil {
			t.Fatalf("-seen %s: %v", set, err)
		}
		var s summary
		if err := json.Unmarshal(stdout.Bytes(), &s); err != nil || s.Fetched != 200 || s.Seen < 200 {
			t.Errorf("-seen %s: summary %+v, err %v", set, s, err)
		}
	}
}

func TestInterruptPrintsSummary(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var stdout, stderr bytes.Buffer
	// One request per host per second: the crawl cannot finish in time.
	if err := run(ctx, []string{"-demo", "-delay", "1s"}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v", err)
	}
	if !strings.Contains(stderr.String(), "interrupted") || !strings.Contains(stderr.String(), "fetched") {
		t.Errorf("stderr = %q, want an interrupted summary", stderr.String())
	}
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{{}, {"-max-pages", "x"}, {"ftp://example.invalid/"}, {"-demo", "-seen", "cuckoo"}} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, &stdout, &stderr); err == nil {
			t.Errorf("run(%q) succeeded, want an error", args)
		}
	}
}
