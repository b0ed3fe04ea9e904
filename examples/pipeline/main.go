// Command pipeline shows a custom pipeline of chained handlers:
//
//	filter ─► extract ─► write JSON Lines
//
// The filter passes only successful HTML pages (crawler.ErrSkip ends the
// chain quietly for the others) and prunes the links the crawl will follow
// (here: no /img/ resources), showing that a handler can steer the crawl.
// The extractor records the title and word count; the writer emits one JSON
// object per page, safely from many workers at once.
//
//	go run ./examples/pipeline                       # a synthetic web on loopback
//	go run ./examples/pipeline -out pages.jsonl https://example.com/
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"crawler"
	"crawler/crawlertest"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, nil); err != nil {
		fmt.Fprintln(os.Stderr, "pipeline:", err)
		os.Exit(1)
	}
}

// record is one line of output.
type record struct {
	URL   string `json:"url"`
	Depth int    `json:"depth"`
	Title string `json:"title"`
	Words int    `json:"words"`
	Links int    `json:"links"`
}

// filter passes 200 HTML pages only, and drops links to images.
func filter(_ context.Context, p *crawler.Page) error {
	if p.Status != 200 || !strings.HasPrefix(p.ContentType, "text/html") {
		return crawler.ErrSkip
	}
	kept := p.Links[:0]
	for _, l := range p.Links {
		if !strings.Contains(l, "/img/") {
			kept = append(kept, l)
		}
	}
	p.Links = kept
	return nil
}

// extracted carries what extract found to the writer; a Page has no slot
// for user data, so the two stages share it through this keyed map.
type extracted struct {
	mu sync.Mutex
	m  map[*crawler.Page]record
}

func (e *extracted) extract(_ context.Context, p *crawler.Page) error {
	r := record{URL: p.URL, Depth: p.Depth, Links: len(p.Links)}
	z := html.NewTokenizer(bytes.NewReader(p.Body))
	inTitle := false
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		switch tt {
		case html.StartTagToken, html.EndTagToken:
			name, _ := z.TagName()
			inTitle = tt == html.StartTagToken && atom.Lookup(name) == atom.Title
		case html.TextToken:
			text := string(z.Text())
			if inTitle && r.Title == "" {
				r.Title = strings.TrimSpace(text)
			}
			r.Words += len(strings.Fields(text))
		}
	}
	e.mu.Lock()
	e.m[p] = r
	e.mu.Unlock()
	return nil
}

// jsonWriter writes the extracted record of each page as one JSON line.
type jsonWriter struct {
	mu   sync.Mutex
	enc  *json.Encoder
	from *extracted
}

func (w *jsonWriter) write(_ context.Context, p *crawler.Page) error {
	w.from.mu.Lock()
	r := w.from.m[p]
	delete(w.from.m, p)
	w.from.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.enc.Encode(r)
}

// run crawls the URLs in args, or web if there are none (nil: a new
// synthetic web on loopback).
func run(ctx context.Context, args []string, stdout io.Writer, web *crawlertest.Web) error {
	fs := flag.NewFlagSet("pipeline", flag.ContinueOnError)
	maxPages := fs.Int64("max-pages", 300, "page budget")
	out := fs.String("out", "", "JSON Lines file (default: stdout)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		stdout = f
	}
	ex := &extracted{m: map[*crawler.Page]record{}}
	w := &jsonWriter{enc: json.NewEncoder(stdout), from: ex}
	c := &crawler.Crawler{
		MaxPages: *maxPages,
		Handler:  crawler.Chain(crawler.HandlerFunc(filter), crawler.HandlerFunc(ex.extract), crawler.HandlerFunc(w.write)),
	}
	seeds := fs.Args()
	if len(seeds) == 0 { // no URL: crawl a synthetic web on loopback, no delay
		if web == nil {
			web = crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 5, PagesPerHost: 40})
			defer web.Close()
		}
		c.Fetcher = &crawler.HTTPFetcher{Client: web.Client()}
		c.Delay = -1
		seeds = web.Seeds()
	}
	return c.Run(ctx, seeds...)
}
