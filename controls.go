package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"crawler/frontier"
	"crawler/politeness"
)

// Pause stops the crawl from starting URLs until Resume; the fetches in
// flight end. A paused Run holds its place and still stops when its
// context is done; a Crawler paused before Run starts paused. Safe to call
// at any time, from any goroutine.
func (c *Crawler) Pause() { c.paused.Set(true) }

// Resume lets a paused crawl start URLs again.
func (c *Crawler) Resume() { c.paused.Set(false) }

// Paused reports whether the crawl is paused.
func (c *Crawler) Paused() bool {
	paused, _ := c.paused.State()
	return paused
}

// RetireHost gives up on host (host[:port]) for the rest of the current
// Run, as Pacing does after MaxFailures failures: its waiting URLs reach
// the Handler with politeness.ErrHostRetired, unfetched, at once if the
// host waits for its delay or a backoff and the Frontier is a
// frontier.Waker (this module's are), else when the wait ends. It reports
// whether this call retired it; ErrNotRunning outside Run. Safe to call
// from any goroutine.
func (c *Crawler) RetireHost(host, reason string) (bool, error) {
	r := c.active.Load()
	if r == nil {
		return false, ErrNotRunning
	}
	if reason == "" {
		reason = "retired by the operator"
	}
	if !r.hostTab.Retire(host, reason) {
		return false, nil
	}
	r.stats.hostsRetired.Add(1)
	return true, nil
}

// Stats returns the counters of the current Run, or of the last one. Safe
// to call at any time, from any goroutine.
func (c *Crawler) Stats() Stats {
	if s := c.stats.Load(); s != nil {
		return s.counts.snapshot()
	}
	return Stats{Status: map[int]int64{}, Errors: map[string]int64{}, Traps: map[string]int64{}}
}

// HostStats returns the accounting of every host contacted in the current
// Run, or the last one, sorted by host. Safe to call at any time.
func (c *Crawler) HostStats() []politeness.HostStats {
	if t := c.hostStats.Load(); t != nil {
		return t.Snapshot()
	}
	return nil
}

// TotalStats returns the counters of the whole crawl, every Run's added,
// those a durable frontier kept included (see the package doc); the
// gauges (Seen, Frontier, InFlight, Hosts) are the last Run's. Safe to
// call at any time, from any goroutine.
func (c *Crawler) TotalStats() Stats {
	last := c.stats.Load()
	if last == nil {
		if k, ok := c.Frontier.(frontier.Keeper); ok && !c.running.Load() {
			var s Stats
			if found, err := frontier.KeptJSON(k, keptStats, &s); found && err == nil {
				return s.plus(Stats{})
			}
		}
		return c.Stats()
	}
	return last.before.plus(last.counts.snapshot())
}

// HostSummary is politeness.SummarizeHosts(c.HostStats(), now) without
// copying or sorting the hosts: a few nanoseconds a host. Safe to call at
// any time.
func (c *Crawler) HostSummary(now time.Time) politeness.HostSummary {
	if t := c.hostStats.Load(); t != nil {
		return t.Summary(now)
	}
	return politeness.HostSummary{}
}

// RobotsAllowed reports whether robots.txt lets the current Run fetch
// rawURL, an absolute http(s) URL, fetching the file if needed; one that
// cannot be had disallows (RFC 9309). It is for the requests a Fetcher
// makes on its own, such as a browser's (package render). Under
// IgnoreRobots it reports true; ErrNotRunning outside Run.
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
