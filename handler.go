package crawler

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Page is one URL the crawler fetched or tried to fetch, as its Handler
// sees it.
type Page struct {
	URL string // canonical URL requested
	// Depth is the link distance from a seed by the shortest path known
	// (seeds: 0; a redirect keeps its source's; see the package doc).
	Depth    int
	Referrer string // canonical URL of the page that linked here ("" for seeds)
	// Importance is the frontier's estimate of the page's importance
	// (frontier.AOPIC's credit share); 0 for frontiers without one.
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
	// Links are the canonical out-links of an HTML page (<a> and <area>
	// hrefs, no rel="nofollow" ones, each once, at most MaxLinksPerPage)
	// that the crawl follows, scope permitting. A Handler may remove some;
	// a link it adds must be canonical.
	Links []string
	// NoFollowLinks are its rel="nofollow" links, not followed (unless
	// IgnoreNoFollow puts them in Links) but part of its link graph.
	NoFollowLinks []string
	// Title is the text of the page's first <title>, white space
	// collapsed, at most 1 KiB of it ("" if none).
	Title string
	// Canonical is the page's <link rel="canonical"> target, resolved.
	Canonical string
	// NoFollow and NoIndex are the page's robots directives (X-Robots-Tag,
	// <meta name="robots"> or one named for the crawler). A NoFollow
	// page's links are not followed; NoIndex is the Handler's to honour.
	NoFollow, NoIndex bool

	// Revisit reports that Crawler.Recrawl fetched the page again;
	// Unchanged, that it found it as before: a 304 (no Body, no Links) or
	// a 2xx with the same content fingerprint.
	Revisit, Unchanged bool
	// NearDuplicateOf is, under Crawler.NearDuplicates, the URL of the
	// earlier page of which this one is a near-duplicate; "" otherwise.
	NearDuplicateOf string

	FetchedAt time.Time     // when the request was sent
	Duration  time.Duration // from request to end of body
}

// Handler processes pages. Handle is called on the crawler's worker
// goroutines, so it must be safe for concurrent use, and the crawl goes
// at its pace. An error, or a panic, is counted and logged, never fatal.
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
