package crawler_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"crawler"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/seen"
)

// total returns the requests the site has had, robots.txt included.
func (s *site) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.order)
}

// waitFor polls cond every few milliseconds for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// slowChain is a chain site whose pages take a few milliseconds each, so
// that a crawl of it can be watched and steered while it runs.
func slowChain(t *testing.T, n int, delay time.Duration) *site {
	pages := chainPages(n)
	for k, r := range pages {
		r.delay = delay
		pages[k] = r
	}
	return newSite(t, pages)
}

func TestPauseStopsFetchingUntilResume(t *testing.T) {
	s := slowChain(t, 60, 3*time.Millisecond)
	c := fast(nil)
	c.Workers = 2
	done := make(chan error, 1)
	go func() { done <- c.Run(context.Background(), s.URL+"/0") }()

	waitFor(t, "10 requests", func() bool { return s.total() >= 10 })
	c.Pause()
	if !c.Paused() {
		t.Fatal("Paused() = false after Pause")
	}
	waitFor(t, "the fetches in flight to end", func() bool { return c.Stats().InFlight == 0 })
	at := s.total()
	time.Sleep(200 * time.Millisecond)
	if n := s.total(); n != at {
		t.Fatalf("paused with nothing in flight, the server still got %d requests", n-at)
	}
	select {
	case err := <-done:
		t.Fatalf("a paused Run returned: %v", err)
	default:
	}
	c.Resume()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, want := len(s.requests()), 3*60+1+1; got != want { // the pages, /60 (a 404) and robots.txt
		t.Errorf("after Resume the crawl fetched %d distinct paths, want %d", got, want)
	}
}

func TestPausedBeforeRunStartsPaused(t *testing.T) {
	s := chainSite(t, 3)
	c := fast(nil)
	c.Pause()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, s.URL+"/0") }()
	time.Sleep(100 * time.Millisecond)
	if n := s.total(); n != 0 {
		t.Fatalf("a Crawler paused before Run sent %d requests", n)
	}
	cancel() // a paused Run still stops when told
	var stopped *crawler.StoppedError
	if err := <-done; !errors.As(err, &stopped) || stopped.Frontier != 1 {
		t.Fatalf("Run = %v, want a StoppedError with the seed left", err)
	}
	c.Resume()
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := s.count("/2/y"); n != 1 {
		t.Errorf("the resumed crawl fetched /2/y %d times, want 1", n)
	}
}

func TestRetireHost(t *testing.T) {
	a := slowChain(t, 40, 2*time.Millisecond)
	b := slowChain(t, 40, 2*time.Millisecond)
	var pages collect
	c := fast(&pages)
	c.Workers = 2
	bHost := strings.TrimPrefix(b.URL, "http://")
	if _, err := c.RetireHost(bHost, ""); !errors.Is(err, crawler.ErrNotRunning) {
		t.Fatalf("RetireHost before Run = %v, want ErrNotRunning", err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(context.Background(), a.URL+"/0", b.URL+"/0") }()

	waitFor(t, "5 requests to b", func() bool { return b.total() >= 5 })
	if ok, err := c.RetireHost(bHost, "too slow"); !ok || err != nil {
		t.Fatalf("RetireHost = %v, %v; want true, nil", ok, err)
	}
	at := b.total()
	if ok, err := c.RetireHost(bHost, "again"); ok || err != nil {
		t.Errorf("RetireHost of a retired host = %v, %v; want false, nil", ok, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := b.total(); n > at+1 { // PerHost 1: at most one request was in flight
		t.Errorf("b got %d requests after it was retired, want at most the one in flight", n-at)
	}
	if n := len(a.requests()); n != 3*40+2 {
		t.Errorf("a, not retired, had %d paths fetched, want all %d", n, 3*40+2)
	}
	var skipped int
	for _, u := range pages.urls() {
		if p := pages.page(u); strings.HasPrefix(u, b.URL) && errors.Is(p.Err, politeness.ErrHostRetired) {
			skipped++
			if !strings.Contains(p.Err.Error(), "too slow") {
				t.Errorf("%s: %v, want the reason given", u, p.Err)
			}
		}
	}
	if skipped == 0 {
		t.Error("no page of b was reported with ErrHostRetired")
	}
	st := c.Stats()
	if st.HostsRetired != 1 || st.Errors[crawler.KindHostRetired] != int64(skipped) {
		t.Errorf("HostsRetired %d, host-retired errors %d; want 1 and %d", st.HostsRetired, st.Errors[crawler.KindHostRetired], skipped)
	}
	for _, h := range c.HostStats() {
		if (h.Host == bHost) != (h.Retired == "too slow") {
			t.Errorf("%s: Retired %q", h.Host, h.Retired)
		}
	}
	now := time.Now()
	if got, want := c.HostSummary(now), politeness.SummarizeHosts(c.HostStats(), now); got != want || got.Retired != 1 {
		t.Errorf("HostSummary = %+v, SummarizeHosts of HostStats = %+v", got, want)
	}
}

// A host retired while it waits for its Crawl-delay (ten minutes, from
// its robots.txt fetch) ends its URLs at once: the Run does not wait.
func TestRetireHostWaiting(t *testing.T) {
	t.Parallel()
	slow := newPacedServer(t, 4, 0, "User-agent: *\nCrawl-delay: 600\n")
	other := newPacedServer(t, 0, 0, "")
	var pages collect
	c := fast(&pages)
	c.Pacing.MaxCrawlDelay = time.Hour
	host := strings.TrimPrefix(slow.URL, "http://")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, slow.URL+"/", other.URL+"/") }()
	waitFor(t, "the slow host's robots.txt", func() bool {
		for _, h := range c.HostStats() {
			if h.Host == host && h.RobotsRequests == 1 {
				return true
			}
		}
		return false
	})
	start := time.Now()
	if ok, err := c.RetireHost(host, "too slow"); !ok || err != nil {
		t.Fatalf("RetireHost = %v, %v; want true, nil", ok, err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Run ended %v after the host was retired, want at once", took)
	}
	if p := pages.page(slow.URL + "/"); p == nil || !errors.Is(p.Err, politeness.ErrHostRetired) {
		t.Errorf("the seed's page: %+v, want ErrHostRetired", p)
	}
	if len(slow.starts) != 0 {
		t.Errorf("%d page requests to the retired host, want none", len(slow.starts))
	}
}

func TestOperatorFigures(t *testing.T) {
	pages := chainPages(20)
	pages["/0"] = html("/1", "/0/x", "/0/y", "/fails")
	pages["/fails"] = response{status: http.StatusServiceUnavailable}
	s := newSite(t, pages)
	c := fast(nil)
	c.MaxRetries = -1
	if err := c.Run(context.Background(), s.URL+"/0"); err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	if n := st.FetchTime.Count(); n != st.Fetched || n == 0 {
		t.Errorf("FetchTime counts %d responses, Fetched %d", n, st.Fetched)
	}
	if st.FetchTime.Sum <= 0 || len(st.FetchTime.Bounds) != len(fetch.TimeBounds()) {
		t.Errorf("FetchTime = %+v", st.FetchTime)
	}
	if q := st.FetchTime.Quantile(0.5); q <= 0 || q > time.Second {
		t.Errorf("median fetch time %v on loopback", q)
	}
	// The fetcher was given an IP address: nothing to look up.
	if st.DNSLookups != 0 || st.DNSCacheHits != 0 {
		t.Errorf("DNS %d lookups, %d hits for 127.0.0.1", st.DNSLookups, st.DNSCacheHits)
	}
	hs := c.HostStats()
	if len(hs) != 1 {
		t.Fatalf("HostStats = %+v", hs)
	}
	h := hs[0]
	if h.InFlight != 0 || h.Next.IsZero() || h.FetchTime <= 0 || h.MeanFetchTime() <= 0 {
		t.Errorf("host after the crawl: %+v", h)
	}
	if h.LastError != "status 503" || h.Errors != 1 {
		t.Errorf("LastError %q, Errors %d; want status 503, 1", h.LastError, h.Errors)
	}

	// A seen-set that estimates its false-positive rate reports it.
	c2 := fast(nil)
	c2.Seen = seen.NewBloom(1000, 0.01)
	if err := c2.Run(context.Background(), s.URL+"/0"); err != nil {
		t.Fatal(err)
	}
	if r := c2.Stats().SeenFPRate; r <= 0 || r > 0.01 {
		t.Errorf("SeenFPRate = %g with a Bloom filter for 1000 URLs at 1%%", r)
	}
}
