package fetch_test

import (
	"context"
	"crawler/fetch"
	"crawler/internal/dnstest"
	"crawler/internal/leak"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"crawler"
)

// fakeClock is a clock that moves only when told to.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var (
	loop4 = netip.MustParseAddr("127.0.0.1")
	loop6 = netip.MustParseAddr("::1")
)

func testNames() map[string][]netip.Addr {
	m := map[string][]netip.Addr{
		"a.test":    {loop4},
		"v6.test":   {loop6},
		"dual.test": {loop4, loop6},
	}
	for _, n := range []string{"b", "c", "d", "e", "f", "hold", "hold2", "many"} {
		m[n+".test"] = []netip.Addr{loop4}
	}
	return m
}

// wait receives from ch, failing the test if nothing comes in 10 s (a
// guard against hanging, not a wait for an event).
func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func TestDNSCacheTTL(t *testing.T) {
	leak.Check(t)
	s := dnstest.New(t, testNames())
	clock := newFakeClock()
	c := &fetch.DNSCache{Resolver: s.Resolver(), Now: clock.Now}
	ctx := context.Background()

	for i, host := range []string{"a.test", "a.test", "A.Test", "a.test"} {
		addrs, err := c.LookupNetIP(ctx, host)
		if err != nil || !slices.Equal(addrs, []netip.Addr{loop4}) {
			t.Fatalf("lookup %d of %s = %v, %v; want [127.0.0.1]", i, host, addrs, err)
		}
		addrs[0] = netip.IPv6Unspecified() // the slice is ours: the cache must not see this
	}
	if n := s.Queries("a.test"); n != 1 {
		t.Errorf("4 lookups within the TTL made %d queries, want 1", n)
	}
	clock.Advance(fetch.DefaultDNSTTL - time.Nanosecond)
	if addrs, err := c.LookupNetIP(ctx, "a.test"); err != nil || !slices.Equal(addrs, []netip.Addr{loop4}) {
		t.Fatalf("lookup just before the TTL = %v, %v", addrs, err)
	}
	if n := s.Queries("a.test"); n != 1 {
		t.Errorf("a lookup just before the TTL made a query (%d in all)", n)
	}
	clock.Advance(time.Nanosecond)
	if addrs, err := c.LookupNetIP(ctx, "a.test"); err != nil || !slices.Equal(addrs, []netip.Addr{loop4}) {
		t.Fatalf("lookup at the TTL = %v, %v", addrs, err)
	}
	if n := s.Queries("a.test"); n != 2 {
		t.Errorf("after the TTL: %d queries, want 2", n)
	}
	if addrs, err := c.LookupNetIP(ctx, "dual.test"); err != nil || len(addrs) != 2 || !slices.Contains(addrs, loop4) || !slices.Contains(addrs, loop6) {
		t.Errorf("dual.test = %v, %v; want 127.0.0.1 and ::1", addrs, err)
	}
	if n := c.Len(); n != 2 {
		t.Errorf("Len = %d, want 2", n)
	}
	// a.test: 6 lookups, 2 queries; dual.test: 1 query.
	if got, want := c.Stats(), (fetch.DNSStats{Lookups: 3, CacheHits: 4}); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}

	// A cache whose TTL is set keeps answers that long.
	c2 := &fetch.DNSCache{Resolver: s.Resolver(), Now: clock.Now, TTL: time.Minute}
	c2.LookupNetIP(ctx, "b.test")
	clock.Advance(59 * time.Second)
	c2.LookupNetIP(ctx, "b.test")
	clock.Advance(time.Second)
	c2.LookupNetIP(ctx, "b.test")
	if n := s.Queries("b.test"); n != 2 {
		t.Errorf("TTL 1m, lookups at 0, 59 s and 60 s: %d queries, want 2", n)
	}
	// A negative TTL keeps nothing.
	c3 := &fetch.DNSCache{Resolver: s.Resolver(), TTL: -1}
	c3.LookupNetIP(ctx, "c.test")
	c3.LookupNetIP(ctx, "c.test")
	if n, l := s.Queries("c.test"), c3.Len(); n != 2 || l != 0 {
		t.Errorf("TTL -1: %d queries and %d entries, want 2 and 0", n, l)
	}
}

func TestDNSCacheNegative(t *testing.T) {
	leak.Check(t)
	s := dnstest.New(t, testNames())
	clock := newFakeClock()
	c := &fetch.DNSCache{Resolver: s.Resolver(), Now: clock.Now}
	ctx := context.Background()

	for range 3 {
		addrs, err := c.LookupNetIP(ctx, "nx.test")
		var dnsErr *net.DNSError
		if !errors.As(err, &dnsErr) || !dnsErr.IsNotFound || addrs != nil {
			t.Fatalf("nx.test = %v, %v; want a not-found *net.DNSError", addrs, err)
		}
	}
	// Through DialContext, the failure is still a DNS error for the stats.
	_, err := c.DialContext(ctx, "tcp", "nx.test:80")
	if k := crawler.ErrorKind(err); k != fetch.KindDNS {
		t.Errorf("dialing nx.test: %v, of kind %q; want %q", err, k, fetch.KindDNS)
	}
	if n := s.Queries("nx.test"); n != 1 {
		t.Errorf("4 failed lookups within the error TTL made %d queries, want 1", n)
	}
	clock.Advance(fetch.DefaultDNSErrorTTL)
	if _, err := c.LookupNetIP(ctx, "nx.test"); err == nil {
		t.Fatal("nx.test resolved")
	}
	if n := s.Queries("nx.test"); n != 2 {
		t.Errorf("after the error TTL: %d queries, want 2", n)
	}

	// ErrorTTL set, and negative (failures not kept).
	c2 := &fetch.DNSCache{Resolver: s.Resolver(), Now: clock.Now, ErrorTTL: time.Second}
	c2.LookupNetIP(ctx, "nx2.test")
	c2.LookupNetIP(ctx, "nx2.test")
	clock.Advance(time.Second)
	c2.LookupNetIP(ctx, "nx2.test")
	if n := s.Queries("nx2.test"); n != 2 {
		t.Errorf("ErrorTTL 1s: %d queries, want 2", n)
	}
	c3 := &fetch.DNSCache{Resolver: s.Resolver(), ErrorTTL: -1}
	c3.LookupNetIP(ctx, "nx3.test")
	c3.LookupNetIP(ctx, "nx3.test")
	if n := s.Queries("nx3.test"); n != 2 {
		t.Errorf("ErrorTTL -1: %d queries, want 2", n)
	}
}

func TestDNSCacheConcurrentLookupsShareAQuery(t *testing.T) {
	leak.Check(t)
	s := dnstest.New(t, testNames())
	c := &fetch.DNSCache{Resolver: s.Resolver()}
	arrived, release := s.Hold("many.test")
	defer release()

	// Each caller spells the name in its own case: net.Resolver shares a
	// query between concurrent lookups of one spelling, not of several.
	const n = 50
	var started, done sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		started.Add(1)
		done.Go(func() {
			started.Done()
			addrs, err := c.LookupNetIP(context.Background(), spell("many.test", i))
			if err == nil && !slices.Equal(addrs, []netip.Addr{loop4}) {
				err = fmt.Errorf("got %v", addrs)
			}
			errs <- err
		})
	}
	started.Wait()
	wait(t, arrived, "the query")
	release()
	done.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if q := s.Queries("many.test"); q != 1 {
		t.Errorf("%d concurrent lookups made %d queries, want 1", n, q)
	}
	if got, want := c.Stats(), (fetch.DNSStats{Lookups: 1, CacheHits: n - 1}); got != want {
		t.Errorf("Stats = %+v, want %+v: the callers that shared the query count as hits", got, want)
	}
}

// spell returns name with the letters whose index is a set bit of i in
// upper case.
func spell(name string, i int) string {
	b := []byte(name)
	for j := range b {
		if i&(1<<j) != 0 {
			b[j] = byte(unicode.ToUpper(rune(b[j])))
		}
	}
	return string(b)
}

// A caller waiting on another's query returns as soon as its context ends;
// the query goes on for the one that made it.
func TestDNSCacheWaiterCancel(t *testing.T) {
	leak.Check(t)
	s := dnstest.New(t, testNames())
	c := &fetch.DNSCache{Resolver: s.Resolver()}
	arrived, release := s.Hold("hold.test")
	defer release()

	first := make(chan error, 1)
	go func() {
		_, err := c.LookupNetIP(context.Background(), "hold.test")
		first <- err
	}()
	wait(t, arrived, "the first query")

	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() {
		_, err := c.LookupNetIP(ctx, "hold.test")
		second <- err
	}()
	cancel()
	select {
	case err := <-second:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled waiter: %v, want context.Canceled", err)
		}
	case err := <-first:
		t.Fatalf("the held query ended (%v) before the cancelled waiter returned", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled waiter did not return")
	}
	// Expired deadlines too.
	dctx, dcancel := context.WithDeadline(context.Background(), time.Unix(1, 0))
	defer dcancel()
	if _, err := c.LookupNetIP(dctx, "hold.test"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiter past its deadline: %v, want context.DeadlineExceeded", err)
	}

	release()
	if err := <-first; err != nil {
		t.Errorf("the query's maker: %v", err)
	}
	if addrs, err := c.LookupNetIP(context.Background(), "hold.test"); err != nil || !slices.Equal(addrs, []netip.Addr{loop4}) {
		t.Errorf("after: %v, %v", addrs, err)
	}
	if n := s.Queries("hold.test"); n != 1 {
		t.Errorf("%d queries, want 1", n)
	}
}

// When the caller whose query it is gives up, its lookup is dropped and not
// cached; a caller still waiting asks again.
func TestDNSCacheLeaderCancel(t *testing.T) {
	leak.Check(t)
	s := dnstest.New(t, testNames())
	c := &fetch.DNSCache{Resolver: s.Resolver()}
	arrived, release := s.Hold("hold2.test")
	defer release()

	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, err := c.LookupNetIP(ctx, "hold2.test")
		first <- err
	}()
	wait(t, arrived, "the first query")
	second := make(chan error, 1)
	go func() {
		addrs, err := c.LookupNetIP(context.Background(), "hold2.test")
		if err == nil && !slices.Equal(addrs, []netip.Addr{loop4}) {
			err = fmt.Errorf("got %v", addrs)
		}
		second <- err
	}()
	cancel()
	select {
	case err := <-first:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled lookup: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled lookup did not return")
	}
	if n := c.Len(); n != 0 {
		t.Errorf("an abandoned lookup was cached (Len %d)", n)
	}
	wait(t, arrived, "the second query")
	release()
	if err := <-second; err != nil {
		t.Errorf("the waiter: %v", err)
	}
	if n := s.Queries("hold2.test"); n != 2 {
		t.Errorf("%d queries, want 2 (the abandoned one, then the waiter's)", n)
	}
}

func TestDNSCacheLiteralIPs(t *testing.T) {
	leak.Check(t)
	s := dnstest.New(t, testNames())
	c := &fetch.DNSCache{Resolver: s.Resolver()}
	ctx := context.Background()
	for _, ip := range []string{"127.0.0.1", "::1", "fe80::1%lo", "::ffff:127.0.0.1"} {
		addrs, err := c.LookupNetIP(ctx, ip)
		if err != nil || len(addrs) != 1 || addrs[0] != netip.MustParseAddr(ip) {
			t.Errorf("LookupNetIP(%s) = %v, %v", ip, addrs, err)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	conn, err := c.DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	// A bracketed IPv6 literal, refused by "tcp4" without a lookup.
	if _, err := c.DialContext(ctx, "tcp4", fmt.Sprintf("[::1]:%d", port)); err == nil || !strings.Contains(err.Error(), "no suitable address") {
		t.Errorf("tcp4 to [::1]: %v, want no suitable address", err)
	}
	if ln6, err := net.Listen("tcp6", "[::1]:0"); err == nil { // where IPv6 loopback exists
		conn, err := c.DialContext(ctx, "tcp", ln6.Addr().String())
		if err != nil {
			t.Error(err)
		} else {
			conn.Close()
		}
		ln6.Close()
	}
	if n := s.Total(); n != 0 || c.Len() != 0 {
		t.Errorf("literal addresses made %d queries and %d entries, want none", n, c.Len())
	}
}

func TestDNSCacheDial(t *testing.T) {
	leak.Check(t)
	s := dnstest.New(t, testNames())
	c := &fetch.DNSCache{Resolver: s.Resolver()}
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	addr := func(host string) string { return fmt.Sprintf("%s:%d", host, port) }

	// dual.test has ::1 and 127.0.0.1; only the latter listens, so "tcp"
	// gets there whatever the order, and "tcp4" there directly.
	for _, network := range []string{"tcp", "tcp4", "tcp"} {
		conn, err := c.DialContext(ctx, network, addr("dual.test"))
		if err != nil {
			t.Fatalf("%s dual.test: %v", network, err)
		}
		if got := conn.RemoteAddr().(*net.TCPAddr).AddrPort().Addr().Unmap(); got != loop4 {
			t.Errorf("%s dual.test connected to %v", network, got)
		}
		conn.Close()
	}
	if _, err := c.DialContext(ctx, "tcp6", addr("a.test")); err == nil || !strings.Contains(err.Error(), "no suitable address") {
		t.Errorf("tcp6 to a.test (IPv4 only): %v, want no suitable address", err)
	}
	if _, err := c.DialContext(ctx, "tcp4", addr("v6.test")); err == nil || !strings.Contains(err.Error(), "no suitable address") {
		t.Errorf("tcp4 to v6.test (IPv6 only): %v, want no suitable address", err)
	}
	ln.Close()
	// Nothing listens now: both addresses fail, and both say so.
	_, err = c.DialContext(ctx, "tcp", addr("dual.test"))
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1") || !strings.Contains(err.Error(), "[::1]") {
		t.Errorf("dial to a closed port: %v, want the errors of both addresses", err)
	}
	if q := s.Queries("dual.test") + s.Queries("a.test") + s.Queries("v6.test"); q != 3 {
		t.Errorf("%d queries, want 3 (one per name)", q)
	}
	// A cancelled context ends the dial.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.DialContext(cctx, "tcp", addr("b.test")); !errors.Is(err, context.Canceled) {
		t.Errorf("dial with a cancelled context: %v", err)
	}
	// Go's resolver goes on with the lookup the cancelled dial began, in a
	// goroutine of its own, whatever its caller's context: join it (the
	// resolver shares one lookup of a name among its callers), so that it
	// ends before the test, and the DNS server, do. On a loaded machine it
	// could outlast leak.Check's wait.
	if _, err := c.Resolver.LookupNetIP(ctx, "ip", "b.test"); err != nil {
		t.Errorf("b.test: %v", err)
	}
}

func TestDNSCacheMaxEntries(t *testing.T) {
	leak.Check(t)
	s := dnstest.New(t, testNames())
	clock := newFakeClock()
	ctx := context.Background()
	c := &fetch.DNSCache{Resolver: s.Resolver(), Now: clock.Now, MaxEntries: 3}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "nx1", "nx2"} {
		c.LookupNetIP(ctx, n+".test")
		if l := c.Len(); l > 3 || l < 1 {
			t.Fatalf("after %s.test: Len = %d, want 1 to 3", n, l)
		}
	}

	// Expired entries go first: nx.test (error TTL) has expired, a.test
	// not, so b.test takes nx.test's place.
	c = &fetch.DNSCache{Resolver: s.Resolver(), Now: clock.Now, MaxEntries: 2}
	c.LookupNetIP(ctx, "a.test")
	c.LookupNetIP(ctx, "nx.test")
	clock.Advance(fetch.DefaultDNSErrorTTL)
	c.LookupNetIP(ctx, "b.test")
	before := s.Queries("a.test")
	c.LookupNetIP(ctx, "a.test")
	if l, q := c.Len(), s.Queries("a.test")-before; l != 2 || q != 0 {
		t.Errorf("Len = %d, a.test queried %d more times; want 2 and 0", l, q)
	}
}

// newDNSTransport returns a transport like NewTransport's, resolving
// through s.
func newDNSTransport(s *dnstest.Server) *http.Transport {
	tr := fetch.NewTransport()
	tr.DialContext = (&fetch.DNSCache{Resolver: s.Resolver()}).DialContext
	tr.DisableKeepAlives = true // a new connection for each request
	return tr
}

func TestHTTPFetcherCachesDNS(t *testing.T) {
	leak.Check(t)
	s := dnstest.New(t, testNames())
	srv, conns := countedServer(t)
	port := srv.Listener.Addr().(*net.TCPAddr).Port

	tr := newDNSTransport(s)
	defer tr.CloseIdleConnections()
	f := &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}, Addresses: testLoopback}
	for i := range 4 {
		resp, err := f.Fetch(context.Background(), &fetch.Request{URL: fmt.Sprintf("http://a.test:%d/%d", port, i)})
		if err != nil || resp.Status != 200 {
			t.Fatalf("fetch %d: %v, %v", i, resp, err)
		}
	}
	if n := conns.n.Load(); n != 4 {
		t.Errorf("%d connections, want 4", n)
	}
	if q := s.Queries("a.test"); q != 1 {
		t.Errorf("4 fetches over new connections made %d DNS queries, want 1", q)
	}
}

// An HTTPFetcher reports the counts of its DNS cache: that of the
// transport it made for a nil Client, or DNS, through which a transport of
// NewTransportWith dials.
func TestHTTPFetcherDNSStats(t *testing.T) {
	s := dnstest.New(t, testNames())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	loopback := fetch.AddressPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}

	dns := &fetch.DNSCache{Resolver: s.Resolver()}
	tr := fetch.NewTransportWith(dns)
	tr.DisableKeepAlives = true // a dial, and so a lookup, per request
	f := &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}, DNS: dns, Addresses: loopback}
	for range 3 {
		if _, err := f.Fetch(context.Background(), &fetch.Request{URL: "http://a.test:" + port + "/"}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := f.DNSStats(), (fetch.DNSStats{Lookups: 1, CacheHits: 2}); got != want {
		t.Errorf("DNSStats = %+v, want %+v", got, want)
	}
	if got := (&fetch.HTTPFetcher{Client: &http.Client{}}).DNSStats(); got != (fetch.DNSStats{}) {
		t.Errorf("a Client of its own without DNS: %+v, want zero counts", got)
	}
	if got := (&fetch.HTTPFetcher{}).DNSStats(); got != (fetch.DNSStats{}) {
		t.Errorf("a nil Client before any fetch: %+v, want zero counts", got)
	}
}

// Forget drops a kept answer, a failure or addresses, in any letter case:
// the next lookup asks the resolver. Through the fetcher, ForgetDNS does
// the same for its cache, and nothing without one.
func TestDNSCacheForget(t *testing.T) {
	s := dnstest.New(t, testNames())
	ctx := context.Background()
	c := &fetch.DNSCache{Resolver: s.Resolver()}
	for range 2 {
		c.LookupNetIP(ctx, "nx.test")
		c.LookupNetIP(ctx, "a.test")
	}
	c.Forget("NX.test")
	c.Forget("unknown.test") // nothing kept: nothing happens
	c.LookupNetIP(ctx, "nx.test")
	c.LookupNetIP(ctx, "a.test")
	if nx, a := s.Queries("nx.test"), s.Queries("a.test"); nx != 2 || a != 1 {
		t.Errorf("after Forget(NX.test): %d queries for nx.test, %d for a.test; want 2, 1", nx, a)
	}
	c.Forget("a.test")
	if addrs, err := c.LookupNetIP(ctx, "a.test"); err != nil || !slices.Equal(addrs, []netip.Addr{loop4}) || s.Queries("a.test") != 2 {
		t.Errorf("after Forget(a.test): %v, %v, %d queries; want %v from a second query", addrs, err, s.Queries("a.test"), loop4)
	}

	dns := &fetch.DNSCache{Resolver: s.Resolver()}
	f := &fetch.HTTPFetcher{DNS: dns}
	for range 2 {
		if _, err := f.Fetch(ctx, &fetch.Request{URL: "http://nx2.test/"}); crawler.ErrorKind(err) != fetch.KindDNS {
			t.Fatalf("fetching nx2.test: %v; want a DNS error", err)
		}
	}
	f.ForgetDNS("nx2.test")
	f.Fetch(ctx, &fetch.Request{URL: "http://nx2.test/"})
	if n := s.Queries("nx2.test"); n != 2 {
		t.Errorf("3 fetches, ForgetDNS before the last: %d queries, want 2", n)
	}
	(&fetch.HTTPFetcher{Client: &http.Client{}}).ForgetDNS("nx2.test") // no cache: nothing to do
}
