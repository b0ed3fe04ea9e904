package main

import (
	"flag"

	"crawler/politeness"
)

// registerPacing binds the pacing flags to p, each with its real default.
// 0 is taken literally (no delay, no backoff, a cap of 0) and, like a
// negative value, switches off what the flag does: literalZero maps it to
// the field's "off" once the flags are parsed.
func registerPacing(fs *flag.FlagSet, p *politeness.Pacing) {
	durationVar(fs, &p.Delay, "delay", politeness.DefaultDelay, "least time between two requests to one host (0: none; -demo: none unless set)")
	fs.Float64Var(&p.DelayFactor, "delay-factor", politeness.DefaultDelayFactor, "wait this multiple of a host's last response time before its next request (0: none)")
	durationVar(fs, &p.MaxAdaptiveDelay, "max-adaptive-delay", politeness.DefaultMaxAdaptiveDelay, "cap on delay-factor x response time (0: no adaptive delay)")
	durationVar(fs, &p.MaxCrawlDelay, "max-crawl-delay", politeness.DefaultMaxCrawlDelay, "cap on a robots.txt Crawl-delay (0: Crawl-delay ignored)")
	durationVar(fs, &p.MaxRetryAfter, "max-retry-after", politeness.DefaultMaxRetryAfter, "cap on the wait a Retry-After header asks for (0: Retry-After ignored)")
	durationVar(fs, &p.Backoff, "backoff", politeness.DefaultBackoff, "wait after a host's first failure (429, 5xx, no response), doubled per further failure in a row (0: none)")
	durationVar(fs, &p.MaxBackoff, "max-backoff", politeness.DefaultMaxBackoff, "cap on the doubled backoff (0: no backoff)")
	fs.IntVar(&p.MaxFailures, "max-host-failures", politeness.DefaultMaxFailures, "failures in a row that retire a host (0: never)")
}

// pacingOff maps the pacing flags given as 0 (or negative) to their
// field's "off", which in the library is a negative value (0 is the
// default there).
func pacingOff(p *politeness.Pacing) {
	off(&p.Delay, &p.MaxAdaptiveDelay, &p.MaxCrawlDelay, &p.MaxRetryAfter, &p.Backoff, &p.MaxBackoff)
	off(&p.DelayFactor)
	off(&p.MaxFailures)
}
