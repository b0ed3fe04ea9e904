package crawler

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"crawler/fetch"
	"crawler/internal/tally"
	"crawler/politeness"
	"crawler/sites"
	"crawler/traps"
)

// Kinds of failure that the crawler counts in Stats.Errors besides those
// of a fetch (fetch.KindTimeout and the rest), as [ErrorKind] names them.
const (
	KindTooManyRedirects  = "too-many-redirects" // a redirect chain went past MaxRedirects
	KindBadRedirect       = "bad-redirect"       // a redirect without a usable Location
	KindRobotsUnavailable = "robots-unavailable" // robots.txt could not be had: host deferred
	KindHostRetired       = "host-retired"       // a URL not fetched: its host failed Pacing.MaxFailures times in a row, or was retired by RetireHost
	KindHandler           = "handler"            // a Handler returned an error or panicked
)

// errorKinds are the kinds counted (see ErrorKinds).
var errorKinds = []string{fetch.KindTimeout, fetch.KindDNS, fetch.KindRefused, fetch.KindReset, fetch.KindTLS,
	fetch.KindCanceled, KindTooManyRedirects, KindBadRedirect, KindRobotsUnavailable, KindHostRetired, KindHandler,
	fetch.KindBlockedAddress, fetch.KindHeaderTooLarge, fetch.KindProxyBanned, fetch.KindProxyAuth, fetch.KindNotArchived,
	sites.KindLoginFailed, sites.KindMaxPages, fetch.KindOther}

// ErrorKinds returns every kind Stats.Errors counts, "other" last: what
// ErrorKind returns, for one a Fetcher's error names that is not among
// them, counts as "other".
func ErrorKinds() []string { return slices.Clone(errorKinds) }

// ErrorKind classifies a page's error into a Kind of this package or of
// package fetch (fetch.KindDNS for a host retired as its name is unknown).
func ErrorKind(err error) string {
	switch {
	case errors.As(err, new(fetch.Kinded)):
		return fetch.ErrorKind(err)
	case errors.Is(err, ErrTooManyRedirects):
		return KindTooManyRedirects
	case errors.Is(err, ErrBadRedirect):
		return KindBadRedirect
	case politeness.HostNotFound(err) && !errors.Is(err, fetch.ErrBlockedAddress):
		return fetch.KindDNS
	case errors.Is(err, politeness.ErrHostRetired):
		return KindHostRetired
	}
	return fetch.ErrorKind(err)
}

// Stats is a snapshot of a crawl's counters, from [Crawler.Stats].
type Stats struct {
	Requests         int64            // page requests sent, counted as each ends (robots.txt not included); MaxPages bounds this
	Fetched          int64            // responses received, any status
	Bytes            int64            // body bytes received
	Status           map[int]int64    // responses by status code
	Errors           map[string]int64 // failures by kind (see ErrorKind); handler errors under "handler"
	Redirects        int64            // 3xx responses whose target was scheduled or found already seen
	Truncated        int64            // bodies cut at the size cap
	RobotsFetched    int64            // robots.txt requests
	RobotsBlocked    int64            // URLs not fetched because robots.txt disallows them
	Retries          int64            // failed requests (429, 5xx, no response) whose URL was tried again
	HostsRetired     int64            // hosts given up: after Pacing.MaxFailures failures in a row, their name not found (Pacing.NotFoundRetries), by RetireHost
	Duplicates       int64            // links to URLs already seen
	OutOfScope       int64            // links dropped by Scope (hosts, depth, predicate)
	BadLinks         int64            // links that were not valid URLs (a bad host, port or IPv6 literal)
	OtherSchemes     int64            // links with a scheme other than http(s) (mailto:, javascript:, ftp:, ...), not followed
	LinksTruncated   int64            // HTML pages whose links were cut short: more than MaxLinksPerPage
	Traps            map[string]int64 // URLs not followed or not fetched, by trap rule (see traps.Config and the rule names of package traps)
	TrapPatterns     []string         // host and path patterns stopped for serving duplicates (the first 100), as "example.com/calendar?month"
	DuplicateContent int64            // HTML pages whose content an earlier page of the crawl had (one Traps.DuplicateWindow remembers)
	DepthRefetches   int64            // pages fetched again, found nearer a seed after Scope.MaxDepth cut their links
	Sitemaps         int64            // responses read as sitemaps (urlsets, indexes, text lists, feeds)
	SitemapURLs      int64            // URLs they listed within the protocol's scope, before the crawl's Scope
	SitemapErrors    int64            // sitemaps read in part: malformed, cut short or past the protocol's limits (logged, each once)
	Revisits         int64            // page requests that revisited a page fetched before (Crawler.Recrawl)
	NotModified      int64            // of those, answered 304 Not Modified: no body
	Unchanged        int64            // of those, found the page unchanged: a 304, or a 200 with the content of the visit before
	NearDuplicates   int64            // HTML pages found near-duplicates of an earlier page of the Run (Crawler.NearDuplicates)
	Logins           int64            // first logins to a site that worked (Crawler.Sites)
	Relogins         int64            // logins again after a session expired
	LoginsFailed     int64            // login attempts that failed
	Forwarded        int64            // links sent to the part of a shared crawl that holds their host (frontier.Exchanger)
	Received         int64            // links received from other parts of a shared crawl, before the URL-seen test
	Seen             int              // URLs in the seen-set
	Frontier         int              // URLs waiting in the frontier
	InFlight         int              // URLs being processed by workers
	Hosts            int              // distinct hosts met
	Revisiting       int              // pages fetched that Recrawl keeps revisiting
	FetchTime        fetch.Histogram  // response times of the page requests answered, from request to end of body
	DNSLookups       int64            // host names the Fetcher looked up, if it is a fetch.DNSCaching (fetch.HTTPFetcher is)
	DNSCacheHits     int64            // of the names it needed, those answered from its DNS cache
	SeenFPRate       float64          // the seen-set's estimated false-positive rate, if it is a seen.Estimator (a Bloom filter); 0 if exact
	Elapsed          time.Duration    // time since Run started (to its end, once it returned)
	PagesPerSec      float64          // Fetched / Elapsed
}

// plus returns the counters of s (nil: none) and t added, with t's
// gauges: the totals of a crawl whose Runs so far are s and t.
func (s *Stats) plus(t Stats) Stats {
	if s == nil {
		s = &Stats{}
	}
	sum := t
	sum.Status, sum.Errors, sum.Traps = tally.Sum(s.Status, t.Status), tally.Sum(s.Errors, t.Errors), tally.Sum(s.Traps, t.Traps)
	tally.AddInt64s(&sum, s) // the counters, which only grow, and Elapsed; the gauges are ints, and stay sum's
	sum.FetchTime = s.FetchTime.Plus(t.FetchTime)
	sum.TrapPatterns = nil
	for _, p := range slices.Concat(s.TrapPatterns, t.TrapPatterns) {
		if len(sum.TrapPatterns) < maxTrapPatterns && !slices.Contains(sum.TrapPatterns, p) {
			sum.TrapPatterns = append(sum.TrapPatterns, p)
		}
	}
	sum.PagesPerSec = 0
	if secs := sum.Elapsed.Seconds(); secs > 0 {
		sum.PagesPerSec = float64(sum.Fetched) / secs
	}
	return sum
}

// String formats the headline numbers on one line.
func (s Stats) String() string {
	var errs int64
	for _, n := range s.Errors {
		errs += n
	}
	revisits := ""
	if s.Revisits > 0 {
		revisits = fmt.Sprintf(", revisits %d (unchanged %d, 304 %d)", s.Revisits, s.Unchanged, s.NotModified)
	}
	return fmt.Sprintf("fetched %d (%.0f/s), %s, frontier %d, seen %d, hosts %d, robots-blocked %d%s, errors %d, elapsed %s",
		s.Fetched, s.PagesPerSec, byteSize(s.Bytes), s.Frontier, s.Seen, s.Hosts, s.RobotsBlocked, revisits, errs,
		s.Elapsed.Round(time.Millisecond))
}

// ErrorSummary formats Errors as "kind=n" pairs in a fixed order.
func (s Stats) ErrorSummary() string {
	pairs := make([]string, 0, len(s.Errors))
	for _, k := range slices.Sorted(maps.Keys(s.Errors)) {
		pairs = append(pairs, fmt.Sprintf("%s=%d", k, s.Errors[k]))
	}
	return strings.Join(pairs, " ")
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// counters are the live counters of one Run, written by workers and the
// scheduler and read by Stats at any time. Each atomic.Int64 is named as
// the Stats field it fills (case aside): snapshot copies it there, so a
// counter is added with a field here and one in Stats.
type counters struct {
	start time.Time
	end   atomic.Int64 // UnixNano when Run returned, 0 while running

	requests, fetched, bytes, redirects, truncated                 atomic.Int64
	robotsFetched, robotsBlocked, retries, hostsRetired            atomic.Int64
	duplicates, forwarded, received, outOfScope, badLinks          atomic.Int64
	otherSchemes, linksTruncated, duplicateContent, depthRefetches atomic.Int64
	sitemaps, sitemapURLs, revisits, notModified, unchanged        atomic.Int64
	nearDuplicates, logins, relogins, loginsFailed, sitemapErrors  atomic.Int64
	seen, frontier, inflight, hosts, revisiting                    atomic.Int64 // gauges the scheduler publishes

	status       *tally.Keyed[int]    // by status code
	errors       *tally.Keyed[string] // by kind
	traps        *tally.Keyed[string] // by rule
	patternsMu   sync.Mutex
	trapPatterns []string
	fetchTime    fetch.Timer
	seenFPRate   atomic.Uint64 // math.Float64bits
	// dns returns the DNS figures of the Run's Fetcher, if it tells;
	// dnsBefore are those it had when the Run started.
	dns       func() fetch.DNSStats
	dnsBefore fetch.DNSStats
}

// counterFields pairs each atomic.Int64 of counters with the Stats field
// of its name. Made at init: a counter without a field panics there, in
// every test.
var counterFields = tally.PairFields[counters, Stats]("end")

// newCounters returns the counters of a Run starting now.
func newCounters() *counters {
	codes := make([]int, 600)
	for i := range codes {
		codes[i] = i
	}
	return &counters{
		start:  time.Now(),
		status: tally.New(-1, codes...),
		errors: tally.New(fetch.KindOther, errorKinds...),
		traps: tally.New("", traps.URLLength, traps.PathDepth, traps.SegmentRepeats, traps.HostBudget,
			traps.QueryValues, traps.Duplicates),
	}
}

// maxTrapPatterns bounds Stats.TrapPatterns.
const maxTrapPatterns = 100

func (c *counters) addTrapPattern(p string) {
	c.patternsMu.Lock()
	defer c.patternsMu.Unlock()
	if len(c.trapPatterns) < maxTrapPatterns {
		c.trapPatterns = append(c.trapPatterns, p)
	}
}

func (c *counters) snapshot() Stats {
	s := Stats{
		Status:     c.status.Counts(),
		Errors:     c.errors.Counts(),
		Traps:      c.traps.Counts(),
		FetchTime:  c.fetchTime.Histogram(),
		SeenFPRate: math.Float64frombits(c.seenFPRate.Load()),
	}
	counterFields.Copy(&s, c)
	if c.dns != nil {
		d := c.dns()
		s.DNSLookups, s.DNSCacheHits = d.Lookups-c.dnsBefore.Lookups, d.CacheHits-c.dnsBefore.CacheHits
	}
	c.patternsMu.Lock()
	s.TrapPatterns = append([]string(nil), c.trapPatterns...)
	c.patternsMu.Unlock()
	end := time.Now()
	if e := c.end.Load(); e != 0 {
		end = time.Unix(0, e)
	}
	s.Elapsed = end.Sub(c.start)
	if secs := s.Elapsed.Seconds(); secs > 0 {
		s.PagesPerSec = float64(s.Fetched) / secs
	}
	return s
}
