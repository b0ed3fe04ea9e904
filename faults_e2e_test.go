package crawler_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/traps"
)

// faultCrawler is where the fault tests make their Crawler: the crawler's
// own transport (NewTransport, with its header limit and transparent
// gzip) dialling nothing but the fault server, the default caps, no
// politeness delays, and one try per URL. It returns the fetcher too, for
// its timeout and to close its idle connections after Run.
func faultCrawler(s *crawlertest.FaultServer, h crawler.Handler) (*crawler.Crawler, *fetch.HTTPFetcher) {
	tr := fetch.NewTransport()
	tr.DialContext = s.DialContext
	f := &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}, Timeout: 10 * time.Second}
	c := &crawler.Crawler{
		Handler:    h,
		Fetcher:    f,
		Workers:    4,
		Pacing:     politeness.Pacing{Delay: -1, DelayFactor: -1, Backoff: -1, MaxRetryAfter: -1},
		MaxRetries: -1,
		Robots:     &politeness.RobotsCache{ErrorTTL: time.Millisecond},
	}
	return c, f
}

// goroutines returns the stack of every goroutine, by goroutine id.
func goroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	m := map[string]string{}
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		id, _, _ := strings.Cut(strings.TrimPrefix(g, "goroutine "), " ")
		m[id] = g
	}
	return m
}

// checkGoroutines fails t if goroutines that were not running in before
// (from goroutines) still run after a grace period of 5 s: goroutine ids
// are never reused, so any new id is a goroutine started since and left
// behind. It reports their stacks.
func checkGoroutines(t *testing.T, before map[string]string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var left []string
		now := goroutines()
		for id, stack := range now {
			if _, ok := before[id]; !ok {
				left = append(left, stack)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d goroutines started during the test still run (%d before, %d now):\n\n%s",
				len(left), len(before), len(now), strings.Join(left, "\n\n"))
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// faultRun is what a crawl of one fault left behind.
type faultRun struct {
	fault   crawlertest.Fault
	stats   crawler.Stats
	pages   *collect
	reqs    []string      // the fault server's log of the fault's hosts
	elapsed time.Duration // of Run
}

// count returns how many times the fault's own host was asked for
// target (a path and query as sent, "/caf%E9"), or, if target names a
// host ("[2001:db8::1]/a"), that host.
func (r *faultRun) count(target string) int {
	if strings.HasPrefix(target, "/") {
		target = string(r.fault) + ".faults.test" + target
	}
	n := 0
	for _, q := range r.reqs {
		if q == target {
			n++
		}
	}
	return n
}

// page returns the handled page of the fault's own host at path.
func (r *faultRun) page(path string) *crawler.Page {
	return r.pages.page("http://" + string(r.fault) + ".faults.test" + path)
}

// wantRequested fails t unless each target was requested exactly once.
func (r *faultRun) wantRequested(t *testing.T, targets ...string) {
	t.Helper()
	for _, target := range targets {
		if n := r.count(target); n != 1 {
			t.Errorf("%s requested %d times, want once (requests: %q)", target, n, r.reqs)
		}
	}
}

// wantNotRequested fails t if any target was requested.
func (r *faultRun) wantNotRequested(t *testing.T, targets ...string) {
	t.Helper()
	for _, target := range targets {
		if n := r.count(target); n != 0 {
			t.Errorf("%s requested %d times, want never", target, n)
		}
	}
}

// wantErrors fails t unless Stats.Errors is exactly want.
func (r *faultRun) wantErrors(t *testing.T, want map[string]int64) {
	t.Helper()
	if len(r.stats.Errors) != len(want) {
		t.Errorf("errors %s, want %v", r.stats.ErrorSummary(), want)
		return
	}
	for k, n := range want {
		if r.stats.Errors[k] != n {
			t.Errorf("errors %s, want %v", r.stats.ErrorSummary(), want)
			return
		}
	}
}

// errorOf returns the Err of the page at path, failing t if there is
// none.
func (r *faultRun) errorOf(t *testing.T, path string) error {
	t.Helper()
	p := r.page(path)
	if p == nil || p.Err == nil {
		t.Fatalf("page %s: %+v, want a failed fetch", path, p)
	}
	return p.Err
}

// TestFaultMatrix crawls each fault of crawlertest.FaultServer with the
// default caps and checks that the crawl finishes in time (the slow
// faults within 5 s of a 300 ms fetch timeout), counts the fault under
// the kind or counter its row names, and leaves no goroutine behind once
// its idle connections and the server are closed.
func TestFaultMatrix(t *testing.T) {
	const slowTimeout = 300 * time.Millisecond // fetch timeout for the slow faults
	tests := []struct {
		fault     crawlertest.Fault
		configure func(*crawler.Crawler, *fetch.HTTPFetcher)
		check     func(*testing.T, *faultRun)
	}{
		{crawlertest.SlowBody, func(_ *crawler.Crawler, f *fetch.HTTPFetcher) { f.Timeout = slowTimeout }, func(t *testing.T, r *faultRun) {
			r.wantErrors(t, map[string]int64{fetch.KindTimeout: 1})
			if fe, ok := errors.AsType[*fetch.FetchError](r.errorOf(t, "/")); !ok || fe.Op != "read body" || !fe.Timeout() {
				t.Errorf("error %v, want a timeout reading the body", fe)
			}
			if r.elapsed > 5*time.Second { // the whole slow body takes 20 s
				t.Errorf("crawl took %v with a fetch timeout of %v", r.elapsed, slowTimeout)
			}
		}},
		{crawlertest.NoAnswer, func(c *crawler.Crawler, f *fetch.HTTPFetcher) {
			f.Timeout = slowTimeout
			c.IgnoreRobots = true // else robots.txt times out, and the host is deferred instead
		}, func(t *testing.T, r *faultRun) {
			r.wantErrors(t, map[string]int64{fetch.KindTimeout: 1})
			r.wantRequested(t, "no-answer.faults.test (connection)")
			if r.elapsed > 5*time.Second { // it would wait forever
				t.Errorf("crawl took %v with a fetch timeout of %v", r.elapsed, slowTimeout)
			}
		}},
		{crawlertest.ConnReset, nil, func(t *testing.T, r *faultRun) {
			r.wantErrors(t, map[string]int64{fetch.KindReset: 1})
			if err := r.errorOf(t, "/"); !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("error %v, want ECONNRESET", err)
			}
			r.wantNotRequested(t, "/never")
		}},
		{crawlertest.TruncatedBody, nil, func(t *testing.T, r *faultRun) {
			r.wantErrors(t, map[string]int64{fetch.KindReset: 1})
			if err := r.errorOf(t, "/"); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("error %v, want an unexpected EOF", err)
			}
			r.wantNotRequested(t, "/never")
		}},
		{crawlertest.LyingLength, nil, func(t *testing.T, r *faultRun) {
			// /over claims 1 GiB and ends early; /under claims 16 bytes,
			// which is all that is read.
			r.wantErrors(t, map[string]int64{fetch.KindReset: 1})
			if err := r.errorOf(t, "/over"); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("/over: error %v, want an unexpected EOF", err)
			}
			if p := r.page("/under"); p == nil || p.Status != 200 || len(p.Body) != 16 {
				t.Errorf("/under: %+v, want 200 and the 16 bytes announced", p)
			}
			r.wantNotRequested(t, "/never")
		}},
		{crawlertest.GzipBomb, nil, func(t *testing.T, r *faultRun) {
			r.wantErrors(t, map[string]int64{})
			p := r.page("/")
			if p == nil || !p.Truncated || len(p.Body) != fetch.DefaultMaxBodyBytes || !slices.Contains(p.Links, "http://gzip-bomb.faults.test/inside") {
				t.Fatalf("/: %d bytes, truncated %v, links %q; want the cap, truncated, and the link to /inside", len(p.Body), p.Truncated, p.Links)
			}
			// The inflated spaces are text, read in place: the body is
			// cut, its links are not.
			if r.stats.Truncated != 1 || r.stats.LinksTruncated != 0 {
				t.Errorf("Truncated %d, LinksTruncated %d; want 1, 0", r.stats.Truncated, r.stats.LinksTruncated)
			}
			r.wantRequested(t, "/inside")
		}},
		{crawlertest.EndlessBody, nil, func(t *testing.T, r *faultRun) {
			r.wantErrors(t, map[string]int64{})
			if p := r.page("/"); p == nil || !p.Truncated || len(p.Body) != fetch.DefaultMaxBodyBytes {
				t.Errorf("/: %+v, want the body cut at the cap", p)
			}
			if r.stats.Truncated != 1 || r.stats.LinksTruncated != 0 {
				t.Errorf("Truncated %d, LinksTruncated %d; want 1, 0", r.stats.Truncated, r.stats.LinksTruncated)
			}
			r.wantRequested(t, "/inside")
		}},
		{crawlertest.RedirectLoop, nil, func(t *testing.T, r *faultRun) {
			// The seen-set closes the loops: /a -> /b is followed, /b ->
			// /a and /self -> /self are targets already seen.
			r.wantErrors(t, map[string]int64{})
			r.wantRequested(t, "/", "/a", "/b", "/self")
			if r.stats.Redirects != 3 || r.stats.Duplicates < 2 {
				t.Errorf("Redirects %d, Duplicates %d; want 3, at least 2", r.stats.Redirects, r.stats.Duplicates)
			}
		}},
		{crawlertest.RedirectChain, nil, func(t *testing.T, r *faultRun) {
			r.wantErrors(t, map[string]int64{crawler.KindTooManyRedirects: 1})
			if r.stats.Requests != crawler.DefaultMaxRedirects+1 || r.stats.Redirects != crawler.DefaultMaxRedirects {
				t.Errorf("%d requests, %d redirects followed; want %d, %d", r.stats.Requests, r.stats.Redirects,
					crawler.DefaultMaxRedirects+1, crawler.DefaultMaxRedirects)
			}
			r.wantNotRequested(t, "/hop/11", "/end")
		}},
		{crawlertest.ServerErrors, func(c *crawler.Crawler, _ *fetch.HTTPFetcher) { c.MaxRetries = 0 }, func(t *testing.T, r *faultRun) {
			checkStorm(t, r, 500, 502, 503, 504)
		}},
		{crawlertest.TooManyRequests, func(c *crawler.Crawler, _ *fetch.HTTPFetcher) {
			c.MaxRetries = 0                               // the default: 2 more tries
			c.Pacing.MaxRetryAfter = 20 * time.Millisecond // caps the Retry-After: 3600 of every 429
		}, func(t *testing.T, r *faultRun) {
			checkStorm(t, r, 429)
			if r.elapsed > 10*time.Second {
				t.Errorf("crawl took %v: Retry-After: 3600 was not capped at MaxRetryAfter", r.elapsed)
			}
		}},
		{crawlertest.InvalidUTF8, nil, func(t *testing.T, r *faultRun) {
			// Bytes that are not UTF-8 are percent-encoded as they are.
			r.wantErrors(t, map[string]int64{})
			r.wantRequested(t, "/caf%E9", "/%FF%FE", "/ok%C3(", "/?q=%80")
			if r.stats.BadLinks != 0 || r.stats.Status[200] != 5 {
				t.Errorf("BadLinks %d, 200s %d; want 0, 5", r.stats.BadLinks, r.stats.Status[200])
			}
		}},
		{crawlertest.WrongCharset, nil, func(t *testing.T, r *faultRun) {
			// The crawler reads hrefs as bytes whatever the label says, so
			// an ASCII-compatible page works and a UTF-16 one has no
			// links it can see.
			r.wantErrors(t, map[string]int64{})
			r.wantRequested(t, "/latin1", "/utf16", "/sjis", "/bogus", "/na%EFve", "/%93%FA%96%7B", "/bogus-ok")
			r.wantNotRequested(t, "/from-utf16")
		}},
		{crawlertest.UnclosedTags, nil, func(t *testing.T, r *faultRun) {
			r.wantErrors(t, map[string]int64{})
			r.wantRequested(t, "/u/1", "/u/2", "/u/3", "/u/4")
			r.wantNotRequested(t, "/u/5", "/hidden")
		}},
		{crawlertest.HugeAttribute, nil, func(t *testing.T, r *faultRun) {
			// A megabyte token costs its bytes only: the links after
			// it are followed too, and in the tag of many attributes
			// the href is found.
			r.wantErrors(t, map[string]int64{})
			r.wantRequested(t, "/before", "/attrs", "/after", "/spam", "/after-attrs")
			if r.stats.LinksTruncated != 0 {
				t.Errorf("LinksTruncated %d, want 0", r.stats.LinksTruncated)
			}
		}},
		{crawlertest.ManyLinks, func(c *crawler.Crawler, _ *fetch.HTTPFetcher) { c.Scope = seedsOnly }, func(t *testing.T, r *faultRun) {
			r.wantErrors(t, map[string]int64{})
			if p := r.page("/"); p == nil || !p.Truncated || len(p.Links) != crawler.DefaultMaxLinksPerPage {
				t.Fatalf("/: %d links, want the cap %d", len(p.Links), crawler.DefaultMaxLinksPerPage)
			}
			st := r.stats
			if st.Truncated != 1 || st.LinksTruncated != 1 || st.OutOfScope != crawler.DefaultMaxLinksPerPage || st.Requests != 1 {
				t.Errorf("Truncated %d, LinksTruncated %d, OutOfScope %d, Requests %d; want 1, 1, %d, 1",
					st.Truncated, st.LinksTruncated, st.OutOfScope, st.Requests, crawler.DefaultMaxLinksPerPage)
			}
		}},
		{crawlertest.ControlChars, nil, func(t *testing.T, r *faultRun) {
			// Tabs, newlines and surrounding controls are removed, others
			// escaped, as browsers do (HTML makes NUL U+FFFD); a control
			// in a host is a bad link.
			r.wantErrors(t, map[string]int64{})
			r.wantRequested(t, "/c/tabx", "/c/nlx", "/c/lead", "/c/del%7Fx", "/c/nul%EF%BF%BDx", "/c/bell%07x", "/c/space")
			if r.stats.BadLinks != 1 || r.stats.OtherSchemes != 1 {
				t.Errorf("BadLinks %d, OtherSchemes %d; want 1 (the host), 1 (java\\tscript:)", r.stats.BadLinks, r.stats.OtherSchemes)
			}
		}},
		{crawlertest.LongURLs, nil, func(t *testing.T, r *faultRun) {
			// The 64 KiB href is dropped unread, the 4 KiB one by
			// MaxURLLength; the 64 KiB Location is no usable target.
			r.wantErrors(t, map[string]int64{crawler.KindBadRedirect: 1})
			if n := r.stats.Traps[traps.URLLength]; n != 2 {
				t.Errorf("Traps[url-length] = %d, want 2", n)
			}
			r.wantRequested(t, "/ok", "/redirect")
			if r.stats.Requests != 3 {
				t.Errorf("%d requests, want 3 (/, /ok, /redirect)", r.stats.Requests)
			}
		}},
		{crawlertest.BadPercent, nil, func(t *testing.T, r *faultRun) {
			// A '%' not starting a valid escape is escaped itself.
			r.wantErrors(t, map[string]int64{})
			r.wantRequested(t, "/%25zz", "/%25", "/%254", "/p%E9%25", "/%2500", "/a%2Fb", "/?q=%25zz&r=%25", "/%00", "/%C3%A9")
			if r.stats.Status[200] != 10 {
				t.Errorf("%d 200s, want 10", r.stats.Status[200])
			}
		}},
		{crawlertest.IDNHosts, nil, func(t *testing.T, r *faultRun) {
			r.wantErrors(t, map[string]int64{})
			const d = ".idn-hosts.faults.test/"
			r.wantRequested(t, "xn--bcher-kva"+d, "xn--bcher-kva"+d+"a", "xn--bcher-kva"+d+"b", "xn--wgv71a119e"+d,
				"xn--strae-oqa"+d, "ab"+d, "xn--n3h"+d)
			if r.stats.BadLinks != 1 || r.stats.Hosts != 6 {
				t.Errorf("BadLinks %d, Hosts %d; want 1 (xn--zz), 6", r.stats.BadLinks, r.stats.Hosts)
			}
		}},
		{crawlertest.IPv6Hosts, func(_ *crawler.Crawler, f *fetch.HTTPFetcher) {
			// The fault's hosts are literals of the documentation range,
			// which the default AddressPolicy refuses (ssrf_test.go checks
			// that); the fault server's dialer takes them to its loopback.
			f.Addresses.Allow = []netip.Prefix{netip.MustParsePrefix("2001:db8::/32")}
		}, func(t *testing.T, r *faultRun) {
			r.wantErrors(t, map[string]int64{})
			r.wantRequested(t, "[2001:db8::1]/", "[2001:db8::1]/a", "[2001:db8::2]/b")
			if r.stats.BadLinks != 2 {
				t.Errorf("BadLinks %d, want 2 (an unclosed literal, a zone)", r.stats.BadLinks)
			}
		}},
		{crawlertest.OtherSchemes, nil, func(t *testing.T, r *faultRun) {
			r.wantErrors(t, map[string]int64{})
			r.wantRequested(t, "/", "/ok")
			if r.stats.OtherSchemes != 8 || r.stats.BadLinks != 0 || r.stats.Requests != 2 {
				t.Errorf("OtherSchemes %d, BadLinks %d, Requests %d; want 8, 0, 2", r.stats.OtherSchemes, r.stats.BadLinks, r.stats.Requests)
			}
		}},
		{crawlertest.HugeHeader, nil, func(t *testing.T, r *faultRun) {
			r.wantErrors(t, map[string]int64{fetch.KindHeaderTooLarge: 1})
		}},
		{crawlertest.HugeRobots, nil, func(t *testing.T, r *faultRun) {
			// The rule at the start applies; the one past 500 KiB does not.
			r.wantErrors(t, map[string]int64{})
			r.wantRequested(t, "/robots.txt", "/late", "/p/1")
			r.wantNotRequested(t, "/early")
			if r.stats.RobotsBlocked != 1 {
				t.Errorf("RobotsBlocked %d, want 1", r.stats.RobotsBlocked)
			}
		}},
		{crawlertest.BinaryRobots, nil, checkNoRobotsRules},
		{crawlertest.HTMLRobots, nil, checkNoRobotsRules},
	}

	tested := map[crawlertest.Fault]bool{}
	for _, tt := range tests {
		tested[tt.fault] = true
		t.Run(string(tt.fault), func(t *testing.T) {
			before := goroutines()
			s := crawlertest.NewFaultServer(crawlertest.FaultConfig{SlowInterval: 20 * time.Millisecond})
			pages := new(collect)
			c, f := faultCrawler(s, pages)
			if tt.configure != nil {
				tt.configure(c, f)
			}
			// A hang fails the test here rather than at the test binary's
			// timeout. The bound is loose: under -race on a loaded
			// machine, extracting the links of a 10 MiB page has taken
			// 35 s, against 3 s as a rule (and 0.4 s without -race).
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			start := time.Now()
			err := c.Run(ctx, s.URL(tt.fault))
			elapsed := time.Since(start)
			cancel()
			// A fault that lets no response through yields no page:
			// that is Run's error, checked below.
			noPages := errors.Is(err, crawler.ErrNoPages)
			if noPages {
				err = nil
			}
			if err != nil {
				var stacks []string
				for _, stack := range goroutines() {
					stacks = append(stacks, stack)
				}
				t.Logf("goroutines when Run returned:\n\n%s", strings.Join(stacks, "\n\n"))
			}
			f.CloseIdleConnections()
			s.Close()
			checkGoroutines(t, before)
			if err != nil {
				t.Fatalf("Run: %v after %v", err, elapsed)
			}
			r := &faultRun{fault: tt.fault, stats: c.Stats(), pages: pages, reqs: s.Requests(tt.fault), elapsed: elapsed}
			if noPages != (r.stats.Fetched == 0) {
				t.Errorf("Run's error is ErrNoPages: %v, with %d responses", noPages, r.stats.Fetched)
			}
			if n := r.stats.Errors[crawler.KindHandler]; n != 0 {
				t.Errorf("%d handler errors: a page was handled twice", n)
			}
			tt.check(t, r)
			if t.Failed() {
				type fields crawler.Stats // without String, to print every field
				t.Logf("stats: %+v", fields(r.stats))
			}
		})
	}
	for _, f := range crawlertest.Faults() {
		if !tested[f] {
			t.Errorf("fault %s is not in the matrix", f)
		}
	}
}

// checkStorm checks a crawl of a host whose pages all fail with one of
// statuses: after politeness.DefaultMaxFailures failures in a row the host is
// retired, and its other pages reach the handler unfetched.
func checkStorm(t *testing.T, r *faultRun, statuses ...int) {
	t.Helper()
	st := r.stats
	var failed int64
	for _, code := range statuses {
		failed += st.Status[code]
	}
	if st.HostsRetired != 1 || failed != politeness.DefaultMaxFailures || st.Requests != 1+politeness.DefaultMaxFailures {
		t.Errorf("HostsRetired %d, %d failed responses, %d requests; want 1, %d, %d",
			st.HostsRetired, failed, st.Requests, politeness.DefaultMaxFailures, 1+politeness.DefaultMaxFailures)
	}
	if st.Retries == 0 {
		t.Error("no retries: failed URLs are tried again before the host is retired")
	}
	retired := 0
	for i := 1; i <= crawlertest.FaultStormPages; i++ {
		p := r.page("/p/" + strconv.Itoa(i))
		switch {
		case p == nil:
			t.Errorf("page /p/%d never reached the handler", i)
		case errors.Is(p.Err, politeness.ErrHostRetired):
			retired++
		case !slices.Contains(statuses, p.Status):
			t.Errorf("page /p/%d: status %d, err %v", i, p.Status, p.Err)
		}
	}
	if int64(retired) != st.Errors[crawler.KindHostRetired] || retired < crawlertest.FaultStormPages-politeness.DefaultMaxFailures {
		t.Errorf("%d pages retired unfetched, Errors[host-retired] = %d", retired, st.Errors[crawler.KindHostRetired])
	}
}

// checkNoRobotsRules checks a crawl of a host whose robots.txt is not a
// robots.txt: it has no rules, so every page is fetched.
func checkNoRobotsRules(t *testing.T, r *faultRun) {
	t.Helper()
	r.wantErrors(t, map[string]int64{})
	r.wantRequested(t, "/robots.txt", "/early", "/late", "/p/1")
	if r.stats.RobotsFetched != 1 || r.stats.RobotsBlocked != 0 {
		t.Errorf("RobotsFetched %d, RobotsBlocked %d; want 1, 0", r.stats.RobotsFetched, r.stats.RobotsBlocked)
	}
}
