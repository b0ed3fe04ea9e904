package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"crawler"
	"crawler/fetch"
	"crawler/graph"
	"crawler/internal/links"
	"crawler/replay"
	"crawler/store"
	"crawler/warc"
)

// archive is the -warc output: a fetch.Recorder writing WARC files, which
// stops the crawl at its first error, since the pages fetched after it
// would be missing from the archive. The error is kept for the end. The
// Writer compresses and writes beside the workers: a failed write comes
// back at the next Record, or at the Sync before a -state commit, which
// it fails, so no committed page lacks its records.
type archive struct {
	dir   string
	w     *warc.Writer
	first firstError
}

// firstError keeps the first error of an output, and stops the crawl with
// every error; safe for concurrent use.
type firstError struct {
	fail func(error) // stops the crawl
	mu   sync.Mutex
	err  error
}

// keep stops the crawl with err, keeps it if it is the first, and returns
// it.
func (f *firstError) keep(err error) error {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
	f.fail(err)
	return err
}

// closed returns the first error kept, joined with err, the error of
// closing the output.
func (f *firstError) closed(err error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return errors.Join(f.err, err)
}

// openArchive opens the -warc directory of o, made if needed; fail stops
// the crawl.
func openArchive(o *options, fail func(error)) (*archive, error) {
	if err := os.MkdirAll(o.warc, 0o755); err != nil {
		return nil, fmt.Errorf("-warc: %w", err)
	}
	robots := "obey"
	if o.ignoreRobots {
		robots = "ignore"
	}
	w, err := warc.NewWriter(o.warc, warc.Options{MaxFileBytes: o.warcMaxSize, Info: []warc.Field{
		{Name: "http-header-user-agent", Value: o.userAgent},
		{Name: "robots", Value: robots},
	}})
	if err != nil {
		return nil, fmt.Errorf("-warc %s: %w", o.warc, err)
	}
	return &archive{dir: o.warc, w: w, first: firstError{fail: fail}}, nil
}

// Record writes the exchange x to the archive.
func (a *archive) Record(ctx context.Context, x *fetch.Exchange) error {
	return a.check(a.w.Record(ctx, x))
}

// Sync syncs the archive's current file (store.Options.BeforeCommit); a
// nil archive has nothing to sync.
func (a *archive) Sync() error {
	if a == nil {
		return nil
	}
	return a.check(a.w.Sync())
}

// check keeps err, if any, naming the flag.
func (a *archive) check(err error) error {
	if err != nil {
		return a.first.keep(fmt.Errorf("-warc %s: %w", a.dir, err))
	}
	return nil
}

// Close closes the archive and returns its first error.
func (a *archive) Close() error {
	if a == nil {
		return nil
	}
	err := a.w.Close()
	if err != nil {
		err = fmt.Errorf("-warc %s: %w", a.dir, err)
	}
	return a.first.closed(err)
}

// openReplay opens the -replay archive of o, which answers the misses
// that -replay-miss live sends to the web through live; it tells con of
// what it holds and of each damaged place in its files.
func openReplay(o *options, live *fetch.HTTPFetcher, con io.Writer) (*replay.Archive, error) {
	opts := replay.Options{}
	if o.replayMiss == "live" {
		opts.Live = live
	}
	a, err := replay.Open(o.replay, opts)
	if err != nil {
		return nil, fmt.Errorf("-replay %s: %w", o.replay, err)
	}
	for _, d := range a.Damage() {
		fmt.Fprintf(con, "crawl: -replay %s: %v\n", o.replay, d)
	}
	index := "its index " + replay.IndexName
	if a.Rebuilt() {
		index = "index " + replay.IndexName + " rebuilt"
	}
	miss := "fails as not-archived"
	if o.replayMiss == "live" {
		miss = "is fetched live"
	}
	fmt.Fprintf(con, "crawl: replaying %d captures from %s (%s); a URL not there %s\n", a.Len(), o.replay, index, miss)
	return a, nil
}

// graphPages is the -graph output: a Handler writing each HTML page
// fetched with a 2xx, with the links the crawl follows, and each redirect,
// to a graph file (package graph). Its first error stops the crawl and is
// kept for the end. With -state, its records are written in the state's
// steps (see steps), and a resumed crawl's file goes on.
type graphPages struct {
	path  string
	w     *graph.Writer
	file  *stepFile // with -state; nil if not
	steps *steps    // with -state; nil if not
	first firstError
}

// openGraph opens the -graph file of o; fail stops the crawl. With a state
// (st and s not nil), the file is kept in step with it, and resumed says
// that it goes on with the file of the crawl's earlier runs.
func openGraph(o *options, fail func(error), st *store.Store, s *steps) (g *graphPages, resumed bool, err error) {
	g = &graphPages{path: o.graph, first: firstError{fail: fail}}
	if st == nil {
		if g.w, err = graph.Create(o.graph); err != nil {
			return nil, false, fmt.Errorf("-graph: %w", err)
		}
		return g, false, nil
	}
	f, resumed, err := openStepFile(st, s, "graph", o.graph)
	if err != nil {
		return nil, false, err
	}
	g.file, g.steps = f, s
	if !resumed || f.size == 0 { // nothing kept: not even the header
		resumed = false
		g.w = graph.NewWriter(f)
		return g, false, nil
	}
	r, err := f.reader()
	if err == nil {
		g.w, err = graph.Resume(f, r)
		r.Close()
	}
	if err != nil {
		f.Close()
		return nil, false, fmt.Errorf("-graph %s: the file of the crawl's earlier runs: %w", o.graph, err)
	}
	return g, true, nil
}

// Handle records p, if it is an HTML page or a redirect.
func (g *graphPages) Handle(_ context.Context, p *crawler.Page) error {
	var write func() error
	switch {
	case p.Err == nil && p.Redirect != "":
		from, to := p.URL, p.Redirect
		write = func() error { return g.w.Redirect(from, to) }
	case p.Err == nil && p.Status/100 == 2 && links.IsHTML(p.ContentType, p.Body):
		url, out := p.URL, slices.Clone(p.Links)
		write = func() error { return g.w.Page(url, out) }
	default:
		return nil
	}
	if g.steps != nil {
		g.steps.hold(p.URL, func() error {
			err := write()
			if err == nil {
				err = g.w.Flush() // into the file's buffer, where its size is counted
			}
			return g.check(err)
		})
		return nil
	}
	return g.check(write())
}

// check keeps err, if any, naming the flag.
func (g *graphPages) check(err error) error {
	if err != nil {
		return g.first.keep(fmt.Errorf("-graph %s: %w", g.path, err))
	}
	return nil
}

// Close closes the graph file and returns the first error.
func (g *graphPages) Close() error {
	if g == nil {
		return nil
	}
	err := g.w.Close()
	if err != nil {
		err = fmt.Errorf("-graph %s: %w", g.path, err)
	}
	if g.file != nil {
		err = errors.Join(err, g.file.Close())
	}
	return g.first.closed(err)
}
