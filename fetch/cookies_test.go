package fetch_test

// An HTTPFetcher with a cookies.Jar, against servers on loopback: each
// rule of RFC 6265 the jar keeps, as a server sees it.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"crawler/cookies"
	"crawler/fetch"
	"crawler/internal/dnstest"
)

// cookieServer answers every request with the Cookie header it got as
// its body, and sets, as they are, the Set-Cookie values given in the
// query's c parameters; /redirect answers 302 to /.
func cookieServer(t *testing.T, tls bool) *httptest.Server {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, c := range r.URL.Query()["c"] {
			w.Header().Add("Set-Cookie", c)
		}
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/", http.StatusFound)
			return
		}
		fmt.Fprint(w, r.Header.Get("Cookie"))
	})
	var srv *httptest.Server
	if tls {
		srv = httptest.NewTLSServer(h)
	} else {
		srv = httptest.NewServer(h)
	}
	t.Cleanup(srv.Close)
	return srv
}

// hostsFetcher returns a fetcher over jar whose DNS answers 127.0.0.1 for
// every name of hosts, and the port of srv, to which those names lead.
func hostsFetcher(t *testing.T, jar http.CookieJar, srv *httptest.Server, hosts ...string) (*fetch.HTTPFetcher, string) {
	names := map[string][]netip.Addr{}
	for _, h := range hosts {
		names[h] = []netip.Addr{loop4}
	}
	s := dnstest.New(t, names)
	tr := fetch.NewTransportWith(&fetch.DNSCache{Resolver: s.Resolver()})
	if srv.TLS != nil {
		tr.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	}
	t.Cleanup(tr.CloseIdleConnections)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}, Jar: jar, Addresses: testLoopback}, port
}

// get fetches u and returns the Cookie header the server got.
func get(t *testing.T, f fetch.Fetcher, u string) string {
	t.Helper()
	resp, err := f.Fetch(context.Background(), &fetch.Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 && resp.Status != 302 {
		t.Fatalf("%s: status %d", u, resp.Status)
	}
	return string(resp.Body)
}

// set returns the query that makes cookieServer set the given cookies.
func set(cookies ...string) string {
	return "?" + url.Values{"c": cookies}.Encode()
}

// A cookie set, on a redirect too (a hop is a fetch of its own), is sent
// back on the next request; a fetcher without a Jar sends none.
func TestJarSetThenSent(t *testing.T) {
	srv := cookieServer(t, false)
	jar := &cookies.Jar{}
	f := &fetch.HTTPFetcher{Jar: jar, Addresses: testLoopback}
	defer f.CloseIdleConnections()
	if got := get(t, f, srv.URL+"/"+set("sid=42")); got != "" {
		t.Errorf("first request sent Cookie %q", got)
	}
	get(t, f, srv.URL+"/redirect"+set("seen=1; Path=/"))
	if got := get(t, f, srv.URL+"/"); got != "sid=42; seen=1" {
		t.Errorf("after the redirect: %q, want sid=42; seen=1", got)
	}
	if n := jar.Len(); n != 2 {
		t.Errorf("Len = %d, want 2", n)
	}
	plain := &fetch.HTTPFetcher{Addresses: testLoopback}
	defer plain.CloseIdleConnections()
	get(t, plain, srv.URL+"/"+set("x=1"))
	if got := get(t, plain, srv.URL+"/"); got != "" {
		t.Errorf("a fetcher without a Jar sent %q", got)
	}
}

// A domain cookie goes to its domain and every subdomain; a host-only one
// to its host alone; a Domain the host is not in is refused.
func TestJarDomainCookies(t *testing.T) {
	srv := cookieServer(t, false)
	f, port := hostsFetcher(t, &cookies.Jar{}, srv, "shop.test", "a.shop.test", "b.shop.test", "x.b.shop.test", "other.test")
	at := func(host string) string { return "http://" + host + ":" + port + "/" }
	get(t, f, at("a.shop.test")+set("d=1; Domain=shop.test", "h=1", "dot=1; Domain=.SHOP.test", "o=1; Domain=other.test", "sib=1; Domain=b.shop.test"))
	for host, want := range map[string]string{
		"a.shop.test":   "d=1; h=1; dot=1",
		"shop.test":     "d=1; dot=1",
		"b.shop.test":   "d=1; dot=1",
		"x.b.shop.test": "d=1; dot=1",
		"other.test":    "",
	} {
		if got := get(t, f, at(host)); got != want {
			t.Errorf("%s got Cookie %q, want %q", host, got, want)
		}
	}
}

// Path attributes and the default path (RFC 6265 section 5.1.4): a cookie
// goes to its path and the paths below it, longer paths first.
func TestJarPaths(t *testing.T) {
	srv := cookieServer(t, false)
	f := &fetch.HTTPFetcher{Jar: &cookies.Jar{}, Addresses: testLoopback}
	defer f.CloseIdleConnections()
	get(t, f, srv.URL+"/docs/set"+set("a=1", "b=1; Path=/docs/x", "c=1; Path=/", "d=1; Path=relative"))
	for path, want := range map[string]string{
		"/docs/x/y": "b=1; a=1; d=1; c=1", // d's path is not absolute: the default, /docs
		"/docs/x":   "b=1; a=1; d=1; c=1",
		"/docs/":    "a=1; d=1; c=1",
		"/docs":     "a=1; d=1; c=1",
		"/docsx":    "c=1",
		"/":         "c=1",
	} {
		if got := get(t, f, srv.URL+path); got != want {
			t.Errorf("%s got Cookie %q, want %q", path, got, want)
		}
	}
}

// Expires and Max-Age, Max-Age winning; an expiry in the past or a
// Max-Age of 0 or less deletes the cookie.
func TestJarExpiry(t *testing.T) {
	srv := cookieServer(t, false)
	clock := newFakeClock() // 2026-01-01
	jar := &cookies.Jar{Now: clock.Now}
	f := &fetch.HTTPFetcher{Jar: jar, Addresses: testLoopback}
	defer f.CloseIdleConnections()
	get(t, f, srv.URL+"/"+set(
		"maxage=1; Max-Age=60; Expires=Fri, 01 Jan 2100 00:00:00 GMT",
		"expires=1; Expires=Thu, 01 Jan 2026 01:00:00 GMT",
		"session=1",
		"gone1=1", "gone2=1", "gone3=1"))
	if got := get(t, f, srv.URL+"/"); got != "maxage=1; expires=1; session=1; gone1=1; gone2=1; gone3=1" {
		t.Fatalf("got %q", got)
	}
	get(t, f, srv.URL+"/"+set("gone1=; Max-Age=0", "gone2=x; Max-Age=-1", "gone3=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "never=1; Max-Age=0"))
	if got := get(t, f, srv.URL+"/"); got != "maxage=1; expires=1; session=1" {
		t.Errorf("after deleting: %q", got)
	}
	clock.Advance(61 * time.Second)
	if got := get(t, f, srv.URL+"/"); got != "expires=1; session=1" {
		t.Errorf("61 s on, Max-Age=60 over a far Expires: %q", got)
	}
	clock.Advance(time.Hour)
	if got := get(t, f, srv.URL+"/"); got != "session=1" {
		t.Errorf("an hour on: %q", got)
	}
	if n := jar.Len(); n != 1 {
		t.Errorf("Len = %d after the expired cookies were dropped, want 1", n)
	}
}

// A Secure cookie goes over https only, and one set over http is refused.
// Cookies ignore ports: both servers are the host 127.0.0.1.
func TestJarSecure(t *testing.T) {
	tlsSrv, plainSrv := cookieServer(t, true), cookieServer(t, false)
	tr := fetch.NewTransport()
	tr.TLSClientConfig = tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	defer tr.CloseIdleConnections()
	f := &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}, Jar: &cookies.Jar{}, Addresses: testLoopback}
	get(t, f, tlsSrv.URL+"/"+set("s=1; Secure", "p=1"))
	get(t, f, plainSrv.URL+"/"+set("s2=1; Secure"))
	if got := get(t, f, plainSrv.URL+"/"); got != "p=1" {
		t.Errorf("over http: %q, want p=1", got)
	}
	if got := get(t, f, tlsSrv.URL+"/"); got != "s=1; p=1" {
		t.Errorf("over https: %q, want s=1; p=1", got)
	}
}

// A Domain that is a public suffix is refused (co.uk, and a TLD), unless
// it is the host itself.
func TestJarPublicSuffixRefused(t *testing.T) {
	srv := cookieServer(t, false)
	f, port := hostsFetcher(t, &cookies.Jar{}, srv, "shop.co.uk", "other.co.uk", "co.uk", "shop.test", "other.test")
	at := func(host string) string { return "http://" + host + ":" + port + "/" }
	get(t, f, at("shop.co.uk")+set("ps=1; Domain=co.uk", "tld=1; Domain=uk", "ok=1; Domain=shop.co.uk"))
	get(t, f, at("shop.test")+set("tld=1; Domain=test"))
	get(t, f, at("co.uk")+set("self=1; Domain=co.uk"))
	for host, want := range map[string]string{
		"other.co.uk": "",
		"shop.co.uk":  "ok=1",
		"other.test":  "",
		"shop.test":   "",
		"co.uk":       "self=1",
	} {
		if got := get(t, f, at(host)); got != want {
			t.Errorf("%s got Cookie %q, want %q", host, got, want)
		}
	}
}

// A server setting 10,000 cookies, domain and host-only, some above 4 KiB:
// the jar keeps 50 for the site, the last set, and the Cookie header holds
// those alone; the cookies of another site stay.
func TestJarCookieBomb(t *testing.T) {
	const perResponse, responses = 1000, 10
	bomb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bomb" {
			var round int
			fmt.Sscan(r.URL.Query().Get("round"), &round)
			for i := range perResponse {
				n := round*perResponse + i
				switch {
				case n%100 == 7:
					w.Header().Add("Set-Cookie", fmt.Sprintf("big%d=%s", n, strings.Repeat("x", 4100)))
				case n%2 == 0:
					w.Header().Add("Set-Cookie", fmt.Sprintf("c%d=%0100d; Domain=shop.test", n, n))
				default:
					w.Header().Add("Set-Cookie", fmt.Sprintf("c%d=%0100d", n, n))
				}
			}
		}
		fmt.Fprint(w, r.Header.Get("Cookie"))
	}))
	defer bomb.Close()
	jar := &cookies.Jar{}
	f, port := hostsFetcher(t, jar, bomb, "a.shop.test", "b.shop.test", "other.test")
	tr := f.Client.Transport.(*http.Transport)
	tr.MaxResponseHeaderBytes = 8 << 20 // the bomb's headers, some 200 KiB a response with the big ones
	at := func(host string) string { return "http://" + host + ":" + port }

	jar.SetCookies(&url.URL{Scheme: "http", Host: "other.test"}, []*http.Cookie{{Name: "keep", Value: "1"}})
	for round := range responses {
		get(t, f, fmt.Sprintf("%s/bomb?round=%d", at("a.shop.test"), round))
	}
	if n := len(jar.Host("a.shop.test")); n != 50 {
		t.Errorf("the jar holds %d cookies for a.shop.test, want 50", n)
	}
	if n := jar.Len(); n != 51 {
		t.Errorf("Len = %d, want 51 (50 of shop.test, 1 of other.test)", n)
	}
	header := get(t, f, at("a.shop.test")+"/")
	sent := strings.Split(header, "; ")
	if len(sent) != 50 || len(header) >= 50*4096 {
		t.Errorf("Cookie header of %d cookies, %d bytes; want 50, under %d", len(sent), len(header), 50*4096)
	}
	last := perResponse*responses - 1
	if !strings.Contains(header, fmt.Sprintf("c%d=", last)) || strings.Contains(header, "c0=") || strings.Contains(header, "big") {
		t.Errorf("the header does not hold the last cookies set, or holds a refused one: %.200s...", header)
	}
	if got := get(t, f, at("other.test")+"/"); got != "keep=1" {
		t.Errorf("other.test got %q after the bomb, want keep=1", got)
	}
	if got := strings.Count(get(t, f, at("b.shop.test")+"/"), "; ") + 1; got != 25 {
		t.Errorf("b.shop.test got %d cookies, want the 25 domain cookies among the 50", got)
	}
}

// A request marked NoCookies neither sends the jar's cookies nor keeps
// those of its response; the next request has the jar as it was.
func TestRequestNoCookies(t *testing.T) {
	srv := cookieServer(t, false)
	jar := &cookies.Jar{}
	f := &fetch.HTTPFetcher{Jar: jar, Addresses: testLoopback}
	defer f.CloseIdleConnections()
	get(t, f, srv.URL+"/"+set("sid=1"))
	resp, err := f.Fetch(context.Background(), &fetch.Request{URL: srv.URL + "/" + set("other=2"), NoCookies: true})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "" {
		t.Errorf("a NoCookies request sent Cookie %q", resp.Body)
	}
	if got := get(t, f, srv.URL+"/"); got != "sid=1" {
		t.Errorf("after a NoCookies request the jar sends %q; want sid=1 alone", got)
	}
}
