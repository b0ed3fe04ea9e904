package sitemap

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"crawler/canon"
)

// Policy says which sitemaps a crawl reads (a crawler's Sitemaps field,
// the CLI's -sitemaps). The zero value is Auto; a value that is not one
// of the constants, negative ones included, reads as Auto.
type Policy int

const (
	// Auto reads those robots.txt lists and, in a crawl that revisits
	// pages (Discovery.Recrawl), the /sitemap.xml of each host whose
	// robots.txt lists none: one request more such a host, which a
	// continuous crawl repays. Without Recrawl it is Listed.
	Auto   Policy = iota
	Listed        // those robots.txt lists (no request more on a host that lists none)
	All           // those, and each host's /sitemap.xml (a request more a host)
	Off           // none
)

// String returns the name of p, as the CLI's -sitemaps takes it ("auto",
// "listed", "all", "off"), or "Policy(n)" for a value that is no
// constant.
func (p Policy) String() string {
	switch p {
	case Auto:
		return "auto"
	case Listed:
		return "listed"
	case All:
		return "all"
	case Off:
		return "off"
	}
	return "Policy(" + strconv.Itoa(int(p)) + ")"
}

// Discovery finds a crawl's sitemaps and reads them within the protocol's
// scope. When a host's robots.txt is fetched, [Discovery.FromRobots] gives
// the sitemaps to read, which a crawler schedules like links of the page
// that asked for it; [Discovery.Read] tells whether a response is a
// sitemap (an XML urlset or sitemap index, gzipped or not, or a text list
// of URLs that a robots.txt or an index listed), and gives the URLs it
// lists within the protocol's scope (see [Allowed]), each sitemap of an
// index too.
//
// A Discovery remembers which sitemaps a robots.txt listed, with that
// robots.txt's origin, whose URLs they may list, and the sitemaps of each
// index it read, with the index's scope: that origin, and the index's
// directory (so an index at /sitemap.xml whose sitemaps are under
// /sitemaps/ lets them list all of the site, as it could). It keeps one
// entry (a fingerprint and a scope) per sitemap, for its life. A
// Discovery that did not see the robots.txt or the index (it is new to a
// resumed crawl, or one of several machines sharing a crawl) lets an XML
// sitemap list its own directory, or any URL of its own origin (not of
// another) if that origin's robots.txt lists sitemaps (ListsSitemaps),
// and reads no text sitemap it was not told of.
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
	// Recrawl says the crawl revisits pages (a crawler's Recrawl is
	// set): Read gives the lastmod of each URL that has one
	// (Listing.LastMods), and under Auto, FromRobots adds /sitemap.xml
	// for a robots.txt that lists no sitemap. Unset: lastmods are not
	// kept, and Auto is Listed.
	Recrawl bool

	// listed maps the fingerprint of each sitemap URL that a robots.txt
	// or an index listed to its scope.
	listed sync.Map
}

// scope is what a sitemap that a robots.txt or an index listed may list
// beyond its own directory: any URL of robots, the origin of the
// robots.txt that listed it or its index ("" if none), and any URL under
// dir, the directory of the index that listed it, or of the index that
// listed that one ("http://example.com/maps/"; "" if no index did).
type scope struct{ robots, dir string }

// allows reports whether a sitemap of scope s, whose own directory (as
// dirOf gives it) is own, may list loc.
func (s scope) allows(own string, loc *url.URL) bool {
	return allowedIn(loc, own, s.robots) || s.dir != "" && under(loc, s.dir)
}

// FromRobots returns the sitemaps to read that the robots.txt of u's
// origin, just fetched, lists (sitemaps: its Sitemap lines, resolved
// against it) and, under All, or under Auto with Recrawl if it lists
// none, the origin's /sitemap.xml: canonical URLs, those that resolve. It
// remembers the listed ones, for Read. Under Off, or for a u that is not
// an absolute http(s) URL, it returns nil. A crawler that schedules them
// as it does links, through its URL-seen test, asks for a /sitemap.xml
// once, however often it fetches robots.txt again.
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
	if d.Policy == All || d.standard() && n == 0 {
		sitemaps = append(sitemaps[:n:n], "/sitemap.xml")
	}
	out := make([]string, 0, len(sitemaps))
	for i, s := range sitemaps {
		l, err := d.Canon.Resolve(base, s)
		if err != nil {
			continue
		}
		if i < n {
			d.listed.Store(canon.Fingerprint(l), scope{robots: origin})
		}
		out = append(out, l)
	}
	return out
}

// standard reports whether d's Policy has FromRobots add /sitemap.xml
// for a robots.txt that lists no sitemap: Auto with Recrawl. The values
// that are no constant read as Auto.
func (d *Discovery) standard() bool {
	return d.Recrawl && d.Policy != Listed && d.Policy != All && d.Policy != Off
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
	// nil unless Discovery.Recrawl is set.
	LastMods []LastMod
	// OutOfScope counts the entries out of the protocol's scope, or
	// whose loc is no URL.
	OutOfScope int
	// Unresolved holds the errors of the entries within scope that canon
	// could not make canonical (canon.ErrTooLong, canon.ErrHost, ...).
	Unresolved []error
	// Err is why the sitemap was read no further before its end, such
	// as [ErrTooManyEntries], [ErrTooLarge], or a syntax error or the
	// file cut short (the entries before it are read); nil if read to
	// its end.
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
// URLs counts as a sitemap only if robots.txt or an index listed it; an
// XML urlset, index or feed (see [Kind]) wherever it was found, a feed's
// relative links resolved against u. The sitemaps an index lists are
// remembered with the index's scope: its robots.txt's origin, and its
// directory. Read reads at most the protocol's bounds of a sitemap (see
// [Reader]); its Listing's slices are the caller's.
func (d *Discovery) Read(ctx context.Context, u *url.URL, fp uint64, body []byte) *Listing {
	if d.Policy == Off {
		return nil
	}
	v, listed := d.listed.Load(fp)
	if !listed && !MaybeXML(body) {
		return nil // text, not listed: no sitemap (learning it from a Reader was a twentieth of a crawl's garbage)
	}
	sc, _ := v.(scope)
	sr, err := NewReader(bytes.NewReader(body))
	if err != nil || sr.Kind() == Text && !listed {
		return nil
	}
	if !listed && d.ListsSitemaps != nil {
		if origin := Origin(u); origin != "" && d.ListsSitemaps(ctx, origin) {
			sc.robots = origin
		}
	}
	l := &Listing{Kind: sr.Kind()}
	own := dirOf(u)
	seen := make(map[string]struct{})
	for {
		e, err := sr.Next()
		if err != nil {
			if err != io.EOF {
				l.Err = err
			}
			break
		}
		loc, err := url.Parse(e.Loc)
		if err == nil && l.Kind == Feed {
			loc = u.ResolveReference(loc)
		}
		if err != nil || !sc.allows(own, loc) {
			l.OutOfScope++
			continue
		}
		c, err := d.Canon.Resolve(u, e.Loc)
		if err != nil {
			l.Unresolved = append(l.Unresolved, err)
			continue
		}
		if d.Recrawl && !e.LastMod.IsZero() {
			l.LastMods = append(l.LastMods, LastMod{canon.Fingerprint(c), e.LastMod})
		}
		if _, dup := seen[c]; dup {
			continue
		}
		seen[c] = struct{}{}
		l.URLs = append(l.URLs, c)
	}
	if l.Kind == Index {
		parts := scope{robots: sc.robots, dir: own}
		if sc.dir != "" && strings.HasPrefix(parts.dir, sc.dir) {
			parts.dir = sc.dir // an index of indexes: the widest
		}
		for _, s := range l.URLs {
			d.listed.Store(canon.Fingerprint(s), parts)
		}
	}
	return l
}
