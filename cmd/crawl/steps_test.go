package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"crawler"
	"crawler/frontier"
	"crawler/graph"
	"crawler/store"
)

// A -graph file kept with a state that recorded no page yet (its header
// not even kept) resumes as a new file; one with pages goes on with them.
func TestGraphResumesEmpty(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	o := &options{graph: filepath.Join(tmp, "crawl.graph")}
	fail := func(err error) { t.Errorf("output failed: %v", err) }
	open := func() (*store.Store, *steps, *graphPages, bool) {
		s := newSteps(fail)
		st, err := store.Open(filepath.Join(tmp, "state"), store.Options{ExpectedURLs: 10, OnDone: s.done, BeforeCommit: s.sync})
		if err != nil {
			t.Fatal(err)
		}
		g, resumed, err := openGraph(o, fail, st, s)
		if err != nil {
			t.Fatal(err)
		}
		return st, s, g, resumed
	}
	st, _, g, resumed := open()
	if resumed {
		t.Error("a new file resumed")
	}
	closeAll := func() {
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
	}
	closeAll()

	st, _, g, resumed = open()
	if resumed {
		t.Error("a file with nothing kept resumed")
	}
	// A page done: its record is written in the step that takes it.
	f := st.Frontier()
	e := frontier.Entry{URL: "http://h.test/", FP: 1, Host: "h.test"}
	f.Push(e)
	f.Commit()
	e, _, _ = f.Next(time.Now())
	g.Handle(context.Background(), &crawler.Page{URL: e.URL, Status: 200, ContentType: "text/html", Body: []byte("<p>"), Links: []string{"http://h.test/a"}})
	f.Done(e, frontier.Result{})
	f.Commit()
	closeAll()

	st, _, g, resumed = open()
	if !resumed {
		t.Error("a file with a page did not resume")
	}
	closeAll()
	gr, err := graph.Load(o.graph)
	if err != nil || gr.Pages() != 1 {
		t.Fatalf("the graph: %v, %v; want its page", gr, err)
	}
}
