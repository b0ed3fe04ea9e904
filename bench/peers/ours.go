package peers

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"crawler"
	"crawler/cookies"
	"crawler/fetch"
	"crawler/frontier"
	"crawler/metrics"
	"crawler/politeness"
	"crawler/status"
)

// OursFIFO is our Crawler with its defaults (robots.txt, canonicalization,
// exact seen-set, trap defences, one request per host at a time,
// breadth-first, a cookies.Jar) but no politeness delay, fixed or adaptive.
func OursFIFO(ctx context.Context, cfg Config) (Result, error) {
	return ours(ctx, cfg, nil)
}

// OursFIFONoCookies is OursFIFO without a cookie jar: it neither sends
// nor keeps cookies. Beside OursFIFO, it measures what the jar costs.
func OursFIFONoCookies(ctx context.Context, cfg Config) (Result, error) {
	c := oursCrawler(cfg, nil)
	c.Fetcher = &fetch.HTTPFetcher{Client: &http.Client{Transport: cfg.Transport}}
	err := c.Run(ctx, cfg.Seeds...)
	return Result{Fetched: c.Stats().Fetched}, err
}

// OursAOPIC is OursFIFO with the AOPIC frontier.
func OursAOPIC(ctx context.Context, cfg Config) (Result, error) {
	return ours(ctx, cfg, &frontier.AOPIC{})
}

// OursFIFOWatched is OursFIFO watched as the CLI's -http watches a crawl:
// a status.Monitor sampling it every second, and its page's /status.json
// and Prometheus /metrics (package metrics) served on loopback and each
// fetched every second while it runs, as an open status page and a
// Prometheus server would. Beside OursFIFO, it measures what watching
// costs.
func OursFIFOWatched(ctx context.Context, cfg Config) (Result, error) {
	c := oursCrawler(cfg, nil)
	m := status.New(c, status.Options{MaxPages: c.MaxPages})
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCollector(c, metrics.Options{}))
	srv := httptest.NewServer(m.Handler(status.ServerOptions{Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{})}))
	defer srv.Close()
	watching, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { m.Run(watching) })
	wg.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-watching.Done():
				return
			case <-t.C:
				for _, path := range []string{"/status.json", "/metrics"} {
					if resp, err := srv.Client().Get(srv.URL + path); err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				}
			}
		}
	})
	err := c.Run(ctx, cfg.Seeds...)
	stop()
	wg.Wait()
	return Result{Fetched: c.Stats().Fetched}, err
}

func ours(ctx context.Context, cfg Config, f frontier.Frontier) (Result, error) {
	c := oursCrawler(cfg, f)
	err := c.Run(ctx, cfg.Seeds...)
	return Result{Fetched: c.Stats().Fetched}, err
}

// oursCrawler is the Crawler of OursFIFO, with the frontier f (nil: FIFO).
func oursCrawler(cfg Config, f frontier.Frontier) *crawler.Crawler {
	return &crawler.Crawler{
		Fetcher:   &fetch.HTTPFetcher{Client: &http.Client{Transport: cfg.Transport}, Jar: &cookies.Jar{}},
		Frontier:  f,
		UserAgent: UserAgent,
		Workers:   cfg.Workers,
		Pacing:    politeness.Pacing{Delay: -1, DelayFactor: -1},
		MaxPages:  int64(cfg.Budget),
	}
}
