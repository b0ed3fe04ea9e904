package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"crawler/canon"
	"crawler/frontier"
	"crawler/politeness"
)

// process does the parallel part of one URL on a worker goroutine: robots,
// fetch, link extraction, the handler, canonicalization and scope.
func (r *run) process(ctx context.Context, e frontier.Entry) outcome {
	o := outcome{entry: e}
	if ctx.Err() != nil {
		o.retry = true
		return o
	}
	u, err := url.Parse(e.URL)
	if err != nil { // canonical URLs always parse; this is a bug upstream
		r.stats.addError(KindOther)
		r.log.Warn("unparsable canonical URL", "url", e.URL, "err", err)
		return o
	}

	crawlDelay := time.Duration(0)
	if !r.c.IgnoreRobots {
		rules, fetched, err := r.robots.Get(ctx, u.Scheme+"://"+u.Host) // rules is never nil
		crawlDelay = rules.CrawlDelay(r.agentToken)
		if fetched {
			// The robots.txt request used the host's turn.
			r.stats.robotsFetched.Add(1)
			o.next = time.Now().Add(r.hostDelay(crawlDelay))
		}
		switch {
		case ctx.Err() != nil:
			o.retry = true
			return o
		case err != nil:
			// Unreachable or failing: RFC 9309 says crawl nothing there for
			// now. The page was tried, so its handler hears why.
			r.stats.addError(KindRobotsUnavailable)
			r.log.Warn("robots.txt unavailable: URL skipped", "url", e.URL, "err", err)
			r.handle(ctx, &Page{URL: e.URL, Depth: e.Depth, Referrer: e.Referrer, Err: err, FetchedAt: time.Now()})
			return o
		case fetched && r.hostDelay(crawlDelay) > 0:
			o.retry = true // come back once the host's turn comes again
			return o
		case !rules.Allowed(r.agentToken, e.URL):
			r.stats.robotsBlocked.Add(1)
			r.log.Debug("disallowed by robots.txt", "url", e.URL)
			return o
		}
	}

	o.requested = true
	r.stats.requests.Add(1)
	start := time.Now()
	resp, err := r.fetcher.Fetch(ctx, &Request{URL: e.URL, UserAgent: r.userAgent})
	o.next = time.Now().Add(r.hostDelay(crawlDelay))
	if err != nil && ctx.Err() != nil {
		// Cut short by the end of the crawl: leave it for a later Run.
		o.requested, o.retry = false, true
		r.stats.requests.Add(-1)
		return o
	}

	p := &Page{URL: e.URL, Depth: e.Depth, Referrer: e.Referrer, FetchedAt: start, Err: err}
	if err != nil {
		p.Duration = time.Since(start)
		r.stats.addError(ErrorKind(err))
		r.log.Warn("fetch failed", "url", e.URL, "err", err)
	} else {
		r.readResponse(p, u, e, resp)
	}
	r.handle(ctx, p)
	if !p.NoFollow || r.c.IgnoreNoFollow {
		r.scopeLinks(p, e, &o)
	}
	return o
}

// hostDelay is the wait before the next request to a host.
func (r *run) hostDelay(crawlDelay time.Duration) time.Duration {
	return politeness.HostDelay(r.delay, crawlDelay, r.maxCrawlDelay)
}

// readResponse fills p from resp: counters, redirect target, and for HTML
// the links and directives.
func (r *run) readResponse(p *Page, u *url.URL, e frontier.Entry, resp *Response) {
	p.Status, p.Header, p.Body, p.Truncated, p.Duration = resp.Status, resp.Header, resp.Body, resp.Truncated, resp.Duration
	p.ContentType = resp.Header.Get("Content-Type")
	r.stats.fetched.Add(1)
	r.stats.bytes.Add(int64(len(resp.Body)))
	r.stats.addStatus(resp.Status)
	if resp.Truncated {
		r.stats.truncated.Add(1)
	}
	r.log.Debug("fetched", "url", e.URL, "status", resp.Status, "bytes", len(resp.Body), "depth", e.Depth)

	if isRedirect(resp.Status) {
		loc := resp.Header.Get("Location")
		target, err := r.canon.Resolve(u, loc)
		switch {
		case loc == "" || err != nil:
			p.Err = fmt.Errorf("%w: %q", ErrBadRedirect, loc)
			r.stats.addError(KindBadRedirect)
		case e.Hops+1 > r.maxRedirects:
			p.Redirect = target
			p.Err = fmt.Errorf("%w: %d hops to %s", ErrTooManyRedirects, e.Hops+1, target)
			r.stats.addError(KindTooManyRedirects)
		default:
			p.Redirect = target
			r.stats.redirects.Add(1)
		}
		return
	}
	// Links are taken from successful HTML pages only: an error page's
	// links are the site's navigation at best, and a trap at worst.
	if resp.Status/100 != 2 || !isHTML(p.ContentType, p.Body) {
		return
	}
	ex := extractLinks(p.Body, r.c.IgnoreNoFollow)
	p.NoFollow, p.NoIndex = ex.noFollow, ex.noIndex
	base := u
	if ex.base != "" {
		if b, err := r.canon.Resolve(u, ex.base); err == nil {
			if bu, err := url.Parse(b); err == nil {
				base = bu
			}
		}
	}
	if ex.canonical != "" {
		p.Canonical, _ = r.canon.Resolve(base, ex.canonical)
	}
	p.Links = make([]string, 0, len(ex.hrefs))
	dedup := make(map[string]struct{}, len(ex.hrefs))
	for _, href := range ex.hrefs {
		l, err := r.canon.Resolve(base, href)
		if err != nil {
			if !errors.Is(err, canon.ErrScheme) { // mailto:, javascript: and the like are no error
				r.stats.badLinks.Add(1)
			}
			continue
		}
		if _, dup := dedup[l]; dup {
			continue
		}
		dedup[l] = struct{}{}
		p.Links = append(p.Links, l)
	}
}

func isRedirect(status int) bool {
	switch status {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

// handle runs the handler on p, counting (not propagating) its errors and
// panics.
func (r *run) handle(ctx context.Context, p *Page) {
	if r.handler == nil {
		return
	}
	err := func() (err error) {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("crawler: handler panic: %v", v)
			}
		}()
		return r.handler.Handle(ctx, p)
	}()
	if err != nil && !errors.Is(err, ErrSkip) {
		r.stats.addError(KindHandler)
		r.log.Warn("handler failed", "url", p.URL, "err", err)
	}
}

// scopeLinks turns the page's links and redirect target into outcome links
// for the scheduler, dropping those out of scope.
func (r *run) scopeLinks(p *Page, e frontier.Entry, o *outcome) {
	if p.Redirect != "" && p.Err == nil {
		r.addLink(o, p.Redirect, e.Depth, e.Hops+1)
	}
	if len(p.Links) == 0 {
		return
	}
	o.linkFPs = make([]uint64, 0, len(p.Links))
	for _, l := range p.Links {
		r.addLink(o, l, e.Depth+1, 0)
	}
}

func (r *run) addLink(o *outcome, u string, depth, hops int) {
	fp, host := canon.Fingerprint(u), canon.Host(u)
	if hops == 0 {
		o.linkFPs = append(o.linkFPs, fp)
	}
	if !r.scope.allows(u, host, depth) {
		r.stats.outOfScope.Add(1)
		return
	}
	o.links = append(o.links, link{url: u, fp: fp, host: host, depth: depth, hops: hops})
}

// fetchRobots fetches a robots.txt through the crawler's Fetcher, following
// up to robotsMaxRedirects redirects (RFC 9309 §2.3.1.2). More, or a loop,
// makes the file "unavailable": the last 3xx status is returned, which the
// cache reads as no restrictions, as the RFC allows.
func (r *run) fetchRobots(ctx context.Context, robotsURL string) (int, []byte, error) {
	target := robotsURL
	status := 0
	for range robotsMaxRedirects + 1 {
		resp, err := r.fetcher.Fetch(ctx, &Request{URL: target, UserAgent: r.userAgent, MaxBytes: robotsMaxBytes})
		if err != nil {
			return 0, nil, err
		}
		if status = resp.Status; !isRedirect(status) {
			return status, resp.Body, nil
		}
		base, err := url.Parse(target)
		if err != nil {
			return 0, nil, err
		}
		next, err := r.canon.Resolve(base, resp.Header.Get("Location"))
		if err != nil {
			return status, nil, nil // a redirect to nowhere: unavailable too
		}
		target = next
	}
	return status, nil, nil
}
