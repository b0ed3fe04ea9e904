package sitemap

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"sync"
	"time"

	"crawler/canon"
)

// Policy says which sitemaps a crawl reads (a crawler's Sitemaps field,
// the CLI's -sitemaps). The zero value is Listed; a value that is not one
// of the constants, negative ones included, reads as Listed.
type Policy int

const (
	Listed Policy = iota // those robots.txt lists (no request more on a host that lists none)
	All                  // those, and each host's /sitemap.xml (a request more a host)
	Off                  // none
)

// Discovery finds a crawl's sitemaps and reads them within the protocol's
// scope. When a host's robots.txt is fetched, [Discovery.FromRobots] gives
// the sitemaps to read, which a crawler schedules like links of the page
// that asked for it; [Discovery.Read] tells whether a response is a
// sitemap (an XML urlset or sitemap index, gzipped or not, or a text list
// of URLs that a robots.txt or an index listed), and gives the URLs it
// lists within the protocol's scope (see [Allowed]), each sitemap of an
// index too.
//
// A Discovery remembers which sitemaps a robots.txt listed, and the
// sitemaps of the indexes found through them, with that robots.txt's
// origin, whose URLs they may list: one entry (a fingerprint and an
// origin) per sitemap, for its life. A Discovery that did not see the
// robots.txt (it is new to a resumed crawl, or one of several machines
// sharing a crawl) lets an XML sitemap on a host whose robots.txt lists
// sitemaps (ListsSitemaps) list any URL of its own origin (not of
// another), and reads no text sitemap it was not told of.
//
// The zero value is ready to use. Set the fields before the first call
// and do not change them after; a Discovery must not be copied after
// first use. It is safe for concurrent use by multiple goroutines, and
// starts none.
type Discovery struct {
	// Policy says which sitemaps are read; the zero value, Listed, reads
	// those robots.txt files list.
	Policy Policy
	// Canon resolves and makes canonical the URLs of robots.txt's Sitemap
	// lines and of sitemaps. Nil: canon's defaults.
	Canon *canon.Canonicalizer
	// ListsSitemaps, if not nil, reports whether the robots.txt of origin
	// ("scheme://host[:port]", see [Origin]) lists sitemaps: Read asks it
	// of an XML sitemap it was not told of. It may fetch the file, and
	// must be safe for concurrent use. Nil: no robots.txt is asked, as in
	// a crawl that ignores robots.txt.
	ListsSitemaps func(ctx context.Context, origin string) bool
	// LastMods, if set, has Read give the lastmod of each URL that has
	// one (Listing.LastMods), for a crawl that revisits pages. Unset:
	// they are not kept.
	LastMods bool

	// listed maps the fingerprint of each sitemap URL that a robots.txt
	// listed (or an index found through one) to that robots.txt's origin.
	listed sync.Map
}

// FromRobots returns the sitemaps to read that the robots.txt of u's
// origin, just fetched, lists (sitemaps: its Sitemap lines, resolved
// against it) and, under All, the origin's /sitemap.xml: canonical URLs,
// those that resolve. It remembers the listed ones, for Read. Under Off,
// or for a u that is not an absolute http(s) URL, it returns nil.
func (d *Discovery) FromRobots(u *url.URL, sitemaps []string) []string {
	origin := Origin(u)
	if d.Policy == Off || origin == "" {
		return nil
	}
	base, err := url.Parse(origin + "/robots.txt")
	if err != nil {
		return nil
	}
	n := len(sitemaps)
	if d.Policy == All {
		sitemaps = append(sitemaps[:n:n], "/sitemap.xml")
	}
	out := make([]string, 0, len(sitemaps))
	for i, s := range sitemaps {
		l, err := d.Canon.Resolve(base, s)
		if err != nil {
			continue
		}
		if i < n {
			d.listed.Store(canon.Fingerprint(l), origin)
		}
		out = append(out, l)
	}
	return out
}

// Listing is what [Discovery.Read] found in a sitemap.
type Listing struct {
	// Kind is the sitemap's kind.
	Kind Kind
	// URLs are the URLs the sitemap lists within the protocol's scope,
	// canonical and each once, in its order: pages, or for an Index
	// sitemaps.
	URLs []string
	// LastMods are the lastmods the sitemap gives its URLs within scope,
	// one for each entry that has one (a URL listed twice may have two);
	// nil unless Discovery.LastMods is set.
	LastMods []LastMod
	// OutOfScope counts the entries out of the protocol's scope, or
	// whose loc is no URL.
	OutOfScope int
	// Unresolved holds the errors of the entries within scope that canon
	// could not make canonical (canon.ErrTooLong, canon.ErrHost, ...).
	Unresolved []error
	// Err is why the sitemap was read no further before its end, such
	// as [ErrTooManyEntries] or [ErrTooLarge]; nil if read to its end.
	Err error
}

// LastMod is a sitemap's lastmod of the page with fingerprint FP
// (canon.Fingerprint of its canonical URL).
type LastMod struct {
	FP uint64
	At time.Time
}

// Read returns what body lists, if it is a sitemap, within the protocol's
// scope; nil if it is none, and under Off. u is the URL body was fetched
// from, fp the fingerprint of its canonical form (canon.Fingerprint, as
// of a URL FromRobots or a Listing of an index returned). A text list of
// URLs counts as a sitemap only if robots.txt or an index listed it. The
// sitemaps an index lists are remembered as it is: listed, with its
// robots.txt's origin. Read reads at most the protocol's bounds of a
// sitemap (see [Reader]); its Listing's slices are the caller's.
func (d *Discovery) Read(ctx context.Context, u *url.URL, fp uint64, body []byte) *Listing {
	if d.Policy == Off {
		return nil
	}
	v, listed := d.listed.Load(fp)
	if !listed && !MaybeXML(body) {
		return nil // text, not listed: no sitemap (learning it from a Reader was a twentieth of a crawl's garbage)
	}
	robotsOrigin, _ := v.(string)
	sr, err := NewReader(bytes.NewReader(body))
	if err != nil || sr.Kind() == Text && !listed {
		return nil
	}
	if !listed && d.ListsSitemaps != nil {
		if origin := Origin(u); origin != "" && d.ListsSitemaps(ctx, origin) {
			robotsOrigin = origin
		}
	}
	l := &Listing{Kind: sr.Kind()}
	seen := make(map[string]struct{})
	for {
		e, err := sr.Next()
		if err != nil {
			if err != io.EOF {
				l.Err = err
			}
			break
		}
		if loc, err := url.Parse(e.Loc); err != nil || !Allowed(u, loc, robotsOrigin) {
			l.OutOfScope++
			continue
		}
		c, err := d.Canon.Resolve(u, e.Loc)
		if err != nil {
			l.Unresolved = append(l.Unresolved, err)
			continue
		}
		if d.LastMods && !e.LastMod.IsZero() {
			l.LastMods = append(l.LastMods, LastMod{canon.Fingerprint(c), e.LastMod})
		}
		if _, dup := seen[c]; dup {
			continue
		}
		seen[c] = struct{}{}
		l.URLs = append(l.URLs, c)
	}
	if l.Kind == Index {
		for _, s := range l.URLs {
			d.listed.Store(canon.Fingerprint(s), robotsOrigin)
		}
	}
	return l
}
