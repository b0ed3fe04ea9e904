package status_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/internal/leak"
	"crawler/politeness"
	"crawler/status"
)

// noPacing is the pacing of crawls of the tests' own servers: no delays,
// no backoff, no host retired.
var noPacing = politeness.Pacing{Delay: -1, DelayFactor: -1, Backoff: -1, MaxFailures: -1}

// webCrawler returns a fast crawler of w whose Handler is m.Wrap'ed later.
func webCrawler(w *crawlertest.Web, workers int) *crawler.Crawler {
	return &crawler.Crawler{
		Fetcher: &fetch.HTTPFetcher{Client: w.Client()},
		Pacing:  noPacing,
		Workers: workers,
	}
}

// loopbackCrawler returns a fast crawler allowed to fetch from 127.0.0.1,
// where httptest servers listen.
func loopbackCrawler() *crawler.Crawler {
	return &crawler.Crawler{
		Fetcher: &fetch.HTTPFetcher{Addresses: fetch.AddressPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}},
		Pacing:  noPacing,
		Workers: 2,
	}
}

// get requests path of h's server with the header, if any, and returns
// the status and body.
func get(t *testing.T, srv *httptest.Server, method, path string, header map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// snapshot gets /status.json from srv.
func snapshot(t *testing.T, srv *httptest.Server, header map[string]string) status.Snapshot {
	t.Helper()
	code, body := get(t, srv, "GET", "/status.json", header, "")
	if code != 200 {
		t.Fatalf("GET /status.json: %d %s", code, body)
	}
	var s status.Snapshot
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatalf("GET /status.json: %v", err)
	}
	return s
}

// waitFor polls cond until it holds, failing t after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitWithin(t, 10*time.Second, what, cond)
}

// waitWithin polls cond until it holds, failing t after d.
func waitWithin(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestSamplesGrow(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 3, PagesPerHost: 10})
	defer w.Close()
	c := webCrawler(w, 4)
	m := status.New(c, status.Options{Interval: time.Hour})
	c.Handler = m.Wrap(nil)
	srv := httptest.NewServer(m.Handler(status.ServerOptions{}))
	defer srv.Close()

	if s := snapshot(t, srv, nil); len(s.Samples) != 0 || s.Samples == nil {
		t.Fatalf("before any Sample: samples %v, want [] (not null)", s.Samples)
	}
	if err := c.Run(context.Background(), w.Seeds()...); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		m.Sample()
		s := snapshot(t, srv, nil)
		if len(s.Samples) != i {
			t.Fatalf("after %d calls of Sample: %d samples", i, len(s.Samples))
		}
		last := s.Samples[i-1]
		if last.Fetched != s.Stats.Fetched || last.Fetched == 0 || last.Requests != s.Stats.Requests {
			t.Errorf("last sample fetched %d, requests %d; stats %d, %d", last.Fetched, last.Requests, s.Stats.Fetched, s.Stats.Requests)
		}
		if last.Status2xx+last.Status3xx+last.Status4xx+last.Status5xx != s.Stats.Fetched {
			t.Errorf("status classes of the last sample %+v do not add up to %d fetched", last, s.Stats.Fetched)
		}
		if last.Seen != s.Stats.Seen || last.Bytes != s.Stats.Bytes || last.Frontier != 0 {
			t.Errorf("last sample %+v, stats seen %d bytes %d", last, s.Stats.Seen, s.Stats.Bytes)
		}
	}
	s := snapshot(t, srv, nil)
	if s.Samples[0].PagesPerSec <= 0 || s.Samples[1].PagesPerSec != 0 {
		t.Errorf("pages/s of the samples after the crawl: %v, %v; want > 0, then 0", s.Samples[0].PagesPerSec, s.Samples[1].PagesPerSec)
	}
	if s.State != status.StateRunning || s.IntervalSeconds != 3600 {
		t.Errorf("state %q, interval %v s", s.State, s.IntervalSeconds)
	}
	// Within half an interval of the last sample, Finish's sample replaces
	// it rather than adding a rate measured over a few milliseconds.
	m.Finish()
	if s := snapshot(t, srv, nil); s.State != status.StateFinished || len(s.Samples) != 5 {
		t.Errorf("after Finish: state %q with %d samples, want finished with 5", s.State, len(s.Samples))
	}
}

// A Finish half an interval or more after the last sample adds one, and
// Run takes no sample once the crawl is finished.
func TestFinishAddsSample(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 2, PagesPerHost: 5})
	defer w.Close()
	c := webCrawler(w, 2)
	m := status.New(c, status.Options{Interval: 20 * time.Millisecond})
	if err := c.Run(context.Background(), w.Seeds()...); err != nil {
		t.Fatal(err)
	}
	m.Sample()
	time.Sleep(15 * time.Millisecond)
	m.Finish()
	if n := len(m.Snapshot().Samples); n != 2 {
		t.Fatalf("Finish 15 ms after a sample, at 20 ms intervals: %d samples, want 2", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m.Run(ctx) // returns at its first tick, 20 ms on: the crawl is finished
	if ctx.Err() != nil {
		t.Error("Run kept sampling a finished crawl")
	}
	if n := len(m.Snapshot().Samples); n != 2 {
		t.Errorf("Run after Finish took samples: %d, want 2", n)
	}
}

// TestMergeDuringCrawl samples a crawl far more often than the samples
// kept: they stay within MaxSamples and still cover the whole run, so
// that the pages/s of each interval add up to the pages fetched.
func TestMergeDuringCrawl(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 2, Hosts: 3, PagesPerHost: 20, Latency: time.Millisecond})
	defer w.Close()
	c := webCrawler(w, 4)
	const max = 8
	m := status.New(c, status.Options{MaxSamples: max})
	c.Handler = m.Wrap(nil)
	done := make(chan error, 1)
	go func() { done <- c.Run(context.Background(), w.Seeds()...) }()
	n := 0
	for running := true; running || n < 200; n++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			running = false
		default:
		}
		m.Sample()
		if got := len(m.Snapshot().Samples); got > max {
			t.Fatalf("after %d samples: %d kept, more than MaxSamples %d", n+1, got, max)
		}
	}
	before := time.Now()
	m.Sample()
	s := m.Snapshot()
	if len(s.Samples) <= max/2 {
		t.Errorf("%d samples kept of %d taken: merged too far", len(s.Samples), n+1)
	}
	last := s.Samples[len(s.Samples)-1]
	if covered := s.Started.Add(time.Duration(last.T * float64(time.Second))); covered.Before(before.Add(-time.Millisecond)) {
		t.Errorf("the last sample is at %v s, before the last Sample call (%v s)", last.T, before.Sub(s.Started).Seconds())
	}
	if last.Fetched != s.Stats.Fetched {
		t.Errorf("last sample fetched %d, stats %d", last.Fetched, s.Stats.Fetched)
	}
	total, prev := 0.0, s.Origin
	for _, x := range s.Samples {
		if x.T < prev.T {
			t.Fatalf("samples out of order: %+v", s.Samples)
		}
		total += x.PagesPerSec * (x.T - prev.T)
		prev = x
	}
	if want := float64(last.Fetched - s.Origin.Fetched); math.Abs(total-want) > 1e-6*want+1e-6 {
		t.Errorf("the pages/s of the samples add up to %v pages, want %v: an interval is missing", total, want)
	}
}

func TestHostTables(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 3, Hosts: 6, PagesPerHost: 12,
		Behavior: func(h int) crawlertest.Behavior {
			if h == 2 {
				return crawlertest.Behavior{PageStatus: 503}
			}
			return crawlertest.Behavior{}
		},
		HostLatency: func(h string) time.Duration {
			if h == "h4.crawler.test" {
				return 3 * time.Millisecond // the slowest
			}
			return 0
		},
	})
	defer w.Close()
	c := webCrawler(w, 4)
	c.MaxRetries = -1
	m := status.New(c, status.Options{TopHosts: 3})
	c.Handler = m.Wrap(nil)
	if err := c.Run(context.Background(), w.Seeds()...); err != nil {
		t.Fatal(err)
	}
	s := m.Snapshot()
	hs := c.HostStats()
	if len(hs) != 6 {
		t.Fatalf("%d hosts contacted, want 6", len(hs))
	}
	slices.SortStableFunc(hs, func(a, b politeness.HostStats) int { return int(b.Requests - a.Requests) })
	var want []string
	for _, h := range hs[:3] {
		want = append(want, h.Host)
	}
	if got := hostNames(s.Busiest); !slices.Equal(got, want) {
		t.Errorf("busiest %v, want %v", got, want)
	}
	// The slowest: the three highest mean fetch times of the crawler's
	// own HostStats, with h4 (3 ms a response) among them. Which is first
	// depends on the machine: one stalled fetch of a host with few
	// requests can put it above h4.
	slices.SortStableFunc(hs, func(a, b politeness.HostStats) int { return cmp.Compare(b.MeanFetchTime(), a.MeanFetchTime()) })
	var slowest, wantSlowest []float64
	for i, r := range s.Slowest {
		slowest, wantSlowest = append(slowest, r.MeanFetchSeconds), append(wantSlowest, hs[i].MeanFetchTime().Seconds())
	}
	if len(s.Slowest) != 3 || !slices.Contains(hostNames(s.Slowest), "h4.crawler.test") || !slices.Equal(slowest, wantSlowest) {
		t.Errorf("slowest %+v, want the 3 highest mean fetch times (%v), h4.crawler.test among them", s.Slowest, wantSlowest)
	}
	const failing = "h2.crawler.test"
	if len(s.Failing) != 1 || s.Failing[0].Host != failing || s.Failing[0].Errors == 0 || s.Failing[0].LastError != "status 503" {
		t.Errorf("failing %+v, want %s alone, with errors, last error status 503", s.Failing, failing)
	}
	if len(s.BackingOff) != 1 || s.BackingOff[0].Host != failing || s.BackingOff[0].State != status.HostBackingOff ||
		s.BackingOff[0].Failures == 0 || s.BackingOff[0].Next == nil {
		t.Errorf("backing off %+v, want %s, state backing_off, failures and a next time", s.BackingOff, failing)
	}
	if sum := s.Hosts.Active + s.Hosts.BackingOff + s.Hosts.Waiting + s.Hosts.Idle + s.Hosts.Retired; sum != 6 || s.Hosts.BackingOff != 1 {
		t.Errorf("host summary %+v, want 6 hosts, 1 backing off", s.Hosts)
	}
	for _, r := range s.Busiest {
		if r.Host != failing && r.State != status.HostIdle {
			t.Errorf("host %s after the crawl: state %s, want idle", r.Host, r.State)
		}
	}
	if len(s.RecentErrors) == 0 || s.RecentErrors[0].Error != "status 503" || !strings.Contains(s.RecentErrors[0].URL, failing) {
		t.Errorf("recent errors %+v, want the 503s of %s", s.RecentErrors, failing)
	}
	if len(s.RecentPages) != status.DefaultRecent {
		t.Errorf("%d recent pages, want %d", len(s.RecentPages), status.DefaultRecent)
	}
	for i := 1; i < len(s.RecentPages); i++ {
		if s.RecentPages[i].Time.After(s.RecentPages[i-1].Time) {
			t.Fatalf("recent pages not newest first: %v after %v", s.RecentPages[i].Time, s.RecentPages[i-1].Time)
		}
	}
}

func hostNames(rows []status.HostRow) []string {
	var hs []string
	for _, r := range rows {
		hs = append(hs, r.Host)
	}
	return hs
}

// TestJSONFields pins the field names of /status.json that the page and
// other readers use.
func TestJSONFields(t *testing.T) {
	t.Parallel()
	c := loopbackCrawler()
	m := status.New(c, status.Options{MaxPages: 10, Node: "n1"})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>home</title>")
	}))
	defer site.Close()
	c.Handler = m.Wrap(nil)
	if err := c.Run(context.Background(), site.URL+"/"); err != nil {
		t.Fatal(err)
	}
	m.Sample()
	srv := httptest.NewServer(m.Handler(status.ServerOptions{}))
	defer srv.Close()
	_, body := get(t, srv, "GET", "/status.json", nil, "")
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &top); err != nil {
		t.Fatal(err)
	}
	want := []string{"time", "state", "node", "started", "interval_seconds", "max_pages", "progress", "eta_seconds", "fetch_time",
		"stats", "hosts", "busiest", "slowest", "failing", "backing_off", "recent_pages", "recent_errors", "proxies", "origin", "samples"}
	if got := slices.Sorted(maps.Keys(top)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("top-level fields %v, want %v", got, want)
	}
	var s struct {
		Stats   map[string]json.RawMessage   `json:"stats"`
		Hosts   map[string]json.RawMessage   `json:"hosts"`
		Busiest []map[string]json.RawMessage `json:"busiest"`
		Pages   []map[string]json.RawMessage `json:"recent_pages"`
		Samples []map[string]json.RawMessage `json:"samples"`
	}
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	// stats and hosts in snake_case too, as the -json summary names the
	// same counts: jq .stats.fetched works.
	for field, want := range map[string]string{"status": `{"200":1}`, "fetched": "1", "requests": "1", "robots_fetched": "1",
		"errors": "{}", "trap_patterns": "[]", "in_flight": "0", "frontier": "0"} {
		if got := string(s.Stats[field]); got != want {
			t.Errorf("stats.%s = %q, want %s", field, got, want)
		}
	}
	for _, field := range []string{"elapsed_sec", "pages_per_sec", "seen", "hosts", "out_of_scope", "hosts_retired"} {
		if _, ok := s.Stats[field]; !ok {
			t.Errorf("no stats.%s", field)
		}
	}
	for _, obj := range []map[string]json.RawMessage{s.Stats, s.Hosts} {
		for k := range obj {
			if k != strings.ToLower(k) || strings.ContainsAny(k, " -") {
				t.Errorf("field %q of /status.json is not snake_case", k)
			}
		}
	}
	if got, want := slices.Sorted(maps.Keys(s.Hosts)), []string{"active", "backing_off", "done", "idle", "retired", "waiting"}; !slices.Equal(got, want) {
		t.Errorf("hosts fields %v, want %v", got, want)
	}
	for _, check := range []struct {
		what string
		obj  []map[string]json.RawMessage
		want []string
	}{
		{"host row", s.Busiest, []string{"host", "requests", "errors", "bytes", "in_flight", "delay_seconds", "mean_fetch_seconds", "failures", "next", "state", "last_error", "cookies"}},
		{"page row", s.Pages, []string{"time", "url", "status", "title", "error"}},
		{"sample", s.Samples, []string{"t", "requests", "fetched", "pages_per_sec", "frontier", "seen", "hosts_active", "hosts_backing_off",
			"status_2xx", "status_3xx", "status_4xx", "status_5xx", "errors", "bytes"}},
	} {
		if len(check.obj) != 1 {
			t.Errorf("%d %ss, want 1", len(check.obj), check.what)
			continue
		}
		if got := slices.Sorted(maps.Keys(check.obj[0])); !slices.Equal(got, slices.Sorted(slices.Values(check.want))) {
			t.Errorf("%s fields %v, want %v", check.what, got, check.want)
		}
	}
	snap := m.Snapshot()
	if snap.Node != "n1" || snap.MaxPages != 10 || snap.Progress != 0.1 || snap.ETASeconds == nil {
		t.Errorf("node %q, max pages %d, progress %v, ETA %v", snap.Node, snap.MaxPages, snap.Progress, snap.ETASeconds)
	}
}

const evilTitle = `<script>alert(1)</script>`

// TestNoMarkupFromTheWeb crawls pages whose title and URL carry markup:
// they reach the JSON as data, never the page's HTML, and the report's
// embedded JSON cannot end its script element.
func TestNoMarkupFromTheWeb(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<html><head><title>`+evilTitle+`</title></head><body><a href="/%3C/script%3E">x</a><a href="/fail">y</a></body></html>`)
		case "/fail":
			http.Error(w, "down", http.StatusServiceUnavailable)
		default:
			fmt.Fprint(w, `<title>&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;</title>`)
		}
	}))
	defer site.Close()
	c := loopbackCrawler()
	c.MaxRetries = -1
	m := status.New(c, status.Options{})
	handlerErr := errors.New(`<b>handler</b> failed`)
	c.Handler = m.Wrap(crawler.HandlerFunc(func(_ context.Context, p *crawler.Page) error {
		if strings.HasSuffix(p.URL, "/fail") {
			return handlerErr
		}
		return nil
	}))
	if err := c.Run(context.Background(), site.URL+"/"); err != nil {
		t.Fatal(err)
	}
	m.Finish()
	srv := httptest.NewServer(m.Handler(status.ServerOptions{}))
	defer srv.Close()

	s := snapshot(t, srv, nil)
	titles := map[string]bool{}
	for _, p := range s.RecentPages {
		titles[p.Title] = true
	}
	if !titles[evilTitle] || !titles[`</script><img src=x onerror=alert(2)>`] {
		t.Errorf("recent pages %+v lack the titles with markup", s.RecentPages)
	}
	var errs []string
	for _, p := range s.RecentErrors {
		errs = append(errs, p.Error)
	}
	if !slices.Contains(errs, "status 503") || !slices.Contains(errs, "handler: "+handlerErr.Error()) {
		t.Errorf("recent errors %q, want the 503 and the handler's error", errs)
	}

	code, page := get(t, srv, "GET", "/", nil, "")
	if code != 200 {
		t.Fatalf("GET /: %d", code)
	}
	u, _ := url.Parse(site.URL)
	for _, data := range []string{"alert(", "onerror", u.Host, "handler", "status 503", evilTitle} {
		if strings.Contains(page, data) {
			t.Errorf("the page served at / contains %q: data must come by JSON only", data)
		}
	}
	for _, want := range []string{`data-mode="live"`, `data-samples="0"`, `id="plot-rate"`, `id="pause"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page served at / lacks %s", want)
		}
	}

	var b strings.Builder
	if err := m.WriteReport(&b); err != nil {
		t.Fatal(err)
	}
	report := b.String()
	const open = `<script type="application/json" id="data">`
	_, rest, ok := strings.Cut(report, open)
	data, _, ok2 := strings.Cut(rest, "</script>")
	if !ok || !ok2 {
		t.Fatalf("report has no data element")
	}
	for _, raw := range []string{"</script", "<script", "<img", "<b>", "<!--"} {
		if strings.Contains(strings.ToLower(data), raw) {
			t.Errorf("the report's embedded JSON contains %q raw", raw)
		}
	}
	var r status.Snapshot
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		t.Fatalf("the report's JSON: %v", err)
	}
	if r.State != status.StateFinished || len(r.RecentPages) != len(s.RecentPages) || r.RecentPages[0].Title != s.RecentPages[0].Title {
		t.Errorf("the report's snapshot: state %s, %d recent pages; want finished, %d", r.State, len(r.RecentPages), len(s.RecentPages))
	}
	if strings.Count(report, "alert(") != strings.Count(data, "alert(") {
		t.Errorf("the report has data outside its data element")
	}
}

func TestReportAndPageParts(t *testing.T) {
	t.Parallel()
	m := status.New(&crawler.Crawler{}, status.Options{})
	m.Sample()
	m.Sample()
	var b strings.Builder
	if err := m.WriteReport(&b); err != nil {
		t.Fatal(err)
	}
	report := b.String()
	for _, want := range []string{`data-mode="report"`, `id="data"`, `id="plot-status"`, `id="hosts-backoff"`, `id="recent-errors"`, `id="error"`} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %s", want)
		}
	}
	for _, absent := range []string{`id="pause"`, `id="resume"`, `id="stop"`, `id="retire"`, `id="retire-host"`, "{{", "<!--",
		`src="`, `href="http`, "@import", "url("} {
		if strings.Contains(report, absent) {
			t.Errorf("report contains %s", absent)
		}
	}

	for _, tc := range []struct {
		stop func()
		want bool
	}{{nil, false}, {func() {}, true}} {
		srv := httptest.NewServer(m.Handler(status.ServerOptions{Stop: tc.stop}))
		resp, err := srv.Client().Get(srv.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.Close()
		if got := strings.Contains(string(page), `id="stop"`); got != tc.want {
			t.Errorf("Stop set %v: the page has a stop button: %v", tc.want, got)
		}
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'sha256-") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe") {
			t.Errorf("Content-Security-Policy %q", csp)
		}
		if strings.Contains(string(page), `id="data"`) || !strings.Contains(string(page), `id="retire-host"`) {
			t.Errorf("live page has data, or lacks controls")
		}
	}
}

func TestToken(t *testing.T) {
	t.Parallel()
	m := status.New(&crawler.Crawler{}, status.Options{})
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "crawler_fetched 0\n") })
	srv := httptest.NewServer(m.Handler(status.ServerOptions{Token: "s3cret", Metrics: metrics}))
	defer srv.Close()
	for _, path := range []string{"/", "/status.json", "/metrics", "/control/pause", "/nope"} {
		if code, _ := get(t, srv, "GET", path, nil, ""); code != 401 {
			t.Errorf("GET %s without the token: %d, want 401", path, code)
		}
		if code, _ := get(t, srv, "GET", path, map[string]string{"Authorization": "Bearer wrong"}, ""); code != 401 {
			t.Errorf("GET %s with a wrong token: %d, want 401", path, code)
		}
		if code, _ := get(t, srv, "GET", path+"?token=s3cre", nil, ""); code != 401 {
			t.Errorf("GET %s with a prefix of the token: %d, want 401", path, code)
		}
	}
	for _, path := range []string{"/", "/status.json", "/metrics"} {
		if code, _ := get(t, srv, "GET", path, map[string]string{"Authorization": "Bearer s3cret"}, ""); code != 200 {
			t.Errorf("GET %s with the token in the header: %d, want 200", path, code)
		}
		if code, _ := get(t, srv, "GET", path+"?token=s3cret", nil, ""); code != 200 {
			t.Errorf("GET %s?token=: %d, want 200", path, code)
		}
	}
	if _, body := get(t, srv, "GET", "/metrics?token=s3cret", nil, ""); body != "crawler_fetched 0\n" {
		t.Errorf("/metrics: %q", body)
	}
	if code, _ := get(t, srv, "POST", "/control/pause?token=s3cret", map[string]string{"X-Crawler-Control": "1"}, ""); code != 204 {
		t.Errorf("POST /control/pause with the token: %d, want 204", code)
	}

	// Without a token, the Host must be loopback: no DNS rebinding.
	open := httptest.NewServer(m.Handler(status.ServerOptions{}))
	defer open.Close()
	for host, want := range map[string]int{"": 200, "localhost": 200, "LOCALHOST:8080": 200, "[::1]:9": 200, "evil.example": 403, "evil.example:80": 403, "10.0.0.1": 403} {
		req, _ := http.NewRequest("GET", open.URL+"/status.json", nil)
		if host != "" {
			req.Host = host
		}
		resp, err := open.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %q: %d, want %d", host, resp.StatusCode, want)
		}
	}
	if code, _ := get(t, open, "GET", "/metrics", nil, ""); code != 404 {
		t.Errorf("/metrics without a Metrics handler: %d, want 404", code)
	}
}

// TestControls drives a running crawl through the control endpoints.
func TestControls(t *testing.T) {
	leak.Check(t)
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 4, Hosts: 8, PagesPerHost: 400, Latency: 2 * time.Millisecond})
	defer w.Close()
	c := webCrawler(w, 2)
	m := status.New(c, status.Options{})
	c.Handler = m.Wrap(nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stops atomic.Int32
	var log lockedBuffer
	logger := slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey || a.Key == "client" {
			return slog.Attr{}
		}
		return a
	}}))
	srv := httptest.NewServer(m.Handler(status.ServerOptions{Stop: func() { stops.Add(1); cancel() }, Logger: logger}))
	defer srv.Close()
	mctx, mcancel := context.WithCancel(context.Background())
	sampled := make(chan struct{})
	go func() { m.Run(mctx); close(sampled) }()
	defer func() { mcancel(); <-sampled }()

	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, w.Seeds()...) }()
	waitFor(t, "the crawl to start", func() bool { return w.TotalRequests() > 20 })

	ctl := map[string]string{"X-Crawler-Control": "1"}
	for _, a := range []string{"pause", "resume", "stop", "retire"} {
		if code, body := get(t, srv, "GET", "/control/"+a, ctl, ""); code != 405 {
			t.Errorf("GET /control/%s: %d %s, want 405", a, code, body)
		}
		if code, body := get(t, srv, "POST", "/control/"+a, nil, ""); code != 403 || !strings.Contains(body, "X-Crawler-Control") {
			t.Errorf("POST /control/%s without the header: %d %q, want 403 naming the header", a, code, body)
		}
	}
	if c.Paused() || stops.Load() != 0 {
		t.Fatal("a refused control acted")
	}

	if code, body := get(t, srv, "POST", "/control/pause", ctl, ""); code != 204 {
		t.Fatalf("pause: %d %s", code, body)
	}
	if !c.Paused() || snapshot(t, srv, nil).State != status.StatePaused {
		t.Fatal("not paused")
	}
	waitFor(t, "the fetches in flight to end", func() bool { return c.Stats().InFlight == 0 })
	time.Sleep(20 * time.Millisecond) // let the scheduler settle
	n := w.TotalRequests()
	time.Sleep(150 * time.Millisecond) // proving a standstill takes time
	if got := w.TotalRequests(); got != n {
		t.Errorf("paused: the server got %d requests more", got-n)
	}

	if code, body := get(t, srv, "POST", "/control/resume", ctl, ""); code != 204 {
		t.Fatalf("resume: %d %s", code, body)
	}
	if c.Paused() {
		t.Fatal("still paused")
	}
	waitFor(t, "requests after resume", func() bool { return w.TotalRequests() > n })

	const host = "h3.crawler.test"
	jsonCtl := map[string]string{"X-Crawler-Control": "1", "Content-Type": "application/json"}
	if code, body := get(t, srv, "POST", "/control/retire", jsonCtl, `{"host":"`+host+`"}`); code != 204 {
		t.Fatalf("retire %s: %d %s", host, code, body)
	}
	retired := false
	for _, h := range c.HostStats() {
		if h.Host == host {
			retired = h.Retired != ""
		}
	}
	if !retired {
		t.Errorf("%s not retired in HostStats", host)
	}
	formCtl := map[string]string{"X-Crawler-Control": "1", "Content-Type": "application/x-www-form-urlencoded"}
	if code, body := get(t, srv, "POST", "/control/retire", formCtl, "host=http://H3.crawler.test/p/1"); code != 409 {
		t.Errorf("retire %s again, by a URL: %d %s, want 409", host, code, body)
	}
	if code, body := get(t, srv, "POST", "/control/retire", formCtl, "host=h5.crawler.test"); code != 204 {
		t.Errorf("retire h5 by a form: %d %s", code, body)
	}
	if code, body := get(t, srv, "POST", "/control/retire", formCtl, "host="); code != 400 || !strings.Contains(body, "host") {
		t.Errorf("retire without a host: %d %s, want 400", code, body)
	}
	if code, body := get(t, srv, "POST", "/control/retire", jsonCtl, `{"host":`); code != 400 {
		t.Errorf("retire with bad JSON: %d %s, want 400", code, body)
	}
	if code, _ := get(t, srv, "POST", "/control/nope", ctl, ""); code != 404 {
		t.Errorf("POST /control/nope: %d, want 404", code)
	}

	if code, body := get(t, srv, "POST", "/control/stop", ctl, ""); code != 204 {
		t.Fatalf("stop: %d %s", code, body)
	}
	if stops.Load() != 1 || snapshot(t, srv, nil).State != status.StateStopping {
		t.Errorf("stop: Stop called %d times, state %s", stops.Load(), snapshot(t, srv, nil).State)
	}
	var stopped *crawler.StoppedError
	if err := <-done; !errors.As(err, &stopped) {
		t.Errorf("Run after stop: %v, want a StoppedError", err)
	}
	get(t, srv, "POST", "/control/stop", ctl, "")
	if stops.Load() != 1 {
		t.Errorf("a second stop called Stop again")
	}
	if code, body := get(t, srv, "POST", "/control/retire", formCtl, "host=h6.crawler.test"); code != 409 || !strings.Contains(body, "no crawl") {
		t.Errorf("retire after the crawl: %d %s, want 409", code, body)
	}
	// Each control that acted says so, once, at level Info; those refused
	// say nothing.
	want := `level=INFO msg="crawl paused from the status page"
level=INFO msg="crawl resumed from the status page"
level=INFO msg="host retired from the status page" host=h3.crawler.test
level=INFO msg="host retired from the status page" host=h5.crawler.test
level=INFO msg="crawl stopping from the status page: the requests in flight end, no new one starts"
`
	if got := log.String(); got != want {
		t.Errorf("the controls logged:\n%s\nwant:\n%s", got, want)
	}
	m.Finish()
	if s := snapshot(t, srv, nil); s.State != status.StateFinished {
		t.Errorf("after Finish: state %s", s.State)
	}
}

func TestNoStopControl(t *testing.T) {
	t.Parallel()
	m := status.New(&crawler.Crawler{}, status.Options{})
	srv := httptest.NewServer(m.Handler(status.ServerOptions{}))
	defer srv.Close()
	if code, _ := get(t, srv, "POST", "/control/stop", map[string]string{"X-Crawler-Control": "1"}, ""); code != 404 {
		t.Errorf("stop without a Stop func: %d, want 404", code)
	}
	if s := m.Snapshot(); s.State != status.StateRunning {
		t.Errorf("state %s after a refused stop", s.State)
	}
	m.StopRequested()
	if s := m.Snapshot(); s.State != status.StateStopping {
		t.Errorf("state %s after StopRequested", s.State)
	}
}

func TestCheckAddr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr, token, want string
	}{
		{"", "", "127.0.0.1:0"},
		{":0", "", "127.0.0.1:0"},
		{"8080", "", "127.0.0.1:8080"},
		{":8080", "", "127.0.0.1:8080"},
		{"localhost:1", "", "localhost:1"},
		{"127.0.0.2:1", "", "127.0.0.2:1"},
		{"[::1]:1", "", "[::1]:1"},
		{"0.0.0.0:1", "t", "0.0.0.0:1"},
		{"[::]:1", "t", "[::]:1"},
		{"example.com:1", "t", "example.com:1"},
	} {
		got, err := status.CheckAddr(tc.addr, tc.token)
		if err != nil || got != tc.want {
			t.Errorf("CheckAddr(%q, %q) = %q, %v; want %q", tc.addr, tc.token, got, err, tc.want)
		}
	}
	for _, addr := range []string{"0.0.0.0:1", "[::]:1", "192.168.1.2:80", "example.com:1", ":99999", "x", "1.2.3.4", "::1"} {
		_, err := status.CheckAddr(addr, "")
		if err == nil {
			t.Errorf("CheckAddr(%q, no token) succeeded", addr)
			continue
		}
		if _, portErr := status.CheckAddr(addr, "t"); portErr == nil && !strings.Contains(err.Error(), "-http-token") {
			t.Errorf("CheckAddr(%q, no token): %v, not naming -http-token", addr, err)
		}
	}
}

// Once the crawl is finished, no host is waiting for anything: a host
// whose delay was still running when the crawl ended is done, with no
// next time, in the snapshot and in the host summary; a retired host
// stays retired.
func TestFinishedHostsDone(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>one page</title>")
	}))
	defer site.Close()
	c := loopbackCrawler()
	c.Pacing = politeness.Pacing{Delay: time.Hour, DelayFactor: -1, Backoff: -1, MaxFailures: -1}
	c.IgnoreRobots = true // one request: the page, and the hour's wait after it
	m := status.New(c, status.Options{})
	c.Handler = m.Wrap(nil)
	if err := c.Run(t.Context(), site.URL+"/"); err != nil {
		t.Fatal(err)
	}
	// The crawl is over, its one host asked to wait an hour: waiting,
	// until the Monitor is told the crawl is finished.
	if s := m.Snapshot(); len(s.Busiest) != 1 || s.Busiest[0].State != status.HostWaiting || s.Hosts.Waiting != 1 {
		t.Fatalf("before Finish: busiest %+v, hosts %+v; want one host waiting", s.Busiest, s.Hosts)
	}
	m.Finish()
	s := m.Snapshot()
	if len(s.Busiest) != 1 || s.Busiest[0].State != status.HostDone || s.Busiest[0].Next != nil {
		t.Errorf("after Finish: busiest %+v, want one host done, without a next time", s.Busiest)
	}
	if want := (status.HostSummary{Done: 1}); s.Hosts != want {
		t.Errorf("after Finish: hosts %+v, want %+v", s.Hosts, want)
	}
	// The report says so too.
	var b strings.Builder
	if err := m.WriteReport(&b); err != nil {
		t.Fatal(err)
	}
	data := b.String()[strings.Index(b.String(), `id="data">`)+len(`id="data">`):]
	var r struct {
		Busiest []map[string]json.RawMessage `json:"busiest"`
	}
	if err := json.NewDecoder(strings.NewReader(data)).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if len(r.Busiest) != 1 || string(r.Busiest[0]["state"]) != `"done"` || string(r.Busiest[0]["next"]) != "null" {
		t.Errorf("the report's busiest hosts: %v, want one done, next null", r.Busiest)
	}
}

// lockedBuffer is a strings.Builder that a server's goroutines write and
// the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
