package crawler_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"crawler"
	"crawler/fetch"
	"crawler/internal/proxytest"
	"crawler/politeness"
)

// A crawl through three proxies, one healthy, one banned everywhere (403)
// and one that drops every other connection: every page is fetched, each
// failed request retried through another proxy after its host's backoff;
// the banning proxy is benched after a bounded number of requests; and
// the origin sees each host's requests at least the crawl's delay apart,
// however many exits the crawl has.
func TestCrawlThroughProxyPool(t *testing.T) {
	const hosts, pagesPerHost, delay = 20, 5, 40 * time.Millisecond
	var mu sync.Mutex
	arrivals := map[string][]time.Time{} // by host, as the origin saw them
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals[r.Host] = append(arrivals[r.Host], time.Now())
		mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		var page int
		fmt.Sscanf(r.URL.Path, "/%d", &page)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<p>%s%s</p>", r.Host, r.URL.Path)
		if page+1 < pagesPerHost {
			fmt.Fprintf(w, `<a href="/%d">next</a>`, page+1)
		}
		if r.Host == "h0.test" && page == 0 {
			for h := 1; h < hosts; h++ {
				fmt.Fprintf(w, `<a href="http://h%d.test/0">h</a>`, h)
			}
		}
	}))
	defer origin.Close()
	target := origin.Listener.Addr().String()
	healthy := proxytest.NewHTTP(t, target, proxytest.Healthy, false)
	banning := proxytest.NewHTTP(t, target, proxytest.Ban, false)
	flaky := proxytest.NewHTTP(t, target, proxytest.DropHalf, false)

	const maxFailures = 2
	pool := &fetch.ProxyPool{Proxies: []*url.URL{healthy.URL, banning.URL, flaky.URL}, MaxFailures: maxFailures, Bench: time.Hour}
	var got collect
	c := fast(&got)
	c.Fetcher = &fetch.HTTPFetcher{Addresses: testLoopback, Proxies: pool} // 127.0.0.1/32 covers the proxies
	c.Pacing = politeness.Pacing{Delay: delay, DelayFactor: -1, Backoff: -1}
	if err := c.Run(context.Background(), "http://h0.test/0"); err != nil {
		t.Fatal(err)
	}

	if n := len(got.urls()); n != hosts*pagesPerHost {
		t.Fatalf("crawled %d pages, want %d: %v", n, hosts*pagesPerHost, c.Stats())
	}
	for _, u := range got.urls() {
		if p := got.page(u); p.Err != nil || p.Status != 200 {
			t.Errorf("%s: %d, %v", u, p.Status, p.Err)
		}
	}
	st := pool.Stats()
	t.Logf("proxies: %+v; crawl: retries %d, errors %v", st, c.Stats().Retries, c.Stats().Errors)
	// Each ban moves its host off the proxy, which is benched at the
	// MaxFailures-th (unless fewer hosts than that were given it).
	if benched := st[1].Benched == 1 && !st[1].BenchedUntil.IsZero(); benched != (st[1].Bans >= maxFailures) || st[1].Bans > maxFailures+int64(c.Workers) {
		t.Errorf("banning proxy %+v: want benched once, after %d bans (MaxFailures, and at most %d more already in flight)", st[1], maxFailures, c.Workers)
	}
	// A failed page is retried; a failed robots.txt defers its host.
	if s := c.Stats(); st[1].Bans+st[2].Failures != s.Retries+s.Errors[crawler.KindRobotsUnavailable] {
		t.Errorf("%d bans and %d drops, but %d retries and %d robots.txt deferrals: want each failed request tried again",
			st[1].Bans, st[2].Failures, s.Retries, s.Errors[crawler.KindRobotsUnavailable])
	}
	if healthy.Forwarded.Load()+flaky.Forwarded.Load() != int64(hosts*(pagesPerHost+1)) {
		t.Errorf("the proxies forwarded %d+%d requests, want one for each page and robots.txt (%d)",
			healthy.Forwarded.Load(), flaky.Forwarded.Load(), hosts*(pagesPerHost+1))
	}

	mu.Lock()
	defer mu.Unlock()
	for host, times := range arrivals {
		slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
		for i := 1; i < len(times); i++ {
			if gap := times[i].Sub(times[i-1]); gap < delay {
				t.Errorf("%s: requests %d and %d reached the origin %v apart, want at least %v", host, i-1, i, gap, delay)
			}
		}
	}
	if len(arrivals) != hosts {
		t.Errorf("the origin saw %d hosts, want %d", len(arrivals), hosts)
	}
}
