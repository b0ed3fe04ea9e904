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
	dir  string
	w    *warc.Writer
	fail func(error)
	mu   sync.Mutex
	err  error // the first
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
	return &archive{dir: o.warc, w: w, fail: fail}, nil
}

// Record writes the exchange x to the archive.
func (a *archive) Record(ctx context.Context, x *fetch.Exchange) error {
	err := a.w.Record(ctx, x)
	if err != nil {
		err = a.failed(err)
	}
	return err
}

// Sync syncs the archive's current file (store.Options.BeforeCommit).
func (a *archive) Sync() error {
	if err := a.w.Sync(); err != nil {
		return a.failed(err)
	}
	return nil
}

// failed keeps err, the first, and stops the crawl.
func (a *archive) failed(err error) error {
	err = fmt.Errorf("-warc %s: %w", a.dir, err)
	a.mu.Lock()
	if a.err == nil {
		a.err = err
	}
	a.mu.Unlock()
	a.fail(err)
	return err
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
	a.mu.Lock()
	defer a.mu.Unlock()
	return errors.Join(a.err, err)
}

// graphPages is the -graph output: a Handler writing each HTML page
// fetched with a 2xx, with the links the crawl follows, and each redirect,
// to a graph file (package graph). Its first error stops the crawl and is
// kept for the end.
type graphPages struct {
	path string
	w    *graph.Writer
	fail func(error)
	mu   sync.Mutex
	err  error
}

// openGraph creates the -graph file of o; fail stops the crawl.
func openGraph(o *options, fail func(error)) (*graphPages, error) {
	w, err := graph.Create(o.graph)
	if err != nil {
		return nil, fmt.Errorf("-graph: %w", err)
	}
	return &graphPages{path: o.graph, w: w, fail: fail}, nil
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
		err = fmt.Errorf("-graph %s: %w", g.path, err)
		g.mu.Lock()
		if g.err == nil {
			g.err = err
		}
		g.mu.Unlock()
		g.fail(err)
	}
	return err
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
	g.mu.Lock()
	defer g.mu.Unlock()
	return errors.Join(g.err, err)
}
