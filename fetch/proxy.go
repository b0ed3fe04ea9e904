package fetch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Defaults of a [ProxyPool], each overridable by a field.
const (
	// DefaultProxyMaxFailures is how many failures in a row bench a proxy.
	DefaultProxyMaxFailures = 3
	// DefaultProxyBench is how long a proxy is benched the first time;
	// each bench that follows a bench without a success in between is
	// twice as long, up to DefaultProxyMaxBench.
	DefaultProxyBench = time.Minute
	// DefaultProxyMaxBench caps a bench.
	DefaultProxyMaxBench = 30 * time.Minute
)

// DefaultBanStatus are the statuses that say a proxy is banned, when a
// ProxyPool's BanStatus is nil: 403 Forbidden, 429 Too Many Requests and
// 503 Service Unavailable.
var DefaultBanStatus = []int{http.StatusForbidden, http.StatusTooManyRequests, http.StatusServiceUnavailable}

// Rotation says how a [ProxyPool] assigns proxies to requests.
type Rotation string

// Rotations of a ProxyPool.
const (
	// Sticky gives each host a proxy that it keeps while the proxy
	// serves it well, so that the host sees one client, its cookies and
	// session with it. The zero Rotation.
	Sticky Rotation = "sticky"
	// RoundRobin gives each request the next proxy in turn, whatever its
	// host.
	RoundRobin Rotation = "round-robin"
)

// Errors of a fetch through a [ProxyPool].
var (
	// ErrProxyBanned is wrapped by the error of a fetch whose answer
	// came through a proxy that the site banned: a status of the pool's
	// BanStatus, or one its Banned hook reports. The answer is not
	// returned (nor recorded): it is not the page. [ErrorKind] names it
	// KindProxyBanned.
	ErrProxyBanned = errors.New("fetch: proxy banned")
	// ErrProxyAuth is wrapped by the error of a fetch that a proxy
	// answered with 407 Proxy Authentication Required. [ErrorKind] names
	// it KindProxyAuth.
	ErrProxyAuth = errors.New("fetch: proxy authentication required")
)

// ProxyError is the error, wrapped in a [FetchError], of a fetch that
// failed through a proxy of a [ProxyPool]: banned, refused, or a network
// error on the way.
type ProxyError struct {
	Proxy  string // the proxy's URL, its password redacted
	Status int    // the status answered, for ErrProxyBanned and ErrProxyAuth; 0 if none
	Err    error
}

func (e *ProxyError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("proxy %s: %v (%d %s)", e.Proxy, e.Err, e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("proxy %s: %v", e.Proxy, e.Err)
}

// Unwrap returns the underlying error.
func (e *ProxyError) Unwrap() error { return e.Err }

// ProxyPool spreads the requests of an [HTTPFetcher] (its Proxies field)
// over proxies, and keeps the health of each: a proxy that fails
// MaxFailures requests in a row is benched, and used again once the bench
// is over. Proxies are http://, https:// or socks5:// URLs, with
// user:password if they need it (sent as Proxy-Authorization, or as the
// SOCKS5 user and password); net/http speaks all three (its SOCKS5
// client is the one of golang.org/x/net/proxy).
//
// A request fails against its proxy when it gets no answer (the proxy
// cannot be reached, the connection drops, the fetch times out), when the
// proxy answers 407, and when the site answers with a status of
// BanStatus or Banned reports the answer a ban. Such a fetch returns an
// error wrapping a [*ProxyError] (and [ErrProxyBanned] or [ErrProxyAuth]
// for answers), and its host moves to another proxy at once, benched or
// not: the crawler's retry of the page, after the host's backoff, goes
// through another proxy, so a site sees the crawl's pacing of the host
// however many proxies the crawl has. The fetcher itself never retries.
//
// When every proxy is benched, Fetch waits for the first to come back, or
// for its context to end; it sends the request without a proxy only if
// Direct is set.
//
// The address policy of the fetcher applies to the proxies as to any
// server: a proxy's address must be one it allows (a proxy on loopback
// needs Allow to cover it). What is reached through a proxy is checked as
// with any proxy: URLs of literal addresses and localhost names the policy
// refuses are refused before anything is sent, and the names of the
// others are resolved by the proxy.
//
// Set the fields before the first fetch and do not change them after. A
// ProxyPool serves one fetcher; it is safe for concurrent use.
type ProxyPool struct {
	// Proxies are the proxies' URLs: http, https, socks5 or socks5h
	// (both resolve names at the proxy), with a host and an optional
	// port (80, 443 or 1080 by default) and user:password. At least one,
	// unless Direct is set.
	Proxies []*url.URL
	// Rotate is how requests are given proxies: "" means Sticky.
	Rotate Rotation
	// MaxFailures is how many failures in a row bench a proxy. 0 means
	// DefaultProxyMaxFailures; negative, proxies are never benched. A
	// proxy back from its bench is benched again, twice as long, at its
	// first failure; a success clears its count and the length of its
	// bench.
	MaxFailures int
	// Bench is how long a proxy is benched first; 0 means
	// DefaultProxyBench. MaxBench caps every bench, the doubled ones that
	// follow included; 0 means DefaultProxyMaxBench.
	Bench, MaxBench time.Duration
	// Direct, if set, sends a request without a proxy when every proxy
	// is benched, rather than waiting for one to come back.
	Direct bool
	// BanStatus lists the statuses that say a proxy is banned. Nil means
	// DefaultBanStatus; an empty, non-nil slice, none.
	BanStatus []int
	// Banned, if not nil, reports whether a response that came through a
	// proxy, with a status not in BanStatus, says the proxy is banned (a
	// site's ban page, matched by a regular expression). It is called
	// synchronously for every such response and must be safe for
	// concurrent use. Nil: no other answers are bans.
	Banned func(req *Request, resp *Response) bool

	once    sync.Once
	initErr error
	proxies []*proxyState

	mu    sync.Mutex
	next  int            // the next proxy of round-robin
	moved map[string]int // sticky hosts whose proxy is not the one they hash to
}

// ProxyStats are the counts of one proxy of a [ProxyPool].
type ProxyStats struct {
	Proxy        string    // the proxy's URL, its password redacted
	Requests     int64     // requests sent through it
	Failures     int64     // of which failed (no answer, 407)
	Bans         int64     // of which were answered with a ban
	Benched      int64     // times it was benched
	BenchedUntil time.Time // when its bench ends; zero if it is not benched
}

// proxyState is one proxy of a pool and its health.
type proxyState struct {
	url      *url.URL
	name     string // url, its password redacted
	addr     string // host:port, as dialled
	seed     uint64 // the hash of addr, for rendezvous hashing
	requests int64
	failures int64
	bans     int64
	benched  int64
	// Guarded by the pool's mu.
	inARow int       // failures in a row
	streak int       // benches since the last success
	until  time.Time // the end of its bench
}

// proxyKey is the context key of the *proxyState a request goes through.
type proxyKey struct{}

// proxyOf is the Proxy function of an HTTPFetcher's transport with a
// pool: the proxy that Fetch chose for req, or none.
func proxyOf(req *http.Request) (*url.URL, error) {
	if p, _ := req.Context().Value(proxyKey{}).(*proxyState); p != nil {
		return p.url, nil
	}
	return nil, nil
}

// init checks the pool's proxies against policy and makes their states.
func (p *ProxyPool) init(policy *AddressPolicy) {
	p.once.Do(func() {
		if p.initErr = p.Validate(policy); p.initErr != nil {
			return
		}
		var proxies []*proxyState
		for _, u := range p.Proxies {
			s := &proxyState{url: u, name: u.Redacted(), addr: proxyHostPort(u)}
			h := fnv.New64a()
			h.Write([]byte(s.addr))
			s.seed = mix(h.Sum64())
			proxies = append(proxies, s)
		}
		p.mu.Lock() // Stats, which may run before the first fetch, reads them under mu
		p.proxies, p.moved = proxies, make(map[string]int)
		p.mu.Unlock()
	})
}

// Validate reports why the pool cannot serve a fetcher whose Addresses
// policy is policy (nil: the zero policy): no proxies and no Direct, an
// unknown Rotate, a proxy URL that is not http, https, socks5 or socks5h
// or has no host, or whose host is a literal address or localhost name
// that policy refuses (wrapping [ErrBlockedAddress]). A proxy named by a
// host name is checked when dialled. An [HTTPFetcher] whose pool does
// not validate fails every fetch with the error; a program can call
// Validate first to report it at once.
func (p *ProxyPool) Validate(policy *AddressPolicy) error {
	if policy == nil {
		policy = &AddressPolicy{}
	}
	if len(p.Proxies) == 0 && !p.Direct {
		return errors.New("fetch: a ProxyPool without proxies (and without Direct)")
	}
	switch p.Rotate {
	case "", Sticky, RoundRobin:
	default:
		return fmt.Errorf("fetch: ProxyPool.Rotate %q is neither %q nor %q", p.Rotate, Sticky, RoundRobin)
	}
	for _, u := range p.Proxies {
		if err := checkProxyURL(u, policy); err != nil {
			return err
		}
	}
	return nil
}

// checkProxyURL returns why u cannot be a proxy of a fetcher with policy,
// or nil: its scheme, its host, a literal address or localhost name that
// the policy refuses. Other names are checked when dialled.
func checkProxyURL(u *url.URL, policy *AddressPolicy) error {
	if u == nil {
		return errors.New("fetch: a nil proxy URL")
	}
	switch u.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		return fmt.Errorf("fetch: proxy %s: scheme %q is not http, https or socks5", u.Redacted(), u.Scheme)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("fetch: proxy %s: no host", u.Redacted())
	}
	// checkURL judges http(s) URLs by their port: give it the proxy's.
	probe := &url.URL{Scheme: "http", Host: proxyHostPort(u)}
	if err := policy.checkURL(probe); err != nil {
		return fmt.Errorf("proxy %s: %w", u.Redacted(), err)
	}
	return nil
}

// proxyHostPort returns the host:port of proxy u, with its scheme's
// default port if it names none.
func proxyHostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "socks5", "socks5h":
			port = "1080"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// Stats returns the counts of each proxy, in the order of Proxies. It is
// safe to call at any time.
func (p *ProxyPool) Stats() []ProxyStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	out := make([]ProxyStats, len(p.proxies))
	for i, s := range p.proxies {
		out[i] = ProxyStats{Proxy: s.name, Requests: s.requests, Failures: s.failures, Bans: s.bans, Benched: s.benched}
		if s.until.After(now) {
			out[i].BenchedUntil = s.until
		}
	}
	if len(out) == 0 && len(p.Proxies) > 0 { // not used yet
		for _, u := range p.Proxies {
			if u != nil {
				out = append(out, ProxyStats{Proxy: u.Redacted()})
			}
		}
	}
	return out
}

// pick returns the proxy for a request to host, waiting while every proxy
// is benched, or nil for a direct request (Direct, all benched). It
// counts the request against the proxy.
func (p *ProxyPool) pick(ctx context.Context, host string) (*proxyState, error) {
	for {
		p.mu.Lock()
		now := time.Now()
		s, wait := p.choose(host, now)
		if s != nil {
			s.requests++
		}
		p.mu.Unlock()
		if s != nil || p.Direct && wait > 0 {
			return s, nil
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("all %d proxies benched: %w", len(p.proxies), context.Cause(ctx))
		}
	}
}

// choose returns the proxy for host now, or how long until one is back.
// p.mu is held.
func (p *ProxyPool) choose(host string, now time.Time) (*proxyState, time.Duration) {
	n := len(p.proxies)
	if n == 0 {
		return nil, time.Hour // Direct, with no proxies
	}
	if p.Rotate == RoundRobin {
		for k := range n {
			i := (p.next + k) % n
			if !p.proxies[i].until.After(now) {
				p.next = i + 1
				return p.proxies[i], 0
			}
		}
		return nil, p.soonest(now)
	}
	i, ok := p.moved[host]
	if !ok {
		i = p.hashed(host)
	}
	if !p.proxies[i].until.After(now) {
		return p.proxies[i], 0
	}
	j := p.nextUsable(i, now)
	if j < 0 {
		return nil, p.soonest(now)
	}
	p.move(host, j)
	return p.proxies[j], 0
}

// nextUsable returns the first proxy after i, in the order of Proxies
// and round, that is not benched now; -1 if none.
func (p *ProxyPool) nextUsable(i int, now time.Time) int {
	n := len(p.proxies)
	for k := 1; k <= n; k++ {
		j := (i + k) % n
		if !p.proxies[j].until.After(now) {
			return j
		}
	}
	return -1
}

// move gives host proxy j. p.mu is held.
func (p *ProxyPool) move(host string, j int) {
	if j == p.hashed(host) {
		delete(p.moved, host)
	} else {
		p.moved[host] = j
	}
}

// soonest returns how long until the first bench ends. p.mu is held.
func (p *ProxyPool) soonest(now time.Time) time.Duration {
	var first time.Time
	for _, s := range p.proxies {
		if first.IsZero() || s.until.Before(first) {
			first = s.until
		}
	}
	return max(first.Sub(now), time.Millisecond)
}

// hashed returns the proxy host hashes to, by rendezvous hashing: the one
// whose hash with the host is highest, so that hosts spread evenly and a
// host's proxy depends only on the host and the list.
func (p *ProxyPool) hashed(host string) int {
	h := fnv.New64a()
	h.Write([]byte(host))
	hh := h.Sum64()
	best, bestScore := 0, uint64(0)
	for i, s := range p.proxies {
		if score := mix(hh ^ s.seed); i == 0 || score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// mix is the finalizer of splitmix64, which spreads FNV's close outputs.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// report records the outcome of a request to host through s: failed
// (no answer, 407, a ban) or not, and ban (a ban answer). A failure moves
// the host off s (sticky), and the MaxFailures-th in a row benches s.
func (p *ProxyPool) report(s *proxyState, host string, failed, ban bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if !failed {
		s.inARow, s.streak = 0, 0
		return
	}
	if ban {
		s.bans++
	} else {
		s.failures++
	}
	s.inARow++
	if maxF := cmp.Or(p.MaxFailures, DefaultProxyMaxFailures); maxF > 0 && s.inARow >= maxF && !s.until.After(now) {
		bench := cmp.Or(p.Bench, DefaultProxyBench)
		maxBench := cmp.Or(p.MaxBench, DefaultProxyMaxBench)
		for range min(s.streak, 32) {
			bench = min(2*bench, maxBench)
		}
		s.until = now.Add(min(bench, maxBench))
		s.streak++
		s.benched++
		s.inARow = maxF - 1 // back from the bench, one failure benches it again
	}
	if p.Rotate != RoundRobin {
		i := p.index(s)
		cur, ok := p.moved[host]
		if !ok {
			cur = p.hashed(host)
		}
		if cur == i && len(p.proxies) > 1 {
			// The next proxy, benched or not: choose skips it if it is.
			p.move(host, (i+1)%len(p.proxies))
		}
	}
}

// index returns the position of s in the pool.
func (p *ProxyPool) index(s *proxyState) int {
	for i, t := range p.proxies {
		if t == s {
			return i
		}
	}
	return -1
}

// banned reports whether resp, fetched for req through a proxy, is a ban.
func (p *ProxyPool) banned(req *Request, resp *Response) bool {
	statuses := p.BanStatus
	if statuses == nil {
		statuses = DefaultBanStatus
	}
	for _, st := range statuses {
		if resp.Status == st {
			return true
		}
	}
	return p.Banned != nil && p.Banned(req, resp)
}

// hostKey is the key a request's host is assigned a proxy by: its host
// and port, in lower case.
func hostKey(u *url.URL) string { return strings.ToLower(u.Host) }
