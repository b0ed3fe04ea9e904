package crawler_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"crawler"
	"crawler/fetch"
	"crawler/politeness"
)

func TestCrawlSmallSite(t *testing.T) {
	s := newSite(t, map[string]response{
		"/":            html("/a", "b", "./c#frag", "/a?", "/A"),
		"/a":           html("/", "/b", "mailto:x@y", "javascript:void(0)", "tel:1"),
		"/b":           html("/c", "http://[::1"),
		"/c":           {body: `<base href="/dir/"><a href="d">d</a><a href="/img.png">i</a>`},
		"/dir/d":       html("/"),
		"/img.png":     {ctype: "image/png", body: "\x89PNG\r\n\x1a\n<a href=\"/nope\">"},
		"/A":           {status: 404, body: `<a href="/from404">`},
		"/robots.txt":  {ctype: "text/plain", body: "User-agent: *\nDisallow:\n"},
		"/a?":          html(),
		"/from404":     html(),
		"/nope":        html(),
		"/unreachable": html(),
	})
	var got collect
	c := fast(&got)
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	wantPaths := []string{"/", "/a", "/a?", "/A", "/b", "/c", "/dir/d", "/img.png"}
	for _, p := range wantPaths {
		if n := s.count(p); n != 1 {
			t.Errorf("%s requested %d times, want 1", p, n)
		}
	}
	for _, p := range []string{"/from404", "/nope", "/unreachable"} {
		if n := s.count(p); n != 0 {
			t.Errorf("%s requested %d times, want 0", p, n)
		}
	}
	if n := s.count("/robots.txt"); n != 1 {
		t.Errorf("robots.txt requested %d times, want 1", n)
	}
	st := c.Stats()
	if st.Fetched != int64(len(wantPaths)) || st.Requests != st.Fetched || st.RobotsFetched != 1 {
		t.Errorf("stats = %+v", st)
	}
	if st.BadLinks != 1 {
		t.Errorf("BadLinks = %d, want 1 (the broken IPv6 href; non-http schemes are not counted as bad)", st.BadLinks)
	}
	if st.Status[404] != 1 || st.Status[200] != int64(len(wantPaths)-1) {
		t.Errorf("Status = %v", st.Status)
	}

	c0 := got.pages[s.URL+"/c"]
	if c0 == nil || c0.Depth != 1 || c0.Referrer != s.URL+"/" {
		t.Fatalf("page /c = %+v", c0)
	}
	if want := []string{s.URL + "/dir/d", s.URL + "/img.png"}; !slices.Equal(c0.Links, want) {
		t.Errorf("/c links = %q, want %q (resolved against <base href>)", c0.Links, want)
	}
	if img := got.pages[s.URL+"/img.png"]; img == nil || len(img.Links) != 0 || img.ContentType != "image/png" {
		t.Errorf("non-HTML page = %+v, want handled without links", img)
	}
	root := got.pages[s.URL+"/"]
	if want := []string{s.URL + "/a", s.URL + "/b", s.URL + "/c", s.URL + "/a?", s.URL + "/A"}; root == nil || !slices.Equal(root.Links, want) {
		t.Errorf("root links = %q, want %q", root.Links, want)
	}
}

func TestRedirects(t *testing.T) {
	pages := map[string]response{
		"/":       html("/r1", "/loop1", "/chain0", "/bad", "/same"),
		"/r1":     redirect(301, "/r2"),
		"/r2":     redirect(302, "$URL/final"),
		"/final":  html(),
		"/loop1":  redirect(307, "/loop2"),
		"/loop2":  redirect(308, "/loop1"),
		"/bad":    {status: 302},
		"/same":   redirect(301, "/same"),
		"/target": html(),
	}
	for i := range 15 {
		pages[fmt.Sprintf("/chain%d", i)] = redirect(301, fmt.Sprintf("/chain%d", i+1))
	}
	s := newSite(t, pages)
	var got collect
	c := fast(&got)
	c.MaxRedirects = 4
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/r1", "/r2", "/final", "/loop1", "/loop2", "/bad", "/same", "/chain0", "/chain4"} {
		if n := s.count(p); n != 1 {
			t.Errorf("%s requested %d times, want 1", p, n)
		}
	}
	if n := s.count("/chain5"); n != 0 {
		t.Errorf("/chain5 requested %d times: hop limit 4 not applied", n)
	}
	final := got.pages[s.URL+"/final"]
	if final == nil || final.Depth != 1 || final.Referrer != s.URL+"/r2" {
		t.Errorf("redirect target page = %+v, want depth 1 (the redirect keeps its depth), referrer /r2", final)
	}
	if r1 := got.pages[s.URL+"/r1"]; r1 == nil || r1.Redirect != s.URL+"/r2" || r1.Status != 301 {
		t.Errorf("redirect page = %+v", r1)
	}
	if p := got.pages[s.URL+"/chain4"]; p == nil || !errors.Is(p.Err, crawler.ErrTooManyRedirects) {
		t.Errorf("chain4 page = %+v, want ErrTooManyRedirects", p)
	}
	if p := got.pages[s.URL+"/bad"]; p == nil || !errors.Is(p.Err, crawler.ErrBadRedirect) {
		t.Errorf("bad redirect page = %+v, want ErrBadRedirect", p)
	}
	st := c.Stats()
	if st.Errors[crawler.KindTooManyRedirects] != 1 || st.Errors[crawler.KindBadRedirect] != 1 {
		t.Errorf("errors = %v", st.Errors)
	}
}

func TestMaxPagesExact(t *testing.T) {
	s := chainSite(t, 50)
	for _, max := range []int64{1, 7, 30} {
		s.reset()
		c := fast(nil)
		c.MaxPages = max
		c.Workers = 8
		if err := c.Run(context.Background(), s.URL+"/0"); err != nil {
			t.Fatal(err)
		}
		var pages int
		for p, n := range s.requests() {
			if p != "/robots.txt" {
				pages += n
			}
		}
		if int64(pages) != max || c.Stats().Requests != max {
			t.Errorf("MaxPages=%d: server saw %d page requests, stats %d", max, pages, c.Stats().Requests)
		}
	}
}

func TestBadSeeds(t *testing.T) {
	c := fast(nil)
	err := c.Run(context.Background(), "http://ok.test/", "ftp://x/", "::bad")
	if err == nil || !strings.Contains(err.Error(), `"ftp://x/"`) || !strings.Contains(err.Error(), `"::bad"`) {
		t.Fatalf("Run with bad seeds = %v", err)
	}
	if err := fast(nil).Run(context.Background()); !errors.Is(err, crawler.ErrNoSeeds) {
		t.Fatalf("Run without seeds = %v, want ErrNoSeeds", err)
	}
}

func TestFetchErrorsReachHandler(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	s := newSite(t, map[string]response{"/": html(deadURL + "/gone")})
	var got collect
	c := fast(&got)
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	p := got.pages[deadURL+"/gone"]
	var fe *fetch.FetchError
	// The dead host's robots.txt is what fails: asked for until the host
	// is retired, the page is tried, not fetched, and the handler learns
	// why, down to the refused connection.
	if p == nil || !errors.As(p.Err, &fe) || !errors.Is(p.Err, politeness.ErrRobotsUnavailable) ||
		!errors.Is(p.Err, politeness.ErrHostRetired) || !errors.Is(p.Err, syscall.ECONNREFUSED) ||
		crawler.ErrorKind(p.Err) != crawler.KindHostRetired || p.Status != 0 || p.Referrer != s.URL+"/" {
		t.Fatalf("page of a dead host = %+v", p)
	}
	if st := c.Stats(); st.Errors[crawler.KindRobotsUnavailable] != politeness.DefaultMaxFailures || st.Requests != 1 ||
		st.HostsRetired != 1 {
		t.Errorf("stats = %+v, want %d robots-unavailable errors and only the live page requested", st, politeness.DefaultMaxFailures)
	}

	c = fast(&collect{})
	c.IgnoreRobots = true
	if err := c.Run(context.Background(), deadURL+"/gone"); !errors.Is(err, crawler.ErrNoPages) || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("Run of a dead seed = %v; want ErrNoPages, its connection refused", err)
	}
	want := int64(1 + crawler.DefaultMaxRetries)
	if st := c.Stats(); st.Errors[fetch.KindRefused] != want || st.Requests != want || st.Retries != want-1 || st.Fetched != 0 {
		t.Errorf("stats = %+v, want %d refused fetches (retries included)", st, want)
	}
}

// Fields with no "off" reject a negative value, and numbers that are not
// numbers are refused, before anything is sent.
func TestRunValidatesFields(t *testing.T) {
	s := newSite(t, map[string]response{"/": html()})
	for name, set := range map[string]func(*crawler.Crawler){
		"Workers":            func(c *crawler.Crawler) { c.Workers = -1 },
		"MaxRate":            func(c *crawler.Crawler) { c.MaxRate = math.NaN() },
		"Pacing.DelayFactor": func(c *crawler.Crawler) { c.Pacing.DelayFactor = math.Inf(-1) },
	} {
		c := fast(nil)
		set(c)
		err := c.Run(context.Background(), s.URL+"/")
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: Run = %v, want an error naming the field", name, err)
		}
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("invalid crawlers sent %d requests", n)
	}
}

// Run writes none of the caller's fields, and a second Run on the same
// Crawler resumes with the frontier and seen-set the first one made.
func TestRunLeavesFieldsAndResumes(t *testing.T) {
	s := chainSite(t, 5) // 15 pages, and a link to /5, which is not found
	var got collect
	c := fast(&got)
	c.Robots, c.MaxPages = &politeness.RobotsCache{ErrorTTL: time.Millisecond}, 4
	ttl := c.Robots.TTL
	for range 3 {
		if err := c.Run(context.Background(), s.URL+"/0"); err != nil {
			t.Fatal(err)
		}
		if c.Frontier != nil || c.Seen != nil || c.Robots.Fetch != nil || c.Robots.TTL != ttl {
			t.Fatalf("Run wrote the Crawler's fields: Frontier %v, Seen %v, Robots %+v", c.Frontier, c.Seen, c.Robots)
		}
	}
	c.MaxPages = 0
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(got.pages) != 16 {
		t.Errorf("the resumed crawls handled %d pages, want 16: %v", len(got.pages), got.urls())
	}
	for path, n := range s.requests() {
		if n != 1 {
			t.Errorf("%s requested %d times over the resumed crawls, want once", path, n)
		}
	}
}

func TestRunWhileRunning(t *testing.T) {
	answer := make(chan struct{})
	s := newSite(t, map[string]response{"/": {wait: answer}})
	c := fast(nil)
	errc := make(chan error)
	go func() { errc <- c.Run(context.Background(), s.URL+"/") }()
	for c.Stats().InFlight == 0 { // the page answers once the test says so
		runtime.Gosched()
	}
	if err := c.Run(context.Background(), s.URL+"/"); !errors.Is(err, crawler.ErrRunning) {
		t.Errorf("second Run = %v, want ErrRunning", err)
	}
	close(answer)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func TestBodyCapReportsTruncation(t *testing.T) {
	long := `<a href="/early">e</a>` + strings.Repeat("x", 5000) + `<a href="/late">l</a>`
	s := newSite(t, map[string]response{"/": {body: long}, "/early": html(), "/late": html()})
	var got collect
	c := fast(&got)
	c.Fetcher = &fetch.HTTPFetcher{MaxBodyBytes: 1000, Addresses: testLoopback}
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	p := got.pages[s.URL+"/"]
	if p == nil || !p.Truncated || len(p.Body) != 1000 {
		t.Fatalf("page = %+v, want a truncated 1000-byte body", p)
	}
	if s.count("/early") != 1 || s.count("/late") != 0 || c.Stats().Truncated != 1 {
		t.Errorf("links before the cap followed, after it not: early %d, late %d, truncated %d",
			s.count("/early"), s.count("/late"), c.Stats().Truncated)
	}
}

func TestLoggerReportsFailures(t *testing.T) {
	s := newSite(t, map[string]response{"/": html("/x")})
	var buf strings.Builder
	var mu sync.Mutex
	c := fast(crawler.HandlerFunc(func(context.Context, *crawler.Page) error { return errors.New("nope") }))
	c.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &buf}, nil))
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(buf.String(), "handler failed") || !strings.Contains(buf.String(), "nope") {
		t.Errorf("log = %q", buf.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// A Run whose every seed is refused by the address policy says so; one
// that could fetch a seed does not.
func TestSeedsRefused(t *testing.T) {
	s := newSite(t, map[string]response{"/": html()})
	c := &crawler.Crawler{Pacing: noPacing} // the default fetcher refuses loopback
	err := c.Run(context.Background(), s.URL+"/", "http://127.0.0.2/", "http://[::1]/")
	if !errors.Is(err, crawler.ErrSeedsRefused) || !errors.Is(err, fetch.ErrBlockedAddress) {
		t.Errorf("Run with every seed refused = %v, want ErrSeedsRefused wrapping ErrBlockedAddress", err)
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("refused seeds sent %d requests", n)
	}
	c = fast(nil) // allows 127.0.0.1 only
	if err := c.Run(context.Background(), s.URL+"/", "http://127.0.0.2/"); err != nil {
		t.Errorf("Run with one seed allowed = %v, want nil", err)
	}
}

// A page brings its title and all its links: those followed in Links, the
// rel="nofollow" ones in NoFollowLinks (in Links under IgnoreNoFollow),
// canonical and each once.
func TestPageTitleAndNoFollowLinks(t *testing.T) {
	s := newSite(t, map[string]response{
		"/": {body: `<title> Home &amp; away </title><base href="/dir/">
			<a href="a">a</a><a rel="nofollow" href="n">n</a><a rel="NOFOLLOW ugc" href="/dir/n#frag">n again</a>
			<a rel="nofollow" href="a">a, also nofollow</a><a rel="nofollow" href="mailto:x@y">m</a>`},
		"/dir/a": html(),
		"/dir/n": html(),
	})
	for _, ignore := range []bool{false, true} {
		s.reset()
		var got collect
		c := fast(&got)
		c.IgnoreNoFollow = ignore
		if err := c.Run(context.Background(), s.URL+"/"); err != nil {
			t.Fatal(err)
		}
		p := got.page(s.URL + "/")
		wantLinks, wantNoFollow := []string{s.URL + "/dir/a"}, []string{s.URL + "/dir/n"}
		if ignore {
			wantLinks, wantNoFollow = []string{s.URL + "/dir/a", s.URL + "/dir/n"}, nil
		}
		if p == nil || p.Title != "Home & away" || !slices.Equal(p.Links, wantLinks) || !slices.Equal(p.NoFollowLinks, wantNoFollow) {
			t.Fatalf("IgnoreNoFollow %v: page %+v; want title %q, links %q, nofollow %q", ignore, p, "Home & away", wantLinks, wantNoFollow)
		}
		if n := s.count("/dir/n"); n != len(wantLinks)-1 {
			t.Errorf("IgnoreNoFollow %v: the nofollow link was requested %d times", ignore, n)
		}
	}
}
