package graph_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"crawler/graph"
)

// TestResume writes a graph in one go, and again in parts, each part
// resumed from the bytes before it: the files are the same bytes.
func TestResume(t *testing.T) {
	type rec struct {
		url   string
		links []string
		to    string // a redirect
	}
	var recs []rec
	for i := range 60 {
		u := fmt.Sprintf("http://h%d.test/p/%d", i%7, i)
		switch {
		case i%9 == 4:
			recs = append(recs, rec{url: u, to: fmt.Sprintf("http://h%d.test/p/%d", i%7, i+1)})
		default:
			recs = append(recs, rec{url: u, links: []string{fmt.Sprintf("http://h%d.test/p/%d", i%3, i+2), "http://h0.test/p/0", u}})
		}
	}
	write := func(w *graph.Writer, rs []rec) {
		for _, r := range rs {
			var err error
			if r.to != "" {
				err = w.Redirect(r.url, r.to)
			} else {
				err = w.Page(r.url, r.links)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	var whole bytes.Buffer
	w := graph.NewWriter(&whole)
	write(w, recs)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	var parts bytes.Buffer
	w = graph.NewWriter(&parts)
	write(w, recs[:1])
	w.Close()
	for _, cut := range [][2]int{{1, 20}, {20, 21}, {21, 60}} {
		prior := bytes.NewReader(bytes.Clone(parts.Bytes()))
		w, err := graph.Resume(&parts, prior)
		if err != nil {
			t.Fatalf("Resume after %d records: %v", cut[0], err)
		}
		write(w, recs[cut[0]:cut[1]])
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(whole.Bytes(), parts.Bytes()) {
		t.Fatalf("resumed file differs: %d bytes, want %d", parts.Len(), whole.Len())
	}
	g, err := graph.Read(&parts)
	if err != nil || g.Pages() != 53 { // 60 records, 7 of them redirects
		t.Fatalf("resumed file reads as %d pages, %v; want 53", g.Pages(), err)
	}

	// A file cut within a record is no place to resume.
	cut := whole.Bytes()[:whole.Len()-3]
	if _, err := graph.Resume(&bytes.Buffer{}, bytes.NewReader(cut)); !errors.Is(err, graph.ErrTruncated) {
		t.Errorf("Resume of a torn file = %v, want ErrTruncated", err)
	}
	if _, err := graph.Resume(&bytes.Buffer{}, bytes.NewReader([]byte("not a graph\n"))); !errors.Is(err, graph.ErrFormat) {
		t.Errorf("Resume of another file = %v, want ErrFormat", err)
	}
}
