package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"crawler"
	"crawler/canon"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/render"
	"crawler/sites"
)

// newRenderer returns the fetcher of a crawl that renders pages, as -render
// and -render-hosts ask, in headless Chromium: f makes every request, the
// page's and the browser's, and c's robots.txt rules and the crawl's
// per-host delay apply to the browser's requests. The delay counts from
// the page's own request too, so the page's scripts and XHR to its host
// wait their turn after it; the crawler then paces the host's next page
// from the end of the render. It returns nil when nothing is to be
// rendered, and an error when no browser is found.
func newRenderer(o *options, f *fetch.HTTPFetcher, c *crawler.Crawler) (*render.Fetcher, error) {
	renders := slices.ContainsFunc(o.sites.Sites(), func(s sites.Site) bool { return s.Render != nil && *s.Render })
	if !o.render && o.renderHosts == "" && !renders {
		return nil, nil
	}
	browser, err := render.FindBrowser()
	if err != nil {
		return nil, fmt.Errorf("-render: %w (install chromium, or name the browser in CRAWLER_BROWSER)", err)
	}
	spacing := newHostSpacing(politeness.Or(o.pacing.Delay, politeness.DefaultDelay))
	var pageFetcher fetch.Fetcher = f
	if c.Sites != nil { // a site's headers on its own requests alone
		pageFetcher, c.Sites.Plain = c.Sites.Decorate(f), f
	}
	rf := &render.Fetcher{
		Fetcher:  spacedFetcher{pageFetcher, spacing},
		ExecPath: browser,
		Tabs:     o.renderTabs,
		Allowed:  c.RobotsAllowed,
		Pace:     spacing.wait,
	}
	if f.Jar != nil {
		// The renderer shares the jar with the browser both ways (what a
		// page's script sets lands in it); it sends the cookies, so the
		// fetcher under it sends none of its own.
		rf.Jar = c.Sites.FilterJar(f.Jar)
		rf.Fetcher = spacedFetcher{cookieless{pageFetcher}, spacing}
	}
	hosts := map[string]bool{}
	for h := range strings.SplitSeq(o.renderHosts, ",") {
		hosts[strings.ToLower(strings.TrimSpace(h))] = true
	}
	// -render, else -render-hosts, else nothing; a site's render wins.
	rf.Render = func(u string) bool { return c.Sites.Renders(u, o.render || hosts[canon.Host(u)]) }
	return rf, nil
}

// cookieless sends each request without the fetcher's cookies: the
// renderer above it sends and keeps them (render.Fetcher.Jar).
type cookieless struct{ fetch.Fetcher }

func (f cookieless) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	r := *req
	r.NoCookies = true
	return f.Fetcher.Fetch(ctx, &r)
}

// hostSpacing keeps the requests of a rendering browser to each host at
// least its delay apart, counted from the start of the one before: the
// crawl's -delay, for the scripts, XHR and frames of the pages it renders.
type hostSpacing struct {
	delay time.Duration // 0 or negative: none

	mu   sync.Mutex
	next map[string]time.Time // by host: when it may be asked again
}

func newHostSpacing(delay time.Duration) *hostSpacing {
	return &hostSpacing{delay: delay, next: map[string]time.Time{}}
}

// wait returns once host may be asked, having taken the turn, or with
// ctx's error.
func (s *hostSpacing) wait(ctx context.Context, host string) error {
	if s.delay <= 0 {
		return nil
	}
	now := time.Now()
	at := s.take(host, now)
	if at.Equal(now) {
		return nil
	}
	t := time.NewTimer(at.Sub(now))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// take takes host's next turn, at now or later, and returns when it is.
func (s *hostSpacing) take(host string, now time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := now
	if next := s.next[host]; next.After(now) {
		at = next
	}
	s.next[host] = at.Add(s.delay)
	return at
}

// sent records a request to host sent at now, unpaced: the next turn is a
// delay after it at the earliest.
func (s *hostSpacing) sent(host string, now time.Time) {
	if s.delay <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if next := now.Add(s.delay); next.After(s.next[host]) {
		s.next[host] = next
	}
}

// spacedFetcher is the fetcher of a render.Fetcher: each request it makes
// counts in spacing as sent now. The browser's requests have waited for
// their turn already (Pace), which this leaves as it is; the page's own,
// which the crawler paced, makes the browser's first request to its host
// wait a delay after it.
type spacedFetcher struct {
	fetch.Fetcher
	spacing *hostSpacing
}

func (f spacedFetcher) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	f.spacing.sent(canon.Host(req.URL), time.Now())
	return f.Fetcher.Fetch(ctx, req)
}
