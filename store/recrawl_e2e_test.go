package store_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/revisit"
	"crawler/store"
)

// versionRE finds the version a crawlertest page that changes shows.
var versionRE = regexp.MustCompile(`<p class="version">version (\d+)`)

// A recrawl resumed from a durable store has its pages' visits back: the
// second Run fetches no page as new, asks with the validators the first
// Run kept, and gets 304s for unchanged pages. No page the crawl found
// Unchanged shows a version other than the one it had.
func TestRecrawlResume(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("two recrawls in real time: 2.5 s")
	}
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 5, Hosts: 2, PagesPerHost: 10,
		ChangeInterval: func(_, page int) time.Duration { return time.Duration(page+1) * time.Second }})
	defer w.Close()
	fs := vfs.NewMem()
	var st *store.Store
	var mu sync.Mutex
	version := map[string]int{} // of each page, as the crawl last saw it
	run := func(d time.Duration) (*crawler.Crawler, []*crawler.Page) {
		if st != nil {
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
		}
		st = open(t, fs, store.Options{ExpectedURLs: 1000})
		var pages []*crawler.Page
		c := &crawler.Crawler{Scope: htmlPagesOnly, Recrawl: &revisit.Config{Rate: 40}, Workers: 2,
			Handler: crawler.HandlerFunc(func(_ context.Context, p *crawler.Page) error {
				mu.Lock()
				defer mu.Unlock()
				pages = append(pages, p)
				if m := versionRE.FindSubmatch(p.Body); p.Status == 200 && m != nil {
					v, _ := strconv.Atoi(string(m[1]))
					if old, ok := version[p.URL]; ok && p.Unchanged && old != v {
						t.Errorf("%s found Unchanged at version %d, was %d", p.URL, v, old)
					}
					version[p.URL] = v
				}
				return nil
			}),
			Pacing:   politeness.Pacing{Delay: -1, DelayFactor: -1},
			Fetcher:  &fetch.HTTPFetcher{Client: w.Client()},
			Seen:     st.Seen(),
			Frontier: st.Frontier(),
		}
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		if err := c.Run(ctx, w.Seeds()...); err == nil {
			t.Fatal("a recrawl ended before its context")
		}
		mu.Lock()
		defer mu.Unlock()
		return c, pages
	}
	first, _ := run(1500 * time.Millisecond)
	if st := first.Stats(); st.Revisiting != 20 || st.Revisits == 0 {
		t.Fatalf("first run: %d pages revisited %d times, want 20 pages, revisited", st.Revisiting, st.Revisits)
	}
	second, pages := run(time.Second)
	for _, p := range pages {
		if !p.Revisit {
			t.Errorf("%s fetched as new after the resume", p.URL)
		}
	}
	got := second.Stats()
	if len(pages) == 0 || got.NotModified == 0 || got.Revisiting != 20 {
		t.Errorf("second run: %d pages, %d answered 304, %d revisited; want some, some and 20", len(pages), got.NotModified, got.Revisiting)
	}
	t.Logf("first run: %d revisits; second: %d, %d answered 304", first.Stats().Revisits, got.Revisits, got.NotModified)
}

// htmlPagesOnly keeps a crawl of a crawlertest web on its HTML pages: "/"
// and /p/<n>.
var htmlPagesOnly = crawler.Scope{Allow: func(u string, _ int) bool {
	i := strings.Index(u[len("http://"):], "/")
	path := u[len("http://")+i:]
	return path == "/" || strings.HasPrefix(path, "/p/")
}}
