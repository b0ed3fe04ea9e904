package politeness

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Defaults of [Pacing], used where a field is 0.
const (
	DefaultDelay            = time.Second      // Pacing.Delay
	DefaultMaxCrawlDelay    = 30 * time.Second // Pacing.MaxCrawlDelay
	DefaultDelayFactor      = 5.0              // Pacing.DelayFactor (Heritrix uses 5, Mercator 10)
	DefaultMaxAdaptiveDelay = 30 * time.Second // Pacing.MaxAdaptiveDelay
	DefaultMaxRetryAfter    = 10 * time.Minute // Pacing.MaxRetryAfter
	DefaultBackoff          = 5 * time.Second  // Pacing.Backoff
	DefaultMaxBackoff       = 10 * time.Minute // Pacing.MaxBackoff
	DefaultMaxFailures      = 5                // Pacing.MaxFailures
	DefaultNotFoundRetries  = 2                // Pacing.NotFoundRetries
	DefaultNotFoundBackoff  = time.Second      // Pacing.NotFoundBackoff
)

// Pacing is the policy that decides when a host may be contacted again after
// a request: the delay, Retry-After, exponential backoff on failures and the
// retirement of a host that keeps failing. Its zero value is the polite
// default. As in every config struct of this SDK, a field's 0 means its
// default and a negative value switches off what the field does: no
// delay, no backoff, the Crawl-delay or Retry-After it caps ignored, no
// retirement. A Pacing is read-only and safe for concurrent use; the state it updates, a
// [HostPace], belongs to the caller.
//
// After a replayed response (Outcome.Replayed) the host waits nothing:
// nothing was sent. Otherwise, after a request that did not fail, the
// host waits
//
//	max(Delay, min(Crawl-delay, MaxCrawlDelay), min(DelayFactor × response time, MaxAdaptiveDelay))
//
// so a host that answers slowly is visited slowly (Mercator waited 10x the
// last fetch time; Heritrix 5x, clamped to 3–30 s).
//
// A failure is a 429 or 5xx status or a request that got no response
// (network error, timeout). After the n-th failure in a row the host waits
// at least Backoff × 2^(n-1), capped at MaxBackoff, and at least what a
// Retry-After header asked for, capped at MaxRetryAfter. After MaxFailures
// failures in a row the host is retired: [HostPace.Retired] says why.
type Pacing struct {
	// Delay is the least wait between two requests to a host, counted
	// from the end of the first. 0: DefaultDelay; negative: none.
	Delay time.Duration
	// MaxCrawlDelay caps a robots.txt Crawl-delay. 0: DefaultMaxCrawlDelay;
	// negative: Crawl-delay is ignored.
	MaxCrawlDelay time.Duration
	// DelayFactor is the multiple of the host's last response time waited.
	// 0: DefaultDelayFactor; negative: none.
	DelayFactor float64
	// MaxAdaptiveDelay caps DelayFactor × response time. 0:
	// DefaultMaxAdaptiveDelay; negative: no adaptive delay.
	MaxAdaptiveDelay time.Duration
	// MaxRetryAfter caps the wait a Retry-After header asks for. 0:
	// DefaultMaxRetryAfter; negative: Retry-After is ignored.
	MaxRetryAfter time.Duration
	// Backoff is the wait after the first failure in a row, doubled for
	// each further one. 0: DefaultBackoff; negative: none.
	Backoff time.Duration
	// MaxBackoff caps the doubled Backoff. 0: DefaultMaxBackoff; negative:
	// no backoff.
	MaxBackoff time.Duration
	// MaxFailures is how many failures in a row retire a host. 0:
	// DefaultMaxFailures; negative: hosts are never retired.
	MaxFailures int
	// NotFoundRetries is how often a host whose name was not found
	// ([HostNotFound]) is asked again before it is retired. 0:
	// DefaultNotFoundRetries (2); negative: such an answer is an ordinary
	// failure (Backoff, MaxFailures).
	NotFoundRetries int
	// NotFoundBackoff is the wait after the first answer in a row that a
	// host's name was not found, doubled for each further one, capped at
	// MaxBackoff. 0: DefaultNotFoundBackoff (1 s); negative: none.
	NotFoundBackoff time.Duration
}

// Or returns def where v is 0, 0 where v is negative (off), and v
// otherwise: how the config fields of this SDK read their numbers, 0 the
// default and a negative value off.
func Or[T int | int64 | float64 | time.Duration](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// Validate reports a field that cannot be used: a NaN or infinite
// DelayFactor.
func (p *Pacing) Validate() error {
	if math.IsNaN(p.DelayFactor) || math.IsInf(p.DelayFactor, 0) {
		return fmt.Errorf("politeness: Pacing.DelayFactor is %v", p.DelayFactor)
	}
	return nil
}

// resolved returns p with its defaults filled in and negative fields made
// zero; a zero field of the result turns its rule off, but for
// NotFoundRetries, whose 0 is a rule (no retry) and which stays negative
// for off.
func (p *Pacing) resolved() Pacing {
	return Pacing{
		Delay:            Or(p.Delay, DefaultDelay),
		MaxCrawlDelay:    Or(p.MaxCrawlDelay, DefaultMaxCrawlDelay),
		DelayFactor:      Or(p.DelayFactor, DefaultDelayFactor),
		MaxAdaptiveDelay: Or(p.MaxAdaptiveDelay, DefaultMaxAdaptiveDelay),
		MaxRetryAfter:    Or(p.MaxRetryAfter, DefaultMaxRetryAfter),
		Backoff:          Or(p.Backoff, DefaultBackoff),
		MaxBackoff:       Or(p.MaxBackoff, DefaultMaxBackoff),
		MaxFailures:      Or(p.MaxFailures, DefaultMaxFailures),
		NotFoundRetries:  cmp.Or(p.NotFoundRetries, DefaultNotFoundRetries),
		NotFoundBackoff:  Or(p.NotFoundBackoff, DefaultNotFoundBackoff),
	}
}

// HostPace is the pacing state of one host, updated by [Pacing.Next]. Its
// zero value is a host not yet contacted. It is not safe for concurrent use.
type HostPace struct {
	Failures int           // failures in a row, 0 after any success
	NotFound int           // of those, the last ones in a row that said the host's name does not exist (see HostNotFound)
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
	// Replayed says the response was answered from an archive, nothing
	// sent (fetch.Response.Replayed): the host waits nothing after it.
	// Its failures count as any others towards retiring the host.
	Replayed bool
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
	r := p.resolved()
	return r.next(h, now, o)
}

// MinDelay returns the least wait between two requests to a host: Delay,
// or 0 when it is negative. A crawl that resumes one whose last requests
// it does not know (those in flight when a process died) waits this long
// before its first.
func (p *Pacing) MinDelay() time.Duration {
	r := p.resolved()
	return r.delay(0, 0)
}

// next is Next on a resolved Pacing.
func (p *Pacing) next(h *HostPace, now time.Time, o Outcome) time.Time {
	wait := p.delay(o.CrawlDelay, o.Duration)
	if !o.Failed() {
		h.Failures, h.NotFound = 0, 0
		if o.Replayed {
			wait = 0
		}
		h.Delay = wait
		return now.Add(wait)
	}
	h.Failures++
	dnsErr, notFound := hostNotFound(o.Err)
	notFound = notFound && p.NotFoundRetries >= 0
	if notFound {
		h.NotFound++
		wait = max(wait, p.doubled(p.NotFoundBackoff, h.NotFound))
	} else {
		h.NotFound = 0
		wait = max(wait, p.doubled(p.Backoff, h.Failures))
	}
	if ra, ok := ParseRetryAfter(o.RetryAfter, now); ok && p.MaxRetryAfter > 0 {
		wait = max(wait, min(ra, p.MaxRetryAfter))
	}
	if o.Replayed {
		wait = 0
	}
	h.Delay = wait
	switch {
	case h.Retired != "" || p.MaxFailures <= 0:
	case notFound && h.NotFound > p.NotFoundRetries:
		h.Retired = fmt.Sprintf("name not found, %d answers in a row: %v", h.NotFound, dnsErr)
	case h.Failures >= p.MaxFailures:
		h.Retired = fmt.Sprintf("%d failures in a row, the last: %s", h.Failures, o.describe())
	}
	return now.Add(wait)
}

// HostNotFound reports whether err says that a host's name does not
// exist: err is or wraps a *net.DNSError with IsNotFound, and neither
// IsTimeout nor IsTemporary. Go's resolver says so when the DNS answers
// NXDOMAIN, or has no address for the name; a lookup that timed out or
// was answered SERVFAIL is temporary, and not this.
func HostNotFound(err error) bool {
	_, ok := hostNotFound(err)
	return ok
}

func hostNotFound(err error) (*net.DNSError, bool) {
	e, ok := errors.AsType[*net.DNSError](err)
	if !ok || !e.IsNotFound || e.IsTimeout || e.IsTemporary {
		return nil, false
	}
	return e, true
}

// delay is the wait after a request that did not fail.
func (p *Pacing) delay(crawlDelay, took time.Duration) time.Duration {
	d := max(p.Delay, min(crawlDelay, p.MaxCrawlDelay), 0)
	if p.DelayFactor > 0 && took > 0 {
		adaptive := time.Duration(math.Min(p.DelayFactor*float64(took), math.MaxInt64))
		d = max(d, min(adaptive, p.MaxAdaptiveDelay))
	}
	return d
}

// doubled is the least wait after the n-th failure in a row (n >= 1)
// that starts at d: d × 2^(n-1), capped at MaxBackoff.
func (p *Pacing) doubled(d time.Duration, n int) time.Duration {
	for i := 1; i < n && d < p.MaxBackoff && d <= math.MaxInt64/2; i++ {
		d *= 2
	}
	return min(d, p.MaxBackoff)
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
