package store_test

import (
	"context"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"crawler/crawlertest"
	"crawler/store"
)

// A crawl resumed from its durable state after its first Run had queued
// the sitemaps, but read none, still reads them with robots.txt's scope:
// the orphans they list are found.
func TestSitemapsResume(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 19, Hosts: 3, PagesPerHost: 30, Sitemaps: true})
	defer w.Close()
	fs := vfs.NewMem()
	st := open(t, fs, store.Options{ExpectedURLs: 1000})
	run := func(maxPages int64) {
		c := newCrawler(w.Client(), st)
		c.Workers, c.MaxPages = 1, maxPages
		if err := c.Run(context.Background(), w.Seeds()...); err != nil {
			t.Fatal(err)
		}
	}
	run(1) // the home page: robots.txt fetched, its index queued
	counts := w.RequestCounts()
	if n := counts["http://h0.crawler.test/sitemaps/index.xml"]; n != 0 {
		t.Fatalf("first run read the index (%d requests): nothing left to resume", n)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, fs, store.Options{ExpectedURLs: 1000})
	run(0)
	counts = w.RequestCounts()
	for _, u := range w.Orphans() {
		if counts[u] != 1 {
			t.Errorf("%s requested %d times, want 1", u, counts[u])
		}
	}
}
