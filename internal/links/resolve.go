package links

import (
	"errors"
	"net/url"
	"sync"

	"crawler/canon"
)

// Resolved is what Resolve makes of the links of an HTML page: canonical
// URLs, and counts of the hrefs dropped because they did not resolve.
type Resolved struct {
	// Links are Result.Hrefs resolved, in order, each URL once; never nil.
	Links []string
	// NoFollow are Result.NoFollow resolved, in order, each URL once and
	// none of Links; nil if Result.NoFollow is empty.
	NoFollow []string
	// Canonical is the page's rel=canonical link resolved, or "" if it has
	// none or it does not resolve.
	Canonical string
	// Dropped counts the hrefs that did not resolve.
	Dropped
}

// Dropped counts links that did not resolve, by why: OtherSchemes those
// of no http(s) URL (mailto:, javascript: and the like: canon.ErrScheme),
// TooLong those over canon.MaxLength once resolved (canon.ErrTooLong),
// and Bad the others.
type Dropped struct {
	OtherSchemes, TooLong, Bad int
}

// Count counts a link that did not resolve with err.
func (d *Dropped) Count(err error) {
	switch {
	case errors.Is(err, canon.ErrScheme):
		d.OtherSchemes++
	case errors.Is(err, canon.ErrTooLong):
		d.TooLong++
	default:
		d.Bad++
	}
}

// Resolve resolves the links of ex, extracted from the page at page, into
// canonical URLs with c: against the page's <base href> if it resolves,
// else against page. sets is a pool of the sets (map[string]struct{}) in
// which a page's links are found once: Resolve takes one and puts it back
// empty, so that a crawl does not make one a page (it was a twentieth of a
// crawl's garbage); nil makes one for the call. c and sets may be shared
// by concurrent calls.
func Resolve(c *canon.Canonicalizer, page *url.URL, ex *Result, sets *sync.Pool) Resolved {
	base := page
	if ex.Base != "" {
		if b, err := c.Resolve(page, ex.Base); err == nil {
			if bu, err := url.Parse(b); err == nil {
				base = bu
			}
		}
	}
	var l Resolved
	if ex.Canonical != "" {
		l.Canonical, _ = c.Resolve(base, ex.Canonical)
	}
	var seen map[string]struct{}
	if sets != nil {
		seen, _ = sets.Get().(map[string]struct{})
	}
	if seen == nil {
		seen = make(map[string]struct{}, len(ex.Hrefs)+len(ex.NoFollow))
	}
	l.Links = l.resolve(c, base, ex.Hrefs, seen)
	if len(ex.NoFollow) > 0 {
		l.NoFollow = l.resolve(c, base, ex.NoFollow, seen)
	}
	if sets != nil {
		clear(seen)
		sets.Put(seen)
	}
	return l
}

// resolve resolves hrefs against base into canonical URLs, each once
// (seen holds those taken already, this list's included), counting in l
// those that do not resolve.
func (l *Resolved) resolve(c *canon.Canonicalizer, base *url.URL, hrefs []string, seen map[string]struct{}) []string {
	links := make([]string, 0, len(hrefs))
	for _, href := range hrefs {
		u, err := c.Resolve(base, href)
		if err != nil {
			l.Count(err)
			continue
		}
		if _, dup := seen[u]; dup {
			continue
		}
		seen[u] = struct{}{}
		links = append(links, u)
	}
	return links
}
