// Command scrape turns a crawl into a table: for every HTML page that
// answered 2xx it writes a CSV record of the page's URL, its <title>, its
// first <h1> and the number of links the crawl follows from it, after a
// header line. Package extract parses each page once, with goquery, for
// all of them; each -extract NAME=SELECTOR adds a column NAME holding the
// texts that the CSS selector matches, joined with " | ". Workers write
// records as pages come in, so their order varies from run to run.
//
// With no URL it scrapes a synthetic web served on loopback by crawlertest
// (4 hosts of 50 pages), without politeness delays, so it runs offline;
// with a URL it crawls the real web with the crawler's polite defaults:
//
//	go run ./examples/scrape
//	go run ./examples/scrape -extract 'para=p > a' -out pages.csv
//	go run ./examples/scrape -max-pages 50 https://example.com/
package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"

	"crawler"
	"crawler/crawlertest"
	"crawler/extract"
	"crawler/fetch"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, nil); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "scrape:", err)
		os.Exit(1)
	}
}

// header is the start of the header line; -extract rules add their names.
var header = []string{"url", "title", "h1", "links"}

// table writes CSV records from many workers at once. The crawl only
// counts handler errors, so the first one is kept for run.
type table struct {
	rules extract.Rules
	mu    sync.Mutex
	w     *csv.Writer
	err   error
}

// scrape writes the record of one page.
func (t *table) scrape(_ context.Context, p *crawler.Page, d *extract.Document) error {
	if p.Status/100 != 2 {
		return nil
	}
	h1, _ := d.Texts("h1") // a constant selector: it compiles
	rec := []string{p.URL, d.Title(), "", strconv.Itoa(len(p.Links))}
	if len(h1) > 0 {
		rec[2] = h1[0]
	}
	for _, r := range t.rules {
		rec = append(rec, strings.Join(r.Texts(d), " | "))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = t.w.Write(rec)
	}
	return t.err
}

// run crawls the URLs of args, or without any the synthetic web (a new
// one if web is nil), and writes the CSV to stdout or -out.
func run(ctx context.Context, args []string, stdout io.Writer, web *crawlertest.Web) (err error) {
	fs := flag.NewFlagSet("scrape", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: scrape [flags] [URL ...]")
		fs.PrintDefaults()
	}
	maxPages := fs.Int64("max-pages", 200, "stop after this many requests (0: no limit)")
	out := fs.String("out", "", "write the CSV to this file instead of stdout")
	var rules extract.Rules
	fs.Func("extract", "add a column `NAME=SELECTOR`, the texts that the CSS selector matches (repeatable)", func(s string) error {
		r, err := extract.ParseRule(s)
		rules = append(rules, r)
		return err
	})
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer func() {
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}()
		stdout = f
	}
	buf := bufio.NewWriter(stdout)
	t := &table{rules: rules, w: csv.NewWriter(buf)}
	names := append([]string(nil), header...)
	for _, r := range rules {
		names = append(names, r.Name)
	}
	if err := t.w.Write(names); err != nil {
		return err
	}
	c := &crawler.Crawler{
		MaxPages: *maxPages,
		Handler:  extract.Handler(t.scrape),
	}
	seeds := fs.Args()
	if len(seeds) == 0 {
		if web == nil {
			web = crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 4, PagesPerHost: 50})
			defer web.Close()
		}
		c.Fetcher = &fetch.HTTPFetcher{Client: web.Client()}
		c.Pacing.Delay = -1 // our own server: no politeness delay
		seeds = web.Seeds()
	}
	err = c.Run(ctx, seeds...)
	// Keep the records written before a stop too; t.w is ours again now
	// that Run has returned.
	t.w.Flush()
	return errors.Join(err, t.err, t.w.Error(), buf.Flush())
}
