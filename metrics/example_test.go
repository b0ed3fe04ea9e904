package metrics_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"crawler"
	"crawler/metrics"
)

// A crawler's figures served on /metrics from a registry of its own. The
// example asks the handler once, before the crawl: every series is there,
// at 0.
func ExampleNewCollector() {
	c := &crawler.Crawler{} // set its fields, then Run it
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCollector(c, metrics.Options{ConstLabels: prometheus.Labels{"node": "n1"}}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	// go http.ListenAndServe("127.0.0.1:9090", mux)
	// err := c.Run(ctx, seeds...)

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "crawler_requests_total") || strings.HasPrefix(line, "crawler_responses_total") {
			fmt.Println(line)
		}
	}
	// Output:
	// crawler_requests_total{node="n1"} 0
	// crawler_responses_total{class="2xx",node="n1"} 0
	// crawler_responses_total{class="3xx",node="n1"} 0
	// crawler_responses_total{class="4xx",node="n1"} 0
	// crawler_responses_total{class="5xx",node="n1"} 0
	// crawler_responses_total{class="other",node="n1"} 0
}
