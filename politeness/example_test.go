package politeness_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"crawler/politeness"
)

func ExampleParseRobots() {
	robots := politeness.ParseRobots([]byte(`User-agent: *
Disallow: /private/
Allow: /private/public.html
Crawl-delay: 2

Sitemap: https://example.com/sitemap.xml
`))
	const ua = "crawler/0.1 (+https://example.com/bot)"
	for _, target := range []string{"/index.html", "/private/secret.html", "https://example.com/private/public.html"} {
		fmt.Println(target, robots.Allowed(ua, target))
	}
	fmt.Println(robots.CrawlDelay(ua), robots.Sitemaps())
	// Output:
	// /index.html true
	// /private/secret.html false
	// https://example.com/private/public.html true
	// 2s [https://example.com/sitemap.xml]
}

func ExampleRobotsCache() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n")
		}
	}))
	defer srv.Close()

	// fetch is a minimal FetchFunc; a real one also limits redirects.
	fetch := func(ctx context.Context, robotsURL string) (int, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, robotsURL, nil)
		if err != nil {
			return 0, nil, err
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, politeness.MaxRobotsSize))
		return resp.StatusCode, body, err
	}
	cache := &politeness.RobotsCache{Fetch: fetch}
	const ua = "crawler/0.1"
	for range 2 {
		robots, fetched, err := cache.Get(context.Background(), srv.URL)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("fetched:", fetched, "private:", robots.Allowed(ua, "/private/a"),
			"crawl-delay:", robots.CrawlDelay(ua))
	}
	// Output:
	// fetched: true private: false crawl-delay: 2s
	// fetched: false private: false crawl-delay: 2s
}

func ExamplePacing() {
	pacing := politeness.Pacing{
		Delay: time.Second, MaxCrawlDelay: 30 * time.Second,
		DelayFactor: 5, MaxAdaptiveDelay: 30 * time.Second,
		Backoff: 5 * time.Second, MaxBackoff: 10 * time.Minute, MaxFailures: 3,
		MaxRetryAfter: 10 * time.Minute,
	}
	var host politeness.HostPace
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, o := range []politeness.Outcome{
		{Status: 200, Duration: 50 * time.Millisecond},  // fast: the minimum delay
		{Status: 200, Duration: 800 * time.Millisecond}, // slow: 5x the response time
		{Status: 200, CrawlDelay: 2 * time.Second},      // robots.txt asks for 2 s
		{Status: 429, RetryAfter: "120"},                // throttled: Retry-After
		{Status: 503},                                   // backoff doubles
		{Status: 503},                                   // third failure in a row
	} {
		next := pacing.Next(&host, now, o)
		fmt.Printf("status %d: wait %v, failures %d", o.Status, next.Sub(now), host.Failures)
		if host.Retired != "" {
			fmt.Printf(", retired: %s", host.Retired)
		}
		fmt.Println()
		now = next
	}
	// Output:
	// status 200: wait 1s, failures 0
	// status 200: wait 4s, failures 0
	// status 200: wait 2s, failures 0
	// status 429: wait 2m0s, failures 1
	// status 503: wait 10s, failures 2
	// status 503: wait 20s, failures 3, retired: 3 failures in a row, the last: status 503
}
