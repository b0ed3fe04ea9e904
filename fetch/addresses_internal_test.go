package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"testing"
)

// Under a fetcher's policy, DNSCache.DialContext refuses what it cannot
// check (other networks, an address without a host: the local system),
// and does not check the dial of the request's proxy. Every dial here is
// to loopback at most.
func TestDialGuardEdges(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	strict := context.WithValue(context.Background(), dialPolicyKey{}, &dialPolicy{policy: &AddressPolicy{}})
	var c DNSCache
	for _, d := range []struct{ network, addr string }{
		{"unix", "/tmp/crawler-test.sock"},
		{"ip4:icmp", "127.0.0.1"},
		{"tcp", ":80"},
		{"tcp", "no-port"},
		{"tcp", ln.Addr().String()},
	} {
		if _, err := c.DialContext(strict, d.network, d.addr); !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("Dial(%s, %s) = %v, want ErrBlockedAddress", d.network, d.addr, err)
		}
	}
	viaProxy := context.WithValue(context.Background(), dialPolicyKey{},
		&dialPolicy{policy: &AddressPolicy{}, proxy: ln.Addr().String()})
	conn, err := c.DialContext(viaProxy, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("dial of the trusted proxy: %v", err)
	}
	conn.Close()
	// Without a fetcher's policy, DNSCache checks nothing.
	conn, err = c.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("unguarded dial: %v", err)
	}
	conn.Close()
}

// proxyAddr names the proxy as http.Transport dials it: default ports by
// scheme, IPv6 in brackets.
func TestProxyAddr(t *testing.T) {
	req, _ := http.NewRequest("GET", "http://example.com/", nil)
	for proxy, want := range map[string]string{
		"http://proxy.corp":        "proxy.corp:80",
		"https://proxy.corp":       "proxy.corp:443",
		"socks5://proxy.corp":      "proxy.corp:1080",
		"http://u:p@10.0.0.1:3128": "10.0.0.1:3128",
		"http://[fd00::1]":         "[fd00::1]:80",
		"":                         "",
	} {
		tr := &http.Transport{}
		if proxy != "" {
			u, _ := url.Parse(proxy)
			tr.Proxy = http.ProxyURL(u)
		}
		if got := proxyAddr(tr, req); got != want {
			t.Errorf("proxy %q: %q, want %q", proxy, got, want)
		}
	}
	if got := proxyAddr(http.NewFileTransport(http.Dir(".")), req); got != "" {
		t.Errorf("not an *http.Transport: %q", got)
	}
}
