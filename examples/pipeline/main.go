// Command pipeline builds a page pipeline from small handlers joined with
// crawler.Chain:
//
//	filter ─► extract ─► write JSON Lines
//
// The filter passes only HTML pages that answered 200 (crawler.ErrSkip ends
// the chain quietly for the others) and removes the links to /img/ from
// Page.Links, which shows that a handler steers the crawl: the crawler
// follows only the links left after the Handler returns. The extractor
// finds each page's title and word count; the writer emits one JSON object
// per page, from many workers at once, to stdout or to the file of -out.
//
// With no URL it crawls a synthetic web served on loopback by crawlertest,
// without politeness delays, so it runs offline; with a URL it crawls the
// real web with the crawler's polite defaults:
//
//	go run ./examples/pipeline
//	go run ./examples/pipeline -out pages.jsonl https://example.com/
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
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
	Links int    `json:"links"` // links the crawl follows from here
}

// filter passes HTML pages with status 200 only, and drops links to images.
func filter(_ context.Context, p *crawler.Page) error {
	if mt, _, _ := mime.ParseMediaType(p.ContentType); p.Status != http.StatusOK || mt != "text/html" {
		return crawler.ErrSkip
	}
	p.Links = slices.DeleteFunc(p.Links, func(l string) bool { return strings.Contains(l, "/img/") })
	return nil
}

// extractor finds the title and counts the words of a page. A Page has no
// slot for user data, so it hands its record to the next stage in a map
// keyed by the page.
type extractor struct {
	mu   sync.Mutex
	done map[*crawler.Page]record
}

func (e *extractor) extract(_ context.Context, p *crawler.Page) error {
	r := record{URL: p.URL, Depth: p.Depth, Links: len(p.Links)}
	z := html.NewTokenizer(bytes.NewReader(p.Body))
	var inTitle bool
	for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
		switch tt {
		case html.StartTagToken, html.EndTagToken:
			name, _ := z.TagName()
			inTitle = tt == html.StartTagToken && atom.Lookup(name) == atom.Title
		case html.TextToken:
			words := strings.Fields(string(z.Text()))
			if inTitle && r.Title == "" {
				r.Title = strings.Join(words, " ")
			}
			r.Words += len(words)
		}
	}
	e.mu.Lock()
	e.done[p] = r
	e.mu.Unlock()
	return nil
}

// take removes and returns the record of p.
func (e *extractor) take(p *crawler.Page) record {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.done[p]
	delete(e.done, p)
	return r
}

// writer writes records as JSON Lines; it is safe for concurrent use. The
// crawl only counts handler errors, so the first one is kept for run.
type writer struct {
	from *extractor
	mu   sync.Mutex
	enc  *json.Encoder
	err  error
}

func (w *writer) write(_ context.Context, p *crawler.Page) error {
	r := w.from.take(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = w.enc.Encode(r)
	}
	return w.err
}

// run crawls the URLs of args, or without any the synthetic web (a new
// one if web is nil), and writes a JSON line per page to stdout or -out.
func run(ctx context.Context, args []string, stdout io.Writer, web *crawlertest.Web) (err error) {
	fs := flag.NewFlagSet("pipeline", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: pipeline [flags] [URL ...]")
		fs.PrintDefaults()
	}
	maxPages := fs.Int64("max-pages", 300, "stop after this many requests (0: no limit)")
	out := fs.String("out", "", "write the JSON Lines to this file instead of stdout")
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
	ex := &extractor{done: map[*crawler.Page]record{}}
	w := &writer{from: ex, enc: json.NewEncoder(buf)}
	c := &crawler.Crawler{
		MaxPages: *maxPages,
		Handler: crawler.Chain(
			crawler.HandlerFunc(filter),
			crawler.HandlerFunc(ex.extract),
			crawler.HandlerFunc(w.write),
		),
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
	err = c.Run(ctx, seeds...)
	// Keep the lines written before a stop too; w.err is ours again now
	// that Run has returned.
	return errors.Join(err, w.err, buf.Flush())
}
