package fetch_test

import (
	"context"
	"crawler/fetch"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"time"

	"crawler"
)

// The default fetcher refuses loopback, private, link-local and the other
// special-purpose addresses. A crawl of your own network allows them by
// network, by endpoint (address and port) or by host name.
func ExampleAddressPolicy() {
	policy := fetch.AddressPolicy{
		Allow:          []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")},
		AllowAddrPorts: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:8080")},
		AllowHosts:     []string{"wiki.corp.example"},
	}
	c := &crawler.Crawler{Fetcher: &fetch.HTTPFetcher{Addresses: policy}}
	_ = c // c.Run(ctx, "http://wiki.corp.example/", "http://10.1.0.7/")

	// What the fetcher's dial decides, for a host name and the address it
	// resolved to:
	for _, d := range []struct{ host, addr string }{
		{"", "10.1.2.3:80"},
		{"", "10.2.0.1:80"},
		{"", "127.0.0.1:8080"},
		{"", "127.0.0.1:22"},
		{"wiki.corp.example", "192.168.4.4:443"},
		{"evil.example", "169.254.169.254:80"},
		{"evil.example", "[::ffff:192.168.0.1]:80"},
		{"example.com", "93.184.215.14:443"},
	} {
		if err := policy.Check(d.host, netip.MustParseAddrPort(d.addr)); err != nil {
			fmt.Println(err)
		} else if d.host != "" {
			fmt.Println("allowed:", d.addr, "for", d.host)
		} else {
			fmt.Println("allowed:", d.addr)
		}
	}
	// Output:
	// allowed: 10.1.2.3:80
	// fetch: address not allowed: 10.2.0.1:80 (private)
	// allowed: 127.0.0.1:8080
	// fetch: address not allowed: 127.0.0.1:22 (loopback)
	// allowed: 192.168.4.4:443 for wiki.corp.example
	// fetch: address not allowed: 169.254.169.254:80 (link-local) for evil.example
	// fetch: address not allowed: 192.168.0.1:80 (private) for evil.example
	// allowed: 93.184.215.14:443 for example.com
}

// printExchanges is a Recorder that prints the first line of each
// exchange's request and response, as they crossed the connection.
type printExchanges struct{}

func (printExchanges) Record(_ context.Context, x *fetch.Exchange) error {
	req, _, _ := strings.Cut(string(x.Request), "\r\n")
	resp, _, _ := strings.Cut(string(x.Response), "\r\n")
	fmt.Printf("%s -> %s (%s)\n", req, resp, x.IP)
	return nil
}

// A Recorder gets every exchange as its bytes crossed the connection: what
// an archive (package warc's Writer is a Recorder) keeps.
func ExampleRecorder() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "hello")
	}))
	defer srv.Close()
	f := &fetch.HTTPFetcher{
		Recorder:  printExchanges{},
		Addresses: fetch.AddressPolicy{AllowAddrPorts: []netip.AddrPort{netip.MustParseAddrPort(srv.Listener.Addr().String())}},
	}
	resp, err := f.Fetch(context.Background(), &fetch.Request{URL: srv.URL + "/hello"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Status, string(resp.Body))
	// Output:
	// GET /hello HTTP/1.1 -> HTTP/1.1 200 OK (127.0.0.1)
	// 200 hello
}

// A transport of your own that caches DNS: answers kept a minute, and a
// longer dial timeout than the default.
func ExampleDNSCache() {
	dns := &fetch.DNSCache{
		TTL:    time.Minute,
		Dialer: &net.Dialer{Timeout: 20 * time.Second, KeepAlive: 30 * time.Second},
	}
	tr := fetch.NewTransport() // or an http.Transport of your own
	tr.DialContext = dns.DialContext
	tr.Proxy = http.ProxyFromEnvironment
	c := &crawler.Crawler{Fetcher: &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}}}
	_ = c // c.Run(ctx, "https://example.com/")
}
