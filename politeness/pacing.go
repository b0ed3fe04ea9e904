package politeness

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Pacing is the policy that decides when a host may be contacted again after
// a request: the adaptive delay, Retry-After, exponential backoff on failures
// and the retirement of a host that keeps failing. Every field is used as it
// is (a zero field turns its rule off); the crawler fills in its own
// defaults. A Pacing is read-only and safe for concurrent use; the state it
// updates, a [HostPace], belongs to the caller.
//
// After a request that did not fail, the host waits
//
//	max(MinDelay, min(Crawl-delay, MaxCrawlDelay), min(DelayFactor × response time, MaxAdaptiveDelay))
//
// so a host that answers slowly is visited slowly (Mercator waited 10x the
// last fetch time; Heritrix 5x, clamped to 3–30 s, which is MinDelay 3s,
// DelayFactor 5, MaxAdaptiveDelay 30s here).
//
// A failure is a 429 or 5xx status or a request that got no response
// (network error, timeout). After the n-th failure in a row the host waits
// at least BackoffBase × 2^(n-1), capped at MaxBackoff, and at least what a
// Retry-After header asked for (capped at MaxRetryAfter). After MaxFailures
// failures in a row the host is retired: [HostPace.Retired] says why.
type Pacing struct {
	MinDelay         time.Duration // least wait between two requests to a host
	MaxCrawlDelay    time.Duration // cap on a robots.txt Crawl-delay; <= 0: no cap
	DelayFactor      float64       // multiple of the last response time to wait; <= 0: none
	MaxAdaptiveDelay time.Duration // cap on DelayFactor × response time; <= 0: no cap
	MaxRetryAfter    time.Duration // cap on a Retry-After wait; <= 0: Retry-After ignored
	BackoffBase      time.Duration // wait after the first failure in a row, doubled for each further one
	MaxBackoff       time.Duration // cap on the backoff; <= 0: no cap
	MaxFailures      int           // failures in a row that retire a host; <= 0: never retire
}

// HostPace is the pacing state of one host, updated by [Pacing.Next]. Its
// zero value is a host not yet contacted. It is not safe for concurrent use.
type HostPace struct {
	Failures int           // failures in a row, 0 after any success
	Delay    time.Duration // the wait set after the last request
	Retired  string        // why the host was retired; "" while it is active
}

// Outcome is what a request to a host came to, as [Pacing.Next] needs it.
type Outcome struct {
	Status     int           // HTTP status; 0 when there was no response
	Err        error         // the error of a request without response, else nil
	Duration   time.Duration // response time, from sending the request to the end of the body
	RetryAfter string        // the Retry-After header of the response, as sent
	CrawlDelay time.Duration // the host's robots.txt Crawl-delay for this crawler
}

// Failed reports whether o counts as a failure: a 429 or 5xx status, or no
// response at all.
func (o Outcome) Failed() bool {
	return o.Err != nil || o.Status == http.StatusTooManyRequests || o.Status >= 500
}

// Next records o in h and returns when the host may be contacted again,
// counting from now (the end of the request). Once h is retired Next keeps
// it retired.
func (p *Pacing) Next(h *HostPace, now time.Time, o Outcome) time.Time {
	wait := p.delay(o.CrawlDelay, o.Duration)
	if !o.Failed() {
		h.Failures = 0
		h.Delay = wait
		return now.Add(wait)
	}
	h.Failures++
	wait = max(wait, p.backoff(h.Failures))
	if ra, ok := ParseRetryAfter(o.RetryAfter, now); ok && p.MaxRetryAfter > 0 {
		wait = max(wait, min(ra, p.MaxRetryAfter))
	}
	h.Delay = wait
	if p.MaxFailures > 0 && h.Failures >= p.MaxFailures && h.Retired == "" {
		h.Retired = fmt.Sprintf("%d failures in a row, the last: %s", h.Failures, o.describe())
	}
	return now.Add(wait)
}

// delay is the wait after a request that did not fail.
func (p *Pacing) delay(crawlDelay, took time.Duration) time.Duration {
	d := HostDelay(p.MinDelay, crawlDelay, p.MaxCrawlDelay)
	if p.DelayFactor > 0 && took > 0 {
		adaptive := time.Duration(math.Min(p.DelayFactor*float64(took), math.MaxInt64))
		if p.MaxAdaptiveDelay > 0 {
			adaptive = min(adaptive, p.MaxAdaptiveDelay)
		}
		d = max(d, adaptive)
	}
	return d
}

// backoff is the least wait after the n-th failure in a row (n >= 1).
func (p *Pacing) backoff(n int) time.Duration {
	if p.BackoffBase <= 0 {
		return 0
	}
	d := p.BackoffBase
	for i := 1; i < n; i++ {
		if p.MaxBackoff > 0 && d >= p.MaxBackoff || d > math.MaxInt64/2 {
			break
		}
		d *= 2
	}
	if p.MaxBackoff > 0 {
		d = min(d, p.MaxBackoff)
	}
	return d
}

func (o Outcome) describe() string {
	if o.Err != nil {
		return o.Err.Error()
	}
	return "status " + strconv.Itoa(o.Status)
}

// ParseRetryAfter parses a Retry-After header value (RFC 9110 section
// 10.2.3): a number of seconds, or an HTTP date, read relative to now (a date
// in the past is a wait of 0). ok is false for an empty or invalid value.
func ParseRetryAfter(value string, now time.Time) (wait time.Duration, ok bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	if value[0] >= '0' && value[0] <= '9' {
		secs, err := strconv.ParseUint(value, 10, 64)
		if err != nil {
			if ne, _ := err.(*strconv.NumError); ne == nil || ne.Err != strconv.ErrRange {
				return 0, false
			}
			secs = math.MaxUint64 // too large to parse: as long as can be
		}
		if secs > uint64(math.MaxInt64/int64(time.Second)) {
			return time.Duration(math.MaxInt64), true
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(value)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}
