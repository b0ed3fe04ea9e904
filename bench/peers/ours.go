package peers

import (
	"context"
	"net/http"

	"crawler"
	"crawler/fetch"
	"crawler/frontier"
	"crawler/politeness"
)

// OursFIFO is our Crawler with its defaults (robots.txt, canonicalization,
// exact seen-set, trap defences, one request per host at a time,
// breadth-first) but no politeness delay, fixed or adaptive.
func OursFIFO(ctx context.Context, cfg Config) (Result, error) {
	return ours(ctx, cfg, nil)
}

// OursAOPIC is OursFIFO with the AOPIC frontier.
func OursAOPIC(ctx context.Context, cfg Config) (Result, error) {
	return ours(ctx, cfg, &frontier.AOPIC{})
}

func ours(ctx context.Context, cfg Config, f frontier.Frontier) (Result, error) {
	c := &crawler.Crawler{
		Fetcher: &fetch.HTTPFetcher{
			Client:    &http.Client{Transport: cfg.Transport},
			UserAgent: UserAgent,
		},
		Frontier:  f,
		UserAgent: UserAgent,
		Workers:   cfg.Workers,
		Pacing:    politeness.Pacing{Delay: -1, DelayFactor: -1},
		MaxPages:  int64(cfg.Budget),
	}
	err := c.Run(ctx, cfg.Seeds...)
	return Result{Fetched: c.Stats().Fetched}, err
}
