package politeness

import "time"

// HostDelay returns the wait between two requests to one host:
// max(minDelay, crawlDelay), where crawlDelay (usually [Robots.CrawlDelay]) is
// first capped at maxCrawlDelay. maxCrawlDelay <= 0 means no cap. The result is
// never negative.
func HostDelay(minDelay, crawlDelay, maxCrawlDelay time.Duration) time.Duration {
	if maxCrawlDelay > 0 && crawlDelay > maxCrawlDelay {
		crawlDelay = maxCrawlDelay
	}
	return max(minDelay, crawlDelay, 0)
}
