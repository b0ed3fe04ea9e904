package crawler

import (
	"cmp"
	"errors"
	"fmt"
	"net"
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
	Errors         int64         // failures: 429 and 5xx responses, requests without response (a name not found included), robots.txt unavailable
	Delay          time.Duration // the current wait between two requests
	Failures       int           // failures in a row
	Retired        string        // why the crawl gave up on the host; "" while it is crawled
	InFlight       int           // URLs of the host being processed by workers now
	Next           time.Time     // when the host may be asked again; zero before its first request
	FetchTime      time.Duration // the response times of its requests added up (robots.txt included)
	LastError      string        // the last failure, as "status 503" or the error's text; "" if none
}

// MeanFetchTime returns the host's mean response time, 0 before its first
// request.
func (h HostStats) MeanFetchTime() time.Duration {
	if n := h.Requests + h.RobotsRequests; n > 0 {
		return h.FetchTime / time.Duration(n)
	}
	return 0
}

// HostSummary counts the hosts of a Run by their politeness state, from
// [SummarizeHosts]. Each host counts in one field, the first that fits in
// the order of the fields.
type HostSummary struct {
	Retired    int // given up: HostStats.Retired is set
	Active     int // with URLs being processed now
	BackingOff int // failed on their last request (HostStats.Failures > 0): waiting longer
	Waiting    int // waiting out their delay before the next request
	Idle       int // none of those: free to be asked
}

// SummarizeHosts counts the hosts of hs by their state at now.
func SummarizeHosts(hs []HostStats, now time.Time) HostSummary {
	var s HostSummary
	for _, h := range hs {
		s.count(&h, now)
	}
	return s
}

// count counts h in its state at now.
func (s *HostSummary) count(h *HostStats, now time.Time) {
	switch {
	case h.Retired != "":
		s.Retired++
	case h.InFlight > 0:
		s.Active++
	case h.Failures > 0:
		s.BackingOff++
	case h.Next.After(now):
		s.Waiting++
	default:
		s.Idle++
	}
}

// HostSummary counts the hosts of the current Run, or the last one, by
// their state at now, as SummarizeHosts(c.HostStats(), now) does, without
// copying or sorting them: it costs O(hosts) with the host table held,
// a few nanoseconds a host. Safe to call at any time, from any goroutine.
func (c *Crawler) HostSummary(now time.Time) HostSummary {
	if t := c.hostStats.Load(); t != nil {
		return t.summary(now)
	}
	return HostSummary{}
}

// hostTable is the per-host pacing state and accounting of one Run, shared
// by the workers.
type hostTable struct {
	pacing politeness.Pacing

	mu    sync.Mutex
	hosts map[string]*hostEntry
}

// hostEntry is one host's pacing state and accounting. Its HostStats are
// made when asked for (stats): the table holds an entry for each host a
// Run meets, and this way the host's name, and the fields pace keeps
// (Delay, Failures, Retired), are not kept twice.
type hostEntry struct {
	pace                                    politeness.HostPace
	retired                                 error // the Err of the host's pages once it is retired
	requests, robotsRequests, bytes, errors int64
	fetchTime                               time.Duration
	inFlight                                int
	next                                    time.Time
	lastError                               string
}

// stats returns the HostStats of h, the entry of host.
func (h *hostEntry) stats(host string) HostStats {
	return HostStats{
		Host:           host,
		Requests:       h.requests,
		RobotsRequests: h.robotsRequests,
		Bytes:          h.bytes,
		Errors:         h.errors,
		Delay:          h.pace.Delay,
		Failures:       h.pace.Failures,
		Retired:        h.pace.Retired,
		InFlight:       h.inFlight,
		Next:           h.next,
		FetchTime:      h.fetchTime,
		LastError:      h.lastError,
	}
}

func newHostTable(p politeness.Pacing) *hostTable {
	return &hostTable{pacing: p, hosts: map[string]*hostEntry{}}
}

// entry returns host's entry, made if it has none; t.mu is held.
func (t *hostTable) entry(host string) *hostEntry {
	h := t.hosts[host]
	if h == nil {
		h = new(hostEntry)
		t.hosts[host] = h
	}
	return h
}

// begin counts a URL of host in flight, unless the host is retired: then
// it returns the error, wrapping ErrHostRetired, that the host's pages
// get. A nil error must be matched by a call of end.
func (t *hostTable) begin(host string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.entry(host)
	if h.retired != nil {
		return h.retired
	}
	h.inFlight++
	return nil
}

// end counts the end of a URL of host that begin counted.
func (t *hostTable) end(host string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hosts[host].inFlight--
}

// retire gives up on host for the reason given, unless it is retired
// already, and reports whether it did.
func (t *hostTable) retire(host, reason string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.entry(host)
	if h.retired != nil {
		return false
	}
	h.pace.Retired = reason
	h.retired = retiredError(host, reason)
	return true
}

// retiredError is the error, wrapping ErrHostRetired, that the pages of
// host get once it is retired for reason.
func retiredError(host, reason string) error {
	return fmt.Errorf("%w: %s: %s", ErrHostRetired, host, reason)
}

// record accounts one request to host (a page when robots is false) that
// ended at now, and returns when the host may be contacted again. If the
// request retired the host, justRetired is the error its pages get from now
// on, wrapping ErrHostRetired and cause (the request's error, if any).
func (t *hostTable) record(host string, robots bool, bytes int64, now time.Time, o politeness.Outcome, cause error) (next time.Time, justRetired error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.entry(host)
	p := &h.pace
	if robots {
		h.robotsRequests++
	} else {
		h.requests++
	}
	h.bytes += bytes
	h.fetchTime += o.Duration
	if o.Failed() {
		h.errors++
		if o.Err != nil {
			h.lastError = o.Err.Error()
		} else {
			h.lastError = fmt.Sprintf("status %d", o.Status)
		}
	}
	next = t.pacing.Next(p, now, o)
	h.next = next
	if p.Retired != "" && h.retired == nil {
		if dnsErr, ok := errors.AsType[*net.DNSError](cause); ok && p.NotFound > 0 {
			h.retired = fmt.Errorf("%w: %s: name not found, %d answers in a row: %w", ErrHostRetired, host, p.NotFound, dnsErr)
		} else if cause == nil {
			h.retired = retiredError(host, p.Retired)
		} else {
			h.retired = fmt.Errorf("%w: %s: %d failures in a row, the last: %w", ErrHostRetired, host, p.Failures, cause)
		}
		return next, h.retired
	}
	return next, nil
}

// summary counts the hosts that snapshot returns by their state at now.
func (t *hostTable) summary(now time.Time) HostSummary {
	t.mu.Lock()
	defer t.mu.Unlock()
	var s HostSummary
	for name, h := range t.hosts {
		if h.contacted() {
			st := h.stats(name)
			s.count(&st, now)
		}
	}
	return s
}

// contacted reports whether the host was contacted, is being contacted or
// is retired, rather than only met.
func (h *hostEntry) contacted() bool {
	return h.requests > 0 || h.robotsRequests > 0 || h.inFlight > 0 || h.pace.Retired != ""
}

// snapshot returns the stats of every host contacted, being contacted or
// retired, sorted by host.
func (t *hostTable) snapshot() []HostStats {
	t.mu.Lock()
	out := make([]HostStats, 0, len(t.hosts))
	for name, h := range t.hosts {
		if !h.contacted() {
			continue // met only
		}
		out = append(out, h.stats(name))
	}
	t.mu.Unlock()
	slices.SortFunc(out, func(a, b HostStats) int { return cmp.Compare(a.Host, b.Host) })
	return out
}
