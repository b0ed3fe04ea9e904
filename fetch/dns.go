package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of the DNS cache, each overridable by a field of [DNSCache].
const (
	// DefaultDNSTTL is how long a resolved name is kept. Go's resolver
	// does not report the TTLs of the records it reads, so one TTL serves
	// every name: five minutes is longer than the pages of a host take to
	// crawl at a polite pace, and short enough to follow a host that moves.
	DefaultDNSTTL = 5 * time.Minute
	// DefaultDNSErrorTTL is how long a failed lookup is kept (negative
	// caching), so that the URLs of a dead host do not each ask again.
	DefaultDNSErrorTTL = 30 * time.Second
	// DefaultDNSMaxEntries bounds the names a cache keeps: at a few hundred
	// bytes a name, some tens of MiB at most.
	DefaultDNSMaxEntries = 1 << 16
)

// DNSCache resolves host names through Resolver and keeps the answers for
// TTL, and failures for ErrorTTL, so that a crawl makes one lookup per host
// rather than one per connection. Its DialContext method can serve as an
// [http.Transport]'s DialContext; [NewTransport] does that with a cache of
// its own, so the default fetcher caches DNS.
//
// Go's resolver does not expose the TTLs of DNS records, so every answer
// is kept for the same TTL, whatever its records said.
//
// Concurrent lookups of one name, in any letter case, share one query. A caller whose context
// ends stops waiting at once; the query goes on for the others, or, if it
// was the caller's own, is cancelled and the next caller asks again.
// Lookups cancelled or timed out by their caller's context are not cached.
//
// When a new name finds the cache full (MaxEntries), the expired entries
// are dropped; if that frees less than a sixteenth of MaxEntries,
// arbitrary entries are dropped too until it does.
//
// The zero value is ready to use. A DNSCache is safe for concurrent use
// and starts no goroutines. Set its fields before the first use and do not
// change them after.
//
// To cache DNS in a transport of your own:
//
//	dns := &fetch.DNSCache{TTL: time.Minute}
//	tr := &http.Transport{DialContext: dns.DialContext /* , ... */}
//	f := &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}}
type DNSCache struct {
	// Resolver looks names up. Nil means net.DefaultResolver.
	Resolver *net.Resolver
	// Dialer dials the resolved addresses in DialContext; its Resolver is
	// not used. Nil means a dialer with a 10 s timeout and 30 s TCP
	// keep-alive.
	Dialer *net.Dialer
	// TTL is how long an answer is kept. 0 means DefaultDNSTTL; a negative
	// value keeps none (concurrent lookups still share a query).
	TTL time.Duration
	// ErrorTTL is how long a failed lookup is kept. 0 means
	// DefaultDNSErrorTTL; a negative value keeps none.
	ErrorTTL time.Duration
	// MaxEntries bounds the names kept. 0 means DefaultDNSMaxEntries; a
	// negative value, no bound.
	MaxEntries int
	// Now is the clock that expires entries. Nil means time.Now.
	Now func() time.Time

	mu      sync.Mutex
	entries map[string]*dnsEntry // by lower-cased host name
	calls   map[string]*dnsCall  // lookups in flight, by the same key

	lookups, hits atomic.Int64
}

// DNSStats counts the work of a [DNSCache].
type DNSStats struct {
	Lookups   int64 // queries sent to the resolver
	CacheHits int64 // names answered without a query of their own: from the cache, or by sharing one in flight
}

// Stats returns the cache's counts so far. It is safe to call at any time.
func (c *DNSCache) Stats() DNSStats {
	return DNSStats{Lookups: c.lookups.Load(), CacheHits: c.hits.Load()}
}

var defaultDNSDialer = &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}

// dnsEntry is a cached answer: addresses, or the error of a failed lookup.
type dnsEntry struct {
	addrs   []netip.Addr
	err     error
	expires time.Time
}

// dnsCall is a lookup in flight. done is closed when it ends; then addrs
// and err are its outcome, unless abandoned: its caller's context ended
// first, and whoever waited on it must ask again.
type dnsCall struct {
	done      chan struct{}
	addrs     []netip.Addr
	err       error
	abandoned bool
}

// LookupNetIP returns the IP addresses of host, IPv4 and IPv6, in the
// resolver's order of preference (RFC 6724), from the cache if it holds
// an unexpired answer. A literal IP address is returned as is, without a
// lookup. Errors are the resolver's, a *net.DNSError in general; when ctx
// ends first, the error wraps ctx.Err(). The slice returned is the
// caller's.
func (c *DNSCache) LookupNetIP(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	key := strings.ToLower(host)
	for {
		c.mu.Lock()
		if e := c.entries[key]; e != nil && c.now().Before(e.expires) {
			c.mu.Unlock()
			c.hits.Add(1)
			return slices.Clone(e.addrs), copyErr(e.err)
		}
		if call := c.calls[key]; call != nil {
			c.mu.Unlock()
			select {
			case <-call.done:
				if call.abandoned {
					continue // its caller gave up: ask again, perhaps ourselves
				}
				c.hits.Add(1)
				return slices.Clone(call.addrs), copyErr(call.err)
			case <-ctx.Done():
				return nil, ctxDNSError(ctx, host)
			}
		}
		call := &dnsCall{done: make(chan struct{}), abandoned: true}
		if c.calls == nil {
			c.calls = map[string]*dnsCall{}
		}
		c.calls[key] = call
		c.mu.Unlock()
		c.lookups.Add(1)
		c.lookup(ctx, key, host, call)
		if call.abandoned {
			return nil, call.err
		}
		return slices.Clone(call.addrs), copyErr(call.err)
	}
}

// lookup asks the resolver for host on behalf of call and whoever waits on
// it, records the answer and ends the call. The call stays abandoned if
// ctx ended first, or if the resolver panicked.
func (c *DNSCache) lookup(ctx context.Context, key, host string, call *dnsCall) {
	defer func() {
		c.mu.Lock()
		delete(c.calls, key)
		if !call.abandoned {
			c.store(key, call.addrs, call.err)
		}
		c.mu.Unlock()
		close(call.done)
	}()
	r := c.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	for i, a := range addrs {
		addrs[i] = a.Unmap() // A records come back as IPv4-mapped IPv6
	}
	call.addrs, call.err = addrs, err
	call.abandoned = err != nil && ctx.Err() != nil
}

// store caches an answer for key. c.mu is held.
func (c *DNSCache) store(key string, addrs []netip.Addr, err error) {
	ttl, def := c.TTL, DefaultDNSTTL
	if err != nil {
		ttl, def = c.ErrorTTL, DefaultDNSErrorTTL
	}
	if ttl == 0 {
		ttl = def
	}
	if ttl < 0 {
		delete(c.entries, key) // an older answer must not outlive this one
		return
	}
	now := c.now()
	if c.entries == nil {
		c.entries = map[string]*dnsEntry{}
	}
	if _, ok := c.entries[key]; !ok {
		c.makeRoom(now)
	}
	c.entries[key] = &dnsEntry{addrs: addrs, err: err, expires: now.Add(ttl)}
}

// makeRoom drops entries, if the cache is full, to make room for at least
// one: the expired ones, then arbitrary ones until a sixteenth of
// MaxEntries is free, so that a full cache is swept once per so many new
// names rather than for each. c.mu is held.
func (c *DNSCache) makeRoom(now time.Time) {
	limit := c.MaxEntries
	if limit == 0 {
		limit = DefaultDNSMaxEntries
	}
	if limit < 0 || len(c.entries) < limit {
		return
	}
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			delete(c.entries, k)
		}
	}
	keep := limit - max(1, limit/16)
	for k := range c.entries {
		if len(c.entries) <= keep {
			break
		}
		delete(c.entries, k)
	}
}

// Forget drops the answer kept for host, if any, in any letter case: its
// next lookup asks the resolver. A lookup of host in flight is not
// affected, and its answer is kept when it ends.
func (c *DNSCache) Forget(host string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, strings.ToLower(host))
}

// Len returns the number of names cached, failures and expired answers not
// yet dropped included.
func (c *DNSCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func (c *DNSCache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// DialContext connects to addr on the named network, as net.Dialer's
// DialContext does, but resolves the host through the cache. It tries the
// addresses one after the other in the resolver's order (IPv4 only for
// "tcp4" and "udp4", IPv6 only for "tcp6" and "udp6"), each within its
// share of the time left, as net.Dialer does, but without racing IPv4
// against IPv6 ("Happy Eyeballs"). It returns the first connection made,
// or the errors of every attempt, joined. The whole dial is bounded by
// the Dialer's Timeout and by ctx. Networks other than tcp and udp, and
// addresses without a host, go to the Dialer as they are.
//
// When the dial is for a request of an [HTTPFetcher] (its context says
// so), the addresses resolved are checked against the fetcher's
// Addresses policy before any is dialled, and those it refuses are not
// dialled; if it refuses them all, the error wraps [ErrBlockedAddress].
// A dial of the proxy the request goes through is not checked, and other
// networks and addresses without a host are refused. Other dials are not
// checked.
func (c *DNSCache) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d := c.Dialer
	if d == nil {
		d = defaultDNSDialer
	}
	policy := dialGuard(ctx, addr)
	var want func(netip.Addr) bool
	switch network {
	case "tcp", "udp":
		want = func(netip.Addr) bool { return true }
	case "tcp4", "udp4":
		want = func(a netip.Addr) bool { return a.Unmap().Is4() }
	case "tcp6", "udp6":
		want = func(a netip.Addr) bool { return !a.Unmap().Is4() }
	default:
		if policy != nil && !policy.AllowPrivate {
			return nil, &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("%w: network %s", ErrBlockedAddress, network)}
		}
		return d.DialContext(ctx, network, addr)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		if policy != nil && !policy.AllowPrivate {
			// No host is the local system.
			return nil, &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("%w: %q", ErrBlockedAddress, addr)}
		}
		return d.DialContext(ctx, network, addr)
	}

	if d.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.Timeout)
		defer cancel()
	}
	if !d.Deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Deadline)
		defer cancel()
	}
	ips, err := c.LookupNetIP(ctx, host)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	ips = slices.DeleteFunc(ips, func(a netip.Addr) bool { return !want(a) })
	if len(ips) == 0 {
		return nil, &net.OpError{Op: "dial", Net: network,
			Err: &net.AddrError{Err: "no suitable address found", Addr: host}}
	}
	if policy != nil {
		n, _ := strconv.ParseUint(port, 10, 16) // a service name matches no AllowAddrPorts
		var refused error
		ips = slices.DeleteFunc(ips, func(a netip.Addr) bool {
			err := policy.Check(host, netip.AddrPortFrom(a, uint16(n)))
			if refused == nil {
				refused = err
			}
			return err != nil
		})
		if len(ips) == 0 {
			return nil, &net.OpError{Op: "dial", Net: network, Err: refused}
		}
	}
	var errs []error
	for i, ip := range ips {
		conn, err := dialPart(ctx, d, network, net.JoinHostPort(ip.String(), port), len(ips)-i)
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if len(errs) == 1 {
		return nil, errs[0]
	}
	return nil, errors.Join(errs...)
}

// dialPart dials one of the addresses left to try, giving it an equal
// share of the time left, but no less than two seconds if there is that
// much, as net.Dialer does.
func dialPart(ctx context.Context, d *net.Dialer, network, addr string, left int) (net.Conn, error) {
	if deadline, ok := ctx.Deadline(); ok && left > 1 {
		const least = 2 * time.Second
		share := time.Until(deadline) / time.Duration(left)
		if share < least {
			share = min(least, time.Until(deadline))
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, share)
		defer cancel()
	}
	return d.DialContext(ctx, network, addr)
}

// copyErr returns a copy of a cached *net.DNSError, so that no caller can
// change what the others are given; other errors are returned as they are.
func copyErr(err error) error {
	if e, ok := err.(*net.DNSError); ok {
		c := *e
		return &c
	}
	return err
}

// ctxDNSError is the error of a lookup whose context ended while it waited
// for another caller's query, made as the resolver makes its own.
func ctxDNSError(ctx context.Context, host string) error {
	err := ctx.Err()
	return &net.DNSError{
		Err:       err.Error(),
		Name:      host,
		IsTimeout: errors.Is(err, context.DeadlineExceeded),
		UnwrapErr: err,
	}
}
