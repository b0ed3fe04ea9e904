package crawler_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"crawler/fetch"
	"crawler/politeness"
	"crawler/simhash"

	"crawler"
)

// A tiny site on loopback, crawled with a handler that records each page.
func ExampleCrawler_Run() {
	site := http.NewServeMux()
	site.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><a href="/about">About</a> <a href="/blog/">Blog</a></html>`)
	})
	site.HandleFunc("/about", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><a href="/">Home</a></html>`)
	})
	site.HandleFunc("/blog/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><a href="../about#team">Team</a> <a href="/missing">?</a></html>`)
	})
	srv := httptest.NewServer(site)
	defer srv.Close()

	var mu sync.Mutex
	var lines []string
	c := &crawler.Crawler{
		Handler: crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, fmt.Sprintf("%d depth=%d links=%d %s", p.Status, p.Depth, len(p.Links), p.URL[len(srv.URL):]))
			return nil
		}),
		Pacing: politeness.Pacing{Delay: -1}, // our own server: no politeness delay
		// Loopback is refused by default (see AddressPolicy): allow this server.
		Fetcher: &fetch.HTTPFetcher{Addresses: fetch.AddressPolicy{
			AllowAddrPorts: []netip.AddrPort{netip.MustParseAddrPort(srv.Listener.Addr().String())},
		}},
	}
	if err := c.Run(context.Background(), srv.URL+"/"); err != nil {
		fmt.Println(err)
	}
	slices.Sort(lines) // workers run in parallel: sort for a stable output
	for _, l := range lines {
		fmt.Println(l)
	}
	fmt.Println("fetched:", c.Stats().Fetched)
	// Output:
	// 200 depth=0 links=2 /
	// 200 depth=1 links=1 /about
	// 200 depth=1 links=2 /blog/
	// 404 depth=2 links=0 /missing
	// fetched: 4
}

// A crawl that yields no page fails, and says why for each seed: here
// the seed is on loopback, which the default address policy refuses (a
// host name that does not exist is retired within seconds, the same
// way). The Handler sees the page's error first.
func ExampleNoPagesError() {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()

	c := &crawler.Crawler{
		Handler: crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
			if p.Err != nil { // not fetched: unreachable, refused, its host given up on...
				fmt.Println("failed:", crawler.ErrorKind(p.Err))
				return nil
			}
			fmt.Println(p.Status, p.URL)
			return nil
		}),
	}
	err := c.Run(context.Background(), srv.URL+"/")
	if noPages, ok := errors.AsType[*crawler.NoPagesError](err); ok {
		for _, s := range noPages.Seeds {
			fmt.Println("seed refused its address:", errors.Is(s.Err, fetch.ErrBlockedAddress))
		}
	}
	fmt.Println(errors.Is(err, crawler.ErrNoPages), errors.Is(err, crawler.ErrSeedsRefused))
	// Output:
	// failed: blocked-address
	// seed refused its address: true
	// true true
}

// Pages gives the crawl as a loop; breaking out of it stops the crawl.
func ExampleCrawler_Pages() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<a href="/%d">next</a>`, len(r.URL.Path)) // an endless chain
	}))
	defer srv.Close()

	c := &crawler.Crawler{Pacing: politeness.Pacing{Delay: -1}, Fetcher: &fetch.HTTPFetcher{Addresses: fetch.AddressPolicy{
		AllowAddrPorts: []netip.AddrPort{netip.MustParseAddrPort(srv.Listener.Addr().String())},
	}}}
	n := 0
	for p, err := range c.Pages(context.Background(), srv.URL+"/") {
		if err != nil {
			fmt.Println(err)
			break
		}
		if n++; n == 3 {
			fmt.Println("third page:", p.URL[len(srv.URL):])
			break
		}
	}
	// Output: third page: /2
}

// Chain composes handlers into a pipeline; ErrSkip ends it quietly.
func ExampleChain() {
	onlyHTML := crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
		if p.Status != 200 {
			return crawler.ErrSkip
		}
		return nil
	})
	print := crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
		fmt.Println(p.URL)
		return nil
	})
	h := crawler.Chain(onlyHTML, print)
	_ = h.Handle(context.Background(), &crawler.Page{URL: "http://a.test/", Status: 200})
	_ = h.Handle(context.Background(), &crawler.Page{URL: "http://a.test/gone", Status: 404})
	// Output: http://a.test/
}

// Near-duplicates: two URLs serve the same story with another date line;
// the one fetched second names the first. A third page, of other text, is
// no near-duplicate.
func ExampleCrawler_nearDuplicates() {
	story := strings.Repeat("The council met on Tuesday to discuss the new bridge over the river and its cost. ", 20)
	site := http.NewServeMux()
	site.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><a href="/story?id=7">Bridge</a> <a href="/recipes">Recipes</a></html>`)
	})
	site.HandleFunc("/story", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<html><p>Updated %s</p><p>%s</p><a href="/news/bridge">same story</a></html>`, time.Now().Format(time.TimeOnly), story)
	})
	site.HandleFunc("/news/bridge", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<html><p>Updated %s</p><p>%s</p></html>`, time.Now().Format(time.TimeOnly), story)
	})
	site.HandleFunc("/recipes", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><p>`+strings.Repeat("Apple pie with cinnamon, butter and a crisp golden crust. ", 20)+`</p></html>`)
	})
	srv := httptest.NewServer(site)
	defer srv.Close()

	var mu sync.Mutex
	var lines []string
	c := &crawler.Crawler{
		Handler: crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
			if p.NearDuplicateOf != "" {
				mu.Lock()
				lines = append(lines, p.URL[len(srv.URL):]+" is a near-duplicate of "+p.NearDuplicateOf[len(srv.URL):])
				mu.Unlock()
			}
			return nil
		}),
		NearDuplicates: &simhash.Config{}, // within simhash.DefaultDistance bits
		Workers:        1,                 // one page at a time: the story is fetched first
		Pacing:         politeness.Pacing{Delay: -1},
		Fetcher: &fetch.HTTPFetcher{Addresses: fetch.AddressPolicy{
			AllowAddrPorts: []netip.AddrPort{netip.MustParseAddrPort(srv.Listener.Addr().String())},
		}},
	}
	if err := c.Run(context.Background(), srv.URL+"/"); err != nil {
		fmt.Println(err)
	}
	for _, l := range lines {
		fmt.Println(l)
	}
	fmt.Println("near-duplicates:", c.Stats().NearDuplicates)
	// Output:
	// /news/bridge is a near-duplicate of /story?id=7
	// near-duplicates: 1
}
