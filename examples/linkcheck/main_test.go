package main

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/politeness"
)

func TestRunReportsBrokenLinksWithReferrers(t *testing.T) {
	// A web whose first host has both 404s and a redirect chain longer
	// than the crawler follows.
	web := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 2, PagesPerHost: 40, MaxChain: crawler.DefaultMaxRedirects + 2})
	defer web.Close()
	var out bytes.Buffer
	err := run(context.Background(), nil, &out, web)
	if !errors.Is(err, errBroken) {
		t.Fatalf("run: %v, want errBroken", err)
	}

	line := regexp.MustCompile(`^(\S+) (http://h0\.crawler\.test/\S*) \(linked from (http://h0\.crawler\.test/(?:p/\d+)?)\)$`)
	links := map[string][]string{} // referrer -> URLs (or a prefix ending in /) it must link to
	var missing []string
	chains := 0
	for l := range strings.Lines(out.String()) {
		m := line.FindStringSubmatch(strings.TrimSuffix(l, "\n"))
		if m == nil {
			t.Errorf("line %q is not a broken link on h0 linked from a page of h0", l)
			continue
		}
		problem, u, ref := m[1], m[2], m[3]
		switch {
		case problem == "404" && strings.Contains(u, "/missing/"):
			missing = append(missing, u)
			links[ref] = append(links[ref], u)
		case problem == crawler.KindTooManyRedirects && strings.Contains(u, "/chain/"):
			// The referrer is where the chain began, not a hop of it:
			// it links to the chain's first URL, /chain/<n>/<k>.
			chains++
			links[ref] = append(links[ref], u[:strings.LastIndex(u, "/")+1])
		default:
			t.Errorf("unexpected report %q", l)
		}
	}
	if chains == 0 {
		t.Error("the over-long redirect chain is not reported")
	}

	// Every /missing/ URL the crawl requested is reported, and nothing
	// off the seed's host was requested.
	var requested []string
	for u := range web.RequestCounts() {
		if !strings.HasPrefix(u, "http://h0.crawler.test/") {
			t.Errorf("%s requested: out of scope", u)
		}
		if strings.Contains(u, "/missing/") {
			requested = append(requested, u)
		}
	}
	slices.Sort(requested)
	slices.Sort(missing)
	if len(missing) == 0 || !slices.Equal(missing, requested) {
		t.Errorf("reported 404s %q\nwant the /missing/ URLs requested %q", missing, requested)
	}

	// Each referrer does link to what it is blamed for: fetch the
	// referrers alone and look at their links.
	var mu sync.Mutex
	outLinks := map[string][]string{}
	c := &crawler.Crawler{
		Fetcher: &fetch.HTTPFetcher{Client: web.Client()},
		Pacing:  politeness.Pacing{Delay: -1},
		Scope:   crawler.Scope{Allow: func(_ string, depth int) bool { return depth == 0 }},
		Handler: crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
			mu.Lock()
			outLinks[p.URL] = p.Links
			mu.Unlock()
			return nil
		}),
	}
	if err := c.Run(context.Background(), slices.Collect(maps.Keys(links))...); err != nil {
		t.Fatal(err)
	}
	for ref, targets := range links {
		for _, target := range targets {
			linksTo := func(l string) bool {
				return l == target || strings.HasSuffix(target, "/") && strings.HasPrefix(l, target)
			}
			if !slices.ContainsFunc(outLinks[ref], linksTo) {
				t.Errorf("%s is blamed for %s but has no such link: %q", ref, target, outLinks[ref])
			}
		}
	}
}

func TestRunCleanSiteSucceeds(t *testing.T) {
	web := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 2, PagesPerHost: 40})
	defer web.Close()
	var out bytes.Buffer
	// Seeds only: the home page itself is not broken.
	if err := run(context.Background(), []string{"-max-pages", "1"}, &out, web); err != nil || out.Len() != 0 {
		t.Errorf("run = %v, output %q; want nil and none", err, out.String())
	}
}
