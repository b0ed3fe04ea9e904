package render

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"crawler/fetch"
)

// needBrowser returns the browser to test with, or skips the test if there
// is none (fails it under CRAWLER_CI, where one must be).
func needBrowser(t testing.TB) string {
	t.Helper()
	path, err := FindBrowser()
	if err != nil {
		if os.Getenv("CRAWLER_CI") != "" {
			t.Fatalf("CRAWLER_CI is set and no browser was found: %v", err)
		}
		t.Skipf("no browser: %v", err)
	}
	return path
}

// resource is what a test site serves at a path.
type resource struct {
	ctype string
	body  string
	// serve, if set, serves the path instead.
	serve func(w http.ResponseWriter, r *http.Request)
}

// site is a test web site on 127.0.0.1 that counts the requests for each
// path.
type site struct {
	*httptest.Server
	mu    sync.Mutex
	pages map[string]resource
	hits  map[string]int
	agent map[string]string // the User-Agent of the last request of each path
}

// newSite serves pages ("{{site}}" in a body is the site's URL; see
// withCanary for the canary's) until the test ends.
func newSite(t testing.TB, pages map[string]resource) *site {
	t.Helper()
	s := &site{pages: pages, hits: make(map[string]int), agent: make(map[string]string)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.agent[r.URL.Path] = r.UserAgent()
		res, ok := s.pages[r.URL.Path]
		s.mu.Unlock()
		switch {
		case !ok:
			http.NotFound(w, r)
		case res.serve != nil:
			res.serve(w, r)
		default:
			w.Header().Set("Content-Type", res.ctype)
			w.Write([]byte(strings.ReplaceAll(res.body, "{{site}}", s.URL)))
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// count returns the number of requests for path.
func (s *site) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// userAgent returns the User-Agent of the last request for path.
func (s *site) userAgent(path string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agent[path]
}

// total returns the number of requests for any path.
func (s *site) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.hits {
		n += c
	}
	return n
}

// addrPort returns the site's listening address.
func (s *site) addrPort() netip.AddrPort {
	return s.Listener.Addr().(*net.TCPAddr).AddrPort()
}

// html is a text/html resource.
func html(body string) resource { return resource{ctype: "text/html; charset=utf-8", body: body} }

// js is a script resource.
func js(body string) resource { return resource{ctype: "text/javascript", body: body} }

// withCanary returns pages with "{{canary}}" replaced by the canary's
// URL.
func withCanary(pages map[string]resource, canary *site) map[string]resource {
	out := make(map[string]resource, len(pages))
	for p, r := range pages {
		r.body = strings.ReplaceAll(r.body, "{{canary}}", canary.URL)
		r.body = strings.ReplaceAll(r.body, "{{canaryhost}}", canary.Listener.Addr().String())
		out[p] = r
	}
	return out
}

// onlySite returns an HTTPFetcher that may connect to s's address only:
// any other loopback server, such as a canary, is refused.
func onlySite(s *site) *fetch.HTTPFetcher {
	return &fetch.HTTPFetcher{Addresses: fetch.AddressPolicy{AllowAddrPorts: []netip.AddrPort{s.addrPort()}}}
}

// newFetcher returns a render Fetcher over onlySite(s), set up by set,
// closed at the end of the test.
func newFetcher(t testing.TB, s *site, set func(f *Fetcher)) *Fetcher {
	t.Helper()
	f := &Fetcher{
		Fetcher:  onlySite(s),
		ExecPath: needBrowser(t),
		Idle:     400 * time.Millisecond, // beyond the sites' script timers (50-100 ms) by more than a loaded machine stalls
		Logger:   slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if set != nil {
		set(f)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// get renders path of s with f, failing the test on an error.
func get(t testing.TB, f *Fetcher, s *site, path string) *fetch.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := f.Fetch(ctx, &fetch.Request{URL: s.URL + path})
	if err != nil {
		t.Fatalf("Fetch %s: %v", path, err)
	}
	return resp
}
