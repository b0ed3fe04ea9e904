package store_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"crawler"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/store"
	"crawler/traps"
)

// linkSite is a small web on one httptest server: each path answers with an
// HTML page of the links given (paths or URLs), any other with a 404. It
// counts requests per path.
type linkSite struct {
	*httptest.Server
	pages  map[string][]string
	mu     sync.Mutex
	counts map[string]int
}

func newLinkSite(t *testing.T, pages map[string][]string) *linkSite {
	s := &linkSite{pages: pages, counts: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.URL.RequestURI()
		s.mu.Lock()
		s.counts[key]++
		s.mu.Unlock()
		links, ok := s.pages[key]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<html><head><title>t</title></head><body>")
		for _, l := range links {
			fmt.Fprintf(w, `<a href="%s">x</a>`, l)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *linkSite) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[path]
}

func (s *linkSite) requests() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.counts)
}

// loopbackCrawler is a Crawler for tests on loopback: no delays (fixed
// or adaptive), no backoff, an unavailable robots.txt retried after a
// millisecond, and 127.0.0.1 allowed.
func loopbackCrawler() *crawler.Crawler {
	return &crawler.Crawler{
		Workers: 4,
		Pacing:  politeness.Pacing{Delay: -1, DelayFactor: -1, Backoff: -1},
		Robots:  &politeness.RobotsCache{ErrorTTL: time.Millisecond},
		Fetcher: &fetch.HTTPFetcher{Addresses: fetch.AddressPolicy{
			Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		}},
	}
}

// restart closes st, if not nil, and opens the store on fs again, as a
// program run again would.
func restart(t *testing.T, fs vfs.FS, st *store.Store) *store.Store {
	t.Helper()
	if st != nil {
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return open(t, fs, store.Options{ExpectedURLs: 1000})
}

// A crawl resumed from a durable store keeps what its trap rules decided
// (a path pattern stopped for serving duplicates is not entered again)
// and its counters' totals.
func TestResumeKeepsTrapsAndTotals(t *testing.T) {
	t.Parallel()
	pages := map[string][]string{"/a": {}}
	var links []string
	for i := range 30 {
		p := fmt.Sprintf("/cal?m=%d", i)
		links = append(links, p)
		pages[p] = nil // the same page for every month
	}
	pages["/"] = append(links, "/a")
	s := newLinkSite(t, pages)
	fs := vfs.NewMem()
	crawl := func(st *store.Store, maxPages int64, seeds ...string) *crawler.Crawler {
		c := loopbackCrawler()
		c.Workers, c.MaxPages, c.Traps.DuplicatePages = 1, maxPages, 3
		c.Seen, c.Frontier = st.Seen(), st.Frontier()
		if err := c.Run(context.Background(), seeds...); err != nil {
			t.Fatal(err)
		}
		return c
	}
	calendar := func() (n int) {
		for p, c := range s.requests() {
			if len(p) > 4 && p[:4] == "/cal" {
				n += c
			}
		}
		return n
	}

	// "/" and /cal?m=0 are new, m=1..3 duplicates: the third stops /cal.
	st := restart(t, fs, nil)
	crawl(st, 5, s.URL+"/")
	if n := calendar(); n != 4 {
		t.Fatalf("first run: %d calendar pages fetched, want 4 (the fourth stops the pattern)", n)
	}

	st = restart(t, fs, st)
	c := &crawler.Crawler{Frontier: st.Frontier()}
	if got := c.TotalStats().Requests; got != 5 {
		t.Errorf("before the second run, TotalStats().Requests = %d, want the first run's 5", got)
	}
	c = crawl(st, 0)
	if n := calendar(); n != 4 {
		t.Errorf("the resumed run fetched %d more calendar pages: the stopped pattern was forgotten", n-4)
	}
	if s.count("/a") != 1 {
		t.Errorf("/a fetched %d times, want once", s.count("/a"))
	}
	total, run := c.TotalStats(), c.Stats()
	if run.Requests != 1 || total.Requests != 6 || total.Fetched != 6 || total.Status[200] != 6 {
		t.Errorf("second run: Stats().Requests = %d, TotalStats() = %d requests, %d fetched, %d 200s; want 1, 6, 6, 6",
			run.Requests, total.Requests, total.Fetched, total.Status[200])
	}
	if want := s.Listener.Addr().String() + "/cal?m"; !slices.Contains(total.TrapPatterns, want) {
		t.Errorf("TotalStats().TrapPatterns = %q, want %q among them", total.TrapPatterns, want)
	}

	// Runs on one Crawler add up too, with a store or without.
	c.MaxPages = 0
	if err := c.Run(context.Background(), s.URL+"/a"); err != nil {
		t.Fatal(err)
	}
	if got := c.TotalStats().Requests; got != 6 {
		t.Errorf("after a third run that fetched nothing, TotalStats().Requests = %d, want 6", got)
	}
}

// A crawl kept on its seeds' hosts (Scope.SameHost) stays on them when it
// is resumed without its seeds: the store keeps the hosts.
func TestResumeKeepsSeedHosts(t *testing.T) {
	t.Parallel()
	other := newLinkSite(t, map[string][]string{"/": {}, "/x": {}})
	s := newLinkSite(t, map[string][]string{
		"/":  {"/1", other.URL + "/"},
		"/1": {"/2", other.URL + "/x"},
		"/2": {},
	})
	fs := vfs.NewMem()
	st := restart(t, fs, nil)
	for run, seeds := range [][]string{{s.URL + "/"}, nil} {
		c := loopbackCrawler()
		c.Workers, c.Scope.SameHost = 1, true
		c.Seen, c.Frontier = st.Seen(), st.Frontier()
		if run == 0 {
			c.MaxPages = 1
		}
		if err := c.Run(context.Background(), seeds...); err != nil {
			t.Fatal(err)
		}
		st = restart(t, fs, st)
	}
	if got := s.requests(); got["/1"] != 1 || got["/2"] != 1 {
		t.Errorf("the seed's host: requests %v, want /1 and /2 once each", got)
	}
	if got := other.requests(); len(got) != 0 {
		t.Errorf("the other host, out of scope: requests %v, want none", got)
	}
}

// TestResumeKeepsHostBudgets: the URLs a host has queued
// (Traps.MaxPagesPerHost) and the values a query parameter has taken
// (Traps.MaxQueryValues) count over the Runs of a crawl, whether it
// resumes on the same in-memory frontier or from a store after a restart:
// a resumed crawl spends no budget twice.
func TestResumeKeepsHostBudgets(t *testing.T) {
	t.Parallel()
	budget := map[string][]string{"/": {"/p/0", "/p/1", "/p/2", "/p/3"}}
	for i := range 4 {
		p := fmt.Sprint(i)
		budget["/p/"+p], budget["/q/"+p] = []string{"/q/" + p}, nil
	}
	query := map[string][]string{"/": {"/c?m=0", "/c?m=1", "/a"}, "/a": {"/c?m=2", "/c?m=3"}}
	for m := range 4 {
		query[fmt.Sprintf("/c?m=%d", m)] = nil
	}
	for _, tc := range []struct {
		name  string
		pages map[string][]string
		traps traps.Config
		rule  string
		never []string // pages the first Run's counts keep out of the second
	}{
		// The first Run queues "/" and /p/0-3: 5, the budget.
		{"host budget", budget, traps.Config{MaxPagesPerHost: 5}, traps.HostBudget, []string{"/q/0", "/q/1", "/q/2", "/q/3"}},
		// The first Run queues ?m=0 and ?m=1: 2 values, the most.
		{"query values", query, traps.Config{MaxQueryValues: 2}, traps.QueryValues, []string{"/c?m=2", "/c?m=3"}},
	} {
		for _, durable := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/durable=%v", tc.name, durable), func(t *testing.T) {
				s := newLinkSite(t, tc.pages)
				fs := vfs.NewMem()
				var st *store.Store
				c := loopbackCrawler()
				for run := range 2 {
					if durable {
						st = restart(t, fs, st)
						c = loopbackCrawler()
						c.Seen, c.Frontier = st.Seen(), st.Frontier()
					}
					c.Workers, c.Traps, c.MaxPages = 1, tc.traps, 0
					var seeds []string
					if run == 0 {
						c.MaxPages, seeds = 1, []string{s.URL + "/"}
					}
					if err := c.Run(context.Background(), seeds...); err != nil {
						t.Fatal(err)
					}
				}
				for _, p := range tc.never {
					if n := s.count(p); n != 0 {
						t.Errorf("%s fetched %d times: the resumed Run counted anew", p, n)
					}
				}
				if got := c.Stats().Traps[tc.rule]; got != int64(len(tc.never)) {
					t.Errorf("the resumed Run: Stats().Traps[%q] = %d, want %d", tc.rule, got, len(tc.never))
				}
				if n := s.count("/p/3") + s.count("/a"); n != 1 {
					t.Errorf("the pages the first Run queued were fetched %d times, want once", n)
				}
			})
		}
	}
}

// A record of the trap rules that does not decode stops the Run with an
// error that says so: guessing would spend a budget twice.
func TestResumeRefusesDamagedTrapRecords(t *testing.T) {
	t.Parallel()
	s := newLinkSite(t, map[string][]string{"/": {}})
	for _, name := range []string{"crawler/host-urls", "crawler/query-values"} {
		st := restart(t, vfs.NewMem(), nil)
		st.Record(name, 1, []byte{0xff})
		if err := errors.Join(st.Commit(), st.Flush()); err != nil {
			t.Fatal(err)
		}
		c := loopbackCrawler()
		c.Seen, c.Frontier = st.Seen(), st.Frontier()
		err := c.Run(context.Background(), s.URL+"/")
		if err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("%s: Run = %v, want an error saying the record is damaged", name, err)
		}
	}
}
