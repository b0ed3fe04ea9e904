package store_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/store"
)

// newCrawler returns a crawler over st's seen-set, frontier and
// robots.txt files that fetches with client: no politeness delays, 8
// workers.
func newCrawler(client *http.Client, st *store.Store) *crawler.Crawler {
	return &crawler.Crawler{
		Fetcher:  &fetch.HTTPFetcher{Client: client},
		Seen:     st.Seen(),
		Frontier: st.Frontier(),
		Robots:   &politeness.RobotsCache{Store: st.Robots()},
		Pacing:   politeness.Pacing{Delay: -1, DelayFactor: -1},
		Workers:  8,
	}
}

// crawlSteps crawls w with the store on fs in runs of budget pages, each
// run in a store opened anew, as a program run again would, until the
// crawl is done. crash, if set, abandons each run's store as a crash of the
// machine would (what was synced, and nothing else, survives) instead of
// closing it. It returns the number of runs.
func crawlSteps(t *testing.T, w *crawlertest.Web, fs *vfs.MemFS, budget int64, crash bool) int {
	t.Helper()
	runs := 0
	for {
		runs++
		if runs > 100 {
			t.Fatal("the crawl never ended")
		}
		st, err := store.Open("crawl", store.Options{FS: copyLinks{fs}, ExpectedURLs: 10_000, SyncInterval: -1, MergeURLs: 20})
		if err != nil {
			t.Fatal(err)
		}
		c := newCrawler(w.Client(), st)
		c.MaxPages = budget
		err = c.Run(context.Background(), w.Seeds()...)
		done := err == nil && st.Frontier().Len() == 0
		if err != nil && !(runs > 1 && err == crawler.ErrNoSeeds) {
			t.Fatal(err)
		}
		if crash {
			fs = fs.CrashClone(vfs.CrashCloneCfg{})
			st.Close() // the clone was taken: nothing written now reaches it
		} else if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if done || err == crawler.ErrNoSeeds {
			return runs
		}
	}
}

// A crawl in many runs, each in a store reopened (cleanly, or after a
// simulated crash of the machine), fetches every page of the web once: no
// URL lost, none fetched twice, since every step was synced and each run
// ended with nothing in flight. Each host's robots.txt is fetched once
// too, in whichever run first met the host.
func TestCrawlResumesAcrossRuns(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 8, Hosts: 20, PagesPerHost: 15})
	defer w.Close()
	want := w.Depths(w.Seeds()...)
	for _, crash := range []bool{false, true} {
		w.ResetCounts()
		runs := crawlSteps(t, w, vfs.NewCrashableMem(), 150, crash)
		lost, again := w.Coverage()
		t.Logf("crash %v: %d runs, %d pages, %d lost, %d fetched again", crash, runs, len(want), lost, again)
		if lost != 0 || again != 0 || w.TotalRequests() != len(want) {
			t.Errorf("crash %v: %d of %d pages lost, %d fetched again, %d requests", crash, lost, len(want), again, w.TotalRequests())
		}
		for _, h := range w.Hosts() {
			if n := w.RobotsRequests(h); n > 1 {
				t.Errorf("crash %v: %s/robots.txt fetched %d times in %d runs, want once", crash, h, n, runs)
			}
		}
	}
}
