package render_test

import (
	"context"
	"fmt"
	"log"
	"net/url"

	"crawler"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/render"
)

// A crawl of a site whose links are made by JavaScript. The browser's
// requests go through the same fetcher as the crawl's own, and robots.txt
// is asked about each of them.
func ExampleFetcher() {
	const agent = "examplebot/1.0"
	hf := &fetch.HTTPFetcher{}
	robots := &politeness.RobotsCache{Fetch: func(ctx context.Context, robotsURL string) (int, []byte, error) {
		// Follow up to 5 redirects, as a FetchFunc must.
		for range 6 {
			resp, err := hf.Fetch(ctx, &fetch.Request{URL: robotsURL, UserAgent: agent})
			if err != nil {
				return 0, nil, err
			}
			loc := resp.Header.Get("Location")
			if resp.Status/100 != 3 || loc == "" {
				return resp.Status, resp.Body, nil
			}
			next, err := url.Parse(robotsURL)
			if err == nil {
				next, err = next.Parse(loc)
			}
			if err != nil {
				return resp.Status, nil, nil
			}
			robotsURL = next.String()
		}
		return 310, nil, nil // too many redirects: RFC 9309 allows all
	}}

	f := &render.Fetcher{
		Fetcher: hf,
		Allowed: func(ctx context.Context, u string) (bool, error) {
			pu, err := url.Parse(u)
			if err != nil {
				return false, err
			}
			rules, _, err := robots.Get(ctx, pu.Scheme+"://"+pu.Host)
			return rules.Allowed(agent, u), err
		},
		Tabs: 2,
	}
	defer f.Close()

	c := &crawler.Crawler{
		Fetcher:   f,
		Robots:    robots, // the same cache: each robots.txt is fetched once
		UserAgent: agent,
		MaxPages:  10,
		Scope:     crawler.Scope{SameHost: true},
		Handler: crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
			fmt.Println(p.URL, len(p.Links), "links")
			return nil
		}),
	}
	if err := c.Run(context.Background(), "https://example.com/"); err != nil {
		log.Fatal(err)
	}
	log.Print(f.Stats())
}
