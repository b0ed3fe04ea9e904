package fetch_test

// The fetcher's guarantees as a crawl sees them: the tests below run a
// crawler.Crawler over the fetcher, against servers on loopback.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"crawler"
	"crawler/fetch"
	"crawler/internal/dnstest"
	"crawler/internal/leak"
	"crawler/politeness"
)

// pages serves HTML pages and redirects by path: a value "-> URL" is a 302
// to URL, any other a page linking to the space-separated paths it lists.
// It counts the requests it answers.
type pages struct {
	*httptest.Server
	mu       sync.Mutex
	requests int
}

func servePages(t *testing.T, m map[string]string) *pages {
	p := &pages{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.requests++
		p.mu.Unlock()
		v, ok := m[r.URL.Path]
		switch {
		case !ok:
			http.NotFound(w, r)
		case strings.HasPrefix(v, "-> "):
			http.Redirect(w, r, strings.TrimPrefix(v, "-> "), http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/html")
			for l := range strings.FieldsSeq(v) {
				fmt.Fprintf(w, `<a href="%s">x</a>`, l)
			}
		}
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *pages) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests
}

// crawled is a Handler that keeps the pages it is handed, by URL.
type crawled struct {
	mu sync.Mutex
	m  map[string]*crawler.Page
}

func (c *crawled) Handle(_ context.Context, p *crawler.Page) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*crawler.Page{}
	}
	c.m[p.URL] = p
	return nil
}

func (c *crawled) urls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(func(yield func(string) bool) {
		for u := range c.m {
			if !yield(u) {
				return
			}
		}
	})
}

// crawlOver returns a Crawler for loopback tests that fetches with f and
// hands its pages to got: no politeness delays.
func crawlOver(f fetch.Fetcher, got *crawled) *crawler.Crawler {
	return &crawler.Crawler{Handler: got, Fetcher: f, Workers: 4,
		Pacing: politeness.Pacing{Delay: -1, DelayFactor: -1, Backoff: -1},
		Robots: &politeness.RobotsCache{ErrorTTL: time.Millisecond}}
}

// The acceptance test of the crawl: redirects from an allowed host into
// private addresses (literal, IPv4-mapped, by name, and a loopback port
// not allowed) are refused before anything is sent, the pages reach the
// Handler with ErrBlockedAddress, Stats counts them under
// blocked-address, and the crawl ends at once: no retries, no backoff, no
// robots.txt deferral. A robots.txt redirected into a private address is
// an unfollowable redirect (no restrictions), not an outage.
func TestCrawlRefusesRedirectIntoPrivate(t *testing.T) {
	leak.Check(t)
	other := servePages(t, map[string]string{"/admin": ""})
	dns := dnstest.New(t, map[string][]netip.Addr{"internal.test": {netip.MustParseAddr("10.0.0.1")}})
	s := servePages(t, map[string]string{
		"/robots.txt": "-> http://10.1.2.3/robots.txt",
		"/":           "/meta /mapped /loop /internal /ok",
		"/meta":       "-> http://169.254.169.254/latest/meta-data/",
		"/mapped":     "-> http://[::ffff:10.0.0.1]/",
		"/loop":       "-> " + other.URL + "/admin",
		"/internal":   "-> http://internal.test/",
		"/ok":         "-> /done",
		"/done":       "",
	})
	var w tripwire
	var got crawled
	c := crawlOver(&fetch.HTTPFetcher{
		Client:    &http.Client{Transport: guardedTransport(t, dns.Resolver(), &w)},
		Addresses: fetch.AddressPolicy{AllowAddrPorts: []netip.AddrPort{addrPort(s.Server)}},
	}, &got)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Run(ctx, s.URL+"/"); err != nil {
		t.Fatal(err)
	}

	var blocked []string
	for _, u := range got.urls() {
		if p := got.m[u]; p.Err != nil {
			if !errors.Is(p.Err, fetch.ErrBlockedAddress) {
				t.Errorf("%s: err %v, want ErrBlockedAddress", u, p.Err)
			}
			blocked = append(blocked, u)
		}
	}
	// The crawl reports canonical URLs: "[::ffff:10.0.0.1]" is
	// "[::ffff:a00:1]", as WHATWG serializes it (package canon).
	want := []string{"http://169.254.169.254/latest/meta-data/", "http://[::ffff:a00:1]/", other.URL + "/admin", "http://internal.test/"}
	slices.Sort(want)
	if !slices.Equal(blocked, want) {
		t.Errorf("refused %v, want %v", blocked, want)
	}
	if p := got.m[s.URL+"/done"]; p == nil || p.Status != 200 {
		t.Errorf("the allowed redirect's target: %+v", p)
	}
	st := c.Stats()
	if st.Errors[fetch.KindBlockedAddress] != 4 || len(st.Errors) != 1 || st.Redirects != 5 || st.Requests != 7 || st.Retries != 0 {
		t.Errorf("stats = %+v, want 4 blocked-address errors and nothing else, 5 redirects, 7 requests", st)
	}
	for _, h := range c.HostStats() {
		if h.Host != strings.TrimPrefix(s.URL, "http://") {
			t.Errorf("host stats of %s, where nothing was sent: %+v", h.Host, h)
		}
	}
	if n := other.count(); n != 0 {
		t.Errorf("the loopback service not allowed got %d requests", n)
	}
	if off := w.offLoopback(); len(off) > 0 {
		t.Errorf("connections attempted off loopback: %v", off)
	}
}

// A crawl through a transport dialling with a DNSCache looks a host's
// name up once, however many connections it opens.
func TestCrawlCachesDNS(t *testing.T) {
	leak.Check(t)
	s := dnstest.New(t, testNames())
	site := servePages(t, map[string]string{
		"/":           "/a /b",
		"/a":          "/ /b /c",
		"/b":          "/c",
		"/c":          "",
		"/robots.txt": "",
	})
	port := site.Listener.Addr().(*net.TCPAddr).Port
	tr := newDNSTransport(s)
	defer tr.CloseIdleConnections()
	var got crawled
	c := crawlOver(&fetch.HTTPFetcher{Client: &http.Client{Transport: tr}, Addresses: testLoopback}, &got)
	if err := c.Run(context.Background(), fmt.Sprintf("http://a.test:%d/", port)); err != nil {
		t.Fatal(err)
	}
	if n := len(got.urls()); n != 4 {
		t.Errorf("crawled %v, want 4 pages", got.urls())
	}
	if st := c.Stats(); st.Fetched != 4 || st.RobotsFetched != 1 {
		t.Errorf("stats = %+v", st)
	}
	if q := s.Queries("a.test"); q != 1 {
		t.Errorf("a crawl of 5 requests to a.test made %d DNS queries, want 1", q)
	}
}

// Through a proxy, every request to an http URL goes to one host, the
// proxy: NewTransport's idle pool keeps a connection for each worker, so
// the crawl reuses them instead of opening one per request.
func TestCrawlThroughProxyReusesConnections(t *testing.T) {
	leak.Check(t)
	const hosts, pagesPerHost, workers = 100, 20, 32
	var conns connCounter
	proxy := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// An absolute-form request for http://h<i>.test/<k>: each page
		// links to the next of its host, the first also to every host.
		var host, page int
		fmt.Sscanf(r.URL.Host, "h%d.test", &host)
		fmt.Sscanf(r.URL.Path, "/%d", &page)
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<p>%s</p>", r.URL) // no two pages alike
		if page+1 < pagesPerHost {
			fmt.Fprintf(w, `<a href="/%d">next</a>`, page+1)
		}
		if host == 0 && page == 0 {
			for h := 1; h < hosts; h++ {
				fmt.Fprintf(w, `<a href="http://h%d.test/0">h</a>`, h)
			}
		}
	}))
	proxy.Config.ConnState = conns.state
	proxy.Start()
	defer proxy.Close()
	tr := fetch.NewTransport()
	tr.Proxy = func(*http.Request) (*url.URL, error) { return url.Parse(proxy.URL) }
	defer tr.CloseIdleConnections()
	var got crawled
	c := crawlOver(&fetch.HTTPFetcher{Client: &http.Client{Transport: tr}}, &got)
	c.Workers = workers
	if err := c.Run(context.Background(), "http://h0.test/0"); err != nil {
		t.Fatal(err)
	}
	if n := len(got.urls()); n != hosts*pagesPerHost {
		t.Fatalf("crawled %d pages, want %d: %v", n, hosts*pagesPerHost, c.Stats())
	}
	requests, opened := c.Stats().Requests+c.Stats().RobotsFetched, conns.n.Load()
	t.Logf("%d requests through the proxy opened %d connections", requests, opened)
	if opened > 2*workers {
		t.Errorf("%d requests through the proxy opened %d connections, want at most %d (2 per worker)", requests, opened, 2*workers)
	}
}
