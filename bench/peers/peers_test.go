package peers

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"crawler/crawlertest"
)

// TestCrawlers runs every crawler of All on a small web and checks, from
// the server's counts, that it crawled, kept to its budget and (but for
// the reference, which does not read robots.txt) requested nothing that
// robots.txt disallows. It logs what else the server saw: duplicates (the
// requests of a URL past its first), nofollow-only pages, good pages and
// robots.txt fetches.
//
// Every crawler makes exactly Budget requests here, but colly and gocrawl
// only because their adapters count them: left to their own limits, colly
// (counting in OnRequest) misses the redirect hops its client follows and
// gocrawl (MaxVisits) counts 2xx answers only, and they made about 360 and
// 390 requests. colly does not test redirect targets against robots.txt;
// no redirect of this web leads to a disallowed URL, so that cannot show.
func TestCrawlers(t *testing.T) {
	const (
		workers = 8
		budget  = 300
		// slack is what a crawler may request past its budget: the
		// requests in flight when it is reached.
		slack = workers + 2
	)
	for _, c := range All() {
		t.Run(c.Name, func(t *testing.T) {
			w := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 8, PagesPerHost: 40})
			defer w.Close()
			tr := NewTransport(w.Addr(), workers)
			defer tr.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			res, err := c.Run(ctx, Config{Seeds: w.Seeds(), Budget: budget, Workers: workers, Transport: tr})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}

			total := w.TotalRequests()
			counts := w.RequestCounts()
			var dups, robots int
			for _, n := range counts {
				dups += n - 1
			}
			for _, h := range w.Hosts() {
				robots += w.RobotsRequests(h)
			}
			// Every request robots.txt disallows, Web.Disallowed's URLs and
			// those linked only from pages a compliant crawler skips.
			disallowed := 0
			for u, n := range counts {
				if w.RobotsDisallows(u) {
					disallowed += n
				}
			}
			good := 0
			for _, u := range w.GoodPages() {
				if counts[u] > 0 {
					good++
				}
			}
			t.Logf("requests %d (crawler counted %d), duplicates %d, disallowed %d, nofollow-only %d, good pages %d of %d, robots.txt %d",
				total, res.Fetched, dups, disallowed, pathHits(counts, "/nofollow/"), good, len(w.GoodPages()), robots)

			if total == 0 {
				t.Fatal("no request reached the server")
			}
			if total > budget+slack {
				t.Errorf("%d requests, budget %d (+%d)", total, budget, slack)
			}
			if c.Name != "reference" && disallowed > 0 {
				t.Errorf("%d requests to URLs robots.txt disallows", disallowed)
			}
		})
	}
}

// pathHits counts the requests to URLs whose path starts with prefix.
func pathHits(counts map[string]int, prefix string) int {
	n := 0
	for s, c := range counts {
		if u, err := url.Parse(s); err == nil && strings.HasPrefix(u.Path, prefix) {
			n += c
		}
	}
	return n
}

// TestCrawlersStop cancels every crawler of All mid-crawl: it must return
// soon with the context's error, and leave nothing running that still
// requests pages.
func TestCrawlersStop(t *testing.T) {
	const workers = 8
	for _, c := range All() {
		t.Run(c.Name, func(t *testing.T) {
			// 5 ms a response: the whole web takes several times the 100 ms
			// before the cancel.
			w := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 8, PagesPerHost: 40, Latency: 5 * time.Millisecond})
			defer w.Close()
			tr := NewTransport(w.Addr(), workers)
			defer tr.CloseIdleConnections()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cancelled := make(chan time.Time, 1)
			time.AfterFunc(100*time.Millisecond, func() { cancelled <- time.Now(); cancel() })

			_, err := c.Run(ctx, Config{Seeds: w.Seeds(), Budget: 1 << 20, Workers: workers, Transport: tr})
			if ctx.Err() == nil {
				t.Fatalf("the crawl ended before it was cancelled (%d requests)", w.TotalRequests())
			}
			lag := time.Since(<-cancelled)
			n := w.TotalRequests()
			// Requests sent before the cancel may reach the handler after
			// Run returned, but no more than one per worker, and none later.
			time.Sleep(50 * time.Millisecond)
			late := w.TotalRequests()
			time.Sleep(50 * time.Millisecond)
			t.Logf("returned %v after the cancel, %d requests (+%d late)", lag.Round(time.Millisecond), n, late-n)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Run: %v, want context.Canceled", err)
			}
			if lag > 2*time.Second {
				t.Errorf("Run returned %v after the cancel", lag)
			}
			if m := w.TotalRequests(); m-n > workers || m != late {
				t.Errorf("%d requests after Run returned, %d of them 50 ms later", m-n, m-late)
			}
		})
	}
}

// TestSessionCookies crawls a site of 20 pages through SessionCookies with
// OursFIFO and OursFIFONoCookies: with the jar, every request after the
// first (robots.txt, whose answer sets it) carries the session cookie;
// without, none does.
func TestSessionCookies(t *testing.T) {
	const pages = 20
	for _, tc := range []struct {
		c          Crawler
		withCookie int // requests that carry the cookie
	}{
		{Crawler{"ours-fifo", OursFIFO}, pages},
		{Crawler{"ours-fifo-nocookies", OursFIFONoCookies}, 0},
	} {
		t.Run(tc.c.Name, func(t *testing.T) {
			var (
				mu      sync.Mutex
				cookies []string // the Cookie header of each request, in order
			)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				cookies = append(cookies, r.Header.Get("Cookie"))
				mu.Unlock()
				if r.URL.Path == "/robots.txt" {
					http.NotFound(w, r)
					return
				}
				var n int
				fmt.Sscanf(r.URL.Path, "/p/%d", &n)
				w.Header().Set("Content-Type", "text/html")
				if n+1 < pages {
					fmt.Fprintf(w, `<a href="/p/%d">next</a>`, n+1)
				}
			}))
			defer srv.Close()
			tr := NewTransport(srv.Listener.Addr().String(), 4)
			defer tr.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			_, err := tc.c.Run(ctx, Config{Seeds: []string{"http://site.test/p/0"}, Budget: 100, Workers: 4, Transport: SessionCookies(tr)})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(cookies) != pages+1 {
				t.Fatalf("%d requests, want %d pages and robots.txt", len(cookies), pages)
			}
			id := sha256.Sum256([]byte("site.test"))
			want := fmt.Sprintf("session=%x", id[:16])
			carried := 0
			for i, c := range cookies {
				switch c {
				case want:
					carried++
				case "":
				default:
					t.Errorf("request %d: Cookie %q, want %q or none", i, c, want)
				}
			}
			if cookies[0] != "" || carried != tc.withCookie {
				t.Errorf("%d requests carried the cookie (the first: %q), want %d after the first", carried, cookies[0], tc.withCookie)
			}
		})
	}
}
