package fetch_test

import (
	"context"
	"crawler/fetch"
	"crawler/internal/dnstest"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"crawler"
)

// testLoopback is the address policy of the tests whose servers
// (httptest) listen on 127.0.0.1: that address is allowed, and no other
// special-purpose one.
var testLoopback = fetch.AddressPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}

// tripwire is the tests' own guard beneath the one under test: as a
// net.Dialer's ControlContext, which runs after the socket is made and
// before it connects (net/sock_posix.go), it records every address a
// connection is attempted to and refuses all but 127.0.0.1 and ::1. A
// test of refusals thus sends nothing off loopback even if the guard
// under test lets an address through, and fails then.
type tripwire struct {
	mu      sync.Mutex
	dialled []string
}

func (w *tripwire) control(_ context.Context, _, address string, _ syscall.RawConn) error {
	w.mu.Lock()
	w.dialled = append(w.dialled, address)
	w.mu.Unlock()
	if ap, err := netip.ParseAddrPort(address); err == nil && (ap.Addr().Unmap() == loop4 || ap.Addr() == loop6) {
		return nil
	}
	return fmt.Errorf("tripwire: refusing to connect to %s", address)
}

// offLoopback returns the addresses other than 127.0.0.1 and ::1 that a
// connection was attempted to.
func (w *tripwire) offLoopback() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, a := range w.dialled {
		if ap, err := netip.ParseAddrPort(a); err != nil || ap.Addr().Unmap() != loop4 && ap.Addr() != loop6 {
			out = append(out, a)
		}
	}
	return out
}

// guardedTransport returns a transport of NewTransport whose DNS asks
// resolver, without caching, and whose connections pass the tripwire.
func guardedTransport(t *testing.T, resolver *net.Resolver, w *tripwire) *http.Transport {
	tr := fetch.NewTransport()
	dns := &fetch.DNSCache{Resolver: resolver, TTL: -1,
		Dialer: &net.Dialer{Timeout: 5 * time.Second, ControlContext: w.control}}
	tr.DialContext = dns.DialContext
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// connCounter counts the connections a server accepts.
type connCounter struct{ n atomic.Int64 }

func (c *connCounter) state(_ net.Conn, s http.ConnState) {
	if s == http.StateNew {
		c.n.Add(1)
	}
}

// countedServer starts a server on 127.0.0.1 that answers every request
// with a small page and counts its connections.
func countedServer(t *testing.T) (*httptest.Server, *connCounter) {
	var cc connCounter
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html>hello</html>")
	}))
	srv.Config.ConnState = cc.state
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &cc
}

func addrPort(srv *httptest.Server) netip.AddrPort {
	return netip.MustParseAddrPort(srv.Listener.Addr().String())
}

// wantBlocked fails the test unless err wraps ErrBlockedAddress and names
// the class.
func wantBlocked(t *testing.T, what string, err error, class string) {
	t.Helper()
	if !errors.Is(err, fetch.ErrBlockedAddress) {
		t.Errorf("%s: err = %v, want ErrBlockedAddress", what, err)
	} else if !strings.Contains(err.Error(), "("+class+")") {
		t.Errorf("%s: err = %v, want class %q", what, err, class)
	}
	if k := crawler.ErrorKind(err); err != nil && k != fetch.KindBlockedAddress {
		t.Errorf("%s: ErrorKind = %q, want %q", what, k, fetch.KindBlockedAddress)
	}
}

func TestAddressPolicyClasses(t *testing.T) {
	var zero fetch.AddressPolicy
	for _, tc := range []struct{ addr, class string }{
		{"0.0.0.0", "unspecified"},
		{"0.1.2.3", "unspecified"},
		{"10.0.0.1", "private"},
		{"10.255.255.255", "private"},
		{"100.64.0.1", "shared (CGNAT)"},
		{"100.127.255.254", "shared (CGNAT)"},
		{"127.0.0.1", "loopback"},
		{"127.255.0.1", "loopback"},
		{"169.254.169.254", "link-local"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.0.0.170", "IETF protocol assignments"},
		{"192.0.2.1", "documentation"},
		{"192.168.1.1", "private"},
		{"198.18.0.1", "benchmarking"},
		{"198.19.255.255", "benchmarking"},
		{"198.51.100.7", "documentation"},
		{"203.0.113.7", "documentation"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"240.0.0.1", "reserved"},
		{"255.255.255.255", "reserved"},

		{"::", "unspecified"},
		{"::1", "loopback"},
		{"::7f00:1", "IPv4-compatible"},
		{"100::1", "discard"},
		{"64:ff9b:1::a00:1", "local-use NAT64"},
		{"2001:2::1", "benchmarking"},
		{"2001:db8::1", "documentation"},
		{"3fff::1", "documentation"},
		{"fc00::1", "unique-local"},
		{"fd12:3456::1", "unique-local"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"febf:ffff::1", "link-local"},
		{"fec0::1", "site-local"},
		{"ff02::1", "multicast"},
		{"ff0e::1", "multicast"},

		// IPv4-mapped, and IPv4 embedded in transition addresses.
		{"::ffff:0.0.0.0", "unspecified"},
		{"::ffff:127.0.0.1", "loopback"},
		{"::ffff:10.0.0.1", "private"},
		{"::ffff:169.254.169.254", "link-local"},
		{"::ffff:7f00:2", "loopback"},
		{"64:ff9b::7f00:1", "NAT64 of loopback"},
		{"64:ff9b::a9fe:a9fe", "NAT64 of link-local"},
		{"2002:a00:1::1", "6to4 of private"},
		{"2002:7f00:1::", "6to4 of loopback"},
		{"2001:0:4136:e378:8000:63bf:f5ff:fffe", "Teredo of private"}, // client 10.0.0.1, inverted

		// Globally reachable, and the edges of the special networks.
		{"8.8.8.8", ""},
		{"1.1.1.1", ""},
		{"9.255.255.255", ""},
		{"11.0.0.0", ""},
		{"100.63.255.255", ""},
		{"100.128.0.0", ""},
		{"126.255.255.255", ""},
		{"128.0.0.0", ""},
		{"169.253.255.255", ""},
		{"169.255.0.0", ""},
		{"172.15.255.255", ""},
		{"172.32.0.0", ""},
		{"192.0.1.1", ""},
		{"192.167.255.255", ""},
		{"192.169.0.0", ""},
		{"198.17.255.255", ""},
		{"198.20.0.0", ""},
		{"223.255.255.255", ""},
		{"2606:4700:4700::1111", ""},
		{"2001:4860:4860::8888", ""},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::808:808", ""},
		{"2002:808:808::1", ""},
		{"2001:0:4136:e378:8000:63bf:f7f7:f7f7", ""}, // Teredo client 8.8.8.8
	} {
		ip := netip.MustParseAddr(tc.addr)
		err := zero.Check("", netip.AddrPortFrom(ip, 80))
		if tc.class == "" {
			if err != nil {
				t.Errorf("%s: %v, want allowed", tc.addr, err)
			}
			continue
		}
		wantBlocked(t, tc.addr, err, tc.class)
		if err := (&fetch.AddressPolicy{AllowPrivate: true}).Check("", netip.AddrPortFrom(ip, 80)); err != nil {
			t.Errorf("%s with AllowPrivate: %v", tc.addr, err)
		}
	}
}

func TestAddressPolicyAllow(t *testing.T) {
	p := fetch.AddressPolicy{
		Allow: []netip.Prefix{
			netip.MustParsePrefix("10.1.0.0/16"),
			netip.MustParsePrefix("::ffff:192.168.7.0/120"), // an IPv4 network, written mapped
			netip.MustParsePrefix("fd00:1::/32"),
			netip.MustParsePrefix("169.254.1.1/32"),
		},
		AllowAddrPorts: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:8080"), netip.MustParseAddrPort("[::1]:9090")},
		AllowHosts:     []string{"Intranet.Example.com."},
	}
	for _, tc := range []struct {
		host, addr string
		ok         bool
	}{
		{"", "10.1.2.3:80", true},
		{"", "[::ffff:10.1.2.3]:80", true},
		{"", "10.2.0.1:80", false},
		{"", "192.168.7.9:443", true},
		{"", "192.168.8.1:443", false},
		{"", "[fd00:1:2::3]:80", true},
		{"", "[fd00:2::3]:80", false},
		{"", "169.254.1.1:80", true},
		{"", "169.254.169.254:80", false},
		{"", "127.0.0.1:8080", true},
		{"", "[::ffff:127.0.0.1]:8080", true},
		{"", "127.0.0.1:8081", false},
		{"", "127.0.0.2:8080", false},
		{"", "[::1]:9090", true},
		{"", "[::1]:8080", false},
		{"intranet.example.com", "10.9.9.9:80", true},
		{"INTRANET.example.COM.", "[fe80::1]:80", true},
		{"www.intranet.example.com", "10.9.9.9:80", false},
		{"example.com", "10.9.9.9:80", false},
		{"example.com", "93.184.215.14:80", true},
	} {
		err := p.Check(tc.host, netip.MustParseAddrPort(tc.addr))
		if tc.ok && err != nil || !tc.ok && !errors.Is(err, fetch.ErrBlockedAddress) {
			t.Errorf("Check(%q, %s) = %v, want allowed %v", tc.host, tc.addr, err, tc.ok)
		}
	}
}

// The SSRF table: each address class, literal in the URL (in the
// spellings a resolver or a proxy would accept) or behind a DNS name, is
// refused before any connection is attempted; the one server allowed is
// reached, by address and by name.
func TestFetchRefusesSpecialAddresses(t *testing.T) {
	allowed, allowedConns := countedServer(t)
	other, otherConns := countedServer(t) // a loopback service not on the allowlist
	okPort, otherPort := addrPort(allowed).Port(), addrPort(other).Port()
	v := func(s string) netip.Addr { return netip.MustParseAddr(s) }
	dns := dnstest.New(t, map[string][]netip.Addr{
		"private.test":  {v("10.0.0.1")},
		"metadata.test": {v("169.254.169.254")},
		"loop.test":     {loop4},
		"loop6.test":    {loop6},
		"ula.test":      {v("fd00::1")},
		"mapped.test":   {v("::ffff:10.0.0.1")},
		"nat64.test":    {v("64:ff9b::a9fe:a9fe")},
		"mixed.test":    {v("10.0.0.1"), loop4, v("fe80::1")},
	})
	var w tripwire
	f := &fetch.HTTPFetcher{
		Client:    &http.Client{Transport: guardedTransport(t, dns.Resolver(), &w)},
		Addresses: fetch.AddressPolicy{AllowAddrPorts: []netip.AddrPort{addrPort(allowed)}},
	}
	ok := func(host string) string { return fmt.Sprintf("http://%s:%d/", host, okPort) }
	oth := func(host string) string { return fmt.Sprintf("http://%s:%d/", host, otherPort) }
	for _, tc := range []struct{ url, class string }{
		{ok("127.0.0.1"), ""},
		{ok("loop.test"), ""},
		{ok("mixed.test"), ""}, // only its allowed address is dialled
		{oth("127.0.0.1"), "loopback"},
		{oth("127.1"), "loopback"},
		{oth("0x7f.0.0.1"), "loopback"},
		{oth("2130706433"), "loopback"},
		{oth("0177.0.0.1"), "loopback"},
		{oth("127.0.0.1."), "loopback"},
		{oth("[::1]"), "loopback"},
		{oth("[::ffff:127.0.0.1]"), "loopback"},
		{oth("localhost"), "loopback"},
		{oth("api.localhost"), "loopback"},
		{oth("loop.test"), "loopback"},
		{oth("loop6.test"), "loopback"},
		{oth("0.0.0.0"), "unspecified"},
		{oth("[::]"), "unspecified"},
		{ok("127.0.0.2"), "loopback"},
		{"http://10.0.0.1/", "private"},
		{"http://172.16.0.1/", "private"},
		{"https://192.168.0.1/", "private"},
		{"http://100.64.0.1/", "shared (CGNAT)"},
		{"http://169.254.169.254/latest/meta-data/", "link-local"},
		{"http://[fe80::1]/", "link-local"},
		{"http://[fd00::1]/", "unique-local"},
		{"http://224.0.0.1/", "multicast"},
		{"http://[ff02::1]/", "multicast"},
		{"http://255.255.255.255/", "reserved"},
		{"http://198.18.0.1/", "benchmarking"},
		{"http://192.0.0.170/", "IETF protocol assignments"},
		{"http://[::ffff:10.0.0.1]/", "private"},
		{"http://[::ffff:169.254.169.254]/", "link-local"},
		{"http://[64:ff9b::a9fe:a9fe]/", "NAT64 of link-local"},
		{"http://[2002:a9fe:a9fe::1]/", "6to4 of link-local"},
		{"http://private.test/", "private"},
		{"https://metadata.test/", "link-local"},
		{"http://ula.test/", "unique-local"},
		{"http://mapped.test/", "private"},
		{"http://nat64.test/", "NAT64 of link-local"},
	} {
		resp, err := f.Fetch(context.Background(), &fetch.Request{URL: tc.url})
		if tc.class == "" {
			if err != nil || resp.Status != 200 {
				t.Errorf("%s: %v, %v; want 200", tc.url, resp, err)
			}
			continue
		}
		wantBlocked(t, tc.url, err, tc.class)
	}
	if off := w.offLoopback(); len(off) > 0 {
		t.Errorf("connections attempted off loopback: %v", off)
	}
	if n := otherConns.n.Load(); n != 0 {
		t.Errorf("the server not allowed accepted %d connections", n)
	}
	if n := allowedConns.n.Load(); n < 1 {
		t.Errorf("the allowed server accepted %d connections", n)
	}
}

// The tripwire itself works: with the guard off (AllowPrivate), an
// address off loopback gets as far as the dialer's Control, which runs
// before connect, and is refused there. Without this, the test above
// could not tell that nothing got through.
func TestTripwireCatchesWhatTheGuardLetsThrough(t *testing.T) {
	var w tripwire
	f := &fetch.HTTPFetcher{
		Client:    &http.Client{Transport: guardedTransport(t, nil, &w)},
		Addresses: fetch.AddressPolicy{AllowPrivate: true},
	}
	_, err := f.Fetch(context.Background(), &fetch.Request{URL: "http://10.0.0.1:9/"})
	if err == nil || errors.Is(err, fetch.ErrBlockedAddress) || !strings.Contains(err.Error(), "tripwire") {
		t.Errorf("err = %v, want the tripwire's", err)
	}
	if off := w.offLoopback(); !slices.Equal(off, []string{"10.0.0.1:9"}) {
		t.Errorf("attempted %v, want 10.0.0.1:9", off)
	}
}

// The zero HTTPFetcher, and a client over NewTransport alone, refuse the
// loopback server: nothing reaches it. Allowing its address and port
// lets the fetcher in.
func TestDefaultFetcherRefusesLoopback(t *testing.T) {
	srv, conns := countedServer(t)
	port := addrPort(srv).Port()
	var f fetch.HTTPFetcher
	defer f.CloseIdleConnections()
	for _, u := range []string{srv.URL + "/", fmt.Sprintf("http://localhost:%d/", port), fmt.Sprintf("http://[::ffff:127.0.0.1]:%d/", port)} {
		_, err := f.Fetch(context.Background(), &fetch.Request{URL: u})
		wantBlocked(t, u, err, "loopback")
	}
	// The dial checks too, for requests that did not come through a
	// fetcher and its check of the URL.
	tr := fetch.NewTransport()
	defer tr.CloseIdleConnections()
	_, err := (&http.Client{Transport: tr}).Get(srv.URL + "/")
	wantBlocked(t, "NewTransport", err, "loopback")
	if n := conns.n.Load(); n != 0 {
		t.Fatalf("the server accepted %d connections", n)
	}

	allow := fetch.HTTPFetcher{Addresses: fetch.AddressPolicy{AllowAddrPorts: []netip.AddrPort{addrPort(srv)}}}
	defer allow.CloseIdleConnections()
	if resp, err := allow.Fetch(context.Background(), &fetch.Request{URL: srv.URL + "/"}); err != nil || resp.Status != 200 {
		t.Errorf("allowed: %v, %v", resp, err)
	}
}

// Each connection's addresses are checked, not the first lookup's: a name
// that resolved to an allowed address and then to a forbidden one (DNS
// rebinding) is refused the second time.
func TestDialChecksEveryResolution(t *testing.T) {
	srv, conns := countedServer(t)
	before := dnstest.New(t, map[string][]netip.Addr{"rebind.test": {loop4}})
	after := dnstest.New(t, map[string][]netip.Addr{"rebind.test": {netip.MustParseAddr("169.254.169.254")}})
	var rebound atomic.Bool
	resolver := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		s := before
		if rebound.Load() {
			s = after
		}
		return s.Resolver().Dial(ctx, network, address)
	}}
	var w tripwire
	tr := guardedTransport(t, resolver, &w)
	tr.DisableKeepAlives = true // a new connection, and so a new lookup, for each request
	f := &fetch.HTTPFetcher{Client: &http.Client{Transport: tr},
		Addresses: fetch.AddressPolicy{AllowAddrPorts: []netip.AddrPort{addrPort(srv)}}}
	u := fmt.Sprintf("http://rebind.test:%d/", addrPort(srv).Port())
	if resp, err := f.Fetch(context.Background(), &fetch.Request{URL: u}); err != nil || resp.Status != 200 {
		t.Fatalf("before rebinding: %v, %v", resp, err)
	}
	rebound.Store(true)
	_, err := f.Fetch(context.Background(), &fetch.Request{URL: u})
	wantBlocked(t, "after rebinding", err, "link-local")
	if n := conns.n.Load(); n != 1 {
		t.Errorf("the server accepted %d connections, want 1", n)
	}
	if off := w.offLoopback(); len(off) > 0 {
		t.Errorf("connections attempted off loopback: %v", off)
	}
}

// Through a proxy, the proxy is trusted (here on loopback, refused as a
// destination by the zero policy) and resolves the names; URLs whose host
// is a literal special-purpose address or a localhost name are still
// refused, and never reach it. The trust is in the dial of the proxy,
// not its address: a direct request to a name resolving to the proxy's
// address and port is refused.
func TestFetchThroughProxy(t *testing.T) {
	var mu sync.Mutex
	var proxied []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		proxied = append(proxied, r.URL.String()) // absolute-form: the URL the client asked for
		mu.Unlock()
		fmt.Fprint(w, "<html>via proxy</html>")
	}))
	defer proxy.Close()
	proxyURL, _ := url.Parse(proxy.URL)
	dns := dnstest.New(t, map[string][]netip.Addr{"direct.test": {loop4}})
	var w tripwire
	tr := guardedTransport(t, dns.Resolver(), &w)
	tr.Proxy = func(r *http.Request) (*url.URL, error) {
		if r.URL.Hostname() == "direct.test" {
			return nil, nil // as NO_PROXY would
		}
		return proxyURL, nil
	}
	f := &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}} // the zero policy

	resp, err := f.Fetch(context.Background(), &fetch.Request{URL: "http://www.example.test/page"})
	if err != nil || resp.Status != 200 || string(resp.Body) != "<html>via proxy</html>" {
		t.Fatalf("through the proxy: %v, %v", resp, err)
	}
	for _, tc := range []struct{ url, class string }{
		{"http://10.0.0.1/", "private"},
		{"https://10.0.0.1/", "private"},
		{"http://169.254.169.254/latest/meta-data/", "link-local"},
		{"http://[::1]:8080/", "loopback"},
		{"http://[::ffff:192.168.0.1]/", "private"},
		{"http://0x7f.1/", "loopback"},
		{"http://2130706433/", "loopback"},
		{"http://localhost/", "loopback"},
		{"http://LOCALHOST./", "loopback"},
		{"http://db.localhost/", "loopback"},
		{proxy.URL + "/", "loopback"},
		{fmt.Sprintf("http://direct.test:%d/", addrPort(proxy).Port()), "loopback"},
	} {
		_, err := f.Fetch(context.Background(), &fetch.Request{URL: tc.url})
		wantBlocked(t, tc.url, err, tc.class)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(proxied, []string{"http://www.example.test/page"}) {
		t.Errorf("the proxy got %v, want the one allowed URL", proxied)
	}
	if off := w.offLoopback(); len(off) > 0 {
		t.Errorf("connections attempted off loopback: %v", off)
	}
}

// Only http and https are fetched, even by a transport that could serve
// other schemes.
func TestFetchOnlyHTTP(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "secret"), []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	tr := fetch.NewTransport()
	tr.RegisterProtocol("file", http.NewFileTransport(http.Dir(dir)))
	client := &http.Client{Transport: tr}
	// The transport would serve the file if asked.
	if resp, err := client.Get("file:///secret"); err != nil {
		t.Fatal(err)
	} else {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "s3cret" {
			t.Fatalf("file transport served %q", b)
		}
	}
	f := &fetch.HTTPFetcher{Client: client, Addresses: fetch.AddressPolicy{AllowPrivate: true}}
	for _, u := range []string{"file:///secret", "FILE:///secret", "ftp://example.com/", "gopher://example.com/",
		"data:text/html,hi", "javascript:alert(1)", "mailto:a@example.com", "ws://example.com/"} {
		resp, err := f.Fetch(context.Background(), &fetch.Request{URL: u})
		if !errors.Is(err, fetch.ErrUnsupportedScheme) {
			t.Errorf("%s: %v, %v; want ErrUnsupportedScheme", u, resp, err)
		}
	}
}

// Cookies are neither kept nor sent unless the caller supplies a jar.
func TestNoCookiesUnlessJar(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/set" {
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: "42", Path: "/"})
		}
		fmt.Fprint(w, r.Header.Get("Cookie"))
	}))
	defer srv.Close()
	fetchBoth := func(f *fetch.HTTPFetcher) string {
		t.Helper()
		defer f.CloseIdleConnections()
		var last string
		for _, p := range []string{"/set", "/check"} {
			resp, err := f.Fetch(context.Background(), &fetch.Request{URL: srv.URL + p})
			if err != nil {
				t.Fatal(err)
			}
			last = string(resp.Body)
		}
		return last
	}
	if got := fetchBoth(&fetch.HTTPFetcher{Addresses: testLoopback}); got != "" {
		t.Errorf("the default fetcher sent Cookie %q", got)
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	withJar := &fetch.HTTPFetcher{Client: &http.Client{Jar: jar, Transport: fetch.NewTransport()}, Addresses: testLoopback}
	if got := fetchBoth(withJar); got != "sid=42" {
		t.Errorf("a fetcher with a jar sent Cookie %q, want sid=42", got)
	}
}
