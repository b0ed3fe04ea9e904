package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"crawler/graph"
)

// A star's centre, which every other page links to, ranks first by
// PageRank and by authority; the page linking to most ranks first as a
// hub; a redirect's links count for its target.
func TestRank(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.bin")
	w, err := graph.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string][]string{
		"http://a.test/":  {"http://c.test/old"},
		"http://b.test/":  {"http://c.test/", "http://a.test/"},
		"http://d.test/":  {"http://c.test/", "http://a.test/", "http://b.test/"},
		"http://c.test/":  {"http://a.test/"},
		"http://e.test/x": {"http://c.test/", "http://gone.test/"},
	}
	for u, links := range pages {
		if err := w.Page(u, links); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Redirect("http://c.test/old", "http://c.test/"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	rank := func(args ...string) []line {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := run(append(args, path), &out, &errOut); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(errOut.String(), "5 pages, 8 edges") {
			t.Errorf("stderr %q, want 5 pages and 8 edges", errOut.String())
		}
		var lines []line
		dec := json.NewDecoder(&out)
		for dec.More() {
			var l line
			if err := dec.Decode(&l); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, l)
		}
		return lines
	}
	all := rank()
	if len(all) != 5 || all[0].URL != "http://c.test/" || all[0].InLinks != 4 {
		t.Fatalf("by PageRank: %+v, want 5 pages, c.test first with 4 in-links", all)
	}
	for i := 1; i < len(all); i++ {
		if all[i].PageRank > all[i-1].PageRank {
			t.Errorf("line %d out of order: %v after %v", i, all[i].PageRank, all[i-1].PageRank)
		}
	}
	if hubs := rank("-by", "hub", "-top", "1"); len(hubs) != 1 || hubs[0].URL != "http://d.test/" {
		t.Errorf("-by hub -top 1: %+v, want d.test", hubs)
	}
	if auth := rank("-by", "authority", "-top", "-1"); len(auth) != 5 || auth[0].URL != "http://c.test/" {
		t.Errorf("-by authority: %+v, want c.test first", auth)
	}
}

// Bad usage is an error of its own kind; a file that is no graph, a clear
// error.
func TestRankErrors(t *testing.T) {
	var out, errOut bytes.Buffer
	for _, args := range [][]string{{}, {"-by", "fame", "g"}, {"a", "b"}} {
		if err := run(args, &out, &errOut); !errors.As(err, new(usageError)) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
	if err := run([]string{"main.go"}, &out, &errOut); err == nil || errors.As(err, new(usageError)) {
		t.Errorf("not a graph: %v, want an error reading it", err)
	}
}

// -h names the FILE argument, where it comes from and what is printed,
// on stdout, and is no error.
func TestRankHelp(t *testing.T) {
	for _, arg := range []string{"-h", "-help"} {
		var out, errOut bytes.Buffer
		if err := run([]string{arg}, &out, &errOut); err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
		for _, want := range []string{"usage: rank [-top N] [-by pagerank|authority|hub] FILE", "crawl -graph FILE",
			"stdout", "url, pagerank", "stderr", "Exit status", "-top", "-by"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%s: usage lacks %q:\n%s", arg, want, out.String())
			}
		}
		if errOut.Len() != 0 {
			t.Errorf("%s: wrote %q to stderr", arg, errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if err := run(nil, &out, &errOut); !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "FILE") {
		t.Errorf("no FILE: %v, want a usage error naming FILE", err)
	}
}
