// Command titles is the smallest useful crawl: it collects the <title> of
// every HTML page and prints "URL<TAB>title", sorted.
//
//	go run ./examples/titles                 # a synthetic web on loopback
//	go run ./examples/titles https://example.com/ -max-pages 50
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"crawler"
	"crawler/crawlertest"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "titles:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("titles", flag.ContinueOnError)
	maxPages := fs.Int64("max-pages", 200, "page budget")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var mu sync.Mutex
	var lines []string
	c := &crawler.Crawler{
		MaxPages: *maxPages,
		Handler: crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
			if t := title(p.Body); t != "" {
				mu.Lock()
				lines = append(lines, p.URL+"\t"+t)
				mu.Unlock()
			}
			return nil
		}),
	}
	seeds := fs.Args()
	if len(seeds) == 0 { // no URL: crawl a synthetic web on loopback, no delay
		web := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 5, PagesPerHost: 20})
		defer web.Close()
		c.Fetcher = &crawler.HTTPFetcher{Client: web.Client()}
		c.Delay = -1
		seeds = web.Seeds()
	}
	if err := c.Run(ctx, seeds...); err != nil {
		return err
	}
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Fprintln(stdout, l)
	}
	return nil
}

// title returns the text of the first <title> of an HTML body, or "".
func title(body []byte) string {
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken:
			if name, _ := z.TagName(); atom.Lookup(name) == atom.Title && z.Next() == html.TextToken {
				return strings.TrimSpace(string(z.Text()))
			}
		}
	}
}
