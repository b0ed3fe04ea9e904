package metrics_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/metrics"
	"crawler/politeness"
)

// crawled returns a crawler that has crawled a web of 15 hosts, the same
// for every test that asks.
var crawled = sync.OnceValues(func() (*crawler.Crawler, error) {
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 22, Hosts: 15, PagesPerHost: 4, PageBytes: 512, MaxChain: 3})
	defer w.Close()
	c := newCrawler(w)
	c.Pacing.Delay = -1
	return c, c.Run(context.Background(), w.Seeds()...)
})

func mustCrawled(t *testing.T) *crawler.Crawler {
	t.Helper()
	c, err := crawled()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// gather registers a collector of src with opts on a registry of its own
// and gathers it.
func gather(t *testing.T, src metrics.Source, opts metrics.Options) []*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := reg.Register(metrics.NewCollector(src, opts)); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	return mfs
}

// hostLabels returns the host label values of each per-host metric
// family, in the order gathered.
func hostLabels(mfs []*dto.MetricFamily) map[string][]string {
	m := map[string][]string{}
	for _, mf := range mfs {
		for _, mt := range mf.GetMetric() {
			for _, l := range mt.GetLabel() {
				if l.GetName() == "host" {
					m[mf.GetName()] = append(m[mf.GetName()], l.GetValue())
				}
			}
		}
	}
	return m
}

// A web of more hosts than TopHosts gives per-host series for exactly
// TopHosts hosts, the busiest; a negative TopHosts gives none.
func TestTopHosts(t *testing.T) {
	c := mustCrawled(t)
	hs := c.HostStats()
	if len(hs) != 15 {
		t.Fatalf("%d hosts contacted, want 15", len(hs))
	}
	perHost := []string{"crawler_host_requests_total", "crawler_host_errors_total", "crawler_host_bytes_total", "crawler_host_delay_seconds"}
	for _, tc := range []struct {
		top, want int
	}{{4, 4}, {1, 1}, {0, metrics.DefaultTopHosts}, {15, 15}, {100, 15}, {-1, 0}} {
		var want []string
		for _, h := range topHosts(hs, tc.want) {
			want = append(want, h.Host)
		}
		slices.Sort(want) // the registry sorts series by label
		got := hostLabels(gather(t, c, metrics.Options{TopHosts: tc.top}))
		if tc.want == 0 {
			if len(got) != 0 {
				t.Errorf("TopHosts %d: per-host series %v, want none", tc.top, got)
			}
			continue
		}
		for _, name := range perHost {
			if !slices.Equal(got[name], want) {
				t.Errorf("TopHosts %d: %s for hosts %v, want %v", tc.top, name, got[name], want)
			}
		}
	}
}

// fakeSource is a Source of fixed figures.
type fakeSource struct {
	stats crawler.Stats
	hosts []politeness.HostStats
}

func (s *fakeSource) TotalStats() crawler.Stats         { return s.stats }
func (s *fakeSource) HostStats() []politeness.HostStats { return s.hosts }

// The busiest hosts are those with the most requests, ties broken by name,
// however many hosts there are.
func TestTopHostsTies(t *testing.T) {
	src := &fakeSource{}
	for i, n := range []int64{5, 9, 5, 9, 1, 0, 7, 5} {
		src.hosts = append(src.hosts, politeness.HostStats{Host: string(rune('a' + i)), Requests: n})
	}
	// Busiest first: b=9 d=9, g=7, a=5 c=5 h=5, e=1, f=0. The registry
	// sorts series by host.
	for _, tc := range []struct {
		top  int
		want []string
	}{
		{1, []string{"b"}},
		{2, []string{"b", "d"}},
		{3, []string{"b", "d", "g"}},
		{4, []string{"a", "b", "d", "g"}},
		{5, []string{"a", "b", "c", "d", "g"}},
		{6, []string{"a", "b", "c", "d", "g", "h"}},
		{7, []string{"a", "b", "c", "d", "e", "g", "h"}},
		{8, []string{"a", "b", "c", "d", "e", "f", "g", "h"}},
		{9, []string{"a", "b", "c", "d", "e", "f", "g", "h"}},
	} {
		got := hostLabels(gather(t, src, metrics.Options{TopHosts: tc.top}))["crawler_host_requests_total"]
		if !slices.Equal(got, tc.want) {
			t.Errorf("TopHosts %d: hosts %v, want %v", tc.top, got, tc.want)
		}
	}
}

// ConstLabels are on every series, and collectors of two nodes of a
// shared crawl, told apart by them, share a registry.
func TestConstLabels(t *testing.T) {
	c := mustCrawled(t)
	reg := prometheus.NewRegistry()
	for _, node := range []string{"n1", "n2"} {
		opts := metrics.Options{Namespace: "fleet", TopHosts: 3, ConstLabels: prometheus.Labels{"node": node}}
		if err := reg.Register(metrics.NewCollector(c, opts)); err != nil {
			t.Fatal(err)
		}
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := 0
	for _, mf := range mfs {
		if !strings.HasPrefix(mf.GetName(), "fleet_") {
			t.Errorf("metric %s lacks the namespace", mf.GetName())
		}
		nodes := map[string]int{}
		for _, m := range mf.GetMetric() {
			series++
			node := ""
			for _, l := range m.GetLabel() {
				if l.GetName() == "node" {
					node = l.GetValue()
				}
			}
			if node == "" {
				t.Errorf("%s %v: no node label", mf.GetName(), m.GetLabel())
			}
			nodes[node]++
		}
		if nodes["n1"] == 0 || nodes["n1"] != nodes["n2"] || len(nodes) != 2 {
			t.Errorf("%s: series by node %v, want as many of n1 as of n2", mf.GetName(), nodes)
		}
	}
	if series < 2*60 {
		t.Errorf("%d series in all; want every metric for both nodes", series)
	}
}

// ConstLabels that clash with the collector's own labels or are reserved,
// or a namespace that cannot make a metric name, make Register fail;
// nothing panics.
func TestInvalidOptions(t *testing.T) {
	for _, tc := range []struct {
		opts    metrics.Options
		wantErr string
	}{
		{metrics.Options{ConstLabels: prometheus.Labels{"host": "x"}}, "duplicate label"},
		{metrics.Options{ConstLabels: prometheus.Labels{"__name__": "x"}}, "__name__"},
		{metrics.Options{ConstLabels: prometheus.Labels{"node": "bad\xff"}}, "not valid UTF-8"},
		{metrics.Options{Namespace: "bad\xffname"}, "metrics: Namespace"},
		{metrics.Options{Namespace: "my-crawler"}, "metrics: Namespace"},
		{metrics.Options{Namespace: "1st"}, "metrics: Namespace"},
		{metrics.Options{Namespace: "a:b"}, "metrics: Namespace"},
	} {
		reg := prometheus.NewRegistry()
		err := reg.Register(metrics.NewCollector(&fakeSource{}, tc.opts))
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%+v: Register: %v, want an error about %q", tc.opts, err, tc.wantErr)
		}
	}
}

// Before its first Run, a Crawler's series are all there, at 0; a kind or
// rule the collector does not know, even in invalid UTF-8, is exported.
func TestBeforeRunAndUnknownKeys(t *testing.T) {
	mfs := gather(t, &crawler.Crawler{}, metrics.Options{})
	fams := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		fams[mf.GetName()] = mf
		for _, m := range mf.GetMetric() {
			if v := m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount()); v != 0 {
				t.Errorf("%s %v = %v before any Run, want 0", mf.GetName(), m.GetLabel(), v)
			}
		}
	}
	if h := fams["crawler_fetch_duration_seconds"]; h == nil || len(h.GetMetric()[0].GetHistogram().GetBucket()) != len(fetch.TimeBounds()) {
		t.Errorf("fetch_duration_seconds before any Run: %v, want the buckets of fetch.TimeBounds", h)
	}
	if n := len(fams["crawler_errors_total"].GetMetric()); n != len(knownKinds) {
		t.Errorf("%d error kinds before any Run, want the %d known", n, len(knownKinds))
	}
	for _, name := range []string{"crawler_host_requests_total", "crawler_requests_total", "crawler_hosts_state"} {
		if _, ok := fams[name]; ok == (name == "crawler_host_requests_total") {
			t.Errorf("%s present: %v", name, ok)
		}
	}

	src := &fakeSource{stats: crawler.Stats{
		Errors: map[string]int64{"future-kind": 2, "bad\xffkind": 1, fetch.KindDNS: 3},
		Traps:  map[string]int64{"future-rule": 4},
		Status: map[int]int64{100: 1, 200: 2, 404: 3, 599: 4, 600: 5, 999: 6},
		Hosts:  2,
	}, hosts: []politeness.HostStats{
		{Host: "a.test", Requests: 1, Delay: 1500 * time.Millisecond},
		{Host: "b\xfe.test", Requests: 2, Retired: "failures"},
	}}
	got := map[string]float64{}
	for _, mf := range gather(t, src, metrics.Options{}) {
		for _, m := range mf.GetMetric() {
			got[key(mf.GetName(), m.GetLabel())] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	for k, v := range map[string]float64{
		`crawler_errors_total{kind="future-kind"}`:           2,
		"crawler_errors_total{kind=\"bad\ufffdkind\"}":       1,
		`crawler_errors_total{kind="dns"}`:                   3,
		`crawler_errors_total{kind="timeout"}`:               0,
		`crawler_traps_total{rule="future-rule"}`:            4,
		`crawler_traps_total{rule="host-budget"}`:            0,
		`crawler_responses_total{class="2xx"}`:               2,
		`crawler_responses_total{class="4xx"}`:               3,
		`crawler_responses_total{class="5xx"}`:               4,
		`crawler_responses_total{class="other"}`:             12,
		`crawler_hosts_state{state="retired"}`:               1,
		`crawler_hosts_state{state="idle"}`:                  1,
		"crawler_host_requests_total{host=\"b\ufffd.test\"}": 2,
		`crawler_host_delay_seconds{host="a.test"}`:          1.5,
		`crawler_hosts{}`:                                    2,
	} {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
}
