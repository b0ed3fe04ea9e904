package crawler_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/internal/leak"
	"crawler/politeness"
)

// Misbehaving hosts of the politeness web, by host index.
const (
	hostRobots401      = 1
	hostRobots403      = 2
	hostRobots500      = 4
	hostRobots503      = 5
	hostRobotsHops     = 6  // 3 redirects: the rules apply
	hostRobotsManyHops = 8  // 7 redirects: no restrictions
	hostRobotsLoop     = 9  // no restrictions
	hostRobotsHuge     = 10 // 600 KiB, rules first
	hostRobotsSlow     = 12
	hostThrottled      = 13 // every 4th page request: 429, Retry-After: 1
	hostSlowingDown    = 14 // each page request slower than the last
	hostFailing        = 16 // every page 500
)

func politenessWeb() *crawlertest.Web {
	return crawlertest.NewWeb(crawlertest.Config{
		Seed: 11, Hosts: 18, PagesPerHost: 3, PageBytes: 1024, MaxChain: 4, Log: true,
		Behavior: func(h int) crawlertest.Behavior {
			switch h {
			case hostRobots401:
				return crawlertest.Behavior{RobotsStatus: 401}
			case hostRobots403:
				return crawlertest.Behavior{RobotsStatus: 403}
			case hostRobots500:
				return crawlertest.Behavior{RobotsStatus: 500}
			case hostRobots503:
				return crawlertest.Behavior{RobotsStatus: 503}
			case hostRobotsHops:
				return crawlertest.Behavior{RobotsRedirects: 3}
			case hostRobotsManyHops:
				return crawlertest.Behavior{RobotsRedirects: 7}
			case hostRobotsLoop:
				return crawlertest.Behavior{RobotsLoop: true}
			case hostRobotsHuge:
				return crawlertest.Behavior{RobotsPadding: 600 << 10}
			case hostRobotsSlow:
				return crawlertest.Behavior{RobotsLatency: 100 * time.Millisecond}
			case hostThrottled:
				return crawlertest.Behavior{ThrottleEvery: 4, RetryAfter: "1"}
			case hostSlowingDown:
				return crawlertest.Behavior{SlowDown: 3 * time.Millisecond}
			case hostFailing:
				return crawlertest.Behavior{PageStatus: 500}
			}
			return crawlertest.Behavior{}
		},
	})
}

func hostName(i int) string { return "h" + strconv.Itoa(i) + ".crawler.test" }

// TestPolitenessOnMisbehavingWeb crawls a web whose hosts answer robots.txt
// with 4xx, 5xx, redirects, loops, an oversized or a slow file, throttle
// with 429 and Retry-After, slow down under load, or fail every page, and
// checks the server's own timestamped request log: no request breaks a
// host's robots rules or its pacing, every page a compliant crawler must
// fetch was fetched, and every URL the crawl could not fetch reached the
// handler with the reason.
func TestPolitenessOnMisbehavingWeb(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out Retry-After: 1, slow robots.txt and each host's pacing in real time: about 3 s")
	}
	leak.Check(t)
	w := politenessWeb()
	defer w.Close()
	const (
		delay       = 10 * time.Millisecond
		factor      = 5.0
		maxFailures = 3
	)
	got := new(collect)
	c := &crawler.Crawler{
		Handler: got,
		Fetcher: &fetch.HTTPFetcher{Client: w.Client()},
		Workers: 16,
		Pacing:  politeness.Pacing{Delay: delay, DelayFactor: factor, Backoff: 5 * time.Millisecond, MaxFailures: maxFailures},
		Robots:  &politeness.RobotsCache{ErrorTTL: 5 * time.Millisecond},
	}
	start := time.Now()
	if err := c.Run(context.Background(), w.Seeds()...); err != nil {
		t.Fatal(err)
	}
	t.Logf("crawl took %v: %v", time.Since(start).Round(time.Millisecond), c.Stats())

	log := w.Log()
	byHost := map[string][]crawlertest.LoggedRequest{}
	for _, r := range log {
		if r.Host == "" {
			t.Fatalf("request for a host outside the web: %+v", r)
		}
		byHost[r.Host] = append(byHost[r.Host], r)
	}

	// Robots rules: nothing disallowed, nothing on a host before its
	// robots.txt, nothing but robots.txt on a host whose file failed.
	disallowed := map[string]bool{}
	for _, u := range w.Disallowed() {
		disallowed[u] = true
	}
	unreachable := w.Unreachable()
	for host, rs := range byHost {
		if !rs[0].Robots {
			t.Errorf("%s: first request %s is not robots.txt", host, rs[0].Target)
		}
		for _, r := range rs {
			if !r.Robots && disallowed[r.URL] {
				t.Errorf("%s: requested %s, which its robots.txt disallows", host, r.URL)
			}
		}
	}
	for _, h := range []int{hostRobots500, hostRobots503} {
		rs := byHost[hostName(h)]
		if len(rs) != maxFailures {
			t.Errorf("%s (robots.txt %v): %d requests, want robots.txt %d times and nothing else", hostName(h), rs[0].Status, len(rs), maxFailures)
		}
		for _, r := range rs {
			if !r.Robots {
				t.Errorf("%s: requested %s although robots.txt is unavailable", hostName(h), r.Target)
			}
		}
	}

	// Pacing: per host, one request at a time; between the end of one and
	// the start of the next at least the delay, DelayFactor times the
	// first's response time, and what a Retry-After asked for. The hops of
	// one robots.txt fetch follow each other at once.
	for host, rs := range byHost {
		for i := 1; i < len(rs); i++ {
			a, b := rs[i-1], rs[i]
			gap := b.Start.Sub(a.End)
			if gap < 0 {
				t.Errorf("%s: %s started before %s ended: two requests at once", host, b.Target, a.Target)
				continue
			}
			if a.Robots && b.Robots && a.Status/100 == 3 {
				continue // a redirect hop of the same robots.txt fetch
			}
			want := max(delay, time.Duration(factor*float64(a.End.Sub(a.Start))))
			if a.Status == http.StatusTooManyRequests {
				want = max(want, time.Second)
			}
			if gap < want {
				t.Errorf("%s: %s %v after %s (status %d, took %v): want at least %v",
					host, b.Target, gap, a.Target, a.Status, a.End.Sub(a.Start), want)
			}
		}
	}

	// The slowing host: the delay grew with its response time. Page
	// request k waits k*3ms, so the gap after the last but one is at least
	// factor times that: well above the base delay once k >= 4. (The first
	// gap is no measure to compare with: it also waits for the crawl to
	// find the host's second URL, which on loaded cores took 108ms.)
	slow := byHost[hostName(hostSlowingDown)]
	var pages []crawlertest.LoggedRequest
	for _, r := range slow {
		if !r.Robots {
			pages = append(pages, r)
		}
	}
	if n := len(pages); n < 6 {
		t.Fatalf("slowing host: only %d page requests", n)
	}
	lastGap := pages[len(pages)-1].Start.Sub(pages[len(pages)-2].End)
	if grown := time.Duration(factor * float64(3*time.Millisecond) * float64(len(pages)-2)); lastGap < grown {
		t.Errorf("slowing host: last gap %v after %d pages, want at least %v (%v x %d x 3ms): the delay did not grow with the response time",
			lastGap, len(pages), grown, factor, len(pages)-2)
	}
	hs := hostStats(c, hostName(hostSlowingDown))
	if hs.Delay < time.Duration(factor*float64(pages[len(pages)-1].End.Sub(pages[len(pages)-1].Start))) {
		t.Errorf("slowing host: HostStats.Delay %v below %v x the last response time", hs.Delay, factor)
	}

	// The throttled host: every 429 was retried (after its Retry-After, as
	// checked above) and every page of the host was had in the end.
	throttled := 0
	for _, r := range byHost[hostName(hostThrottled)] {
		if r.Status == http.StatusTooManyRequests {
			throttled++
		}
	}
	if throttled == 0 {
		t.Error("throttled host: no 429 answered; the test does not test Retry-After")
	}

	// Completeness: every URL a compliant crawler fetches was fetched,
	// except on the failing host, given up after maxFailures.
	requested := map[string]int{}
	for _, r := range log {
		if !r.Robots {
			requested[r.URL]++
		}
	}
	failing := hostName(hostFailing)
	for u := range w.Depths() {
		if strings.Contains(u, "://"+failing+"/") {
			continue
		}
		if requested[u] == 0 {
			t.Errorf("%s never requested", u)
		}
	}
	failingPages := 0
	for _, r := range byHost[failing] {
		if !r.Robots {
			failingPages++
		}
	}
	if failingPages != maxFailures {
		t.Errorf("failing host: %d page requests, want %d before it is retired", failingPages, maxFailures)
	}

	// No lost work: each URL on a retired host reached the handler with
	// the reason.
	for u := range w.Depths() {
		if p := got.page(u); p == nil {
			t.Errorf("%s: not handed to the handler", u)
		}
	}
	for _, u := range unreachable {
		p := got.page(u)
		if p == nil || !errors.Is(p.Err, politeness.ErrHostRetired) || !errors.Is(p.Err, politeness.ErrRobotsUnavailable) {
			t.Errorf("unreachable %s: handler got %+v, want ErrHostRetired wrapping ErrRobotsUnavailable", u, p)
		}
	}

	st := c.Stats()
	if st.HostsRetired != 3 || st.Retries < int64(throttled) {
		t.Errorf("stats: %d hosts retired (want 3), %d retries (want >= %d)", st.HostsRetired, st.Retries, throttled)
	}
	for _, h := range []int{hostRobots500, hostRobots503, hostFailing} {
		if hs := hostStats(c, hostName(h)); hs.Retired == "" || hs.Failures < maxFailures {
			t.Errorf("%s: HostStats %+v, want retired", hostName(h), hs)
		}
	}
	for _, h := range []int{hostRobots401, hostRobots403, hostRobotsManyHops, hostRobotsLoop} {
		if hs := hostStats(c, hostName(h)); hs.Retired != "" || hs.Requests == 0 {
			t.Errorf("%s: HostStats %+v, want crawled", hostName(h), hs)
		}
	}
}

func hostStats(c *crawler.Crawler, host string) politeness.HostStats {
	all := c.HostStats()
	i := slices.IndexFunc(all, func(s politeness.HostStats) bool { return s.Host == host })
	if i < 0 {
		return politeness.HostStats{}
	}
	return all[i]
}

// MaxRate bounds the requests per second of the whole crawl, across hosts,
// robots.txt included: by the server's log, any k+1 consecutive requests
// span at least k-5 intervals. The slack is for the time a worker takes to
// send what the scheduler handed out: a request that a loaded machine
// holds up for 50 ms arrives that much closer to those after it. A crawl
// without the bound sends these 21 requests within a few milliseconds.
func TestMaxRate(t *testing.T) {
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 5, Hosts: 8, PagesPerHost: 2, MaxChain: 2, Log: true})
	defer w.Close()
	const rate = 100.0
	interval := time.Duration(float64(time.Second) / rate)
	c, _ := crawlWeb(t, w, func(c *crawler.Crawler) { c.MaxRate = rate; c.MaxPages = 60 })
	log := w.Log()
	if len(log) < 60 || c.Stats().Requests != 60 {
		t.Fatalf("%d requests logged, %d pages", len(log), c.Stats().Requests)
	}
	const k = 20
	for i := 0; i+k < len(log); i++ {
		if span := log[i+k].Start.Sub(log[i].Start); span < (k-5)*interval {
			t.Errorf("requests %d..%d within %v: more than %v/s", i, i+k, span, rate)
		}
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
	if err := c.Run(context.Background(), s.URL+"/"); !errors.Is(err, crawler.ErrNoPages) || !errors.Is(err, politeness.ErrHostRetired) {
		t.Fatalf("Run = %v; want ErrNoPages, the seed's host retired", err)
	}
	if req := s.requests(); req["/"] != 0 || req["/robots.txt"] != 3 {
		t.Errorf("requests = %v: want robots.txt 3 times, then the host retired, no page fetched", req)
	}
	st := c.Stats()
	if st.Errors[crawler.KindRobotsUnavailable] != 3 || st.Errors[crawler.KindHostRetired] != 1 || st.HostsRetired != 1 {
		t.Errorf("stats = %+v", st)
	}
	p := got.page(s.URL + "/")
	if p == nil || !errors.Is(p.Err, politeness.ErrHostRetired) || !strings.Contains(p.Err.Error(), "3 failures in a row") {
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

	// A redirect that cannot be followed is one request, then no
	// restrictions (RFC 9309: unavailable), not a fetch failure.
	for _, robots := range []response{redirect(302, "http://%zz/"), {status: 302}, redirect(301, "http://[::1")} {
		s := newSite(t, map[string]response{"/robots.txt": robots, "/": html("/private"), "/private": html()})
		c := fast(nil)
		if err := c.Run(context.Background(), s.URL+"/"); err != nil {
			t.Fatal(err)
		}
		if got := s.requests(); got["/robots.txt"] != 1 || got["/private"] != 1 || len(got) != 3 {
			t.Errorf("robots.txt redirected to %q: requests = %v, want robots.txt once, then no restrictions", robots.header["Location"], got)
		}
		if st := c.Stats(); len(st.Errors) != 0 || st.HostsRetired != 0 {
			t.Errorf("robots.txt redirected to %q: errors %v, %d hosts retired; want none", robots.header["Location"], st.Errors, st.HostsRetired)
		}
	}
}

// A redirect whose Location does not parse is the page's bad-redirect
// outcome: one request, no retry, no failure of its host.
func TestBadRedirectLocation(t *testing.T) {
	s := newSite(t, map[string]response{"/": html("/bad", "/ok"), "/bad": redirect(302, "http://%zz/"), "/ok": html()})
	var got collect
	c := fast(&got)
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	p := got.page(s.URL + "/bad")
	if p == nil || !errors.Is(p.Err, crawler.ErrBadRedirect) || p.Status != 302 {
		t.Fatalf("/bad: %+v, want status 302 and ErrBadRedirect", p)
	}
	st := c.Stats()
	if s.count("/bad") != 1 || st.Retries != 0 || st.HostsRetired != 0 || st.Errors[crawler.KindBadRedirect] != 1 || len(st.Errors) != 1 {
		t.Errorf("/bad requested %d times; stats %+v; want once, one bad-redirect error and nothing else", s.count("/bad"), st)
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

// A host retired by a failure ends the URLs it has left at once, as
// host-retired, rather than holding the crawl for its backoff (here ten
// minutes, where the default grows to ten minutes too after five
// failures): the crawl ends within its deadline, every page of the host
// accounted for.
func TestRetiredHostEndsAtOnce(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/":
			fmt.Fprint(w, `<a href="/fail">f</a> <a href="/b">b</a> <a href="/c">c</a> <a href="/d">d</a>`)
		case "/fail":
			http.Error(w, "down", http.StatusInternalServerError)
		default:
			fmt.Fprint(w, "a page")
		}
	}))
	defer srv.Close()
	var col collect
	c := fast(&col)
	c.Workers = 1
	c.Pacing.Backoff, c.Pacing.MaxBackoff, c.Pacing.MaxFailures = 10*time.Minute, 10*time.Minute, 1
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Run(ctx, srv.URL+"/"); err != nil {
		t.Fatalf("Run: %v; want the crawl ended, not held for the retired host's backoff", err)
	}
	if st := c.Stats(); st.Errors[crawler.KindHostRetired] != 3 {
		t.Errorf("errors %v; want the 3 pages left as host-retired", st.Errors)
	}
}
