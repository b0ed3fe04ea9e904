package crawler_test

import (
	"context"
	"crawler/internal/leak"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"crawler/traps"
)

// trapSite serves 20 good pages and four endless URL spaces: session ids
// in every link, a calendar, paths that grow a segment per page, and a
// soft-404 answering any other path with one "not found" page whose
// relative links make new paths.
type trapSite struct {
	*httptest.Server
	mu       sync.Mutex
	requests map[string]int // by trap ("sid", "calendar", "deep", "soft404") or "good"
}

func newTrapSite(t *testing.T) *trapSite {
	s := &trapSite{requests: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *trapSite) count(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[kind]
}

func (s *trapSite) serve(w http.ResponseWriter, r *http.Request) {
	page := func(kind, text string, links ...string) {
		s.mu.Lock()
		s.requests[kind]++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><p>%s</p>", text)
		for _, l := range links {
			fmt.Fprintf(w, `<a href="%s">link</a>`, l)
		}
		fmt.Fprint(w, "</body></html>")
	}
	p := r.URL.Path
	switch {
	case p == "/robots.txt":
		http.NotFound(w, r)
	case p == "/":
		page("good", "home", "/p/1", "/s?sid=0", "/calendar?month=0", "/deep/a/", "/nothing-here")
	case strings.HasPrefix(p, "/p/"):
		n, _ := strconv.Atoi(p[3:])
		var links []string
		if n < 20 {
			links = append(links, "/p/"+strconv.Itoa(n+1))
		}
		page("good", "good page "+strconv.Itoa(n), links...)
	case p == "/s":
		sid, _ := strconv.Atoi(r.URL.Query().Get("sid"))
		var links []string
		for i := range 4 {
			links = append(links, "/s?sid="+strconv.Itoa(sid*4+i+1))
		}
		page("sid", "the same text whatever the session", links...)
	case p == "/calendar":
		m, _ := strconv.Atoi(r.URL.Query().Get("month"))
		page("calendar", "events of month "+strconv.Itoa(m), "/calendar?month="+strconv.Itoa(m+1))
	case strings.HasPrefix(p, "/deep/"):
		page("deep", "deep "+p, "a/", "b/")
	default:
		page("soft404", "not found", "more/", "again/")
	}
}

// TestTrapsEndToEnd crawls a site whose traps are endless without the trap
// rules: the crawl must end on its own, with every good page fetched, a
// bounded number of requests in each trap, and each rule counted.
func TestTrapsEndToEnd(t *testing.T) {
	leak.Check(t)
	s := newTrapSite(t)
	var pages collect
	c := fast(&pages)
	c.Traps = traps.Config{MaxQueryValues: 30, MaxPathDepth: 8}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Run(ctx, s.URL+"/"); err != nil {
		t.Fatalf("Run: %v (the traps kept the crawl going?)", err)
	}
	for n := 1; n <= 20; n++ {
		if p := pages.page(s.URL + "/p/" + strconv.Itoa(n)); p == nil || p.Err != nil {
			t.Errorf("good page /p/%d not fetched: %+v", n, p)
		}
	}
	st := c.Stats()
	t.Logf("requests: good %d, sid %d, calendar %d, deep %d, soft404 %d; traps %v; patterns %v; duplicate content %d",
		s.count("good"), s.count("sid"), s.count("calendar"), s.count("deep"), s.count("soft404"),
		st.Traps, st.TrapPatterns, st.DuplicateContent)
	host := strings.TrimPrefix(s.URL, "http://")
	bounds := []struct {
		kind string
		max  int
	}{
		// Ten duplicates stop the pattern; what was queued by then is
		// skipped, and what was in flight (4 workers) is fetched.
		{"sid", traps.DefaultDuplicatePages + 1 + 4},
		{"calendar", 30},
		{"deep", 1 << 8},
		{"soft404", 2*(traps.DefaultDuplicatePages+4) + 1}, // two patterns: /more and /again
	}
	for _, b := range bounds {
		if n := s.count(b.kind); n == 0 || n > b.max {
			t.Errorf("%s trap: %d requests, want 1..%d", b.kind, n, b.max)
		}
	}
	for _, rule := range []string{traps.Duplicates, traps.QueryValues, traps.PathDepth} {
		if st.Traps[rule] == 0 {
			t.Errorf("Stats.Traps[%q] = 0", rule)
		}
	}
	for _, want := range []string{host + "/s?sid", host + "/more", host + "/again"} {
		if !slices.Contains(st.TrapPatterns, want) {
			t.Errorf("TrapPatterns %v lack %q", st.TrapPatterns, want)
		}
	}
	if st.DuplicateContent < 2*traps.DefaultDuplicatePages {
		t.Errorf("DuplicateContent = %d, want at least %d", st.DuplicateContent, 2*traps.DefaultDuplicatePages)
	}
	// URLs of a stopped pattern that were already queued reach the Handler
	// with ErrTrap, unfetched.
	skipped := 0
	for _, u := range pages.urls() {
		if p := pages.page(u); p.Err != nil {
			if !errors.Is(p.Err, traps.ErrTrap) {
				t.Errorf("%s: unexpected error %v", u, p.Err)
			}
			skipped++
		}
	}
	if skipped == 0 {
		t.Error("no queued URL of a stopped pattern reached the Handler with ErrTrap")
	}
}

// TestHostBudget: MaxPagesPerHost bounds the URLs queued for one host,
// and the rest are counted.
func TestHostBudget(t *testing.T) {
	s := newTrapSite(t)
	c := fast(nil)
	c.Traps = traps.Config{MaxPagesPerHost: 5}
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	if st.Requests != 5 || st.Traps[traps.HostBudget] == 0 {
		t.Errorf("requests %d, host-budget %d: want 5 and > 0", st.Requests, st.Traps[traps.HostBudget])
	}
}

// TestDuplicateWindow crawls, with one worker and a window of 8 contents,
// a site whose root links first to a page, then to 20 pages of distinct
// content, then to a copy of the first page, and then to a calendar whose
// empty months, the same page, alternate with more distinct pages. The
// copy comes after more contents than the window holds and is not seen as
// a duplicate; the calendar's page keeps coming back, stays remembered,
// and its pattern is stopped. Without a limit the copy is a duplicate too.
func TestDuplicateWindow(t *testing.T) {
	distinct := func(i int) response {
		return response{body: fmt.Sprintf("<html><body><p>page %d</p></body></html>", i)}
	}
	pages := map[string]response{"/first": distinct(-1), "/copy": distinct(-1)}
	links := []string{"/first"}
	for i := range 20 {
		p := "/u/" + strconv.Itoa(i)
		pages[p], links = distinct(i), append(links, p)
	}
	links = append(links, "/copy")
	for i := range 20 {
		p, cal := "/v/"+strconv.Itoa(i), "/cal?m="+strconv.Itoa(i)
		pages[p], pages[cal] = distinct(100+i), html()
		links = append(links, p, cal)
	}
	pages["/"] = html(links...)
	s := newSite(t, pages)
	host := strings.TrimPrefix(s.URL, "http://")

	for _, tc := range []struct {
		window     int
		duplicates int64 // the copy, and the calendar's months up to the stop
	}{{8, 3}, {-1, 4}} {
		s.reset()
		c := fast(nil)
		c.Workers = 1
		c.Traps = traps.Config{DuplicatePages: 3, DuplicateWindow: tc.window}
		if err := c.Run(context.Background(), s.URL+"/"); err != nil {
			t.Fatal(err)
		}
		st := c.Stats()
		if st.DuplicateContent != tc.duplicates {
			t.Errorf("window %d: DuplicateContent = %d, want %d", tc.window, st.DuplicateContent, tc.duplicates)
		}
		if want := host + "/cal?m"; !slices.Contains(st.TrapPatterns, want) {
			t.Errorf("window %d: TrapPatterns = %q, want %q: the recurring content was forgotten", tc.window, st.TrapPatterns, want)
		}
		if n := s.count("/copy"); n != 1 {
			t.Errorf("window %d: /copy fetched %d times", tc.window, n)
		}
	}
}
