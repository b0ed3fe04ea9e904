package status

import (
	"math"

	"crawler"
	"crawler/politeness"
)

// Stats is a crawler.Stats as /status.json gives it: the same counters
// under snake_case names, those of the CLI's -json summary for the
// counters it has too (fetched, robots_fetched, elapsed_sec). The fetch
// time histogram is left out: Snapshot.FetchTime summarizes it. Maps and
// slices are empty, not null, when there is nothing.
type Stats struct {
	Requests         int64            `json:"requests"`
	Fetched          int64            `json:"fetched"`
	Bytes            int64            `json:"bytes"`
	Status           map[int]int64    `json:"status"` // responses by status code
	Errors           map[string]int64 `json:"errors"` // failures by kind
	Redirects        int64            `json:"redirects"`
	Truncated        int64            `json:"truncated"`
	RobotsFetched    int64            `json:"robots_fetched"`
	RobotsBlocked    int64            `json:"robots_blocked"`
	Retries          int64            `json:"retries"`
	HostsRetired     int64            `json:"hosts_retired"`
	Duplicates       int64            `json:"duplicates"`
	OutOfScope       int64            `json:"out_of_scope"`
	BadLinks         int64            `json:"bad_links"`
	OtherSchemes     int64            `json:"other_schemes"`
	LinksTruncated   int64            `json:"links_truncated"`
	Traps            map[string]int64 `json:"traps"` // by trap rule
	TrapPatterns     []string         `json:"trap_patterns"`
	DuplicateContent int64            `json:"duplicate_content"`
	DepthRefetches   int64            `json:"depth_refetches"`
	Sitemaps         int64            `json:"sitemaps"`
	SitemapURLs      int64            `json:"sitemap_urls"`
	SitemapErrors    int64            `json:"sitemap_errors"`
	Revisits         int64            `json:"revisits"`
	NotModified      int64            `json:"not_modified"`
	Unchanged        int64            `json:"unchanged"`
	NearDuplicates   int64            `json:"near_duplicates"`
	Logins           int64            `json:"logins"`
	Relogins         int64            `json:"relogins"`
	LoginsFailed     int64            `json:"logins_failed"`
	Forwarded        int64            `json:"forwarded"`
	Received         int64            `json:"received"`
	Seen             int              `json:"seen"`
	Frontier         int              `json:"frontier"`
	InFlight         int              `json:"in_flight"`
	Hosts            int              `json:"hosts"`
	Revisiting       int              `json:"revisiting"`
	DNSLookups       int64            `json:"dns_lookups"`
	DNSCacheHits     int64            `json:"dns_cache_hits"`
	SeenFPRate       float64          `json:"seen_fp_rate"`
	ElapsedSec       float64          `json:"elapsed_sec"`   // crawler.Stats.Elapsed
	PagesPerSec      float64          `json:"pages_per_sec"` // Fetched / ElapsedSec
}

// StatsOf returns s as /status.json gives it. A rate that is not finite
// (NaN or infinite), which encoding/json refuses, becomes 0.
func StatsOf(s crawler.Stats) Stats {
	orEmpty := func(m map[string]int64) map[string]int64 {
		if m == nil {
			return map[string]int64{}
		}
		return m
	}
	x := Stats{
		Requests: s.Requests, Fetched: s.Fetched, Bytes: s.Bytes, Status: s.Status, Errors: orEmpty(s.Errors),
		Redirects: s.Redirects, Truncated: s.Truncated, RobotsFetched: s.RobotsFetched, RobotsBlocked: s.RobotsBlocked,
		Retries: s.Retries, HostsRetired: s.HostsRetired, Duplicates: s.Duplicates, OutOfScope: s.OutOfScope,
		BadLinks: s.BadLinks, OtherSchemes: s.OtherSchemes, LinksTruncated: s.LinksTruncated,
		Traps: orEmpty(s.Traps), TrapPatterns: s.TrapPatterns, DuplicateContent: s.DuplicateContent,
		DepthRefetches: s.DepthRefetches, Sitemaps: s.Sitemaps, SitemapURLs: s.SitemapURLs, SitemapErrors: s.SitemapErrors, Revisits: s.Revisits,
		NotModified: s.NotModified, Unchanged: s.Unchanged, NearDuplicates: s.NearDuplicates,
		Logins: s.Logins, Relogins: s.Relogins, LoginsFailed: s.LoginsFailed,
		Forwarded: s.Forwarded, Received: s.Received, Seen: s.Seen, Frontier: s.Frontier, InFlight: s.InFlight,
		Hosts: s.Hosts, Revisiting: s.Revisiting, DNSLookups: s.DNSLookups, DNSCacheHits: s.DNSCacheHits,
		SeenFPRate: finite(s.SeenFPRate), ElapsedSec: s.Elapsed.Seconds(), PagesPerSec: finite(s.PagesPerSec),
	}
	if x.Status == nil {
		x.Status = map[int]int64{}
	}
	if x.TrapPatterns == nil {
		x.TrapPatterns = []string{}
	}
	return x
}

// HostSummary counts the hosts of a crawl by state, as /status.json gives
// them: politeness.HostSummary under snake_case names, and Done, which
// counts every host not retired once the crawl is finished (the others
// are then 0).
type HostSummary struct {
	Retired    int `json:"retired"`
	Active     int `json:"active"`
	BackingOff int `json:"backing_off"`
	Waiting    int `json:"waiting"`
	Idle       int `json:"idle"`
	Done       int `json:"done"`
}

// hostSummaryOf returns h as /status.json gives it; finished: every host
// not retired is done.
func hostSummaryOf(h politeness.HostSummary, finished bool) HostSummary {
	if finished {
		return HostSummary{Retired: h.Retired, Done: h.Active + h.BackingOff + h.Waiting + h.Idle}
	}
	return HostSummary{Retired: h.Retired, Active: h.Active, BackingOff: h.BackingOff, Waiting: h.Waiting, Idle: h.Idle}
}

// finite returns f, or 0 if it is NaN or infinite, which encoding/json
// refuses.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}
