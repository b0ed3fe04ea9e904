package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"crawler/politeness"
)

// RobotsAllowed reports whether robots.txt lets the crawl fetch rawURL,
// an absolute http(s) URL, by the current Run's robots.txt cache and User-Agent.
// The first URL of an origin fetches its robots.txt through the Run's
// Fetcher (counted in Stats.RobotsFetched); a robots.txt that cannot be
// had disallows, as RFC 9309 says. It is for the requests a Fetcher makes
// on its own for a page, such as those of a browser rendering it
// (package render): the crawler asks for its own page requests itself.
// Under IgnoreRobots it reports true. It fails with ErrNotRunning outside
// Run. Safe to call from any goroutine.
func (c *Crawler) RobotsAllowed(ctx context.Context, rawURL string) (bool, error) {
	r := c.active.Load()
	if r == nil {
		return false, ErrNotRunning
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false, fmt.Errorf("crawler: RobotsAllowed: not an absolute http(s) URL: %q", rawURL)
	}
	if c.IgnoreRobots {
		return true, nil
	}
	rules, fetched, err := r.robots.Get(ctx, u.Scheme+"://"+u.Host) // rules is never nil
	if fetched {
		r.stats.robotsFetched.Add(1)
	}
	if _, unavailable := errors.AsType[*politeness.UnavailableError](err); err != nil && !unavailable {
		return false, err
	}
	allowed := rules.Allowed(r.agentToken, rawURL)
	if !allowed {
		r.stats.robotsBlocked.Add(1)
	}
	return allowed, nil
}
