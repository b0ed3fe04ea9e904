// Command titles is the smallest useful crawl: a Crawler with a one-function
// Handler that takes the <title> of every HTML page (with the tokenizer of
// golang.org/x/net/html) and, once the crawl is done, prints
// "URL<TAB>title" lines sorted by URL.
//
// With no URL it crawls a synthetic web served on loopback by crawlertest,
// without politeness delays, so it runs offline; with a URL it crawls the
// real web with the crawler's polite defaults (robots.txt, one request per
// host per second):
//
//	go run ./examples/titles
//	go run ./examples/titles -max-pages 50 https://example.com/
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, nil); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "titles:", err)
		os.Exit(1)
	}
}

// run crawls the URLs of args, or without any the synthetic web (a new
// one if web is nil), and prints the titles to stdout.
func run(ctx context.Context, args []string, stdout io.Writer, web *crawlertest.Web) error {
	fs := flag.NewFlagSet("titles", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: titles [flags] [URL ...]")
		fs.PrintDefaults()
	}
	maxPages := fs.Int64("max-pages", 200, "stop after this many requests (0: no limit)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var (
		mu    sync.Mutex // the handler runs on many workers at once
		lines []string
	)
	c := &crawler.Crawler{
		MaxPages: *maxPages,
		Handler: crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
			if p.Status != http.StatusOK {
				return nil
			}
			if t := title(p.Body); t != "" {
				mu.Lock()
				lines = append(lines, p.URL+"\t"+t)
				mu.Unlock()
			}
			return nil
		}),
	}
	seeds := fs.Args()
	if len(seeds) == 0 {
		if web == nil {
			web = crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 5, PagesPerHost: 20})
			defer web.Close()
		}
		c.Fetcher = &fetch.HTTPFetcher{Client: web.Client()}
		c.Pacing.Delay = -1 // our own server: no politeness delay
		seeds = web.Seeds()
	}
	if err := c.Run(ctx, seeds...); err != nil {
		return err
	}
	slices.Sort(lines)
	for _, l := range lines {
		if _, err := fmt.Fprintln(stdout, l); err != nil {
			return err
		}
	}
	return nil
}

// title returns the text of the first <title> of an HTML body, or "".
func title(body []byte) string {
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken: // io.EOF or a real error: no title either way
			return ""
		case html.StartTagToken:
			if name, _ := z.TagName(); atom.Lookup(name) == atom.Title && z.Next() == html.TextToken {
				return strings.Join(strings.Fields(string(z.Text())), " ")
			}
		}
	}
}
