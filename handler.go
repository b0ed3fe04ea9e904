package crawler

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"time"
)

// Page is one URL the crawler fetched or tried to fetch, as its Handler
// sees it.
type Page struct {
	URL string // canonical URL requested
	// Depth is the link distance from a seed by the shortest path known
	// when the page was handed out (seeds: 0; a redirect keeps its
	// source's depth; a durable frontier keeps it as first found unless
	// Scope.MaxDepth is set: see the package doc).
	Depth    int
	Referrer string // canonical URL of the page that linked here ("" for seeds)
	// Importance is the frontier's estimate of the page's importance when
	// it was handed out (frontier.AOPIC: its share of all the credit given
	// so far); 0 for frontiers without one, such as FIFO.
	Importance float64

	// Err is why the fetch failed (Status is then 0), or a problem with a
	// redirect (ErrTooManyRedirects, ErrBadRedirect).
	Err         error
	Status      int         // HTTP status code
	Header      http.Header // response header
	ContentType string      // Content-Type header as sent
	Body        []byte      // body, at most the fetcher's cap
	Truncated   bool        // the body was cut at the cap

	// Redirect is the canonical target of a 3xx response ("" otherwise).
	// The crawler schedules it as a new URL at the same depth.
	Redirect string
	// Links are the canonical out-links of an HTML page that the crawler
	// will follow (scope permitting): <a href> and <area href>, resolved
	// against <base href>, without rel="nofollow" ones, each once, at
	// most Crawler.MaxLinksPerPage of them (NoFollowLinks included). A
	// Handler may remove links to keep the crawl from following them; a
	// link it adds must be canonical (see canon.Canonicalizer).
	Links []string
	// NoFollowLinks are the page's rel="nofollow" links, canonical, each
	// once and none of Links: not followed (unless IgnoreNoFollow, which
	// puts them in Links), but part of the page's link graph.
	NoFollowLinks []string
	// Title is the text of the page's first <title>, white space
	// collapsed, at most 1 KiB of it ("" if none).
	Title string
	// Canonical is the page's <link rel="canonical"> target, resolved.
	Canonical string
	// NoFollow and NoIndex report the page's robots directives: the
	// X-Robots-Tag header (any content type) and, in HTML, <meta
	// name="robots"> or a meta tag named for the crawler's product token;
	// "none" sets both. A NoFollow page's links are not followed (unless
	// IgnoreNoFollow); NoIndex is for the Handler to honour.
	NoFollow, NoIndex bool

	// Revisit reports that the page was fetched before and Crawler.Recrawl
	// fetched it again, with the validators of the visit before; Unchanged,
	// that the revisit found it as that visit did: a 304 Not Modified
	// (Status 304, no Body, no Links) or a 2xx with the same content
	// fingerprint (for HTML, that of its text, tags and link paths).
	Revisit, Unchanged bool
	// NearDuplicateOf is, under Crawler.NearDuplicates, the canonical URL
	// of the page fetched earlier in the Run of which this HTML page is a
	// near-duplicate (its text, by SimHash); "" otherwise.
	NearDuplicateOf string

	FetchedAt time.Time     // when the request was sent
	Duration  time.Duration // from request to end of body
}

// Handler processes pages. Handle is called on the crawler's worker
// goroutines, so it must be safe for concurrent use; while it runs, its
// worker waits, which slows the crawl to the handler's pace. An error is
// counted and logged, never fatal; a panic is recovered and counted the
// same way.
type Handler interface {
	Handle(ctx context.Context, p *Page) error
}

// HandlerFunc adapts a function to a Handler.
type HandlerFunc func(ctx context.Context, p *Page) error

// Handle calls f(ctx, p).
func (f HandlerFunc) Handle(ctx context.Context, p *Page) error { return f(ctx, p) }

// ErrSkip, returned by a handler in a [Chain], stops the chain for this
// page without counting an error: a filter's way of saying "not this one".
var ErrSkip = errors.New("crawler: skip page")

// Chain returns a Handler that runs hs in order, stopping at the first
// error (which ErrSkip makes silent).
func Chain(hs ...Handler) Handler {
	return HandlerFunc(func(ctx context.Context, p *Page) error {
		for _, h := range hs {
			if err := h.Handle(ctx, p); err != nil {
				return err
			}
		}
		return nil
	})
}

// errNotYielded is the error of the Handler of Pages for a page that the
// loop stopped before taking: the crawler puts its URL back.
var errNotYielded = errors.New("crawler: page not yielded")

// Pages runs the crawl like Run and yields each page as the Handler would
// see it, with its Err, after the crawler's own Handler (if any) has run.
// The crawl moves at the pace of the loop: a page is yielded on its
// worker's goroutine turn, so a slow loop body slows the crawl. Breaking
// out of the loop stops the crawl as cancelling Run's context does, and
// loses nothing: the URLs of pages fetched but not yet yielded go back to
// the frontier with those cut short, so a later Run or Pages resumes
// there (the crawler's own Handler may then see them twice). If the crawl
// itself fails (a bad seed, ctx done), the last pair yielded is (nil,
// err). The loop must not modify a page (the crawler is still reading its
// Links); to steer the crawl, use a Handler. The sequence is single-use.
func (c *Crawler) Pages(ctx context.Context, seeds ...string) iter.Seq2[*Page, error] {
	return func(yield func(*Page, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		pages := make(chan *Page)
		done := make(chan error, 1)
		send := HandlerFunc(func(ctx context.Context, p *Page) error {
			var err error
			if c.Handler != nil {
				err = c.Handler.Handle(ctx, p)
			}
			select {
			case pages <- p:
				return err
			case <-ctx.Done():
				return errNotYielded
			}
		})
		go func() {
			done <- c.runWith(ctx, send, seeds)
			close(pages)
		}()
		for p := range pages {
			if !yield(p, p.Err) {
				// Take no more pages: their sends end with ctx.
				cancel()
				<-done
				return
			}
		}
		if err := <-done; err != nil {
			yield(nil, err)
		}
	}
}
