package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"crawler"
	"crawler/fetch"
	"crawler/graph"
	"crawler/internal/links"
	"crawler/warc"
)

// archive is the -warc output: a fetch.Recorder writing WARC files, which
// stops the crawl at its first error, since the pages fetched after it
// would be missing from the archive. The error is kept for the end.
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

// Sync syncs the archive's current file (store.Options.BeforeCommit).
func (a *archive) Sync() error { return a.check(a.w.Sync()) }

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

// graphPages is the -graph output: a Handler writing each HTML page
// fetched with a 2xx, with the links the crawl follows, and each redirect,
// to a graph file (package graph). Its first error stops the crawl and is
// kept for the end.
type graphPages struct {
	path  string
	w     *graph.Writer
	first firstError
}

// openGraph creates the -graph file of o; fail stops the crawl.
func openGraph(o *options, fail func(error)) (*graphPages, error) {
	w, err := graph.Create(o.graph)
	if err != nil {
		return nil, fmt.Errorf("-graph: %w", err)
	}
	return &graphPages{path: o.graph, w: w, first: firstError{fail: fail}}, nil
}

// Handle records p, if it is an HTML page or a redirect.
func (g *graphPages) Handle(_ context.Context, p *crawler.Page) error {
	var err error
	switch {
	case p.Err == nil && p.Redirect != "":
		err = g.w.Redirect(p.URL, p.Redirect)
	case p.Err == nil && p.Status/100 == 2 && links.IsHTML(p.ContentType, p.Body):
		err = g.w.Page(p.URL, p.Links)
	default:
		return nil
	}
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
	return g.first.closed(err)
}
