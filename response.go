package crawler

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/zeebo/xxh3"

	"crawler/fetch"
	"crawler/frontier"
	"crawler/internal/links"
	"crawler/sitemap"
	"crawler/traps"
)

// readResponse fills p from resp: counters, redirect target, and for HTML
// the links and directives; and o with what the scheduler needs of it:
// for a 2xx response, the content fingerprint (and html for HTML).
func (r *runState) readResponse(ctx context.Context, p *Page, u *url.URL, o *outcome, resp *fetch.Response) {
	e := o.entry
	p.Status, p.Header, p.Body, p.Truncated, p.Duration = resp.Status, resp.Header, resp.Body, resp.Truncated, resp.Duration
	o.visit.Status, o.visit.ETag, o.visit.LastModified, o.visit.Date = resp.Status, resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"), resp.Header.Get("Date")
	o.visit.Gone = resp.Status/100 == 4 && resp.Status != http.StatusTooManyRequests || fetch.IsRedirect(resp.Status)
	p.ContentType = resp.Header.Get("Content-Type")
	p.NoIndex, p.NoFollow = links.XRobotsTag(resp.Header.Values("X-Robots-Tag"), r.agentToken)
	r.countResponse(resp)
	r.log.Debug("fetched", "url", e.URL, "status", resp.Status, "bytes", len(resp.Body), "depth", e.Depth)

	if fetch.IsRedirect(resp.Status) {
		r.readRedirect(p, u, o, resp)
		return
	}
	// Links are taken from successful HTML pages and sitemaps only: an
	// error page's links are the site's navigation at best, and a trap at
	// worst.
	if resp.Status/100 != 2 {
		return
	}
	if !links.IsHTML(p.ContentType, p.Body) {
		p.Links, o.visit.LastMods = r.readSitemap(ctx, u, e, p.Body)
		if r.c.Recrawl != nil { // only revisits compare other bodies; one without links is a resource
			o.visit.Content, o.visit.Resource = xxh3.Hash(p.Body), p.Links == nil
		}
		return
	}
	r.readHTML(p, u, o)
}

// readRedirect sets the redirect target of p, the page of o at u: the
// Location of resp resolved, unless it does not resolve or the page is
// MaxRedirects hops from where it started, which p.Err then says. A
// redirect to the page itself that set a cookie (a site giving each new
// visitor a cookie and sending it back) is the page's next hop: o is set
// to fetch it again, with the cookie if the Fetcher keeps cookies, and the
// Handler sees the page then. It counts each.
func (r *runState) readRedirect(p *Page, u *url.URL, o *outcome, resp *fetch.Response) {
	e := o.entry
	loc := resp.Header.Get("Location")
	target, err := r.canon.Resolve(u, loc)
	switch {
	case loc == "" || err != nil:
		p.Err = fmt.Errorf("%w: %q", ErrBadRedirect, loc)
		r.stats.errors.Add(KindBadRedirect, 1)
	case e.Hops+1 > r.maxRedirects:
		p.Redirect = target
		p.Err = fmt.Errorf("%w: %d hops to %s", ErrTooManyRedirects, e.Hops+1, target)
		r.stats.errors.Add(KindTooManyRedirects, 1)
	case target == e.URL && len(resp.Header.Values("Set-Cookie")) > 0:
		o.retry = true
		o.entry.Hops++
		r.stats.redirects.Add(1)
	default:
		p.Redirect = target
		r.stats.redirects.Add(1)
	}
}

// readHTML fills p, the 2xx HTML page of o at u, with what its body says:
// robots directives, title, links (counting those dropped), canonical
// link and the page it is a near-duplicate of; and o with its content
// fingerprint.
func (r *runState) readHTML(p *Page, u *url.URL, o *outcome) {
	e := o.entry
	ex := links.Extract(p.Body, r.c.IgnoreNoFollow, r.agentToken, r.maxLinks)
	if ex.TooMany {
		r.stats.linksTruncated.Add(1)
		r.log.Warn("links cut short", "url", e.URL, "max_links", r.maxLinks)
	}
	p.NoFollow, p.NoIndex = p.NoFollow || ex.MetaNoFollow, p.NoIndex || ex.MetaNoIndex
	p.Title = ex.Title
	l := links.Resolve(r.canon, u, &ex, &r.linkSets)
	p.Links, p.NoFollowLinks, p.Canonical = l.Links, l.NoFollow, l.Canonical
	l.TooLong += ex.LongHrefs
	r.countDropped(l.Dropped)
	o.visit.Content, o.html = ex.Content, true
	if r.nearDups != nil && !o.visit.Revisit {
		if p.NearDuplicateOf = r.nearDups.FindOrAdd(e.URL, p.Body); p.NearDuplicateOf != "" {
			r.stats.nearDuplicates.Add(1)
		}
	}
}

// readSitemap returns the links of body, the response at u, if it is a
// sitemap (see sitemap.Discovery.Read), with the lastmods it gives them
// under Recrawl, counting it. MaxLinksPerPage does not apply: the
// protocol bounds a sitemap to 50,000 URLs.
func (r *runState) readSitemap(ctx context.Context, u *url.URL, e frontier.Entry, body []byte) ([]string, []sitemap.LastMod) {
	l := r.sitemaps.Read(ctx, u, e.FP, body)
	if l == nil {
		return nil, nil
	}
	r.stats.sitemaps.Add(1)
	r.stats.outOfScope.Add(int64(l.OutOfScope))
	var d links.Dropped
	for _, err := range l.Unresolved {
		d.Count(err)
	}
	r.countDropped(d)
	if l.Err != nil {
		r.stats.sitemapErrors.Add(1)
		r.log.Warn("sitemap read in part", "url", e.URL, "kind", l.Kind, "entries", len(l.URLs), "err", l.Err)
	}
	r.stats.sitemapURLs.Add(int64(len(l.URLs)))
	return l.URLs, l.LastMods
}

// countDropped counts the links of a page that did not resolve: in
// Stats.OtherSchemes, the URLLength trap rule, Stats.BadLinks.
func (r *runState) countDropped(d links.Dropped) {
	if d.OtherSchemes > 0 { // no shared counter is written for nothing
		r.stats.otherSchemes.Add(int64(d.OtherSchemes))
	}
	if d.TooLong > 0 {
		r.stats.traps.Add(traps.URLLength, int64(d.TooLong))
	}
	if d.Bad > 0 {
		r.stats.badLinks.Add(int64(d.Bad))
	}
}

// countResponse adds a response to the counters.
func (r *runState) countResponse(resp *fetch.Response) {
	r.stats.fetched.Add(1)
	r.stats.bytes.Add(int64(len(resp.Body)))
	r.stats.status.Add(resp.Status, 1)
	if resp.Truncated {
		r.stats.truncated.Add(1)
	}
}
