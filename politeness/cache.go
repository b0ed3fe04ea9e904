package politeness

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"
)

// ErrRobotsUnavailable is wrapped by the error [RobotsCache.Get] returns when a
// host's robots.txt could not be had: a 5xx or 429 status, another unexpected
// status, or a network error. Test for it with errors.Is; errors.As with an
// [*UnavailableError] tells when to ask again.
var ErrRobotsUnavailable = errors.New("politeness: robots.txt unavailable")

// Defaults of the [RobotsCache] fields.
const (
	DefaultRobotsTTL   = 24 * time.Hour      // RobotsCache.TTL
	DefaultErrorTTL    = 1 * time.Minute     // RobotsCache.ErrorTTL
	DefaultMaxErrorTTL = 1 * time.Hour       // RobotsCache.MaxErrorTTL
	DefaultMaxOutage   = 30 * 24 * time.Hour // RobotsCache.MaxOutage
)

// UnavailableError is the error of [RobotsCache.Get] for a robots.txt that
// could not be had. It wraps [ErrRobotsUnavailable] and the cause.
type UnavailableError struct {
	URL      string    // the robots.txt URL
	Status   int       // the status answered, or 0 for a network error
	Err      error     // the network error, or nil
	Failures int       // failed fetches in a row, this one included
	Since    time.Time // when the first of them ended: the outage began
	RetryAt  time.Time // when the cache fetches the file again (at the next Get from then on)
}

func (e *UnavailableError) Error() string {
	cause := fmt.Sprintf("status %d", e.Status)
	if e.Err != nil {
		cause = e.Err.Error()
	}
	return fmt.Sprintf("%v: %s: %s (%d failures in a row)", ErrRobotsUnavailable, e.URL, cause, e.Failures)
}

// Unwrap returns ErrRobotsUnavailable and the network error, if any.
func (e *UnavailableError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrRobotsUnavailable}
	}
	return []error{ErrRobotsUnavailable, e.Err}
}

// FetchFunc fetches one robots.txt URL and returns the final status and body.
// It follows redirects itself (up to 5; after that it returns the last 3xx
// status) and may stop reading the body after [MaxRobotsSize] bytes. err is
// for failures without a usable response (network errors, ctx cancelled).
// A FetchFunc must be safe for concurrent use. [FetchThrough] makes one
// from a [fetch.Fetcher].
type FetchFunc func(ctx context.Context, robotsURL string) (status int, body []byte, err error)

// RobotsCache fetches, parses and caches robots.txt per origin (scheme, host
// and port). The zero value with Fetch set is ready to use. The fields must
// not change after the first Get, and a RobotsCache must not be copied after
// first use.
//
// A robots.txt that cannot be had (429, 5xx, network error) means "crawl
// nothing there for now" (RFC 9309 section 2.3.1.4): Get answers
// [DisallowAll] and asks again after ErrorTTL, doubled after each further
// failure in a row up to MaxErrorTTL. Once an outage has lasted MaxOutage
// (the RFC's example is 30 days), Get falls back to the last good copy of
// the file, if it ever had one, while it keeps retrying; without one it keeps
// disallowing, the cautious reading of the RFC. A network error that says
// the host's name does not exist ([HostNotFound]: NXDOMAIN) is unavailable
// too, but not kept: no host is no outage to wait out, and the next Get
// fetches again, so that the caller's own bounded retries of the host (a
// crawler's Pacing.NotFoundRetries) ask the DNS again.
//
// A RobotsCache is safe for concurrent use by multiple goroutines. It fetches
// one origin's robots.txt at most once at a time: concurrent Gets for an origin
// being fetched wait for that fetch. It keeps one entry per origin it was asked
// about (the parsed rules, a few KiB for a typical robots.txt), for the life of
// the cache; an expired entry is replaced on the next Get for its origin. It
// starts no goroutines.
type RobotsCache struct {
	// Fetch fetches a robots.txt URL. Required.
	Fetch FetchFunc
	// TTL is how long a fetched robots.txt (2xx, or 3xx/4xx meaning allow
	// all) is kept. 0: DefaultRobotsTTL (24h); negative: not kept (each Get
	// fetches).
	TTL time.Duration
	// ErrorTTL is how long the first unavailable result (5xx, 429, network
	// error) of an outage is kept; each further failure in a row doubles
	// it. 0: DefaultErrorTTL (1 minute); negative: not kept.
	ErrorTTL time.Duration
	// MaxErrorTTL caps the doubled ErrorTTL (a larger ErrorTTL is kept as
	// it is). 0: DefaultMaxErrorTTL (1 hour); negative: ErrorTTL is not
	// doubled.
	MaxErrorTTL time.Duration
	// MaxOutage is how long a robots.txt may stay unavailable before the
	// last good copy is used again. 0: DefaultMaxOutage (30 days);
	// negative: never.
	MaxOutage time.Duration
	// Now is the clock. If nil, time.Now is used.
	Now func() time.Time
	// Store, if set, keeps the robots.txt files fetched beyond this cache,
	// such as in a crawl's durable state: a copy it kept that is younger
	// than TTL is used without fetching, so that a crawl resumed in
	// another process does not ask every host again.
	Store RobotsStore

	mu      sync.Mutex
	entries map[string]*cacheEntry // by origin key
}

// WithFetch returns a new, empty cache with c's settings (TTL, ErrorTTL,
// MaxErrorTTL, MaxOutage, Now, Store) that fetches with f. A nil c has the
// defaults.
func (c *RobotsCache) WithFetch(f FetchFunc) *RobotsCache {
	n := &RobotsCache{Fetch: f}
	if c != nil {
		n.TTL, n.ErrorTTL, n.MaxErrorTTL, n.MaxOutage, n.Now, n.Store = c.TTL, c.ErrorTTL, c.MaxErrorTTL, c.MaxOutage, c.Now, c.Store
	}
	return n
}

// RobotsStore keeps robots.txt files for a [RobotsCache]. Its methods are
// called concurrently.
type RobotsStore interface {
	// LoadRobots returns the copy kept for origin ("scheme://host[:port]"),
	// if any.
	LoadRobots(origin string) (KeptRobots, bool)
	// SaveRobots keeps r for origin, replacing any copy. A copy that is
	// lost (the store failed, the process crashed) is fetched again.
	SaveRobots(origin string, r KeptRobots)
}

// KeptRobots is a robots.txt answer kept by a [RobotsStore]: only those
// that say what a host allows (2xx, 3xx and 4xx but 429) are kept.
type KeptRobots struct {
	Status  int       // the status answered
	Body    []byte    // the body of a 2xx; nil otherwise
	Fetched time.Time // when it was fetched
}

// robots returns the rules r says.
func (r KeptRobots) robots() *Robots {
	if 200 <= r.Status && r.Status < 300 {
		return ParseRobots(r.Body)
	}
	return allowAll
}

// cacheEntry is one origin's robots.txt, or a fetch of it in flight. Its
// result fields are written before ready is closed, and read only after.
// Once closed, ready is set to nil under the cache's lock, so that a
// cached entry holds no channel: the cache keeps an entry for each host of
// a crawl, tens of thousands of them.
type cacheEntry struct {
	ready   chan struct{} // closed, then nil, when the fetch ended
	ok      bool          // a result is here (false: the fetch was abandoned)
	robots  *Robots
	err     error
	expires time.Time
	down    *outage // the outage this result is part of; nil after a robots.txt had
}

// outage is the history of an origin's robots.txt unavailable, which an
// entry that replaces another carries on. Few origins have one, so it is
// kept apart from cacheEntry, and never changed once made.
type outage struct {
	lastGood *Robots   // the last robots.txt had (2xx, 3xx, 4xx) before it, or nil
	failures int       // unavailable results in a row
	since    time.Time // when the first of them ended
}

// history returns the history a new entry replacing e, a published one,
// starts from: e's outage, or, after a robots.txt had, one of no failures
// with e's rules as the last good copy.
func (e *cacheEntry) history() *outage {
	if e.down != nil {
		return e.down
	}
	return &outage{lastGood: e.robots}
}

// Get returns the robots.txt rules for origin ("http://host[:port]" or
// "https://host[:port]"; a trailing "/" and a default port are accepted),
// fetching origin + "/robots.txt" when it is not cached or has expired.
// fetched reports whether this call invoked Fetch, so that the caller can count
// the request against the host's politeness.
//
// The result by status (RFC 9309 section 2.3.1, with 5xx handled strictly):
//   - 2xx: the parsed body, even when empty or not a robots.txt; kept for TTL.
//   - 3xx (more than 5 redirects) and 4xx other than 429: [AllowAll]; kept for TTL.
//   - 429, 5xx, any other status and network errors: [DisallowAll] and an
//     [*UnavailableError]; kept for ErrorTTL, backing off with each failure
//     in a row; after MaxOutage the last good copy instead, without error.
//     A host name not found ([HostNotFound]) is not kept: its RetryAt is
//     the time of the failure.
//
// When ctx is done while this call fetches, nothing is cached; while it waits
// for another call's fetch, it returns promptly. Either way it returns
// context.Cause(ctx). An invalid origin is an error of its own. r is never nil:
// it is DisallowAll whenever err is not nil.
func (c *RobotsCache) Get(ctx context.Context, origin string) (r *Robots, fetched bool, err error) {
	key, err := originKey(origin)
	if err != nil {
		return disallowAll, false, err
	}
	for {
		now := c.now()
		c.mu.Lock()
		e := c.entries[key]
		var prev *cacheEntry // an expired entry, whose history the new one takes over
		if e != nil && e.ready == nil {
			if now.Before(e.expires) {
				c.mu.Unlock()
				return e.robots, false, e.err
			}
			prev, e = e, nil // expired: replace it below
		}
		if e != nil { // a fetch is in flight: wait for it
			ready := e.ready
			c.mu.Unlock()
			select {
			case <-ready:
				if e.ok {
					return e.robots, false, e.err
				}
				continue // abandoned: try again, perhaps fetching ourselves
			case <-ctx.Done():
				return disallowAll, false, context.Cause(ctx)
			}
		}
		e = &cacheEntry{ready: make(chan struct{})}
		if prev != nil {
			e.down = prev.history()
		}
		if c.entries == nil {
			c.entries = make(map[string]*cacheEntry)
		}
		c.entries[key] = e
		c.mu.Unlock()
		return c.fetch(ctx, key, e)
	}
}

// fetch runs Fetch for e, which Get has just put in the cache, and publishes
// its result, or removes e when ctx ended the fetch or Fetch panicked. A
// replaced entry's history (last good copy, failures in a row) is lost then,
// which only makes the next failure count as the first of an outage.
func (c *RobotsCache) fetch(ctx context.Context, key string, e *cacheEntry) (*Robots, bool, error) {
	published := false
	defer func() {
		if !published { // Fetch panicked, or ctx ended: forget e
			c.mu.Lock()
			if c.entries[key] == e {
				delete(c.entries, key)
			}
			c.mu.Unlock()
			c.publish(e)
		}
	}()
	ttl := Or(c.TTL, DefaultRobotsTTL)
	var stale *Robots // a kept copy too old to use, but better than nothing in an outage
	if kept, ok := c.load(key, ttl); ok {
		if kept.Fetched.Add(ttl).After(c.now()) {
			e.robots, e.expires, e.down = kept.robots(), kept.Fetched.Add(ttl), nil
			e.ok, published = true, true
			c.publish(e)
			return e.robots, false, nil
		}
		stale = kept.robots()
	}
	robotsURL := key + "/robots.txt"
	status, body, err := c.Fetch(ctx, robotsURL)
	if err != nil && ctx.Err() != nil {
		return disallowAll, true, context.Cause(ctx)
	}
	now := c.now()
	switch {
	case err != nil:
	case 200 <= status && status < 300:
		e.robots = ParseRobots(body)
	case 300 <= status && status < 500 && status != 429:
		e.robots = allowAll
	}
	if e.robots != nil {
		e.down = nil
		e.expires = now.Add(ttl)
		if c.Store != nil && ttl > 0 {
			if status >= 300 {
				body = nil
			}
			c.Store.SaveRobots(key, KeptRobots{Status: status, Body: body, Fetched: now})
		}
	} else {
		c.unavailable(e, now, stale, &UnavailableError{URL: robotsURL, Status: status, Err: err})
	}
	e.ok = true
	published = true
	c.publish(e)
	return e.robots, true, e.err
}

// publish ends e's fetch: it closes e.ready, which no longer needs to be
// kept, for those waiting.
func (c *RobotsCache) publish(e *cacheEntry) {
	c.mu.Lock()
	ready := e.ready
	e.ready = nil
	c.mu.Unlock()
	close(ready)
}

// load returns the copy Store keeps of origin key, if any and if copies
// are kept at all (a negative ttl keeps none).
func (c *RobotsCache) load(key string, ttl time.Duration) (KeptRobots, bool) {
	if c.Store == nil || ttl <= 0 {
		return KeptRobots{}, false
	}
	return c.Store.LoadRobots(key)
}

// unavailable records a failed fetch in e: the retry time backs off with
// the failures in a row, and after MaxOutage the last good copy (or stale,
// if there is none) is served.
func (c *RobotsCache) unavailable(e *cacheEntry, now time.Time, stale *Robots, uerr *UnavailableError) {
	var d outage
	if e.down != nil {
		d = *e.down
	}
	if d.failures == 0 {
		d.since = now
	}
	if d.lastGood == nil {
		d.lastGood = stale
	}
	d.failures++
	e.down = &d
	ttl := Or(c.ErrorTTL, DefaultErrorTTL)
	maxTTL := max(Or(c.MaxErrorTTL, DefaultMaxErrorTTL), ttl)
	for i := 1; i < d.failures && ttl < maxTTL; i++ {
		ttl *= 2
	}
	e.expires = now.Add(min(ttl, maxTTL))
	if HostNotFound(uerr.Err) {
		// Not an outage of the host's but no host: its caller gives
		// up on it (see Pacing), or asks again when it will.
		e.expires = now
	}
	uerr.Failures, uerr.Since, uerr.RetryAt = d.failures, d.since, e.expires

	maxOutage := Or(c.MaxOutage, DefaultMaxOutage)
	if d.lastGood != nil && maxOutage > 0 && now.Sub(d.since) >= maxOutage {
		e.robots = d.lastGood // the outage is long: the last good copy stands
		return
	}
	e.robots, e.err = disallowAll, uerr
}

// Len returns the number of origins in the cache, including fetches in flight
// and expired entries not yet replaced. It is O(1).
func (c *RobotsCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func (c *RobotsCache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// originKey returns the origin as "scheme://host[:port]", lowercased and
// without a default port.
func originKey(origin string) (string, error) {
	u, err := url.Parse(origin)
	if err != nil {
		return "", fmt.Errorf("politeness: invalid origin %q: %w", origin, err)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", fmt.Errorf("politeness: invalid origin %q: want http(s)://host[:port]", origin)
	}
	host := strings.ToLower(u.Host)
	if port := u.Port(); scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		host = strings.TrimSuffix(host, ":"+port)
	}
	host = strings.TrimSuffix(host, ":") // empty port
	return scheme + "://" + host, nil
}
