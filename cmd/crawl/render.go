package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"crawler"
	"crawler/canon"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/render"
)

// newRenderer returns the fetcher of a crawl that renders pages, as -render
// and -render-hosts ask, in headless Chromium: f makes every request, the
// page's and the browser's, and c's robots.txt rules and the crawl's
// per-host delay apply to the browser's requests. It returns nil when
// nothing is to be rendered, and an error when no browser is found.
func newRenderer(o *options, f *fetch.HTTPFetcher, c *crawler.Crawler) (*render.Fetcher, error) {
	if !o.render && o.renderHosts == "" {
		return nil, nil
	}
	browser, err := render.FindBrowser()
	if err != nil {
		return nil, fmt.Errorf("-render: %w (install chromium, or name the browser in CRAWLER_BROWSER)", err)
	}
	rf := &render.Fetcher{
		Fetcher:   f,
		ExecPath:  browser,
		Tabs:      o.renderTabs,
		UserAgent: o.userAgent,
		Allowed:   c.RobotsAllowed,
		Pace:      newHostSpacing(politeness.Or(o.pacing.Delay, politeness.DefaultDelay)).wait,
	}
	if !o.render {
		hosts := map[string]bool{}
		for h := range strings.SplitSeq(o.renderHosts, ",") {
			hosts[strings.ToLower(strings.TrimSpace(h))] = true
		}
		rf.Render = func(u string) bool { return hosts[canon.Host(u)] }
	}
	return rf, nil
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
	s.mu.Lock()
	now := time.Now()
	at := now
	if next := s.next[host]; next.After(now) {
		at = next
	}
	s.next[host] = at.Add(s.delay)
	s.mu.Unlock()
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
