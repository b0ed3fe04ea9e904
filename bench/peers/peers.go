// Package peers runs web crawlers side by side on the same synthetic web:
// ours (package crawler, FIFO and AOPIC), github.com/gocolly/colly/v2,
// github.com/PuerkitoBio/gocrawl and a minimal reference crawler. Each is
// configured alike (see Config): the same concurrency, the same HTTP
// transport, no politeness delay, robots.txt obeyed (but by the reference),
// depth unlimited, and a budget of page requests.
//
// The crawlers only crawl; what they did is counted by the server (see
// cmd/peerbench).
package peers

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// UserAgent is the User-Agent every crawler sends; robots.txt groups for
// "*" apply to it.
const UserAgent = "peerbench/1.0"

// Config is what every crawler is given.
type Config struct {
	// Seeds are the URLs the crawl starts from.
	Seeds []string
	// Budget is the number of page requests (robots.txt excluded) after
	// which the crawler stops asking for more. Crawlers that can only stop
	// approximately may overshoot by their concurrency.
	Budget int
	// Workers is the number of requests in flight at most (where the
	// crawler lets this be set).
	Workers int
	// Transport sends every request; build it with NewTransport (and
	// wrap it with SessionCookies for a web that sets cookies).
	Transport http.RoundTripper
}

// Result is what a crawler says it did; the server's counts are the ones
// reported.
type Result struct {
	Fetched int64 // page requests the crawler counted, if it counts them
}

// A Func crawls from cfg.Seeds until its budget is spent or nothing is left.
type Func func(ctx context.Context, cfg Config) (Result, error)

// Crawler is a named Func.
type Crawler struct {
	Name string
	Run  Func
}

// All lists the crawlers, in the order they run.
func All() []Crawler {
	return []Crawler{
		{"ours-fifo", OursFIFO},
		{"ours-fifo-watched", OursFIFOWatched},
		{"ours-fifo-nocookies", OursFIFONoCookies},
		{"ours-aopic", OursAOPIC},
		{"reference", Reference},
		{"colly", Colly},
		{"gocrawl", Gocrawl},
	}
}

// Lookup returns the crawler named name.
func Lookup(name string) (Crawler, error) {
	for _, c := range All() {
		if c.Name == name {
			return c, nil
		}
	}
	return Crawler{}, fmt.Errorf("peers: no crawler %q", name)
}

// NewTransport returns the transport every crawler uses: every connection
// goes to addr (the web's listener) whatever the URL's host, keep-alive on,
// idle pools large enough for workers connections to each host and for
// every host of the web (as fetch.NewTransport's 1024: with 4·workers,
// 128, a crawl over 200 hosts closed and dialed connections all along),
// no proxy, no HTTP/2.
func NewTransport(addr string, workers int) *http.Transport {
	var d net.Dialer
	return &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		MaxIdleConns:          max(1024, 4*workers),
		MaxIdleConnsPerHost:   max(4, workers),
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
	}
}

// SessionCookies returns rt made to look like a web whose every host sets
// a session cookie on its first response: the first response rt gives for
// a host (robots.txt, as a rule) carries "Set-Cookie: session=<32 hex
// digits, the host's>; Path=/; HttpOnly", added on its way back to the
// client as if the server had sent it. A crawler with a cookie jar then
// sends the cookie with every later request to the host; one without
// ignores it. Either way the wrapper's own cost is the same: a map lookup
// a response, and 200 cookies made on the peer benchmark's web.
// crawlertest's web sets no cookies.
func SessionCookies(rt http.RoundTripper) http.RoundTripper {
	return &sessionCookies{rt: rt, set: map[string]bool{}}
}

type sessionCookies struct {
	rt  http.RoundTripper
	mu  sync.Mutex
	set map[string]bool // the hosts whose cookie was sent
}

func (s *sessionCookies) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.rt.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	s.mu.Lock()
	first := !s.set[req.URL.Host]
	s.set[req.URL.Host] = true
	s.mu.Unlock()
	if first {
		id := sha256.Sum256([]byte(req.URL.Host))
		resp.Header.Add("Set-Cookie", fmt.Sprintf("session=%x; Path=/; HttpOnly", id[:16]))
	}
	return resp, nil
}

// errBudget refuses a request past Config.Budget, in the adapters that
// enforce the budget themselves.
var errBudget = errors.New("peers: budget spent")

// isRobotsPath reports whether a URL path is robots.txt's.
func isRobotsPath(p string) bool { return p == "/robots.txt" }
