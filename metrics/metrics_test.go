package metrics_test

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/internal/leak"
	"crawler/metrics"
	"crawler/politeness"
	"crawler/sites"
	"crawler/traps"
)

// Misbehaving hosts of the acceptance test's web, by host index.
const (
	hostFailing   = 2 // every page 503: retries, then retired
	hostThrottled = 5 // every 4th page request 429
	hostNoRobots  = 6 // robots.txt 500: unavailable
)

// newCrawler returns a crawler of w with short pacing delays and backoffs.
func newCrawler(w *crawlertest.Web) *crawler.Crawler {
	return &crawler.Crawler{
		Fetcher: &fetch.HTTPFetcher{Client: w.Client()},
		Workers: 16,
		Pacing: politeness.Pacing{Delay: 2 * time.Millisecond, DelayFactor: -1,
			Backoff: 2 * time.Millisecond, MaxBackoff: 10 * time.Millisecond, MaxFailures: 3},
		Robots: &politeness.RobotsCache{ErrorTTL: 5 * time.Millisecond},
	}
}

// sample is a scrape flattened: series ("name{k="v",...}", labels sorted)
// to value, with a histogram as its _bucket, _count and _sum series.
type sample struct {
	counters map[string]float64 // counters and histograms
	gauges   map[string]float64
}

func flatten(t *testing.T, mfs map[string]*dto.MetricFamily) sample {
	t.Helper()
	s := sample{counters: map[string]float64{}, gauges: map[string]float64{}}
	for name, mf := range mfs {
		for _, m := range mf.GetMetric() {
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				s.counters[key(name, m.GetLabel())] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				s.gauges[key(name, m.GetLabel())] = m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				for _, b := range h.GetBucket() {
					le := &dto.LabelPair{Name: new("le"), Value: new(strconv.FormatFloat(b.GetUpperBound(), 'g', -1, 64))}
					s.counters[key(name+"_bucket", append(slices.Clone(m.GetLabel()), le))] = float64(b.GetCumulativeCount())
				}
				s.counters[key(name+"_count", m.GetLabel())] = float64(h.GetSampleCount())
				s.counters[key(name+"_sum", m.GetLabel())] = h.GetSampleSum()
			default:
				t.Errorf("%s: unexpected type %v", name, mf.GetType())
			}
		}
	}
	return s
}

func key(name string, labels []*dto.LabelPair) string {
	pairs := make([]string, 0, len(labels))
	for _, l := range labels {
		pairs = append(pairs, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
	}
	sort.Strings(pairs)
	return name + "{" + strings.Join(pairs, ",") + "}"
}

// scrape gets url and parses it as the text format.
func scrape(client *http.Client, url string) (map[string]*dto.MetricFamily, error) {
	resp, err := client.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// timedSample is a scrape and when it was taken.
type timedSample struct {
	start, end time.Time
	sample
}

// TestScrapesDuringCrawl is the acceptance test: a crawl of a web with
// 404s, 5xx, 429s, an unavailable robots.txt and sitemaps is scraped over
// HTTP every 20 ms while it runs. Every counter series only grows from one
// scrape to the next, and once Run has returned a last scrape tells
// exactly what the crawl's own TotalStats and HostStats say.
func TestScrapesDuringCrawl(t *testing.T) {
	leak.Check(t)
	w := crawlertest.NewWeb(crawlertest.Config{
		Seed: 21, Hosts: 8, PagesPerHost: 15, PageBytes: 1024, MaxChain: 4, Sitemaps: true,
		Latency: time.Millisecond,
		Behavior: func(h int) crawlertest.Behavior {
			switch h {
			case hostFailing:
				return crawlertest.Behavior{PageStatus: 503}
			case hostThrottled:
				return crawlertest.Behavior{ThrottleEvery: 4}
			case hostNoRobots:
				return crawlertest.Behavior{RobotsStatus: 500}
			}
			return crawlertest.Behavior{}
		},
	})
	defer w.Close()
	c := newCrawler(w)

	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCollector(c, metrics.Options{}))
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	client := srv.Client()
	defer client.CloseIdleConnections()
	url := srv.URL + "/metrics"

	var (
		mu      sync.Mutex
		samples []timedSample
		wg      sync.WaitGroup
	)
	stop := make(chan struct{})
	wg.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			start := time.Now()
			mfs, err := scrape(client, url)
			if err != nil {
				t.Errorf("scrape: %v", err)
				return
			}
			s := timedSample{start: start, end: time.Now(), sample: flatten(t, mfs)}
			mu.Lock()
			samples = append(samples, s)
			mu.Unlock()
			select {
			case <-tick.C:
			case <-stop:
				return
			}
		}
	})

	runStart := time.Now()
	err := c.Run(context.Background(), w.Seeds()...)
	runEnd := time.Now()
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	mfs, err := scrape(client, url)
	if err != nil {
		t.Fatal(err)
	}
	final := timedSample{start: time.Now(), sample: flatten(t, mfs)}
	samples = append(samples, final)
	st, hs := c.TotalStats(), c.HostStats()
	t.Logf("crawl took %v, %d scrapes: %v", runEnd.Sub(runStart).Round(time.Millisecond), len(samples), st)

	// The web gave the crawl something to count.
	classes := responsesByClass(st.Status)
	if classes["2xx"] == 0 || classes["3xx"] == 0 || classes["4xx"] == 0 || classes["5xx"] == 0 ||
		st.Errors[crawler.KindRobotsUnavailable] == 0 || st.Retries == 0 || st.HostsRetired == 0 ||
		st.RobotsBlocked == 0 || st.Sitemaps == 0 || st.Requests < 200 || len(hs) != 8 {
		t.Fatalf("the crawl lacks what the test needs: %+v, %d hosts", st, len(hs))
	}

	// Several scrapes saw the crawl under way.
	during, partway := 0, 0
	for _, s := range samples {
		if s.start.After(runStart) && s.end.Before(runEnd) {
			during++
			if n := s.counters[`crawler_requests_total{}`]; n > 0 && n < float64(st.Requests) {
				partway++
			}
		}
	}
	if during < 3 || partway < 2 {
		t.Errorf("%d scrapes during the crawl, %d of them partway; want at least 3 and 2", during, partway)
	}

	// Counters never go down, and only per-host series come and go.
	for i := 1; i < len(samples); i++ {
		prev, cur := samples[i-1].counters, samples[i].counters
		for k, v := range prev {
			now, ok := cur[k]
			switch {
			case !ok && !strings.HasPrefix(k, "crawler_host_"):
				t.Errorf("scrape %d: %s disappeared", i, k)
			case ok && now < v:
				t.Errorf("scrape %d: %s went from %v to %v", i, k, v, now)
			}
		}
	}

	// The last scrape is the crawl's own summary.
	want := expectedCounters(st, hs, metrics.DefaultTopHosts)
	for k, v := range want {
		if got, ok := final.counters[k]; !ok || got != v {
			t.Errorf("final scrape: %s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	for k, v := range final.counters {
		if _, ok := want[k]; !ok {
			t.Errorf("final scrape: unexpected series %s = %v", k, v)
		}
	}
	if got, want := final.counters[`crawler_fetch_duration_seconds_count{}`], float64(st.FetchTime.Count()); got != want || want == 0 {
		t.Errorf("fetch_duration_seconds_count %v, want %v answered page requests", got, want)
	}

	sum := politeness.SummarizeHosts(hs, time.Now())
	for k, v := range map[string]float64{
		`crawler_frontier_urls{}`:                            0,
		`crawler_inflight_urls{}`:                            0,
		`crawler_seen_urls{}`:                                float64(st.Seen),
		`crawler_hosts{}`:                                    float64(st.Hosts),
		`crawler_revisiting_pages{}`:                         0,
		`crawler_seen_false_positive_rate{}`:                 st.SeenFPRate,
		`crawler_elapsed_seconds{}`:                          st.Elapsed.Seconds(),
		`crawler_hosts_state{state="retired"}`:               float64(sum.Retired),
		`crawler_hosts_state{state="active"}`:                0,
		`crawler_hosts_state{state="backing_off"}`:           float64(sum.BackingOff),
		`crawler_host_delay_seconds{host="h0.crawler.test"}`: hostStat(hs, "h0.crawler.test").Delay.Seconds(),
	} {
		if got, ok := final.gauges[k]; !ok || got != v {
			t.Errorf("final scrape: gauge %s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	var states float64
	for k, v := range final.gauges {
		if strings.HasPrefix(k, "crawler_hosts_state{") {
			states += v
		}
	}
	if states != float64(len(hs)) {
		t.Errorf("hosts_state adds up to %v, want the %d hosts contacted", states, len(hs))
	}
}

func hostStat(hs []politeness.HostStats, host string) politeness.HostStats {
	for _, h := range hs {
		if h.Host == host {
			return h
		}
	}
	return politeness.HostStats{}
}

// responsesByClass counts responses by the class label's values.
func responsesByClass(status map[int]int64) map[string]int64 {
	m := map[string]int64{"2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0, "other": 0}
	for code, n := range status {
		switch {
		case code >= 200 && code < 600:
			m[strconv.Itoa(code/100)+"xx"] += n
		default:
			m["other"] += n
		}
	}
	return m
}

// knownKinds and knownRules are the label values exported even at 0.
var (
	knownKinds = []string{fetch.KindTimeout, fetch.KindDNS, fetch.KindRefused, fetch.KindReset,
		fetch.KindTLS, fetch.KindCanceled, crawler.KindTooManyRedirects, crawler.KindBadRedirect,
		crawler.KindRobotsUnavailable, crawler.KindHostRetired, crawler.KindHandler, fetch.KindBlockedAddress,
		fetch.KindHeaderTooLarge, fetch.KindProxyBanned, fetch.KindProxyAuth, fetch.KindNotArchived,
		sites.KindLoginFailed, sites.KindMaxPages, fetch.KindOther}
	knownRules = []string{traps.URLLength, traps.PathDepth, traps.SegmentRepeats,
		traps.HostBudget, traps.QueryValues, traps.Duplicates}
)

// expectedCounters returns every counter series a scrape of st and hs
// must hold, worked out from the fields of the Stats.
func expectedCounters(st crawler.Stats, hs []politeness.HostStats, top int) map[string]float64 {
	want := map[string]float64{}
	for name, v := range map[string]int64{
		"requests_total":             st.Requests,
		"pages_fetched_total":        st.Fetched,
		"bytes_total":                st.Bytes,
		"redirects_total":            st.Redirects,
		"truncated_total":            st.Truncated,
		"robots_fetches_total":       st.RobotsFetched,
		"robots_denied_total":        st.RobotsBlocked,
		"retries_total":              st.Retries,
		"hosts_retired_total":        st.HostsRetired,
		"duplicate_links_total":      st.Duplicates,
		"out_of_scope_links_total":   st.OutOfScope,
		"bad_links_total":            st.BadLinks,
		"other_scheme_links_total":   st.OtherSchemes,
		"link_truncated_pages_total": st.LinksTruncated,
		"duplicate_content_total":    st.DuplicateContent,
		"depth_refetches_total":      st.DepthRefetches,
		"revisits_total":             st.Revisits,
		"not_modified_total":         st.NotModified,
		"unchanged_total":            st.Unchanged,
		"near_duplicates_total":      st.NearDuplicates,
		"logins_total":               st.Logins,
		"relogins_total":             st.Relogins,
		"failed_logins_total":        st.LoginsFailed,
		"sitemaps_total":             st.Sitemaps,
		"sitemap_urls_total":         st.SitemapURLs,
		"sitemap_errors_total":       st.SitemapErrors,
		"forwarded_links_total":      st.Forwarded,
		"received_links_total":       st.Received,
		"dns_lookups_total":          st.DNSLookups,
		"dns_cache_hits_total":       st.DNSCacheHits,
	} {
		want["crawler_"+name+"{}"] = float64(v)
	}
	for class, n := range responsesByClass(st.Status) {
		want[fmt.Sprintf("crawler_responses_total{class=%q}", class)] = float64(n)
	}
	for _, k := range knownKinds {
		want[fmt.Sprintf("crawler_errors_total{kind=%q}", k)] = 0
	}
	for k, n := range st.Errors {
		want[fmt.Sprintf("crawler_errors_total{kind=%q}", k)] = float64(n)
	}
	for _, k := range knownRules {
		want[fmt.Sprintf("crawler_traps_total{rule=%q}", k)] = 0
	}
	for k, n := range st.Traps {
		want[fmt.Sprintf("crawler_traps_total{rule=%q}", k)] = float64(n)
	}
	h := st.FetchTime
	var acc int64
	for i, b := range h.Bounds {
		acc += h.Counts[i]
		want[fmt.Sprintf("crawler_fetch_duration_seconds_bucket{le=%q}", strconv.FormatFloat(b.Seconds(), 'g', -1, 64))] = float64(acc)
	}
	want[`crawler_fetch_duration_seconds_bucket{le="+Inf"}`] = float64(h.Count())
	want[`crawler_fetch_duration_seconds_count{}`] = float64(h.Count())
	want[`crawler_fetch_duration_seconds_sum{}`] = h.Sum.Seconds()
	for _, h := range topHosts(hs, top) {
		want[fmt.Sprintf("crawler_host_requests_total{host=%q}", h.Host)] = float64(h.Requests)
		want[fmt.Sprintf("crawler_host_errors_total{host=%q}", h.Host)] = float64(h.Errors)
		want[fmt.Sprintf("crawler_host_bytes_total{host=%q}", h.Host)] = float64(h.Bytes)
	}
	return want
}

// topHosts returns the n busiest hosts of hs, by requests and then name.
func topHosts(hs []politeness.HostStats, n int) []politeness.HostStats {
	hs = slices.Clone(hs)
	slices.SortFunc(hs, func(a, b politeness.HostStats) int {
		return cmp.Or(cmp.Compare(b.Requests, a.Requests), cmp.Compare(a.Host, b.Host))
	})
	return hs[:max(0, min(n, len(hs)))]
}
