package crawler_test

import (
	"context"
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

	"crawler"
	"crawler/fetch"
	"crawler/politeness"
)

// site is a small web on one httptest server: a path answers with a page
// (HTML unless the type says otherwise), a redirect, or a status. It counts
// requests per path.
type site struct {
	*httptest.Server
	mu     sync.Mutex
	pages  map[string]response
	counts map[string]int
	order  []string
	times  []time.Time // of the requests in order
}

type response struct {
	status int
	ctype  string
	body   string
	header map[string]string
	delay  time.Duration
	wait   chan struct{} // if set, the answer waits for it to close (at most 10 s)
	then   *response     // if set, the path answers this from the next request on
}

func newSite(t *testing.T, pages map[string]response) *site {
	s := &site{pages: pages, counts: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// newPipeSite serves pages like newSite, but over an in-memory network
// (net.Pipe), for tests in a testing/synctest bubble, where a real socket
// would keep the fake clock from moving. The site is at http://pipe.test;
// the fetcher returned reaches it, and nothing else. stop shuts the server
// and the fetcher's connections down; call it before the bubble ends.
func newPipeSite(pages map[string]response) (s *site, f *fetch.HTTPFetcher, stop func()) {
	s = &site{Server: &httptest.Server{URL: "http://pipe.test"}, pages: pages, counts: map[string]int{}}
	l := &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
	srv := &http.Server{Handler: http.HandlerFunc(s.serve)}
	go srv.Serve(l)
	tr := &http.Transport{DialContext: l.dial}
	f = &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}}
	return s, f, func() {
		tr.CloseIdleConnections()
		srv.Close()
	}
}

// pipeListener is a net.Listener whose connections are dialled in memory.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	key := r.URL.RequestURI()
	s.mu.Lock()
	s.counts[key]++
	s.order = append(s.order, key)
	s.times = append(s.times, time.Now())
	resp, ok := s.pages[key]
	if ok && resp.then != nil {
		s.pages[key] = *resp.then
	}
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if resp.wait != nil {
		select {
		case <-resp.wait:
		case <-time.After(10 * time.Second):
		case <-r.Context().Done():
			return
		}
	}
	if resp.delay > 0 {
		select {
		case <-time.After(resp.delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range resp.header {
		w.Header().Set(k, strings.ReplaceAll(v, "$URL", s.URL))
	}
	if resp.ctype == "" {
		resp.ctype = "text/html; charset=utf-8"
	}
	w.Header().Set("Content-Type", resp.ctype)
	w.WriteHeader(cmpInt(resp.status, 200))
	fmt.Fprint(w, strings.ReplaceAll(resp.body, "$URL", s.URL))
}

// set replaces the response at path.
func (s *site) set(path string, r response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[path] = r
}

// reset forgets the requests counted so far.
func (s *site) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts, s.order = map[string]int{}, nil
}

func (s *site) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[path]
}

func (s *site) requests() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps(s.counts)
}

func maps(m map[string]int) map[string]int {
	c := make(map[string]int, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func cmpInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func html(links ...string) response {
	var b strings.Builder
	b.WriteString("<html><head><title>t</title></head><body>")
	for _, l := range links {
		fmt.Fprintf(&b, `<a href="%s">x</a>`, l)
	}
	return response{body: b.String()}
}

func redirect(code int, to string) response {
	return response{status: code, header: map[string]string{"Location": to}}
}

// collect is a Handler that records the pages it is given.
type collect struct {
	mu    sync.Mutex
	pages map[string]*crawler.Page
}

func (c *collect) Handle(_ context.Context, p *crawler.Page) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pages == nil {
		c.pages = map[string]*crawler.Page{}
	}
	if _, dup := c.pages[p.URL]; dup {
		return fmt.Errorf("page %s handled twice", p.URL)
	}
	c.pages[p.URL] = p
	return nil
}

// page returns the page handled for u, or nil.
func (c *collect) page(u string) *crawler.Page {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pages[u]
}

func (c *collect) urls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var us []string
	for u := range c.pages {
		us = append(us, u)
	}
	slices.Sort(us)
	return us
}

// fast is a Crawler for tests on loopback: no delays (fixed or adaptive),
// no backoff, and an unavailable robots.txt retried after a millisecond.
func fast(h crawler.Handler) *crawler.Crawler {
	return &crawler.Crawler{Handler: h, Pacing: noPacing, Workers: 4,
		Robots:  &politeness.RobotsCache{ErrorTTL: time.Millisecond},
		Fetcher: &fetch.HTTPFetcher{Addresses: testLoopback}}
}

// testLoopback is the address policy of the tests whose servers
// (httptest) listen on 127.0.0.1: that address is allowed, and no other
// special-purpose one.
var testLoopback = fetch.AddressPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}

// noPacing is the pacing of crawls of the tests' own servers: no delays
// (fixed or adaptive) and no backoff.
var noPacing = politeness.Pacing{Delay: -1, DelayFactor: -1, Backoff: -1}

// seedsOnly is a Scope that follows no link: only the seeds are fetched.
var seedsOnly = crawler.Scope{Allow: func(string, int) bool { return false }}

// chainSite is a site whose page i links to page i+1 and to 3 leaves.
// chainPages are the pages of a chain /0 -> /1 -> ... -> /n (a 404), each
// of /0../n-1 with two leaves /i/x and /i/y.
func chainPages(n int) map[string]response {
	pages := map[string]response{}
	for i := range n {
		pages[fmt.Sprintf("/%d", i)] = html(fmt.Sprintf("/%d", i+1), fmt.Sprintf("/%d/x", i), fmt.Sprintf("/%d/y", i))
		pages[fmt.Sprintf("/%d/x", i)] = html()
		pages[fmt.Sprintf("/%d/y", i)] = html()
	}
	return pages
}

func chainSite(t *testing.T, n int) *site { return newSite(t, chainPages(n)) }
