// Command linkcheck finds the broken links of one site. It crawls the hosts
// of its seeds only (crawler.Scope{SameHost: true}) and reports every URL
// that answered 4xx or 5xx, or could not be fetched at all (the Page's Err),
// with the page that links to it: when the link went through redirects, the
// page where the chain began. It exits with status 1 if it found any.
//
// With no URL it checks a synthetic site served on loopback by crawlertest,
// without politeness delays, so it runs offline; with a URL it crawls the
// real web with the crawler's polite defaults:
//
//	go run ./examples/linkcheck
//	go run ./examples/linkcheck https://example.com/
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"sync"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
)

// errBroken is returned by run when it reported broken links.
var errBroken = errors.New("broken links found")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, nil)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errBroken):
		os.Exit(1)
	case err != nil:
		fmt.Fprintln(os.Stderr, "linkcheck:", err)
		os.Exit(2)
	}
}

// broken is a URL that failed and the page whose link led to it.
type broken struct{ problem, url, referrer string }

// run checks the site of the URLs of args, or without any the synthetic web
// (a new one if web is nil), and prints a line per broken link to stdout:
// "STATUS-OR-ERROR-KIND URL (linked from PAGE)".
func run(ctx context.Context, args []string, stdout io.Writer, web *crawlertest.Web) error {
	fs := flag.NewFlagSet("linkcheck", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: linkcheck [flags] [URL ...]")
		fs.PrintDefaults()
	}
	maxPages := fs.Int64("max-pages", 10000, "stop after this many requests (0: no limit)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var (
		mu      sync.Mutex // the handler runs on many workers at once
		found   []broken
		cameVia = map[string]string{} // redirecting URL -> its referrer
	)
	c := &crawler.Crawler{
		MaxPages: *maxPages,
		Scope:    crawler.Scope{SameHost: true},
		Handler: crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
			mu.Lock()
			defer mu.Unlock()
			if p.Redirect != "" {
				cameVia[p.URL] = p.Referrer
			}
			switch {
			case p.Err != nil:
				found = append(found, broken{crawler.ErrorKind(p.Err), p.URL, p.Referrer})
			case p.Status >= 400:
				found = append(found, broken{strconv.Itoa(p.Status), p.URL, p.Referrer})
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
	lines := make([]string, len(found))
	for i, b := range found {
		// Walk back through redirects to the page that holds the link.
		for hops := 0; hops < 100; hops++ {
			r, ok := cameVia[b.referrer]
			if !ok {
				break
			}
			b.referrer = r
		}
		lines[i] = fmt.Sprintf("%s %s (linked from %s)", b.problem, b.url, b.referrer)
	}
	slices.Sort(lines)
	for _, l := range lines {
		if _, err := fmt.Fprintln(stdout, l); err != nil {
			return err
		}
	}
	if len(lines) > 0 {
		return fmt.Errorf("%w: %d", errBroken, len(lines))
	}
	return nil
}
