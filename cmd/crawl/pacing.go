package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"io"
	"os"
	"time"

	"crawler"
)

// pacingFlags are the per-host pacing knobs. A flag's 0 turns its rule off
// where the Crawler field's 0 would mean the default, so every default is
// visible in -help.
type pacingFlags struct {
	delayFactor      float64
	maxAdaptiveDelay time.Duration
	maxCrawlDelay    time.Duration
	maxRetryAfter    time.Duration
	backoff          time.Duration
	maxBackoff       time.Duration
	maxHostFailures  int
	maxRetries       int
	rate             float64
}

func (p *pacingFlags) register(fs *flag.FlagSet) {
	fs.Float64Var(&p.delayFactor, "delay-factor", crawler.DefaultDelayFactor, "wait this multiple of a host's last response time before its next request (0: none)")
	fs.DurationVar(&p.maxAdaptiveDelay, "max-adaptive-delay", crawler.DefaultMaxAdaptiveDelay, "cap on delay-factor x response time")
	fs.DurationVar(&p.maxCrawlDelay, "max-crawl-delay", crawler.DefaultMaxCrawlDelay, "cap on a robots.txt Crawl-delay")
	fs.DurationVar(&p.maxRetryAfter, "max-retry-after", crawler.DefaultMaxRetryAfter, "cap on the wait a Retry-After header asks for (0: ignore Retry-After)")
	fs.DurationVar(&p.backoff, "backoff", crawler.DefaultBackoff, "wait after a host's first failure (429, 5xx, no response), doubled per further failure in a row (0: none)")
	fs.DurationVar(&p.maxBackoff, "max-backoff", crawler.DefaultMaxBackoff, "cap on the doubled backoff")
	fs.IntVar(&p.maxHostFailures, "max-host-failures", crawler.DefaultMaxHostFailures, "failures in a row that retire a host (0: never)")
	fs.IntVar(&p.maxRetries, "max-retries", crawler.DefaultMaxRetries, "times a failed request's URL is tried again (0: none)")
	fs.Float64Var(&p.rate, "rate", 0, "requests per second of the whole crawl, robots.txt included (0: no bound beyond per-host pacing)")
}

// apply sets c's pacing fields from the flags.
func (p *pacingFlags) apply(c *crawler.Crawler) {
	c.DelayFactor = offIfZero(p.delayFactor)
	c.MaxAdaptiveDelay = p.maxAdaptiveDelay
	c.MaxCrawlDelay = p.maxCrawlDelay
	c.MaxRetryAfter = offIfZero(p.maxRetryAfter)
	c.Backoff = offIfZero(p.backoff)
	c.MaxBackoff = p.maxBackoff
	c.MaxHostFailures = offIfZero(p.maxHostFailures)
	c.MaxRetries = offIfZero(p.maxRetries)
	c.MaxRate = p.rate
}

// offIfZero maps a flag's 0 (off) to the field's negative (off).
func offIfZero[T int | float64 | time.Duration](v T) T {
	if v == 0 {
		return -1
	}
	return v
}

// hostRecord is one line of -host-stats.
type hostRecord struct {
	Host           string  `json:"host"`
	Requests       int64   `json:"requests"`
	RobotsRequests int64   `json:"robots_requests"`
	Bytes          int64   `json:"bytes"`
	Errors         int64   `json:"errors"`
	DelayMS        float64 `json:"delay_ms"`
	Failures       int     `json:"failures"`
	Retired        string  `json:"retired,omitempty"`
}

// writeHostStats writes hosts as JSON lines to the file named path, or to
// stdout for "-".
func writeHostStats(path string, stdout io.Writer, hosts []crawler.HostStats) error {
	w := stdout
	if path != "-" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, h := range hosts {
		if err := enc.Encode(hostRecord{
			Host: h.Host, Requests: h.Requests, RobotsRequests: h.RobotsRequests, Bytes: h.Bytes, Errors: h.Errors,
			DelayMS: float64(h.Delay.Microseconds()) / 1000, Failures: h.Failures, Retired: h.Retired,
		}); err != nil {
			return err
		}
	}
	return bw.Flush()
}
