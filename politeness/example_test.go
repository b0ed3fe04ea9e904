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
			"delay:", politeness.HostDelay(time.Second, robots.CrawlDelay(ua), time.Minute))
	}
	// Output:
	// fetched: true private: false delay: 2s
	// fetched: false private: false delay: 2s
}
