package metrics_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"crawler/fetch"
	"crawler/internal/proxytest"
	"crawler/metrics"
)

// The proxy collector exports each proxy's counts, labelled with its URL
// without the password, as a pool through real proxies counted them.
func TestProxyCollector(t *testing.T) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer origin.Close()
	target := origin.Listener.Addr().String()
	healthy := proxytest.NewHTTP(t, target, proxytest.Healthy, false)
	banning := proxytest.NewHTTP(t, target, proxytest.Ban, false)
	secret := *banning.URL
	secret.User = url.UserPassword("u", "s3cret")
	pool := &fetch.ProxyPool{Proxies: []*url.URL{healthy.URL, &secret}, Rotate: fetch.RoundRobin, MaxFailures: 2, Bench: time.Hour, MaxBench: 2 * time.Hour}
	f := &fetch.HTTPFetcher{Proxies: pool, Addresses: fetch.AddressPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}}
	for range 4 {
		_, err := f.Fetch(context.Background(), &fetch.Request{URL: "http://a.test/"})
		if err != nil && !errors.Is(err, fetch.ErrProxyBanned) {
			t.Fatal(err)
		}
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewProxyCollector(pool, metrics.Options{}))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			v := m.GetCounter().GetValue()
			if mf.GetType().String() == "GAUGE" {
				v = m.GetGauge().GetValue()
			}
			got[mf.GetName()+" "+m.GetLabel()[0].GetValue()] = v
		}
	}
	h, b := healthy.URL.String(), "http://u:xxxxx@"+banning.URL.Host
	for name, want := range map[string]float64{
		"crawler_proxy_requests_total " + h: 2, "crawler_proxy_requests_total " + b: 2,
		"crawler_proxy_bans_total " + h: 0, "crawler_proxy_bans_total " + b: 2,
		"crawler_proxy_failures_total " + b: 0, "crawler_proxy_benched_total " + b: 1,
		"crawler_proxy_benched_total " + h: 0, "crawler_proxy_benched_seconds " + h: 0,
	} {
		if v, ok := got[name]; !ok || v != want {
			t.Errorf("%s = %v (%v), want %v; all: %v", name, v, ok, want, got)
		}
	}
	if left := got["crawler_proxy_benched_seconds "+b]; left < 3500 || left > 3600 {
		t.Errorf("the banning proxy's bench has %vs left, want about an hour", left)
	}
	if len(got) != 10 {
		t.Errorf("%d series, want 10: %v", len(got), got)
	}
}
