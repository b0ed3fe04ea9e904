package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"crawler/fetch"
	"crawler/internal/dnstest"
	"crawler/internal/proxytest"
)

// origin is the server behind the test proxies: it answers every request
// with the host and path it was asked for, and "/denied" with a ban page.
type origin struct {
	*httptest.Server
	mu    sync.Mutex
	hosts map[string]int // requests by Host
}

func newOrigin(t *testing.T, tlsOn bool) *origin {
	o := &origin{hosts: map[string]int{}}
	o.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.hosts[r.Host]++
		o.mu.Unlock()
		if r.URL.Path == "/denied" {
			fmt.Fprint(w, "<html>Access denied: unusual traffic from your network</html>")
			return
		}
		fmt.Fprintf(w, "host=%s path=%s", r.Host, r.URL.Path)
	}))
	if tlsOn {
		o.StartTLS()
	} else {
		o.Start()
	}
	t.Cleanup(o.Close)
	return o
}

func (o *origin) target() string { return o.Listener.Addr().String() }

// allowProxies is the policy that allows the proxies' endpoints only: what
// is behind them is reached by name.
func allowProxies(ps ...*proxytest.Proxy) fetch.AddressPolicy {
	var a fetch.AddressPolicy
	for _, p := range ps {
		a.AllowAddrPorts = append(a.AllowAddrPorts, netip.MustParseAddrPort(p.URL.Host))
	}
	return a
}

func urls(ps ...*proxytest.Proxy) []*url.URL {
	var out []*url.URL
	for _, p := range ps {
		out = append(out, p.URL)
	}
	return out
}

func pget(t *testing.T, f fetch.Fetcher, u string) (*fetch.Response, error) {
	t.Helper()
	return f.Fetch(context.Background(), &fetch.Request{URL: u})
}

func wantBody(t *testing.T, f fetch.Fetcher, u, want string) {
	t.Helper()
	resp, err := pget(t, f, u)
	if err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	if resp.Status != 200 || string(resp.Body) != want {
		t.Fatalf("%s: %d %q, want 200 %q", u, resp.Status, resp.Body, want)
	}
}

// Each kind of proxy carries http, and https through CONNECT: an http://
// proxy, an https:// one, and SOCKS5 with and without a password.
func TestProxyKinds(t *testing.T) {
	plain, secure := newOrigin(t, false), newOrigin(t, true)
	tlsConf := secure.Client().Transport.(*http.Transport).TLSClientConfig
	for _, tc := range []struct {
		name string
		make func(target string) *proxytest.Proxy
		user *url.Userinfo
	}{
		{"http", func(target string) *proxytest.Proxy { return proxytest.NewHTTP(t, target, proxytest.Healthy, false) }, nil},
		{"https", func(target string) *proxytest.Proxy { return proxytest.NewHTTP(t, target, proxytest.Healthy, true) }, nil},
		{"socks5", func(target string) *proxytest.Proxy { return proxytest.NewSOCKS5(t, target, proxytest.Healthy) }, nil},
		{"socks5+password", func(target string) *proxytest.Proxy { return proxytest.NewSOCKS5(t, target, proxytest.Healthy) }, url.UserPassword("u", "s3cret")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, o := range []*origin{plain, secure} {
				p := tc.make(o.target())
				pu := *p.URL
				pu.User = tc.user
				tr := fetch.NewTransport()
				tr.TLSClientConfig = tlsConf.Clone() // httptest's one certificate: origin and https proxy
				pool := &fetch.ProxyPool{Proxies: []*url.URL{&pu}}
				f := &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}, Addresses: allowProxies(p), Proxies: pool}
				scheme := "http"
				if o == secure {
					scheme = "https"
				}
				u := scheme + "://example.com/page" // the certificate's name; the proxy resolves it to the origin
				wantBody(t, f, u, "host=example.com path=/page")
				if p.Forwarded.Load() != 1 {
					t.Errorf("%s through %s: the proxy forwarded %d requests, want 1", u, pu.Redacted(), p.Forwarded.Load())
				}
				st := pool.Stats()
				if len(st) != 1 || st[0].Requests != 1 || st[0].Failures != 0 || st[0].Proxy != pu.Redacted() {
					t.Errorf("stats %+v, want 1 request through %s", st, pu.Redacted())
				}
				if strings.Contains(fmt.Sprint(st), "s3cret") {
					t.Errorf("stats show the password: %+v", st)
				}
				f.CloseIdleConnections()
			}
		})
	}
}

// A proxy that answers 403 to everything is benched after MaxFailures
// bans; its hosts move to the healthy one at their first ban, and once it
// is benched nothing goes to it.
func TestProxyBanBenches(t *testing.T) {
	o := newOrigin(t, false)
	banning := proxytest.NewHTTP(t, o.target(), proxytest.Ban, false)
	healthy := proxytest.NewHTTP(t, o.target(), proxytest.Healthy, false)
	pool := &fetch.ProxyPool{Proxies: urls(banning, healthy), MaxFailures: 3, Bench: time.Hour, MaxBench: 2 * time.Hour}
	f := &fetch.HTTPFetcher{Addresses: allowProxies(banning, healthy), Proxies: pool}
	const hosts = 40
	var bans int
	for i := range hosts {
		u := fmt.Sprintf("http://h%d.test/", i)
		resp, err := pget(t, f, u)
		if err != nil {
			// A host on the banning proxy: its first answer is a ban, and
			// the host moves at once.
			if !errors.Is(err, fetch.ErrProxyBanned) || fetch.ErrorKind(err) != fetch.KindProxyBanned {
				t.Fatalf("%s: %v, want a ban", u, err)
			}
			var pe *fetch.ProxyError
			if !errors.As(err, &pe) || pe.Status != 403 || pe.Proxy != banning.URL.String() {
				t.Fatalf("%s: %#v, want a ProxyError of %s, 403", u, pe, banning.URL)
			}
			bans++
			resp, err = pget(t, f, u)
		}
		if err != nil || string(resp.Body) != fmt.Sprintf("host=h%d.test path=/", i) {
			t.Fatalf("%s, again: %v, %v; want the page", u, resp, err)
		}
	}
	if bans != 3 || banning.Requests.Load() != 3 {
		t.Errorf("%d bans, %d requests through the banning proxy; want 3 and 3 (MaxFailures)", bans, banning.Requests.Load())
	}
	st := pool.Stats()
	if st[0].Bans != 3 || st[0].Benched != 1 || time.Until(st[0].BenchedUntil) < 59*time.Minute {
		t.Errorf("banning proxy: %+v, want 3 bans and benched for an hour", st[0])
	}
	if st[1].Requests != hosts || st[1].Failures+st[1].Bans != 0 || !st[1].BenchedUntil.IsZero() {
		t.Errorf("healthy proxy: %+v, want %d requests and no failure", st[1], hosts)
	}
}

// Sticky: a host keeps its proxy; hosts spread over the proxies.
// Round-robin: requests take the proxies in turn.
func TestProxyRotation(t *testing.T) {
	o := newOrigin(t, false)
	ps := []*proxytest.Proxy{
		proxytest.NewHTTP(t, o.target(), proxytest.Healthy, false),
		proxytest.NewHTTP(t, o.target(), proxytest.Healthy, false),
		proxytest.NewHTTP(t, o.target(), proxytest.Healthy, false),
	}
	sticky := &fetch.ProxyPool{Proxies: urls(ps...)}
	f := &fetch.HTTPFetcher{Addresses: allowProxies(ps...), Proxies: sticky}
	for range 10 {
		wantBody(t, f, "http://one.test/", "host=one.test path=/")
	}
	var used []int64
	for _, s := range sticky.Stats() {
		used = append(used, s.Requests)
	}
	if fmt.Sprint(used) != "[10 0 0]" && fmt.Sprint(used) != "[0 10 0]" && fmt.Sprint(used) != "[0 0 10]" {
		t.Errorf("one host's 10 requests went through %v, want one proxy", used)
	}
	for i := range 300 {
		wantBody(t, f, fmt.Sprintf("http://h%d.test/", i), fmt.Sprintf("host=h%d.test path=/", i))
	}
	for i, s := range sticky.Stats() {
		if n := s.Requests; n < 60 {
			t.Errorf("proxy %d took %d of 300 hosts' requests, want about 100", i, n)
		}
	}

	rr := &fetch.ProxyPool{Proxies: urls(ps...), Rotate: fetch.RoundRobin}
	f = &fetch.HTTPFetcher{Addresses: allowProxies(ps...), Proxies: rr}
	for range 9 {
		wantBody(t, f, "http://one.test/", "host=one.test path=/")
	}
	for i, s := range rr.Stats() {
		if s.Requests != 3 {
			t.Errorf("round-robin: proxy %d took %d of 9 requests, want 3", i, s.Requests)
		}
	}
}

// A proxy that drops half its connections: the drops fail their fetch
// and count against it, and move its hosts to the next proxy.
func TestProxyDrops(t *testing.T) {
	o := newOrigin(t, false)
	flaky := proxytest.NewHTTP(t, o.target(), proxytest.DropHalf, false)
	healthy := proxytest.NewHTTP(t, o.target(), proxytest.Healthy, false)
	tr := fetch.NewTransport()
	tr.DisableKeepAlives = true // a drop on a reused connection would be retried by net/http
	pool := &fetch.ProxyPool{Proxies: urls(flaky, healthy), MaxFailures: -1}
	f := &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}, Addresses: allowProxies(flaky, healthy), Proxies: pool}
	var failed int
	for i := range 40 {
		u := fmt.Sprintf("http://h%d.test/", i)
		if _, err := pget(t, f, u); err != nil {
			var pe *fetch.ProxyError
			if !errors.As(err, &pe) || pe.Proxy != flaky.URL.String() || fetch.ErrorKind(err) != fetch.KindReset {
				t.Fatalf("%s: %v, want a reset through the flaky proxy", u, err)
			}
			failed++
			wantBody(t, f, u, fmt.Sprintf("host=h%d.test path=/", i)) // moved
		}
	}
	st := pool.Stats()
	if failed == 0 || st[0].Failures != int64(failed) || st[0].Benched != 0 {
		t.Errorf("%d fetches failed; flaky proxy %+v: want as many failures, never benched (MaxFailures -1)", failed, st[0])
	}
}

// A body matching a ban pattern, through the Banned hook, counts as a ban.
func TestProxyBannedHook(t *testing.T) {
	o := newOrigin(t, false)
	p := proxytest.NewHTTP(t, o.target(), proxytest.Healthy, false)
	pattern := regexp.MustCompile(`(?i)access denied|unusual traffic`)
	var calls int
	var mu sync.Mutex
	pool := &fetch.ProxyPool{Proxies: urls(p), MaxFailures: 2, Bench: time.Hour, Direct: false,
		Banned: func(req *fetch.Request, resp *fetch.Response) bool {
			mu.Lock()
			calls++
			mu.Unlock()
			return pattern.Match(resp.Body)
		}}
	f := &fetch.HTTPFetcher{Addresses: allowProxies(p), Proxies: pool}
	wantBody(t, f, "http://a.test/", "host=a.test path=/")
	_, err := pget(t, f, "http://a.test/denied")
	if !errors.Is(err, fetch.ErrProxyBanned) || !strings.Contains(err.Error(), "200 OK") {
		t.Fatalf("ban page: %v, want ErrProxyBanned naming its 200", err)
	}
	wantBody(t, f, "http://a.test/", "host=a.test path=/") // a success clears the count
	if _, err := pget(t, f, "http://a.test/denied"); !errors.Is(err, fetch.ErrProxyBanned) {
		t.Fatal(err)
	}
	if st := pool.Stats()[0]; st.Bans != 2 || st.Benched != 0 {
		t.Errorf("%+v: want 2 bans, not in a row, not benched", st)
	}
	if calls != 4 {
		t.Errorf("Banned called %d times, want 4", calls)
	}
}

// With every proxy benched a fetch waits for the first back, or for its
// context; with Direct it goes without a proxy.
func TestProxyAllBenched(t *testing.T) {
	o := newOrigin(t, false)
	p := proxytest.NewHTTP(t, o.target(), proxytest.Ban, false)
	const bench = 300 * time.Millisecond
	pool := &fetch.ProxyPool{Proxies: urls(p), MaxFailures: 2, Bench: bench}
	f := &fetch.HTTPFetcher{Addresses: allowProxies(p), Proxies: pool}
	for range 2 {
		if _, err := pget(t, f, "http://a.test/"); !errors.Is(err, fetch.ErrProxyBanned) {
			t.Fatal(err)
		}
	}
	until := pool.Stats()[0].BenchedUntil
	if until.IsZero() {
		t.Fatalf("not benched: %+v", pool.Stats())
	}
	// The context ends first.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	_, err := f.Fetch(ctx, &fetch.Request{URL: "http://a.test/"})
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "all 1 proxies benched") {
		t.Fatalf("fetch cut short while benched: %v", err)
	}
	// The proxy mends; the fetch waits for the bench's end.
	p.SetMode(proxytest.Healthy)
	wantBody(t, f, "http://a.test/", "host=a.test path=/")
	if now := time.Now(); now.Before(until) {
		t.Errorf("fetched %v before the bench ended", until.Sub(now))
	}
	if st := pool.Stats()[0]; st.Requests != 3 || st.Benched != 1 {
		t.Errorf("%+v: want 3 requests (none while benched), benched once", st)
	}

	// A success cleared the count: two bans bench it for Bench again;
	// back from that bench, one ban benches it twice as long.
	p.SetMode(proxytest.Ban)
	pget(t, f, "http://a.test/")
	pget(t, f, "http://a.test/")
	first := pool.Stats()[0]
	pget(t, f, "http://a.test/")
	second := pool.Stats()[0]
	if first.Benched != 2 || second.Benched != 3 || second.Requests != 6 {
		t.Fatalf("%+v then %+v: want benched after 2 bans, then after 1", first, second)
	}
	if d := second.BenchedUntil.Sub(first.BenchedUntil); d < 2*bench {
		t.Errorf("the second bench ends %v after the first, want at least %v", d, 2*bench)
	}

	// Direct: no waiting, and no proxy.
	direct := &fetch.ProxyPool{Proxies: urls(p), MaxFailures: 1, Bench: time.Hour, Direct: true}
	policy := allowProxies(p)
	policy.AllowAddrPorts = append(policy.AllowAddrPorts, netip.MustParseAddrPort(o.target()))
	f = &fetch.HTTPFetcher{Addresses: policy, Proxies: direct}
	if _, err := pget(t, f, o.URL+"/x"); !errors.Is(err, fetch.ErrProxyBanned) {
		t.Fatal(err)
	}
	wantBody(t, f, o.URL+"/x", "host="+o.target()+" path=/x")
	if st := direct.Stats()[0]; st.Requests != 1 {
		t.Errorf("%+v: want the direct request not counted against the proxy", st)
	}
}

// The address policy: a proxy's own address must be allowed, and what is
// reached through one is checked as through any proxy.
func TestProxyAddressPolicy(t *testing.T) {
	o := newOrigin(t, false)
	p := proxytest.NewHTTP(t, o.target(), proxytest.Healthy, false)

	// The zero policy refuses a proxy on loopback: every fetch fails,
	// naming the proxy, and nothing reaches it.
	f := &fetch.HTTPFetcher{Proxies: &fetch.ProxyPool{Proxies: urls(p)}}
	_, err := pget(t, f, "http://a.test/")
	if !errors.Is(err, fetch.ErrBlockedAddress) || !strings.Contains(err.Error(), p.URL.Host) {
		t.Errorf("a proxy on loopback, not allowed: %v", err)
	}

	// Allowed: literal addresses the policy refuses are refused before
	// anything is sent, through the proxy as without.
	f = &fetch.HTTPFetcher{Addresses: allowProxies(p), Proxies: &fetch.ProxyPool{Proxies: urls(p)}}
	for _, u := range []string{o.URL + "/", "http://10.0.0.1/", "http://localhost/", "http://169.254.169.254/"} {
		if _, err := pget(t, f, u); !errors.Is(err, fetch.ErrBlockedAddress) {
			t.Errorf("%s through the proxy: %v, want ErrBlockedAddress", u, err)
		}
	}
	if n := p.Requests.Load(); n != 0 {
		t.Errorf("the proxy got %d requests, want none", n)
	}

	// A proxy named: the address its name resolves to is checked when
	// dialled, and a refusal is not the proxy's failure.
	dns := dnstest.New(t, map[string][]netip.Addr{"proxy.test": {loop4}})
	named := &url.URL{Scheme: "http", Host: "proxy.test:" + p.URL.Port()}
	pool := &fetch.ProxyPool{Proxies: []*url.URL{named}}
	f = &fetch.HTTPFetcher{DNS: &fetch.DNSCache{Resolver: dns.Resolver()}, Proxies: pool}
	if _, err := pget(t, f, "http://a.test/"); !errors.Is(err, fetch.ErrBlockedAddress) || !strings.Contains(err.Error(), "for proxy.test") {
		t.Errorf("a proxy whose name resolves to loopback, not allowed: %v", err)
	}
	if st := pool.Stats()[0]; st.Failures != 0 || p.Requests.Load() != 0 {
		t.Errorf("%+v, %d requests at the proxy: want no failure counted, nothing sent", st, p.Requests.Load())
	}
	f = &fetch.HTTPFetcher{DNS: &fetch.DNSCache{Resolver: dns.Resolver()}, Addresses: fetch.AddressPolicy{AllowHosts: []string{"proxy.test"}},
		Proxies: &fetch.ProxyPool{Proxies: []*url.URL{named}}}
	wantBody(t, f, "http://a.test/", "host=a.test path=/")

	// Bad configurations.
	for _, pool := range []*fetch.ProxyPool{
		{},
		{Proxies: []*url.URL{{Scheme: "ftp", Host: p.URL.Host}}},
		{Proxies: []*url.URL{{Scheme: "http"}}},
		{Proxies: urls(p), Rotate: "random"},
	} {
		f := &fetch.HTTPFetcher{Addresses: allowProxies(p), Proxies: pool}
		if _, err := pget(t, f, "http://a.test/"); err == nil || !strings.HasPrefix(errors.Unwrap(err).Error(), "fetch: ") {
			t.Errorf("pool %+v: %v, want a configuration error", pool, err)
		}
	}
}

// A proxy that asks for credentials (407) fails the fetch with
// ErrProxyAuth and counts against the proxy.
func TestProxyAuthRequired(t *testing.T) {
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Proxy-Authenticate", `Basic realm="proxy"`)
		w.WriteHeader(http.StatusProxyAuthRequired)
	}))
	defer p.Close()
	pu, _ := url.Parse(p.URL)
	pool := &fetch.ProxyPool{Proxies: []*url.URL{pu}}
	f := &fetch.HTTPFetcher{Addresses: fetch.AddressPolicy{AllowAddrPorts: []netip.AddrPort{netip.MustParseAddrPort(pu.Host)}}, Proxies: pool}
	_, err := pget(t, f, "http://a.test/")
	if !errors.Is(err, fetch.ErrProxyAuth) || fetch.ErrorKind(err) != fetch.KindProxyAuth {
		t.Fatalf("%v, want ErrProxyAuth", err)
	}
	if st := pool.Stats()[0]; st.Failures != 1 {
		t.Errorf("%+v: want 1 failure", st)
	}
}

// Stats may be read while the pool serves its first fetches, as the
// metrics of a crawl read it from its start (the race detector checks).
func TestProxyStatsDuringFirstFetch(t *testing.T) {
	o := newOrigin(t, false)
	p := proxytest.NewHTTP(t, o.target(), proxytest.Healthy, false)
	pool := &fetch.ProxyPool{Proxies: urls(p)}
	f := &fetch.HTTPFetcher{Addresses: allowProxies(p), Proxies: pool}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			if st := pool.Stats(); len(st) != 1 {
				t.Errorf("Stats gave %d proxies, want 1", len(st))
				return
			}
		}
	}()
	wantBody(t, f, "http://one.test/", "host=one.test path=/")
	<-done
	if st := pool.Stats(); st[0].Requests != 1 {
		t.Errorf("Stats after one fetch: %+v", st)
	}
}
