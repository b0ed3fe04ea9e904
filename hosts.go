package crawler

import (
	"time"

	"crawler/politeness"
)

// HostSummary counts the hosts of the current Run, or the last one, by
// their state at now, as politeness.SummarizeHosts(c.HostStats(), now)
// does, without copying or sorting them: it costs O(hosts) with the host
// table held, a few nanoseconds a host. Safe to call at any time, from any
// goroutine.
func (c *Crawler) HostSummary(now time.Time) politeness.HostSummary {
	if t := c.hostStats.Load(); t != nil {
		return t.Summary(now)
	}
	return politeness.HostSummary{}
}
