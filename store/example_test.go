package store_test

import (
	"context"
	"fmt"
	"os"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/store"
)

// A crawl kept in a directory, stopped by its budget and resumed by a
// second run, as the same program started again would: the second run
// goes on where the first stopped, and fetches no page twice.
func Example() {
	web := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 3, PagesPerHost: 10})
	defer web.Close()
	dir, err := os.MkdirTemp("", "crawl-state")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	for run := 1; run <= 2; run++ {
		st, err := store.Open(dir, store.Options{})
		if err != nil {
			panic(err)
		}
		c := &crawler.Crawler{
			Fetcher:  &fetch.HTTPFetcher{Client: web.Client()}, // the test web, on loopback
			Pacing:   politeness.Pacing{Delay: -1},             // our own server: no delay
			Seen:     st.Seen(),
			Frontier: st.Frontier(),
			Robots:   &politeness.RobotsCache{Store: st.Robots()},
		}
		if run == 1 {
			c.MaxPages = 20
		}
		if err := c.Run(context.Background(), web.Seeds()...); err != nil {
			panic(err)
		}
		fmt.Printf("run %d: %d pages, %d in all runs, finished: %v\n",
			run, c.Stats().Requests, c.TotalStats().Requests, st.Frontier().Len() == 0)
		if err := st.Close(); err != nil {
			panic(err)
		}
	}
	lost, twice := web.Coverage()
	fmt.Println("pages never fetched:", lost, "fetched twice:", twice)
	// Output:
	// run 1: 20 pages, 20 in all runs, finished: false
	// run 2: 156 pages, 176 in all runs, finished: true
	// pages never fetched: 0 fetched twice: 0
}
