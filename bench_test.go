package crawler_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	xhtml "golang.org/x/net/html"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/politeness"
)

// BenchmarkCrawl crawls a budget of pages of a 200-host crawlertest web of
// ~20 KB pages with every default on (robots.txt, canonicalization,
// seen-set, breadth-first frontier) but no politeness delay, beside a bare
// reference crawler (net/http + tokenizer + map + channel queue, no robots)
// on the same web. One op is one whole crawl. The server runs in the same
// process, so CPU and allocations include serving.
//
//	go test -run '^$' -bench 'Crawl/pages=5000' -benchtime 3x -count 6 .
//	go test -run '^$' -bench 'Crawl/pages=100000' -benchtime 1x -count 3 .
func BenchmarkCrawl(b *testing.B) {
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 7, Hosts: 200, PagesPerHost: 500, PageBytes: 20 << 10})
	defer w.Close()
	for _, budget := range []int64{5000, 100000} {
		b.Run(fmt.Sprintf("pages=%d/impl=crawler", budget), func(b *testing.B) {
			benchCrawler(b, w, budget)
		})
		if budget <= 5000 {
			b.Run(fmt.Sprintf("pages=%d/impl=reference", budget), func(b *testing.B) {
				measure(b, func() int64 { return referenceCrawl(w, 32, budget) })
			})
		}
	}
}

func benchCrawler(b *testing.B, w *crawlertest.Web, budget int64) {
	measure(b, func() int64 {
		c := &crawler.Crawler{
			Fetcher:  &fetch.HTTPFetcher{Client: w.Client()},
			Pacing:   politeness.Pacing{Delay: -1, DelayFactor: -1}, // no politeness delay, fixed or adaptive
			Workers:  32,
			MaxPages: budget,
		}
		if err := c.Run(context.Background(), w.Seeds()...); err != nil {
			b.Fatal(err)
		}
		return c.Stats().Fetched
	})
}

// measure runs crawl b.N times and reports pages/s, CPU and allocations per
// page, and the peak heap seen while crawling.
func measure(b *testing.B, crawl func() (pages int64)) {
	b.ReportAllocs()
	runtime.GC() // start from the live heap, not the last benchmark's garbage
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime()
	var pages int64
	start := time.Now()
	for b.Loop() {
		pages += crawl()
	}
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&after)
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(pages)/elapsed.Seconds(), "pages/s")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(pages), "cpu-ms/page")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(pages), "allocs/page")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// referenceCrawl is the bare loop a crawler cannot beat by much: workers
// take URLs from a channel, fetch them without following redirects, tokenize
// the HTML for <a href>, resolve with net/url and dedupe in a map. No
// robots.txt, no canonicalization beyond net/url, no politeness.
func referenceCrawl(w *crawlertest.Web, workers int, budget int64) int64 {
	client := w.Client()
	defer client.CloseIdleConnections()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	var (
		mu      sync.Mutex
		seen    = map[string]bool{}
		queue   []string
		pending int
		fetched int64
		cond    = sync.NewCond(&mu)
	)
	for _, s := range w.Seeds() {
		seen[s] = true
		queue = append(queue, s)
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				for len(queue) == 0 && pending > 0 && fetched < budget {
					cond.Wait()
				}
				if len(queue) == 0 || fetched >= budget {
					mu.Unlock()
					cond.Broadcast()
					return
				}
				u := queue[0]
				queue = queue[1:]
				pending++
				fetched++
				mu.Unlock()

				links := fetchLinks(client, u)
				mu.Lock()
				for _, l := range links {
					if !seen[l] {
						seen[l] = true
						queue = append(queue, l)
					}
				}
				pending--
				mu.Unlock()
				cond.Broadcast()
			}
		})
	}
	wg.Wait()
	return fetched
}

func fetchLinks(client *http.Client, u string) []string {
	resp, err := client.Get(u)
	if err != nil {
		return nil
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	base, _ := url.Parse(u)
	if loc := resp.Header.Get("Location"); loc != "" {
		if t, err := base.Parse(loc); err == nil {
			return []string{t.String()}
		}
	}
	var links []string
	z := xhtml.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == xhtml.ErrorToken {
			return links
		}
		if tt != xhtml.StartTagToken {
			continue
		}
		name, more := z.TagName()
		if len(name) != 1 || name[0] != 'a' {
			continue
		}
		for more {
			var k, v []byte
			k, v, more = z.TagAttr()
			if string(k) == "href" {
				if t, err := base.Parse(string(v)); err == nil && (t.Scheme == "http" || t.Scheme == "https") {
					t.Fragment = ""
					links = append(links, t.String())
				}
			}
		}
	}
}
