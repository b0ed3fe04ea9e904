package crawler

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	"crawler/politeness"
)

// HostStats is the traffic accounting of one host in a Run, from
// [Crawler.HostStats].
type HostStats struct {
	Host           string        // host[:port], as in canonical URLs
	Requests       int64         // page requests sent, retries included
	RobotsRequests int64         // robots.txt fetches (redirect hops not counted apart)
	Bytes          int64         // body bytes received
	Errors         int64         // failures: 429 and 5xx responses, requests without response, robots.txt unavailable
	Delay          time.Duration // the current wait between two requests
	Failures       int           // failures in a row
	Retired        string        // why the crawl gave up on the host; "" while it is crawled
}

// hostTable is the per-host pacing state and accounting of one Run, shared
// by the workers.
type hostTable struct {
	pacing politeness.Pacing

	mu    sync.Mutex
	hosts map[string]*hostEntry
}

type hostEntry struct {
	stats   HostStats // Host left unset
	pace    politeness.HostPace
	retired error // the Err of the host's pages once it is retired
}

func newHostTable(p politeness.Pacing) *hostTable {
	return &hostTable{pacing: p, hosts: map[string]*hostEntry{}}
}

// retired returns the error, wrapping ErrHostRetired, that the pages of
// a retired host get, or nil while the host is crawled.
func (t *hostTable) retired(host string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h := t.hosts[host]; h != nil {
		return h.retired
	}
	return nil
}

// record accounts one request to host (a page when robots is false) that
// ended at now, and returns when the host may be contacted again. If the
// request retired the host, justRetired is the error its pages get from now
// on, wrapping ErrHostRetired and cause (the request's error, if any).
func (t *hostTable) record(host string, robots bool, bytes int64, now time.Time, o politeness.Outcome, cause error) (next time.Time, justRetired error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.hosts[host]
	if h == nil {
		h = new(hostEntry)
		t.hosts[host] = h
	}
	s, p := &h.stats, &h.pace
	if robots {
		s.RobotsRequests++
	} else {
		s.Requests++
	}
	s.Bytes += bytes
	if o.Failed() {
		s.Errors++
	}
	next = t.pacing.Next(p, now, o)
	s.Delay, s.Failures, s.Retired = p.Delay, p.Failures, p.Retired
	if p.Retired != "" && h.retired == nil {
		if cause == nil {
			h.retired = fmt.Errorf("%w: %s: %s", ErrHostRetired, host, p.Retired)
		} else {
			h.retired = fmt.Errorf("%w: %s: %d failures in a row, the last: %w", ErrHostRetired, host, p.Failures, cause)
		}
		return next, h.retired
	}
	return next, nil
}

// snapshot returns the stats of every host contacted, sorted by host.
func (t *hostTable) snapshot() []HostStats {
	t.mu.Lock()
	out := make([]HostStats, 0, len(t.hosts))
	for name, h := range t.hosts {
		s := h.stats
		s.Host = name
		out = append(out, s)
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b HostStats) int { return cmp.Compare(a.Host, b.Host) })
	return out
}
