package crawler_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
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

	// The slowing host: the delay grew with its response time.
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
	firstGap := pages[1].Start.Sub(pages[0].End)
	lastGap := pages[len(pages)-1].Start.Sub(pages[len(pages)-2].End)
	if lastGap < 3*firstGap || lastGap < time.Duration(factor*float64(3*time.Millisecond)*float64(len(pages)-2)) {
		t.Errorf("slowing host: first gap %v, last gap %v: the delay did not grow with the response time", firstGap, lastGap)
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
		if p == nil || !errors.Is(p.Err, crawler.ErrHostRetired) || !errors.Is(p.Err, politeness.ErrRobotsUnavailable) {
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

func hostStats(c *crawler.Crawler, host string) crawler.HostStats {
	all := c.HostStats()
	i := slices.IndexFunc(all, func(s crawler.HostStats) bool { return s.Host == host })
	if i < 0 {
		return crawler.HostStats{}
	}
	return all[i]
}

// MaxRate bounds the requests per second of the whole crawl, across hosts,
// robots.txt included: by the server's log, any k+1 consecutive requests
// span at least k-2 intervals (two intervals of slack for the time a worker
// takes to send what the scheduler handed out).
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
		if span := log[i+k].Start.Sub(log[i].Start); span < (k-2)*interval {
			t.Errorf("requests %d..%d within %v: more than %v/s", i, i+k, span, rate)
		}
	}
}
