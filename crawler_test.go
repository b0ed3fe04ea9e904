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
	"testing/synctest"
	"time"

	"crawler"
	"crawler/fetch"
	"crawler/internal/leak"
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

func TestRobotsObeyed(t *testing.T) {
	s := newSite(t, map[string]response{
		"/robots.txt":  {ctype: "text/plain", body: "User-agent: *\nDisallow: /private\n\nUser-agent: crawler\nDisallow: /nocrawler\n"},
		"/":            html("/private/a", "/private", "/public", "/nocrawler/x", "/privateer"),
		"/public":      html(),
		"/private":     html(),
		"/private/a":   html(),
		"/nocrawler/x": html(),
		"/privateer":   html(),
	})
	c := fast(nil)
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	got := s.requests()
	want := map[string]int{"/robots.txt": 1, "/": 1, "/public": 1, "/private": 1, "/private/a": 1, "/privateer": 1}
	// The crawler's own group (product token "crawler") replaces "*".
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests = %v, want %v", got, want)
	}
	if st := c.Stats(); st.RobotsBlocked != 1 {
		t.Errorf("RobotsBlocked = %d, want 1", st.RobotsBlocked)
	}

	c = fast(nil)
	c.UserAgent = "otherbot/2.0"
	s.reset()
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if got := s.requests(); got["/private/a"] != 0 || got["/private"] != 0 || got["/privateer"] != 0 || got["/nocrawler/x"] != 1 {
		t.Errorf("as otherbot: requests = %v", got)
	}
	if st := c.Stats(); st.RobotsBlocked != 3 {
		t.Errorf("as otherbot: RobotsBlocked = %d, want 3", st.RobotsBlocked)
	}

	c = fast(nil)
	c.IgnoreRobots = true
	s.reset()
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if got := s.requests(); got["/robots.txt"] != 0 || got["/private/a"] != 1 {
		t.Errorf("IgnoreRobots: requests = %v", got)
	}
}

// A robots.txt that answers 5xx means crawl nothing there for now: the
// host's URLs wait while robots.txt is asked again with backoff, and after
// Pacing.MaxFailures failures in a row the host is retired: its URLs reach the
// handler unfetched, with ErrHostRetired.
func TestRobotsUnavailableDefersThenRetires(t *testing.T) {
	s := newSite(t, map[string]response{
		"/robots.txt": {status: 503},
		"/":           html("/a"),
	})
	var got collect
	c := fast(&got)
	c.Robots = &politeness.RobotsCache{ErrorTTL: 5 * time.Millisecond}
	c.Pacing.Backoff, c.Pacing.MaxFailures = time.Millisecond, 3
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if req := s.requests(); req["/"] != 0 || req["/robots.txt"] != 3 {
		t.Errorf("requests = %v: want robots.txt 3 times, then the host retired, no page fetched", req)
	}
	st := c.Stats()
	if st.Errors[crawler.KindRobotsUnavailable] != 3 || st.Errors[crawler.KindHostRetired] != 1 || st.HostsRetired != 1 {
		t.Errorf("stats = %+v", st)
	}
	p := got.page(s.URL + "/")
	if p == nil || !errors.Is(p.Err, crawler.ErrHostRetired) || !strings.Contains(p.Err.Error(), "3 failures in a row") {
		t.Errorf("page = %+v: want ErrHostRetired naming the failures", p)
	}
	hs := c.HostStats()
	if len(hs) != 1 || hs[0].RobotsRequests != 3 || hs[0].Requests != 0 || hs[0].Errors != 3 || hs[0].Retired == "" {
		t.Errorf("HostStats = %+v", hs)
	}
}

// A robots.txt that fails, then recovers: the URLs waited, and are fetched
// under the rules once the file is had.
func TestRobotsUnavailableThenRecovers(t *testing.T) {
	s := newSite(t, map[string]response{
		"/robots.txt": {status: 500, then: &response{ctype: "text/plain", body: "User-agent: *\nDisallow: /private\n"}},
		"/":           html("/a", "/private"),
		"/a":          html(),
		"/private":    html(),
	})
	var got collect
	c := fast(&got)
	c.Robots = &politeness.RobotsCache{ErrorTTL: 5 * time.Millisecond}
	c.Pacing.Backoff = time.Millisecond
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if req := s.requests(); req["/robots.txt"] != 2 || req["/"] != 1 || req["/a"] != 1 || req["/private"] != 0 {
		t.Errorf("requests = %v", req)
	}
	if st := c.Stats(); st.Errors[crawler.KindRobotsUnavailable] != 1 || st.HostsRetired != 0 || st.RobotsBlocked != 1 {
		t.Errorf("stats = %+v", st)
	}
	if p := got.page(s.URL + "/"); p == nil || p.Err != nil || p.Status != 200 {
		t.Errorf("the deferred page: %+v", p)
	}
}

// robots.txt redirects are followed up to 5 times; a longer chain or a
// loop makes the file unavailable, which RFC 9309 reads as no restrictions.
func TestRobotsRedirects(t *testing.T) {
	pages := map[string]response{
		"/robots.txt": redirect(301, "/r1"),
		"/r1":         redirect(302, "/r2"),
		"/r2":         {ctype: "text/plain", body: "User-agent: *\nDisallow: /private\n"},
		"/":           html("/private", "/public"),
		"/private":    html(),
		"/public":     html(),
	}
	s := newSite(t, pages)
	c := fast(nil)
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if got := s.requests(); got["/private"] != 0 || got["/public"] != 1 || got["/r2"] != 1 {
		t.Errorf("after 2 redirects the rules apply: requests = %v", got)
	}

	loop := newSite(t, map[string]response{
		"/robots.txt": redirect(301, "/a"),
		"/a":          redirect(301, "/b"),
		"/b":          redirect(301, "/robots.txt"),
		"/":           html("/private"),
		"/private":    html(),
	})
	c = fast(nil)
	if err := c.Run(context.Background(), loop.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if got := loop.requests(); got["/private"] != 1 || got["/robots.txt"]+got["/a"]+got["/b"] != 6 {
		t.Errorf("a robots.txt redirect loop: requests = %v, want 6 robots requests then no restrictions", got)
	}
}

func TestNoFollow(t *testing.T) {
	s := newSite(t, map[string]response{
		"/":       {body: `<a href="/a">a</a><a rel="nofollow" href="/nf">nf</a>`},
		"/a":      {body: `<meta name="robots" content="nofollow"><a href="/b">b</a>`},
		"/b":      html(),
		"/nf":     html(),
		"/robots": html(),
	})
	c := fast(nil)
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if got := s.requests(); got["/a"] != 1 || got["/b"] != 0 || got["/nf"] != 0 {
		t.Errorf("requests = %v", got)
	}
	c = fast(nil)
	c.IgnoreNoFollow = true
	s.reset()
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if got := s.requests(); got["/b"] != 1 || got["/nf"] != 1 {
		t.Errorf("IgnoreNoFollow: requests = %v", got)
	}
}

// Robots directives from the X-Robots-Tag header (on any content type, for
// this crawler or all) and from meta tags named robots or for this crawler:
// what the Crawler reports (NoIndex, NoFollow) and what it follows.
func TestRobotsDirectives(t *testing.T) {
	xrt := func(v string, links ...string) response {
		r := html(links...)
		r.header = map[string]string{"X-Robots-Tag": v}
		return r
	}
	s := newSite(t, map[string]response{
		"/": html("/hdr-nofollow", "/hdr-noindex", "/hdr-none", "/hdr-other", "/hdr-ours",
			"/meta-ours", "/meta-other", "/plain", "/pdf"),
		"/hdr-nofollow": xrt("nofollow", "/x1"),
		"/hdr-noindex":  xrt("noindex", "/x2"),
		"/hdr-none":     xrt("none", "/x3"),
		"/hdr-other":    xrt("otherbot: nofollow, noindex", "/x4"),
		"/hdr-ours":     xrt("Crawler: nofollow", "/x5"),
		"/meta-ours":    {body: `<meta name="CRAWLER" content="noindex, nofollow"><a href="/x6">x</a>`},
		"/meta-other":   {body: `<meta name="otherbot" content="none"><a href="/x7">x</a>`},
		"/plain":        xrt("unavailable_after: 25 Jun 2030 15:00:00 PST", "/x8"),
		"/pdf":          {ctype: "application/pdf", body: "%PDF-1.4", header: map[string]string{"X-Robots-Tag": "noindex"}},
	})
	for _, x := range []string{"/x1", "/x2", "/x3", "/x4", "/x5", "/x6", "/x7", "/x8"} {
		s.set(x, html())
	}
	var got collect
	c := fast(&got)
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		path              string
		noIndex, noFollow bool
		followed          string // the page's link, and whether it was fetched
		fetched           bool
	}{
		{"/hdr-nofollow", false, true, "/x1", false},
		{"/hdr-noindex", true, false, "/x2", true},
		{"/hdr-none", true, true, "/x3", false},
		{"/hdr-other", false, false, "/x4", true},
		{"/hdr-ours", false, true, "/x5", false},
		{"/meta-ours", true, true, "/x6", false},
		{"/meta-other", false, false, "/x7", true},
		{"/plain", false, false, "/x8", true},
		{"/pdf", true, false, "", false},
	}
	req := s.requests()
	for _, w := range want {
		p := got.page(s.URL + w.path)
		if p == nil {
			t.Errorf("%s: not handled", w.path)
			continue
		}
		if p.NoIndex != w.noIndex || p.NoFollow != w.noFollow {
			t.Errorf("%s: NoIndex %v NoFollow %v, want %v %v", w.path, p.NoIndex, p.NoFollow, w.noIndex, w.noFollow)
		}
		if w.followed != "" && (req[w.followed] == 1) != w.fetched {
			t.Errorf("%s: link %s requested %d times, want fetched %v", w.path, w.followed, req[w.followed], w.fetched)
		}
	}
}

// chainSite is a site whose page i links to page i+1 and to 3 leaves.
// chainPages are the pages of a chain /0 -> /1 -> ... -> /n (a 404), each
// of /0../n-1 with two leaves /i/x and /i/y.
func chainPages(n int) map[string]response {
	pages := map[string]response{}
	for i := range n {
		pages[fmt.Sprintf("/%d", i)] = html(fmt.Sprintf("/%d", i+1), fmt.Sprintf("/%d/x", i), fmt.Sprintf("/%d/y", i))
		pages[fmt.Sprintf("/%d/x", i)] = html()
		pages[fmt.Sprintf("/%d/y", i)] = html()
	}
	return pages
}

func chainSite(t *testing.T, n int) *site { return newSite(t, chainPages(n)) }

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

// MaxDepth d fetches the pages within d links of the seed; 0 or negative
// is no limit.
func TestMaxDepth(t *testing.T) {
	const n = 20
	s := chainSite(t, n)
	for _, depth := range []int{-1, 0, 1, 4} {
		s.reset()
		var got collect
		c := fast(&got)
		c.Scope.MaxDepth = depth
		if err := c.Run(context.Background(), s.URL+"/0"); err != nil {
			t.Fatal(err)
		}
		maxd := depth
		if depth <= 0 {
			maxd = n + 1
		}
		// Pages /0../n are at depth i; leaves /i/x and /i/y at i+1.
		want := 1 + 3*min(maxd, n)
		if len(got.pages) != want {
			t.Errorf("MaxDepth=%d: %d pages, want %d: %v", depth, len(got.pages), want, got.urls())
		}
		for _, p := range got.pages {
			if p.Depth > maxd {
				t.Errorf("MaxDepth=%d: %s fetched at depth %d", depth, p.URL, p.Depth)
			}
		}
	}
}

func TestScope(t *testing.T) {
	other := newSite(t, map[string]response{"/": html("/o")})
	s := newSite(t, map[string]response{
		"/":     html("/in", other.URL+"/", "/skip-me"),
		"/in":   html(),
		"/skip": html(),
	})
	c := fast(nil)
	c.Scope.SameHost = true
	c.Scope.Allow = func(u string, depth int) bool { return !strings.Contains(u, "skip") }
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if other.count("/") != 0 || s.count("/in") != 1 || s.count("/skip-me") != 0 {
		t.Errorf("requests: other %v, site %v", other.requests(), s.requests())
	}
	if st := c.Stats(); st.OutOfScope != 2 {
		t.Errorf("OutOfScope = %d, want 2", st.OutOfScope)
	}

	c = fast(nil)
	c.Scope.Domains = []string{"127.0.0.1"}
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if other.count("/") != 1 {
		t.Errorf("Domains=127.0.0.1 did not follow the link to the other port")
	}
}

// A host is asked once per Delay, counted from the end of the previous
// request: on the fake clock of a synctest bubble, exactly.
func TestDelayBetweenRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, f, stop := newPipeSite(chainPages(3))
		defer stop()
		c := &crawler.Crawler{Pacing: politeness.Pacing{Delay: 150 * time.Millisecond}, Workers: 4, Fetcher: f}
		if err := c.Run(context.Background(), s.URL+"/0"); err != nil {
			t.Fatal(err)
		}
		// robots.txt plus 10 pages, each a delay after the previous one.
		if n := len(s.order); n != 11 {
			t.Fatalf("%d requests, want 11: %v", n, s.order)
		}
		for i := 1; i < len(s.times); i++ {
			if gap := s.times[i].Sub(s.times[i-1]); gap != 150*time.Millisecond {
				t.Errorf("request %d (%s) came %v after the one before, want the Delay of 150ms", i, s.order[i], gap)
			}
		}
	})
}

// A host that does not answer must not hold back the others: the slow
// host's first page answers only once every page of the fast host has been
// handled (or after 10 s, which fails the test).
// robots.txt Crawl-delay is honoured even when the crawler's own delay is
// off, and capped by MaxCrawlDelay.
// robots.txt's Crawl-delay spaces the requests to its host, up to
// MaxCrawlDelay; a negative MaxCrawlDelay ignores it.
func TestCrawlDelay(t *testing.T) {
	for _, tt := range []struct {
		crawlDelay string
		max        time.Duration
		wantGap    time.Duration
	}{
		{"0.2", 0, 200 * time.Millisecond},
		{"3600", 50 * time.Millisecond, 50 * time.Millisecond},
		{"3600", 0, politeness.DefaultMaxCrawlDelay},
		{"3600", -1, 0},
	} {
		synctest.Test(t, func(t *testing.T) {
			pages := chainPages(1) // /0, /0/x, /0/y and the 404 /1
			pages["/robots.txt"] = response{ctype: "text/plain", body: "User-agent: *\nCrawl-delay: " + tt.crawlDelay + "\n"}
			s, f, stop := newPipeSite(pages)
			defer stop()
			c := fast(nil)
			c.Fetcher, c.Pacing.MaxCrawlDelay = f, tt.max
			if err := c.Run(context.Background(), s.URL+"/0"); err != nil {
				t.Fatal(err)
			}
			if len(s.order) != 5 {
				t.Fatalf("%d requests, want robots.txt and 4 pages: %v", len(s.order), s.order)
			}
			for i := 1; i < len(s.times); i++ {
				if gap := s.times[i].Sub(s.times[i-1]); gap != tt.wantGap {
					t.Errorf("Crawl-delay %s, MaxCrawlDelay %v: request %d came %v after the one before, want %v",
						tt.crawlDelay, tt.max, i, gap, tt.wantGap)
				}
			}
		})
	}
}

func TestSlowHostDoesNotSlowOthers(t *testing.T) {
	release := make(chan struct{})
	slow := newSite(t, map[string]response{
		"/":  {body: `<a href="/1">`, wait: release},
		"/1": html(),
	})
	fastSite := chainSite(t, 30)
	const fastPages = 30*3 + 1 // the chain, its leaves, and the 404 at its end
	var mu sync.Mutex
	fastSeen, released := 0, false
	c := fast(crawler.HandlerFunc(func(_ context.Context, p *crawler.Page) error {
		mu.Lock()
		defer mu.Unlock()
		if strings.HasPrefix(p.URL, fastSite.URL) {
			if fastSeen++; fastSeen == fastPages {
				released = true
				close(release)
			}
		}
		return nil
	}))
	start := time.Now()
	if err := c.Run(context.Background(), slow.URL+"/", fastSite.URL+"/0"); err != nil {
		t.Fatal(err)
	}
	if !released || time.Since(start) > 9*time.Second {
		t.Errorf("fast host handled %d of %d pages while the slow host hung", fastSeen, fastPages)
	}
	if slow.count("/1") != 1 {
		t.Errorf("slow host's second page not fetched")
	}
}

func TestCancel(t *testing.T) {
	leak.Check(t)
	s := newSite(t, map[string]response{
		"/":  html("/1", "/2", "/3", "/4"),
		"/1": {delay: time.Minute},
		"/2": {delay: time.Minute},
		"/3": {delay: time.Minute},
		"/4": {delay: time.Minute},
	})
	ctx, cancel := context.WithCancel(context.Background())
	c := fast(nil)
	c.PerHost = 4
	c.Handler = crawler.HandlerFunc(func(_ context.Context, p *crawler.Page) error {
		if p.URL == s.URL+"/" {
			time.AfterFunc(200*time.Millisecond, cancel)
		}
		return nil
	})
	start := time.Now()
	err := c.Run(ctx, s.URL+"/")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("Run took %v to return after cancel", el)
	}
	st := c.Stats()
	if st.Frontier != 4 || st.InFlight != 0 {
		t.Errorf("after cancel: frontier %d, in flight %d; want the 4 cut-short URLs back in the frontier", st.Frontier, st.InFlight)
	}
	if st.Errors[crawler.KindCanceled] != 0 {
		t.Errorf("a fetch cut short by cancel was counted as an error: %v", st.Errors)
	}
	// A second Run resumes: the 4 pages are fetched.
	for _, p := range []string{"/1", "/2", "/3", "/4"} {
		s.set(p, html())
	}
	c.Handler = nil
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := c.Stats().Fetched; n != 4 {
		t.Errorf("resumed Run fetched %d, want 4", n)
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

func TestHandlerErrorsAndPanics(t *testing.T) {
	s := chainSite(t, 2)
	var calls sync.Map
	c := fast(crawler.HandlerFunc(func(_ context.Context, p *crawler.Page) error {
		calls.Store(p.URL, true)
		switch {
		case strings.HasSuffix(p.URL, "/x"):
			return errors.New("boom")
		case strings.HasSuffix(p.URL, "/y"):
			panic("bang")
		}
		return nil
	}))
	if err := c.Run(context.Background(), s.URL+"/0"); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Errors[crawler.KindHandler] != 4 || st.Fetched != 7 {
		t.Errorf("stats = %+v, want 4 handler errors and the crawl finished", st)
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
		!errors.Is(p.Err, crawler.ErrHostRetired) || !errors.Is(p.Err, syscall.ECONNREFUSED) ||
		crawler.ErrorKind(p.Err) != crawler.KindHostRetired || p.Status != 0 || p.Referrer != s.URL+"/" {
		t.Fatalf("page of a dead host = %+v", p)
	}
	if st := c.Stats(); st.Errors[crawler.KindRobotsUnavailable] != politeness.DefaultMaxFailures || st.Requests != 1 ||
		st.HostsRetired != 1 {
		t.Errorf("stats = %+v, want %d robots-unavailable errors and only the live page requested", st, politeness.DefaultMaxFailures)
	}

	c = fast(&collect{})
	c.IgnoreRobots = true
	if err := c.Run(context.Background(), deadURL+"/gone"); err != nil {
		t.Fatal(err)
	}
	want := int64(1 + crawler.DefaultMaxRetries)
	if st := c.Stats(); st.Errors[crawler.KindRefused] != want || st.Requests != want || st.Retries != want-1 || st.Fetched != 0 {
		t.Errorf("stats = %+v, want %d refused fetches (retries included)", st, want)
	}
}

func TestPagesIterator(t *testing.T) {
	leak.Check(t)
	s := chainSite(t, 30)
	c := fast(nil)
	var n int
	for p, err := range c.Pages(context.Background(), s.URL+"/0") {
		if err != nil {
			t.Fatal(err)
		}
		if p.Status != 200 && p.URL != s.URL+"/30" {
			t.Errorf("%s: status %d", p.URL, p.Status)
		}
		n++
	}
	if n != 91 { // 30 chain pages with 2 leaves each, and the 404 at the end
		t.Errorf("iterated %d pages, want 91", n)
	}

	c = fast(nil)
	n = 0
	for range c.Pages(context.Background(), s.URL+"/0") {
		n++
		if n == 5 {
			break
		}
	}
	if st := c.Stats(); st.Fetched > 5+int64(c.Workers) || st.InFlight != 0 {
		t.Errorf("after break: %+v", st)
	}

	c = fast(nil)
	var last error
	for _, err := range c.Pages(context.Background(), "gopher://x/") {
		last = err
	}
	if last == nil {
		t.Error("bad seed: no error yielded")
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
	s := newSite(t, map[string]response{"/": {delay: 300 * time.Millisecond}})
	c := fast(nil)
	errc := make(chan error)
	go func() { errc <- c.Run(context.Background(), s.URL+"/") }()
	for c.Stats().Requests == 0 {
		runtime.Gosched()
	}
	if err := c.Run(context.Background(), s.URL+"/"); !errors.Is(err, crawler.ErrRunning) {
		t.Errorf("second Run = %v, want ErrRunning", err)
	}
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

// One product token serves robots.txt groups and X-Robots-Tag prefixes:
// for the User-Agent "My.Bot/1.0" it is "my", in both.
func TestProductTokenShared(t *testing.T) {
	s := newSite(t, map[string]response{
		"/robots.txt": {ctype: "text/plain", body: "User-agent: my\nDisallow: /blocked\n\nUser-agent: *\nDisallow: /\n"},
		"/":           {body: `<a href="/blocked">b</a><a href="/hdr">h</a>`},
		"/blocked":    html(),
		"/hdr":        {body: `<a href="/x">x</a>`, header: map[string]string{"X-Robots-Tag": "my: nofollow"}},
		"/x":          html(),
	})
	var got collect
	c := fast(&got)
	c.UserAgent = "My.Bot/1.0"
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if req := s.requests(); req["/"] != 1 || req["/hdr"] != 1 || req["/blocked"] != 0 || req["/x"] != 0 {
		t.Errorf("requests = %v: want the \"my\" group and the \"my:\" X-Robots-Tag obeyed", req)
	}
	if p := got.page(s.URL + "/hdr"); p == nil || !p.NoFollow {
		t.Errorf("/hdr: %+v, want NoFollow", p)
	}
}
