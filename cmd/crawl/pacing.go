package main

import (
	"flag"
	"fmt"

	"crawler/politeness"
)

// registerPacing binds the pacing flags to p. Each flag means what its
// field means: 0 the default (named in -help), a negative value off.
func registerPacing(fs *flag.FlagSet, p *politeness.Pacing) {
	fs.DurationVar(&p.Delay, "delay", 0, fmt.Sprintf("least time between two requests to one host (0: %v; negative: none; -demo: none unless set)", politeness.DefaultDelay))
	fs.Float64Var(&p.DelayFactor, "delay-factor", 0, fmt.Sprintf("wait this multiple of a host's last response time before its next request (0: %v; negative: none)", politeness.DefaultDelayFactor))
	fs.DurationVar(&p.MaxAdaptiveDelay, "max-adaptive-delay", 0, fmt.Sprintf("cap on delay-factor x response time (0: %v; negative: no adaptive delay)", politeness.DefaultMaxAdaptiveDelay))
	fs.DurationVar(&p.MaxCrawlDelay, "max-crawl-delay", 0, fmt.Sprintf("cap on a robots.txt Crawl-delay (0: %v; negative: Crawl-delay ignored)", politeness.DefaultMaxCrawlDelay))
	fs.DurationVar(&p.MaxRetryAfter, "max-retry-after", 0, fmt.Sprintf("cap on the wait a Retry-After header asks for (0: %v; negative: Retry-After ignored)", politeness.DefaultMaxRetryAfter))
	fs.DurationVar(&p.Backoff, "backoff", 0, fmt.Sprintf("wait after a host's first failure (429, 5xx, no response), doubled per further failure in a row (0: %v; negative: none)", politeness.DefaultBackoff))
	fs.DurationVar(&p.MaxBackoff, "max-backoff", 0, fmt.Sprintf("cap on the doubled backoff (0: %v; negative: no backoff)", politeness.DefaultMaxBackoff))
	fs.IntVar(&p.MaxFailures, "max-host-failures", 0, fmt.Sprintf("failures in a row that retire a host (0: %d; negative: never)", politeness.DefaultMaxFailures))
}
