package politeness

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// ErrHostRetired is the error, wrapped, of the pages of a host a crawl
// gave up on ([Hosts.Begin]), after Pacing.MaxFailures failures in a row,
// after Pacing.NotFoundRetries retries for a host whose name does not
// exist ([HostNotFound]), or by [Hosts.Retire]; they are not fetched. Its
// text is the one it had as crawler.ErrHostRetired, since pages' errors
// reach users' outputs (the CLI's -out records).
var ErrHostRetired = errors.New("crawler: host retired")

// HostStats is the traffic accounting of one host, from [Hosts.Snapshot]
// (the crawler's Crawler.HostStats).
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
	Cookies        int           // cookies held for the host (see Hosts.CountCookies); 0 without a count
}

// MeanFetchTime returns the host's mean response time, 0 before its first
// request.
func (h HostStats) MeanFetchTime() time.Duration {
	if n := h.Requests + h.RobotsRequests; n > 0 {
		return h.FetchTime / time.Duration(n)
	}
	return 0
}

// HostSummary counts hosts by their politeness state, from
// [SummarizeHosts] or [Hosts.Summary]. Each host counts in one field, the
// first that fits in the order of the fields.
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

// Hosts is the host table of a crawl: each host's pacing state under one
// [Pacing] and its traffic accounting, shared by the crawler's workers.
// A worker calls [Hosts.Begin] before it processes a URL of a host and
// [Hosts.End] after, and [Hosts.Record] after each request to the host;
// [Hosts.Retire] gives up on a host. The zero Hosts is ready to use, with
// the zero (default) Pacing. A Hosts is safe for concurrent use, and
// must not be copied after first use; each method holds its lock for
// O(1), but Snapshot and Summary, O(hosts).
type Hosts struct {
	pacing Pacing

	mu    sync.Mutex
	hosts map[string]*hostEntry                   // nil until the first host
	delay func(host string) (time.Duration, bool) // see DelayHosts; nil: Pacing.Delay for every host
	// retiredNow holds the hosts Retire retired that TakeRetiring has not
	// returned yet; retiring receives when it has some (see Retiring).
	retiredNow []string
	retiring   chan struct{}
	// cookies counts the cookies held per host, for Snapshot (see
	// CountCookies); nil: none counted.
	cookies atomic.Pointer[func(host string) int]
}

// CountCookies sets count, which gives the number of cookies the crawl
// holds for a host (a cookies.Jar's HostCount), for HostStats.Cookies in
// Snapshot. It is called outside the table's lock, once per host a
// Snapshot returns. Nil: none counted.
func (t *Hosts) CountCookies(count func(host string) int) {
	if count == nil {
		t.cookies.Store(nil)
		return
	}
	t.cookies.Store(&count)
}

// hostEntry is one host's pacing state and accounting. Its HostStats are
// made when asked for (stats): the table holds an entry for each host a
// crawl meets, and this way the host's name, and the fields pace keeps
// (Delay, Failures, Retired), are not kept twice.
type hostEntry struct {
	pace                                    HostPace
	delay                                   time.Duration // the host's Pacing.Delay, from Hosts.delay; 0: the table's
	retired                                 error         // the error of the host's pages once it is retired
	requests, robotsRequests, bytes, errors int64
	fetchTime                               time.Duration
	inFlight                                int
	next                                    time.Time
	lastError                               string
}

// NewHosts returns an empty host table whose hosts are paced by p.
func NewHosts(p Pacing) *Hosts {
	return &Hosts{pacing: p}
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

// contacted reports whether the host was contacted, is being contacted or
// is retired, rather than only met.
func (h *hostEntry) contacted() bool {
	return h.requests > 0 || h.robotsRequests > 0 || h.inFlight > 0 || h.pace.Retired != ""
}

// entry returns host's entry, made if it has none; t.mu is held.
func (t *Hosts) entry(host string) *hostEntry {
	h := t.hosts[host]
	if h == nil {
		if t.hosts == nil {
			t.hosts = map[string]*hostEntry{}
		}
		h = &hostEntry{delay: t.hostDelay(host)}
		t.hosts[host] = h
	}
	return h
}

// DelayHosts sets delay, which gives a host's own least gap between
// requests in place of Pacing.Delay, when ok. The host then waits after a
// request that did not fail
//
//	max(d, min(Crawl-delay, MaxCrawlDelay), min(DelayFactor × response time, MaxAdaptiveDelay))
//
// so that a robots.txt Crawl-delay above d still holds; a d of 0 (or
// less) is no gap of its own, the other two terms still holding. Backoff
// after a failure is as for every host. The table calls delay once per
// host, when it first meets it, and keeps the result; DelayHosts calls it
// at once for the hosts met already, whose next request is paced by it
// (the wait their last request set stands). A nil delay gives every host
// Pacing.Delay. delay is called with the table's lock held: it must be
// quick, and must not call t.
func (t *Hosts) DelayHosts(delay func(host string) (d time.Duration, ok bool)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.delay = delay
	for name, h := range t.hosts {
		h.delay = t.hostDelay(name)
	}
}

// hostDelay returns the Pacing.Delay of host that t.delay gives: 0 for
// the table's, or the host's own, which is negative (none) for 0.
func (t *Hosts) hostDelay(host string) time.Duration {
	if t.delay == nil {
		return 0
	}
	d, ok := t.delay(host)
	switch {
	case !ok:
		return 0
	case d <= 0:
		return -1
	}
	return d
}

// pacingOf returns the Pacing of h: the table's, with h's own delay.
func (t *Hosts) pacingOf(h *hostEntry) Pacing {
	p := t.pacing
	if h.delay != 0 {
		p.Delay = h.delay
	}
	return p
}

// Begin counts a URL of host (host[:port], as in canonical URLs) in
// flight, unless the host is retired: then it returns the error, wrapping
// ErrHostRetired, that the host's pages get. A nil error must be matched
// by a call of End.
func (t *Hosts) Begin(host string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.entry(host)
	if h.retired != nil {
		return h.retired
	}
	h.inFlight++
	return nil
}

// End counts the end of a URL of host that Begin counted.
func (t *Hosts) End(host string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.hosts[host].inFlight--
}

// Retire gives up on host for the reason given, unless it is retired
// already, and reports whether it did. From then on Begin returns, for the
// host, an error wrapping ErrHostRetired that names the host and reason;
// Retiring and TakeRetiring tell of it.
func (t *Hosts) Retire(host, reason string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.entry(host)
	if h.retired != nil {
		return false
	}
	h.pace.Retired = reason
	h.retired = retiredError(host, reason)
	t.retiredNow = append(t.retiredNow, host)
	select {
	case t.retiringLocked() <- struct{}{}:
	default: // a receive is due already
	}
	return true
}

// Retiring returns a channel that receives when Retire has retired hosts
// that TakeRetiring has not returned: a crawler whose host waits for its delay
// or a backoff wakes it (frontier.Waker), so that its URLs end at once.
func (t *Hosts) Retiring() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.retiringLocked()
}

func (t *Hosts) retiringLocked() chan struct{} {
	if t.retiring == nil {
		t.retiring = make(chan struct{}, 1)
	}
	return t.retiring
}

// TakeRetiring returns the hosts Retire retired since its last call.
func (t *Hosts) TakeRetiring() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	hosts := t.retiredNow
	t.retiredNow = nil
	return hosts
}

// retiredError is the error, wrapping ErrHostRetired, that the pages of
// host get once it is retired for reason.
func retiredError(host, reason string) error {
	return fmt.Errorf("%w: %s: %s", ErrHostRetired, host, reason)
}

// Record accounts one request to host, a robots.txt fetch if robots is
// set and a page request if not, that received bytes of body and ended at
// now with outcome o, and returns when the host may be contacted again
// ([Pacing.Next]), or now for a host retired, whose URLs left are not
// fetched but end at once. If the request retired the host, justRetired is the
// error its pages get from now on: it wraps ErrHostRetired and cause (the
// request's error, if any), and says why ("name not found, N answers in a
// row", "N failures in a row, the last: ..."); later calls return nil
// for it. A cause that is, or wraps, an error with a method RetiresHost()
// bool that returns true retires the host at once, whatever
// Pacing.MaxFailures: justRetired then reads "crawler: host retired:
// <host>: <cause>", and HostStats.Retired is cause's text.
func (t *Hosts) Record(host string, robots bool, bytes int64, now time.Time, o Outcome, cause error) (next time.Time, justRetired error) {
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
	pacing := t.pacingOf(h)
	next = pacing.Next(p, now, o) // sets p.Retired after MaxFailures
	wasRetired := h.retired != nil
	if !wasRetired && retiresHost(cause) {
		p.Retired = cause.Error()
		h.retired = fmt.Errorf("%w: %s: %w", ErrHostRetired, host, cause)
	}
	if p.Retired != "" && h.retired == nil {
		if dnsErr, ok := errors.AsType[*net.DNSError](cause); ok && p.NotFound > 0 {
			h.retired = fmt.Errorf("%w: %s: name not found, %d answers in a row: %w", ErrHostRetired, host, p.NotFound, dnsErr)
		} else if cause == nil {
			h.retired = retiredError(host, p.Retired)
		} else {
			h.retired = fmt.Errorf("%w: %s: %d failures in a row, the last: %w", ErrHostRetired, host, p.Failures, cause)
		}
	}
	if h.retired == nil {
		h.next = next
		return next, nil
	}
	// A retired host is asked nothing more: its URLs left end at once
	// (Begin), rather than after a backoff of up to MaxBackoff.
	h.next = now
	if wasRetired {
		return now, nil
	}
	return now, h.retired
}

// hostRetirer is an error that may retire its host at once: see
// Hosts.Record.
type hostRetirer interface {
	error
	RetiresHost() bool
}

// retiresHost reports whether err retires its host at once: the first
// error in its tree that has a RetiresHost method says so.
func retiresHost(err error) bool {
	r, ok := errors.AsType[hostRetirer](err)
	return ok && r.RetiresHost()
}

// Summary counts the hosts that Snapshot returns by their state at now,
// as SummarizeHosts(t.Snapshot(), now) does, without copying or sorting
// them: a few nanoseconds a host, with the table's lock held.
func (t *Hosts) Summary(now time.Time) HostSummary {
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

// Snapshot returns the stats of every host contacted, being contacted or
// retired, sorted by host: not those whose URLs Begin and End counted
// without a request Recorded. The slice is the caller's.
func (t *Hosts) Snapshot() []HostStats {
	t.mu.Lock()
	out := make([]HostStats, 0, len(t.hosts))
	for name, h := range t.hosts {
		if !h.contacted() {
			continue // met only
		}
		out = append(out, h.stats(name))
	}
	t.mu.Unlock()
	if count := t.cookies.Load(); count != nil {
		for i := range out {
			out[i].Cookies = (*count)(out[i].Host)
		}
	}
	slices.SortFunc(out, func(a, b HostStats) int { return cmp.Compare(a.Host, b.Host) })
	return out
}
