package crawler_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/internal/leak"
	"crawler/politeness"
	"crawler/seen"
)

// crawlWeb crawls a crawlertest web with a fast crawler (no politeness
// delays) and returns the crawler and the pages its handler saw.
func crawlWeb(t *testing.T, w *crawlertest.Web, configure func(*crawler.Crawler)) (*crawler.Crawler, *collect) {
	t.Helper()
	got := new(collect)
	c := &crawler.Crawler{
		Handler: got,
		Fetcher: &fetch.HTTPFetcher{Client: w.Client()},
		Pacing:  politeness.Pacing{Delay: -1, DelayFactor: -1},
		Workers: 32,
	}
	if configure != nil {
		configure(c)
	}
	if err := c.Run(context.Background(), w.Seeds()...); err != nil {
		t.Fatal(err)
	}
	return c, got
}

// TestCrawlSyntheticWeb is the core acceptance test: on a web of 200 hosts,
// every reachable page is fetched exactly once, no disallowed page is
// fetched, and each host's robots.txt is fetched once.
func TestCrawlSyntheticWeb(t *testing.T) {
	leak.Check(t)
	// crawlertest's default redirect chains are as long as a default
	// crawler follows, so that its ground truth is what the crawler fetches.
	if crawlertest.DefaultMaxChain != crawler.DefaultMaxRedirects {
		t.Errorf("crawlertest.DefaultMaxChain %d, crawler.DefaultMaxRedirects %d: want equal", crawlertest.DefaultMaxChain, crawler.DefaultMaxRedirects)
	}
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 200, PagesPerHost: 6, PageBytes: 2048})
	defer w.Close()
	c, got := crawlWeb(t, w, nil)

	want := w.Depths(w.Seeds()...)
	counts := w.RequestCounts()
	if len(want) < 3000 {
		t.Fatalf("ground truth has only %d URLs: the web is too small to mean much", len(want))
	}
	for u := range want {
		if counts[u] != 1 {
			t.Errorf("%s requested %d times, want 1", u, counts[u])
		}
	}
	for u, n := range counts {
		if _, ok := want[u]; !ok {
			t.Errorf("%s requested %d times, but a compliant crawler never requests it", u, n)
		}
	}
	for _, u := range w.Disallowed(w.Seeds()...) {
		if counts[u] != 0 {
			t.Errorf("disallowed %s was requested", u)
		}
	}
	for _, h := range w.Hosts() {
		if n := w.RobotsRequests(h); n != 1 {
			t.Errorf("robots.txt of %s requested %d times, want 1", h, n)
		}
	}
	st := c.Stats()
	if st.Requests != int64(len(want)) || st.Fetched != st.Requests || len(got.pages) != len(want) {
		t.Errorf("stats %+v, %d pages handled; want %d", st, len(got.pages), len(want))
	}
	if st.RobotsBlocked == 0 || st.Duplicates == 0 || st.Redirects == 0 || st.Hosts != 200 {
		t.Errorf("stats %+v: the web has disallowed links, duplicates, redirects and 200 hosts", st)
	}
	for u, p := range got.pages {
		if p.Depth < want[u] {
			t.Errorf("%s reported at depth %d, below its true distance %d", u, p.Depth, want[u])
		}
	}
}

func TestCrawlSyntheticWebBudgets(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 2, Hosts: 200, PagesPerHost: 10})
	defer w.Close()
	for _, max := range []int64{1, 333, 1000} {
		w.ResetCounts()
		c, _ := crawlWeb(t, w, func(c *crawler.Crawler) { c.MaxPages = max })
		if n := w.TotalRequests(); int64(n) != max || c.Stats().Requests != max {
			t.Errorf("MaxPages=%d: server counted %d page requests, stats %d", max, n, c.Stats().Requests)
		}
	}

	truth := w.Depths(w.Seeds()...)
	for _, depth := range []int{1, 3} {
		w.ResetCounts()
		_, got := crawlWeb(t, w, func(c *crawler.Crawler) { c.Scope.MaxDepth = depth })
		for u, p := range got.pages {
			if p.Depth > depth || truth[u] > depth {
				t.Errorf("MaxDepth=%d: %s fetched at depth %d (true distance %d)", depth, u, p.Depth, truth[u])
			}
		}
		// The seed's own links are found first, so depth 1 is always whole.
		for u, d := range truth {
			if d <= 1 && got.pages[u] == nil {
				t.Errorf("MaxDepth=%d: %s at depth %d not fetched", depth, u, d)
			}
		}
		if depth == 3 && len(got.pages) <= 50 {
			t.Errorf("MaxDepth=3 fetched only %d pages", len(got.pages))
		}
	}
}

// A slow host must not hold back the others: with one host answering in
// 200 ms, the other hosts' pages are all fetched long before it is done.
func TestCrawlSyntheticWebSlowHost(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a host answering in 200 ms a page: about 5 s")
	}
	t.Parallel() // it waits, mostly: the other tests use the cores meanwhile
	slowHost := "h1.crawler.test"
	w := crawlertest.NewWeb(crawlertest.Config{
		Seed: 3, Hosts: 10, PagesPerHost: 4,
		HostLatency: func(h string) time.Duration {
			if h == slowHost {
				return 200 * time.Millisecond
			}
			return 0
		},
	})
	defer w.Close()
	var mu sync.Mutex
	var lastFast, lastSlow time.Time
	start := time.Now()
	crawlWeb(t, w, func(c *crawler.Crawler) {
		c.Workers = 8
		c.Handler = crawler.HandlerFunc(func(_ context.Context, p *crawler.Page) error {
			mu.Lock()
			defer mu.Unlock()
			if p.URL[len("http://"):len("http://")+len(slowHost)] == slowHost {
				lastSlow = time.Now()
			} else {
				lastFast = time.Now()
			}
			return nil
		})
	})
	// The slow host's pages take 200 ms each, a second or more in all;
	// the fast hosts' are done in a fraction of that. A difference, not a
	// ratio: a stall of the machine delays both alike.
	fastTook, slowTook := lastFast.Sub(start), lastSlow.Sub(start)
	t.Logf("fast hosts done after %v, the slow host after %v", fastTook, slowTook)
	if slowTook < time.Second || slowTook-fastTook < 500*time.Millisecond {
		t.Errorf("fast hosts done after %v, slow host after %v: the slow host held the others back", fastTook, slowTook)
	}
}

// The crawl works through an HTTP proxy too (as the CLI does with
// HTTP_PROXY): crawlertest serves absolute-form requests.
func TestCrawlThroughProxy(t *testing.T) {
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 4, Hosts: 5, PagesPerHost: 5})
	defer w.Close()
	tr := fetch.NewTransport()
	tr.Proxy = http.ProxyURL(w.ProxyURL())
	defer tr.CloseIdleConnections()
	c, _ := crawlWeb(t, w, func(c *crawler.Crawler) {
		c.Fetcher = &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}}
	})
	if want := len(w.Depths(w.Seeds()...)); c.Stats().Requests != int64(want) || w.TotalRequests() != want {
		t.Errorf("through the proxy: %d requests, want %d", w.TotalRequests(), want)
	}
}

// Gzip-encoded pages are decoded before link extraction.
func TestCrawlGzipWeb(t *testing.T) {
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 5, Hosts: 5, PagesPerHost: 10, Gzip: true})
	defer w.Close()
	c, got := crawlWeb(t, w, nil)
	want := len(w.Depths(w.Seeds()...))
	if c.Stats().Requests != int64(want) || len(got.pages) != want {
		t.Errorf("gzip web: %d requests, want %d", c.Stats().Requests, want)
	}
	if p := got.pages[w.Seeds()[0]]; p == nil || len(p.Links) == 0 || p.Header.Get("Content-Encoding") != "" {
		t.Errorf("seed page = %+v, want decoded HTML with links", p)
	}
}

// Probabilistic seen-sets may skip a URL (a false positive) but never fetch
// one twice.
func TestCrawlWithProbabilisticSeenSets(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 6, Hosts: 50, PagesPerHost: 10})
	defer w.Close()
	truth := w.Depths(w.Seeds()...)
	for name, set := range map[string]seen.Set{
		"bloom":       seen.NewBloom(len(truth)*4, 0.001),
		"bitmap":      seen.NewBitmap(1 << 22),
		"small-bloom": seen.NewBloom(100, 0.01), // overfull: many false positives
	} {
		w.ResetCounts()
		c, _ := crawlWeb(t, w, func(c *crawler.Crawler) { c.Seen = set })
		for u, n := range w.RequestCounts() {
			if n != 1 {
				t.Errorf("%s: %s requested %d times", name, u, n)
			}
			if _, ok := truth[u]; !ok {
				t.Errorf("%s: %s is not in the ground truth", name, u)
			}
		}
		missed := len(truth) - w.TotalRequests()
		t.Logf("%s: %d of %d URLs missed, %d links reported seen", name, missed, len(truth), c.Stats().Duplicates)
		switch {
		case name == "small-bloom" && missed < len(truth)/4:
			// An overfull filter answers "seen" for URLs it never held:
			// false positives cost the crawl whole parts of the web.
			t.Errorf("%s: only %d of %d URLs missed; an overfull filter must lose many to false positives", name, missed, len(truth))
		case name != "small-bloom" && missed > len(truth)/100:
			t.Errorf("%s: %d of %d URLs missed", name, missed, len(truth))
		}
		if c.Stats().Requests == 0 {
			t.Errorf("%s: nothing fetched", name)
		}
	}
}

// Credentials in a seed's URL go to its host only: its relative links and
// redirects keep them, links and redirects to another host (absolute,
// network-path, through <base>) do not carry them.
func TestCredentialsStayOnTheirHost(t *testing.T) {
	type hit struct{ path, auth string }
	var mu sync.Mutex
	hits := map[string][]hit{} // by server: "a" or "b"
	record := func(name string, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		hits[name] = append(hits[name], hit{r.URL.Path, r.Header.Get("Authorization")})
	}
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record("b", r)
		fmt.Fprint(w, "<html>b</html>")
	}))
	defer b.Close()
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record("a", r)
		bHost := strings.TrimPrefix(b.URL, "http://")
		switch r.URL.Path {
		case "/":
			fmt.Fprintf(w, `<html><a href="/a">a</a> <a href="%s/b">b</a> <a href="//%s/c">c</a>
				<a href="/r">r</a> <a href="/s">s</a> <a href="/based">based</a></html>`, b.URL, bHost)
		case "/r":
			http.Redirect(w, r, b.URL+"/r", http.StatusFound)
		case "/s":
			http.Redirect(w, r, "/a2", http.StatusFound)
		case "/based":
			fmt.Fprintf(w, `<html><base href="%s/base/"><a href="x">x</a></html>`, b.URL)
		default:
			fmt.Fprint(w, "<html>a</html>")
		}
	}))
	defer a.Close()
	var got collect
	c := fast(&got)
	seed := strings.Replace(a.URL, "http://", "http://user:secret@", 1) + "/"
	if err := c.Run(context.Background(), seed); err != nil {
		t.Fatal(err)
	}

	wantAuth := "Basic " + base64.StdEncoding.EncodeToString([]byte("user:secret"))
	mu.Lock()
	defer mu.Unlock()
	var aPaths, bPaths []string
	for _, h := range hits["a"] {
		aPaths = append(aPaths, h.path)
		if h.path != "/robots.txt" && h.auth != wantAuth {
			t.Errorf("a%s: Authorization %q, want the seed's credentials", h.path, h.auth)
		}
	}
	for _, h := range hits["b"] {
		bPaths = append(bPaths, h.path)
		if h.auth != "" {
			t.Errorf("b%s: Authorization %q: the seed's credentials went to another host", h.path, h.auth)
		}
	}
	slices.Sort(aPaths)
	slices.Sort(bPaths)
	if want := []string{"/", "/a", "/a2", "/based", "/r", "/robots.txt", "/s"}; !slices.Equal(aPaths, want) {
		t.Errorf("a got %v, want %v", aPaths, want)
	}
	if want := []string{"/b", "/base/x", "/c", "/r", "/robots.txt"}; !slices.Equal(bPaths, want) {
		t.Errorf("b got %v, want %v", bPaths, want)
	}
}
