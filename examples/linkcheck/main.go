// Command linkcheck finds the broken links of one site: it crawls the
// seed's host only and reports every URL that answered 4xx or 5xx, or could
// not be fetched, with the page that links to it. It exits with status 1 if
// it found any.
//
//	go run ./examples/linkcheck                    # a synthetic site on loopback
//	go run ./examples/linkcheck https://example.com/
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"crawler"
	"crawler/crawlertest"
)

func main() {
	broken, err := run(context.Background(), os.Args[1:], os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "linkcheck:", err)
		os.Exit(2)
	}
	if broken > 0 {
		os.Exit(1)
	}
}

// run crawls and prints "STATUS URL (linked from REFERRER)" per broken link;
// it returns how many it found.
func run(ctx context.Context, args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("linkcheck", flag.ContinueOnError)
	maxPages := fs.Int64("max-pages", 10000, "page budget")
	if err := fs.Parse(args); err != nil {
		return 0, err
	}
	var mu sync.Mutex
	var broken []string
	c := &crawler.Crawler{
		MaxPages: *maxPages,
		Scope:    crawler.Scope{SameHost: true},
		Handler: crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
			var problem string
			switch {
			case p.Err != nil:
				problem = "error: " + p.Err.Error()
			case p.Status >= 400:
				problem = fmt.Sprint(p.Status)
			default:
				return nil
			}
			mu.Lock()
			broken = append(broken, fmt.Sprintf("%s %s (linked from %s)", problem, p.URL, p.Referrer))
			mu.Unlock()
			return nil
		}),
	}
	seeds := fs.Args()
	if len(seeds) == 0 { // no URL: check one host of a synthetic web on loopback
		web := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 3, PagesPerHost: 30})
		defer web.Close()
		c.Fetcher = &crawler.HTTPFetcher{Client: web.Client()}
		c.Delay = -1
		seeds = web.Seeds()
	}
	if err := c.Run(ctx, seeds...); err != nil {
		return 0, err
	}
	slices.Sort(broken)
	for _, b := range broken {
		fmt.Fprintln(stdout, b)
	}
	return len(broken), nil
}
