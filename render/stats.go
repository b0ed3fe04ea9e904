package render

import (
	"fmt"
	"sync/atomic"
)

// Stats are the counts of a [Fetcher] since it was made, from
// [Fetcher.Stats].
type Stats struct {
	Rendered  int64 // pages rendered
	Passed    int64 // responses returned as fetched: not an HTML page, or Render said no
	Errors    int64 // renders that failed: Fetch returned an error after the page was fetched
	Unsettled int64 // renders whose MaxWait passed first; the document was taken as it was

	Requests int64 // requests of the browser that Fetcher got a response for
	Failed   int64 // requests of the browser that Fetcher failed to fetch (blocked addresses aside)

	// Requests of the browser not sent, by why.
	BlockedRules      int64 // Allowed said no, or failed
	BlockedAddress    int64 // Fetcher's address policy refused them (fetch.ErrBlockedAddress)
	BlockedNavigation int64 // documents Navigate (or the default rule) refused
	BlockedMedia      int64 // images, fonts, media and favicons, without LoadMedia
	BlockedOther      int64 // methods other than GET, schemes other than http(s), data: and blob:, event streams, prefetches

	Browsers int64 // browser processes started (more than one: one died and was replaced)
	OpenTabs int64 // tabs open now, at most Tabs
	PeakTabs int64 // the most tabs open at once
}

// Blocked returns the number of requests of the browser not sent, all
// kinds together.
func (s Stats) Blocked() int64 {
	return s.BlockedRules + s.BlockedAddress + s.BlockedNavigation + s.BlockedMedia + s.BlockedOther
}

// String returns the counts on one line, as "rendered=3 passed=1 ...".
func (s Stats) String() string {
	return fmt.Sprintf("rendered=%d passed=%d errors=%d unsettled=%d requests=%d failed=%d "+
		"blocked=%d (rules=%d address=%d navigation=%d media=%d other=%d) browsers=%d tabs=%d peak_tabs=%d",
		s.Rendered, s.Passed, s.Errors, s.Unsettled, s.Requests, s.Failed,
		s.Blocked(), s.BlockedRules, s.BlockedAddress, s.BlockedNavigation, s.BlockedMedia, s.BlockedOther,
		s.Browsers, s.OpenTabs, s.PeakTabs)
}

// counters are the live counts behind Stats.
type counters struct {
	rendered, passed, errors, unsettled atomic.Int64
	requests, failed                    atomic.Int64
	blockedBy                           [blockOther + 1]atomic.Int64
	browsers, openTabs, peakTabs        atomic.Int64
}

func (c *counters) blocked(k blockKind) { c.blockedBy[k].Add(1) }

func (c *counters) tabOpened() {
	n := c.openTabs.Add(1)
	for {
		peak := c.peakTabs.Load()
		if n <= peak || c.peakTabs.CompareAndSwap(peak, n) {
			return
		}
	}
}

func (c *counters) tabClosed() { c.openTabs.Add(-1) }

func (c *counters) snapshot() Stats {
	return Stats{
		Rendered:          c.rendered.Load(),
		Passed:            c.passed.Load(),
		Errors:            c.errors.Load(),
		Unsettled:         c.unsettled.Load(),
		Requests:          c.requests.Load(),
		Failed:            c.failed.Load(),
		BlockedRules:      c.blockedBy[blockRules].Load(),
		BlockedAddress:    c.blockedBy[blockAddress].Load(),
		BlockedNavigation: c.blockedBy[blockNavigation].Load(),
		BlockedMedia:      c.blockedBy[blockMedia].Load(),
		BlockedOther:      c.blockedBy[blockOther].Load(),
		Browsers:          c.browsers.Load(),
		OpenTabs:          c.openTabs.Load(),
		PeakTabs:          c.peakTabs.Load(),
	}
}
