package crawler_test

import (
	"context"
	"strings"
	"testing"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/simhash"
)

// On a web with near-duplicate families (the same story with another date
// line, related-links box and read counter), the pages the crawl marks as
// near-duplicates are near-duplicates by the web's truth (precision ≥ 0.95),
// it marks at least 90% of those it fetched after the first of their
// family (recall), and it never marks an unrelated page.
//
//	go test -run TestNearDuplicatesOnWeb -v .
func TestNearDuplicatesOnWeb(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 5, Hosts: 12, PagesPerHost: 60, NearDuplicates: 6})
	defer w.Close()
	family := map[string]int{}
	for i, f := range w.NearDuplicateFamilies() {
		for _, u := range f {
			family[u] = i + 1
		}
	}
	pages := &collect{}
	c := &crawler.Crawler{Handler: pages, Fetcher: &fetch.HTTPFetcher{Client: w.Client()}, Pacing: noPacing, Workers: 8,
		NearDuplicates: &simhash.Config{}}
	if err := c.Run(context.Background(), w.Seeds()...); err != nil {
		t.Fatal(err)
	}

	fetched := map[int]int{} // family -> members fetched
	var marked, right, unrelated int
	for _, u := range pages.urls() {
		p := pages.page(u)
		if p.Status != 200 {
			continue
		}
		if f := family[u]; f > 0 {
			fetched[f]++
		}
		if p.NearDuplicateOf == "" {
			continue
		}
		marked++
		switch f := family[u]; {
		case f > 0 && family[p.NearDuplicateOf] == f:
			right++
		case f == 0 || family[p.NearDuplicateOf] == 0:
			unrelated++
			t.Errorf("%s marked a near-duplicate of %s, unrelated", u, p.NearDuplicateOf)
		default:
			t.Logf("%s marked a near-duplicate of %s, of another family", u, p.NearDuplicateOf)
		}
	}
	var truePairs int // pages fetched after the first of their family
	for _, n := range fetched {
		truePairs += n - 1
	}
	precision, recall := float64(right)/float64(marked), float64(right)/float64(truePairs)
	t.Logf("%d families; %d near-duplicates fetched after the first of their family, %d marked, %d rightly: precision %.3f, recall %.3f; Stats.NearDuplicates %d",
		len(fetched), truePairs, marked, right, precision, recall, c.Stats().NearDuplicates)
	if truePairs < 50 || precision < 0.95 || recall < 0.90 || unrelated > 0 || c.Stats().NearDuplicates != int64(marked) {
		t.Errorf("precision %.3f, recall %.3f over %d pairs, %d unrelated: want ≥ 0.95, ≥ 0.90, at least 50 and none", precision, recall, truePairs, unrelated)
	}
}

// With SkipLinks, the links of a near-duplicate are not followed, though
// the Handler sees them; a page is no near-duplicate of itself, nor is an
// unrelated page.
func TestNearDuplicatesSkipLinks(t *testing.T) {
	story := func(date, link string) response {
		text := strings.Repeat("The council met on Tuesday to discuss the new bridge over the river and its cost to the town. ", 20)
		return response{body: "<html><head><title>Bridge</title></head><body><p>Updated " + date + "</p><p>" + text +
			`</p><a href="` + link + `">related</a></body></html>`}
	}
	other := response{body: "<html><body><p>" + strings.Repeat("Recipes for apple pie with cinnamon, butter and a crisp crust baked golden. ", 20) + "</p></body></html>"}
	for _, skip := range []bool{false, true} {
		s := newSite(t, map[string]response{
			"/":        html("/a", "/b", "/recipes"),
			"/a":       story("Monday 09:12", "/from-a"),
			"/b":       story("Tuesday 17:40", "/from-b"),
			"/recipes": other,
			"/from-a":  html(),
			"/from-b":  html(),
		})
		pages := &collect{}
		c := fast(pages)
		c.Workers = 1 // /a is fetched before /b
		c.NearDuplicates = &simhash.Config{SkipLinks: skip}
		if err := c.Run(context.Background(), s.URL+"/"); err != nil {
			t.Fatal(err)
		}
		a, b, r := pages.page(s.URL+"/a"), pages.page(s.URL+"/b"), pages.page(s.URL+"/recipes")
		if a.NearDuplicateOf != "" || b.NearDuplicateOf != s.URL+"/a" || r.NearDuplicateOf != "" || len(b.Links) != 1 {
			t.Errorf("skip %v: /a near-duplicate of %q, /b of %q with links %q, /recipes of %q; want /b of /a alone",
				skip, a.NearDuplicateOf, b.NearDuplicateOf, b.Links, r.NearDuplicateOf)
		}
		if got := s.count("/from-b"); got != map[bool]int{false: 1, true: 0}[skip] {
			t.Errorf("skip %v: /from-b requested %d times", skip, got)
		}
		if s.count("/from-a") != 1 {
			t.Errorf("skip %v: /from-a, linked from the first of the family, not fetched", skip)
		}
	}
}
