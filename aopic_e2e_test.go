package crawler_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"crawler"
	"crawler/canon"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/frontier"
	"crawler/graph"
)

// trapWeb is the web of the AOPIC acceptance test: 100 hosts, every fifth
// a trap (calendar, session ids, deep paths, link farm, soft-404 in turn),
// with Zipf-skewed links so that PageRank is worth ranking by.
func trapWeb() *crawlertest.Web {
	kinds := []crawlertest.Trap{crawlertest.Calendar, crawlertest.SessionID, crawlertest.DeepPath,
		crawlertest.LinkFarm, crawlertest.Soft404}
	return crawlertest.NewWeb(crawlertest.Config{
		Seed: 7, Hosts: 100, PagesPerHost: 50, OutDegree: 10, MaxChain: 3, Popularity: 1,
		Traps: func(h int) crawlertest.Trap {
			if h%5 == 4 {
				return kinds[(h/5)%len(kinds)]
			}
			return crawlertest.NoTrap
		},
	})
}

// trapCrawl is what one crawl of the trap web did, in fetch order.
type trapCrawl struct {
	name      string
	budget    int
	good      int     // URLs of good hosts the crawl should fetch (Depths)
	fetched   int     // requests
	goodShare float64 // of the good URLs, the share fetched
	pageShare float64 // of the good HTML pages (PageRank's nodes), the share fetched
	traps     int     // requests to trap hosts
	// at95 is the request by which 95% of the good URLs had been fetched
	// (0: never), and trapsTo95 the trap requests until then.
	at95, trapsTo95 int
	// trapsLastHalf is the trap share of requests in the second half of
	// the crawl up to at95: a frontier that starves traps spends its
	// trap budget early.
	trapsLastHalf float64
	// profile is the trap share of requests in each tenth of the crawl up
	// to at95, in percent.
	profile []int
}

func (c trapCrawl) String() string {
	return fmt.Sprintf("%-6s budget %d, requests %d: good URLs %.1f%%, good pages %.1f%%, trap requests %d (%.1f%%); 95%% of good at request %d after %d trap requests, trap share of the 2nd half until then %.1f%%, by tenths %v%%",
		c.name, c.budget, c.fetched, 100*c.goodShare, 100*c.pageShare, c.traps, 100*float64(c.traps)/float64(c.fetched),
		c.at95, c.trapsTo95, 100*c.trapsLastHalf, c.profile)
}

// crawlTrapWeb crawls w with f and a budget of twice its good URLs, and
// measures the crawl in the order the Handler saw the pages.
func crawlTrapWeb(t *testing.T, w *crawlertest.Web, name string, f frontier.Frontier) trapCrawl {
	t.Helper()
	w.ResetCounts()
	good := w.Depths()
	var mu sync.Mutex
	var order []string
	var withImportance int
	h := crawler.HandlerFunc(func(_ context.Context, p *crawler.Page) error {
		mu.Lock()
		defer mu.Unlock()
		if p.Status != 0 {
			order = append(order, p.URL)
			if p.Importance > 0 {
				withImportance++
			}
		}
		return nil
	})
	c := &crawler.Crawler{Handler: h, Frontier: f, Fetcher: &fetch.HTTPFetcher{Client: w.Client()},
		Pacing: noPacing, Workers: 8, MaxPages: int64(2 * len(good))}
	if err := c.Run(context.Background(), w.Seeds()...); err != nil {
		t.Fatal(err)
	}
	pages := map[string]bool{}
	for _, u := range w.GoodPages() {
		pages[u] = true
	}
	r := trapCrawl{name: name, budget: int(c.MaxPages), good: len(good), fetched: len(order)}
	var goodSeen, pagesSeen int
	isTrap := make([]bool, len(order))
	for i, u := range order {
		if w.IsTrap(u) {
			isTrap[i] = true
			r.traps++
			continue
		}
		if _, ok := good[u]; ok {
			goodSeen++
		}
		if pages[u] {
			pagesSeen++
		}
		if r.at95 == 0 && goodSeen*100 >= 95*len(good) {
			r.at95, r.trapsTo95 = i+1, r.traps
		}
	}
	r.goodShare = float64(goodSeen) / float64(len(good))
	r.pageShare = float64(pagesSeen) / float64(len(pages))
	if r.at95 > 0 {
		half := isTrap[r.at95/2 : r.at95]
		r.trapsLastHalf = float64(countTrue(half)) / float64(len(half))
		for k := range 10 {
			tenth := isTrap[k*r.at95/10 : (k+1)*r.at95/10]
			r.profile = append(r.profile, 100*countTrue(tenth)/max(len(tenth), 1))
		}
	}
	if _, ok := f.(*frontier.AOPIC); ok != (withImportance == len(order)) || !ok && withImportance > 0 {
		t.Errorf("%s: %d of %d pages had an Importance", name, withImportance, len(order))
	}
	if n := w.TrapRequests(); n != r.traps {
		t.Errorf("%s: the server counted %d trap requests, the Handler saw %d", name, n, r.traps)
	}
	return r
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// TestAOPICOnTrapWeb is the acceptance test of the AOPIC frontier: on a
// 100-host web where 20 hosts are traps, with a budget of twice the good URLs
// (every URL of a good host that a compliant crawler requests: pages, images,
// redirects), AOPIC fetches at least 95% of them, spending on traps until
// then at most 30% of what FIFO spends on the same web, and after a start
// (the first half of the crawl up to 95%) under 15% of its requests, where
// FIFO spends about half; and its importance estimate ranks the good pages as
// their true PageRank does (Spearman ≥ 0.8). The crawl runs without
// politeness delays, which in a real crawl would limit each trap host to its
// own pace. Run it with -v to see the figures of both:
//
//	go test -run TestAOPICOnTrapWeb -v .
func TestAOPICOnTrapWeb(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls 40k pages")
	}
	t.Parallel()
	w := trapWeb()
	defer w.Close()

	aopic := new(frontier.AOPIC)
	a := crawlTrapWeb(t, w, "AOPIC", aopic)
	f := crawlTrapWeb(t, w, "FIFO", new(frontier.FIFO))
	t.Log(a)
	t.Log(f)

	if a.goodShare < 0.95 {
		t.Errorf("AOPIC fetched %.1f%% of the good URLs, want at least 95%%", 100*a.goodShare)
	}
	// Until 95% of the good URLs are in, AOPIC spends on traps well under
	// what FIFO spends (FIFO may not get there at all), and after a start
	// little of its budget goes to traps.
	if a.at95 == 0 || f.at95 != 0 && float64(a.trapsTo95) > 0.3*float64(f.trapsTo95) {
		t.Errorf("AOPIC spent %d trap requests before 95%% of the good URLs, FIFO %d: want at most 30%% of FIFO's", a.trapsTo95, f.trapsTo95)
	}
	if a.trapsLastHalf > 0.15 {
		t.Errorf("AOPIC spent %.1f%% of the second half of its requests up to 95%% of the good URLs on traps, want under 15%%", 100*a.trapsLastHalf)
	}

	rank := w.PageRank()
	var truth, estimate []float64
	for u, pr := range rank {
		imp, ok := aopic.Importance(canon.Fingerprint(u))
		if !ok {
			continue
		}
		truth, estimate = append(truth, pr), append(estimate, imp)
	}
	rho := graph.Spearman(truth, estimate)
	t.Logf("Spearman rank correlation of AOPIC importance and true PageRank over %d of %d good pages: %.3f", len(truth), len(rank), rho)
	if len(truth) < len(rank)*95/100 || rho < 0.8 {
		t.Errorf("Spearman %.3f over %d of %d good pages, want ≥ 0.8 over at least 95%%", rho, len(truth), len(rank))
	}
}

// A redirect passes its importance to its target: Top ranks the pages
// fetched, not the redirects that led to them, and a page reached through
// redirects from many links ranks above pages with one link.
func TestAOPICRedirectsPassImportance(t *testing.T) {
	s := newSite(t, map[string]response{
		"/":   html("/r1", "/r2", "/a", "/b"),
		"/a":  html("/r1"),
		"/b":  html("/r2"),
		"/r1": redirect(301, "/t"),
		"/r2": redirect(302, "/r1"),
		"/t":  html(),
	})
	f := new(frontier.AOPIC)
	c := fast(nil)
	c.Frontier = f
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	top := f.Top(10)
	var urls []string
	for _, r := range top {
		urls = append(urls, strings.TrimPrefix(r.URL, s.URL))
	}
	if len(urls) != 4 || slices.Contains(urls, "/r1") || slices.Contains(urls, "/r2") {
		t.Errorf("Top = %q, want the 4 pages and no redirect", urls)
	}
	if i := slices.Index(urls, "/t"); i < 0 || i > slices.Index(urls, "/a") || i > slices.Index(urls, "/b") {
		t.Errorf("Top = %q, want the redirects' target /t above /a and /b, linked once each", urls)
	}
}
