package metrics

import (
	"cmp"
	"container/heap"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"crawler"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/traps"
)

// Defaults of [Options], each used where its field is zero.
const (
	// DefaultNamespace prefixes every metric name: crawler_requests_total.
	DefaultNamespace = "crawler"
	// DefaultTopHosts is how many hosts get per-host series.
	DefaultTopHosts = 10
)

// Source is what a collector reads at each scrape: a [*crawler.Crawler]
// satisfies it. Both methods must be safe to call at any time, from any
// goroutine, while a crawl runs.
type Source interface {
	// TotalStats returns the counters of the whole crawl and the gauges
	// of its current Run.
	TotalStats() crawler.Stats
	// HostStats returns the accounting of every host of the current Run.
	HostStats() []politeness.HostStats
}

var _ Source = (*crawler.Crawler)(nil)

// Options configure [NewCollector]. The zero value is ready to use.
type Options struct {
	// Namespace prefixes every metric name, joined with "_": ASCII
	// letters, digits and underscores, not starting with a digit. "":
	// DefaultNamespace.
	Namespace string
	// TopHosts bounds the hosts that get per-host series: the busiest by
	// page requests, ties broken by host name. 0: DefaultTopHosts;
	// negative: no per-host series.
	TopHosts int
	// ConstLabels are added to every series, e.g. {"node": "n1"} for one
	// node of a shared (clustered) crawl, so that collectors of several
	// nodes can share a registry. They must not use the names of the
	// collector's own labels (class, kind, rule, state, host).
	ConstLabels prometheus.Labels
}

// NewCollector returns a collector of src's figures, which it reads at each
// scrape (Collect): one TotalStats call and one HostStats call, adding
// nothing to the crawl's hot path. The collector keeps no state between scrapes and is
// safe for concurrent use. Register it on a registry of your own; an
// invalid Namespace or ConstLabels (invalid names, or the names of the
// collector's labels) makes Register fail.
//
// Collect costs O(hosts·log TopHosts) on top of src's two calls (a
// Crawler's HostStats holds its host table's lock while it copies it, in
// O(hosts)). The series it exports are bounded: a fixed set, the error
// kinds and trap rules (the known ones and any other src reports), and
// four per host for at most TopHosts hosts.
func NewCollector(src Source, opts Options) prometheus.Collector {
	ns := cmp.Or(opts.Namespace, DefaultNamespace)
	if !validNamespace(ns) {
		err := fmt.Errorf("metrics: Namespace %q: want ASCII letters, digits and underscores, not starting with a digit", ns)
		return invalidCollector{prometheus.NewInvalidDesc(err), err}
	}
	c := &collector{src: src, topHosts: opts.TopHosts}
	if c.topHosts == 0 {
		c.topHosts = DefaultTopHosts
	}
	desc := func(name, help string, labels ...string) *prometheus.Desc {
		d := prometheus.NewDesc(prometheus.BuildFQName(ns, "", name), help, labels, opts.ConstLabels)
		c.descs = append(c.descs, d)
		return d
	}
	for _, m := range counterStats {
		c.counters = append(c.counters, desc(m.name, m.help))
	}
	for _, m := range gaugeStats {
		c.gauges = append(c.gauges, desc(m.name, m.help))
	}
	c.responses = desc("responses_total", "Page responses received, by status class.", "class")
	c.errors = desc("errors_total", "Failures, by kind (see crawler.ErrorKind).", "kind")
	c.traps = desc("traps_total", "URLs not followed or not fetched, by crawler trap rule.", "rule")
	c.fetchTime = desc("fetch_duration_seconds", "Response times of the page requests answered, from request to end of body.")
	c.hostsState = desc("hosts_state", "Hosts contacted in the current Run, by politeness state.", "state")
	c.hostRequests = desc("host_requests_total", "Page requests sent to the host in the current Run, retries included; for the busiest hosts only.", "host")
	c.hostErrors = desc("host_errors_total", "Failures of the host in the current Run (429, 5xx, no response, robots.txt unavailable); for the busiest hosts only.", "host")
	c.hostBytes = desc("host_bytes_total", "Body bytes received from the host in the current Run; for the busiest hosts only.", "host")
	c.hostDelay = desc("host_delay_seconds", "The host's current wait between two requests; for the busiest hosts only.", "host")
	c.hostCookies = desc("host_cookies", "Cookies the crawl holds for the host; for the busiest hosts only.", "host")
	return c
}

// collector is the prometheus.Collector of NewCollector.
type collector struct {
	src      Source
	topHosts int // negative: none
	descs    []*prometheus.Desc
	counters []*prometheus.Desc // like counterStats
	gauges   []*prometheus.Desc // like gaugeStats

	responses, errors, traps, fetchTime, hostsState *prometheus.Desc
	hostRequests, hostErrors, hostBytes, hostDelay  *prometheus.Desc
	hostCookies                                     *prometheus.Desc
}

// validNamespace reports whether ns makes metric names of the classic
// form, [a-zA-Z_][a-zA-Z0-9_]*, without the colons kept for recording
// rules.
func validNamespace(ns string) bool {
	for i, r := range ns {
		switch {
		case r == '_', 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		case '0' <= r && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// invalidCollector is the collector of Options NewCollector cannot use:
// registering it fails with err.
type invalidCollector struct {
	desc *prometheus.Desc
	err  error
}

func (c invalidCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }
func (c invalidCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.NewInvalidMetric(c.desc, c.err)
}

// counterStats are the counters of crawler.Stats exported as they are.
var counterStats = [...]struct {
	name, help string
	value      func(*crawler.Stats) int64
}{
	{"requests_total", "Page requests sent (robots.txt not included).", func(s *crawler.Stats) int64 { return s.Requests }},
	{"pages_fetched_total", "Page responses received, any status.", func(s *crawler.Stats) int64 { return s.Fetched }},
	{"bytes_total", "Body bytes received.", func(s *crawler.Stats) int64 { return s.Bytes }},
	{"redirects_total", "Redirect responses whose target was scheduled or found already seen.", func(s *crawler.Stats) int64 { return s.Redirects }},
	{"truncated_total", "Bodies cut at the size cap.", func(s *crawler.Stats) int64 { return s.Truncated }},
	{"robots_fetches_total", "robots.txt requests.", func(s *crawler.Stats) int64 { return s.RobotsFetched }},
	{"robots_denied_total", "URLs not fetched because robots.txt disallows them.", func(s *crawler.Stats) int64 { return s.RobotsBlocked }},
	{"retries_total", "Failed requests (429, 5xx, no response) whose URL was tried again.", func(s *crawler.Stats) int64 { return s.Retries }},
	{"hosts_retired_total", "Hosts given up after too many failures in a row.", func(s *crawler.Stats) int64 { return s.HostsRetired }},
	{"duplicate_links_total", "Links to URLs already seen.", func(s *crawler.Stats) int64 { return s.Duplicates }},
	{"out_of_scope_links_total", "Links dropped by the crawl's scope.", func(s *crawler.Stats) int64 { return s.OutOfScope }},
	{"bad_links_total", "Links that were not valid URLs.", func(s *crawler.Stats) int64 { return s.BadLinks }},
	{"other_scheme_links_total", "Links with a scheme other than http(s), not followed.", func(s *crawler.Stats) int64 { return s.OtherSchemes }},
	{"link_truncated_pages_total", "HTML pages whose links were cut short at the per-page limit.", func(s *crawler.Stats) int64 { return s.LinksTruncated }},
	{"duplicate_content_total", "HTML pages whose content an earlier page of the Run had.", func(s *crawler.Stats) int64 { return s.DuplicateContent }},
	{"depth_refetches_total", "Pages fetched again, found nearer a seed after the depth limit cut their links.", func(s *crawler.Stats) int64 { return s.DepthRefetches }},
	{"revisits_total", "Page requests that revisited a page fetched before.", func(s *crawler.Stats) int64 { return s.Revisits }},
	{"not_modified_total", "Revisits answered 304 Not Modified.", func(s *crawler.Stats) int64 { return s.NotModified }},
	{"unchanged_total", "Revisits that found the page unchanged.", func(s *crawler.Stats) int64 { return s.Unchanged }},
	{"near_duplicates_total", "HTML pages found near-duplicates of an earlier page of the Run.", func(s *crawler.Stats) int64 { return s.NearDuplicates }},
	{"logins_total", "First logins to a site that worked (per-site rules).", func(s *crawler.Stats) int64 { return s.Logins }},
	{"relogins_total", "Logins again after a session expired.", func(s *crawler.Stats) int64 { return s.Relogins }},
	{"failed_logins_total", "Login attempts that failed.", func(s *crawler.Stats) int64 { return s.LoginsFailed }},
	{"sitemaps_total", "Responses read as sitemaps.", func(s *crawler.Stats) int64 { return s.Sitemaps }},
	{"sitemap_urls_total", "URLs listed by sitemaps within the protocol's scope.", func(s *crawler.Stats) int64 { return s.SitemapURLs }},
	{"sitemap_errors_total", "Sitemaps read in part: malformed, cut short or past the protocol's limits.", func(s *crawler.Stats) int64 { return s.SitemapErrors }},
	{"forwarded_links_total", "Links sent to the part of a shared crawl that holds their host.", func(s *crawler.Stats) int64 { return s.Forwarded }},
	{"received_links_total", "Links received from other parts of a shared crawl.", func(s *crawler.Stats) int64 { return s.Received }},
	{"dns_lookups_total", "Host names the fetcher looked up.", func(s *crawler.Stats) int64 { return s.DNSLookups }},
	{"dns_cache_hits_total", "Host names the fetcher needed and found in its DNS cache.", func(s *crawler.Stats) int64 { return s.DNSCacheHits }},
}

// gaugeStats are the gauges of crawler.Stats, those of the current Run.
var gaugeStats = [...]struct {
	name, help string
	value      func(*crawler.Stats) float64
}{
	{"frontier_urls", "URLs waiting in the frontier.", func(s *crawler.Stats) float64 { return float64(s.Frontier) }},
	{"seen_urls", "URLs in the seen-set.", func(s *crawler.Stats) float64 { return float64(s.Seen) }},
	{"inflight_urls", "URLs being processed by workers.", func(s *crawler.Stats) float64 { return float64(s.InFlight) }},
	{"hosts", "Distinct hosts met in the current Run.", func(s *crawler.Stats) float64 { return float64(s.Hosts) }},
	{"seen_false_positive_rate", "The seen-set's estimated false-positive rate; 0 if it is exact.", func(s *crawler.Stats) float64 { return s.SeenFPRate }},
	{"revisiting_pages", "Pages fetched that the crawl keeps revisiting.", func(s *crawler.Stats) float64 { return float64(s.Revisiting) }},
	{"elapsed_seconds", "Time the crawl's Runs have taken.", func(s *crawler.Stats) float64 { return s.Elapsed.Seconds() }},
}

// statusClasses are the values of the class label: statuses 200 to 599 by
// their first digit, then the others.
var statusClasses = [...]string{"2xx", "3xx", "4xx", "5xx", "other"}

// errorKinds are the error kinds exported even while their count is 0.
var errorKinds = crawler.ErrorKinds()

// trapRules are the trap rules exported even while their count is 0.
var trapRules = []string{traps.URLLength, traps.PathDepth, traps.SegmentRepeats,
	traps.HostBudget, traps.QueryValues, traps.Duplicates}

// Describe sends the descriptors of every metric the collector exports.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect reads the source once and sends its figures.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	st := c.src.TotalStats()
	hs := c.src.HostStats()
	now := time.Now()

	for i, m := range counterStats {
		ch <- prometheus.MustNewConstMetric(c.counters[i], prometheus.CounterValue, float64(m.value(&st)))
	}
	var byClass [len(statusClasses)]int64
	for code, n := range st.Status {
		i := len(statusClasses) - 1
		if code >= 200 && code < 600 {
			i = code/100 - 2
		}
		byClass[i] += n
	}
	for i, class := range statusClasses {
		ch <- prometheus.MustNewConstMetric(c.responses, prometheus.CounterValue, float64(byClass[i]), class)
	}
	collectByLabel(ch, c.errors, errorKinds, st.Errors)
	collectByLabel(ch, c.traps, trapRules, st.Traps)
	ch <- histogram(c.fetchTime, st.FetchTime)

	for i, m := range gaugeStats {
		ch <- prometheus.MustNewConstMetric(c.gauges[i], prometheus.GaugeValue, m.value(&st))
	}
	sum := politeness.SummarizeHosts(hs, now)
	for _, s := range [...]struct {
		state string
		n     int
	}{{"active", sum.Active}, {"backing_off", sum.BackingOff}, {"waiting", sum.Waiting}, {"idle", sum.Idle}, {"retired", sum.Retired}} {
		ch <- prometheus.MustNewConstMetric(c.hostsState, prometheus.GaugeValue, float64(s.n), s.state)
	}

	for _, h := range busiest(hs, c.topHosts) {
		host := labelValue(h.Host)
		ch <- prometheus.MustNewConstMetric(c.hostRequests, prometheus.CounterValue, float64(h.Requests), host)
		ch <- prometheus.MustNewConstMetric(c.hostErrors, prometheus.CounterValue, float64(h.Errors), host)
		ch <- prometheus.MustNewConstMetric(c.hostBytes, prometheus.CounterValue, float64(h.Bytes), host)
		ch <- prometheus.MustNewConstMetric(c.hostDelay, prometheus.GaugeValue, h.Delay.Seconds(), host)
		ch <- prometheus.MustNewConstMetric(c.hostCookies, prometheus.GaugeValue, float64(h.Cookies), host)
	}
}

// collectByLabel sends a counter of d for each of the known label values,
// 0 where counts has none, then for each other key of counts, sorted.
func collectByLabel(ch chan<- prometheus.Metric, d *prometheus.Desc, known []string, counts map[string]int64) {
	for _, k := range known {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(counts[k]), k)
	}
	var others []string
	for k := range counts {
		if !slices.Contains(known, k) {
			others = append(others, k)
		}
	}
	slices.Sort(others)
	for _, k := range others {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(counts[k]), labelValue(k))
	}
}

// histogram returns h as a histogram of d, in seconds, with Prometheus's
// cumulative buckets. An empty h (before the first Run) has the buckets of
// fetch.TimeBounds, all 0.
func histogram(d *prometheus.Desc, h fetch.Histogram) prometheus.Metric {
	bounds := h.Bounds
	if len(bounds) == 0 {
		bounds = fetch.TimeBounds()
	}
	buckets := make(map[float64]uint64, len(bounds))
	var acc int64
	for i, b := range bounds {
		if i < len(h.Counts) {
			acc += h.Counts[i]
		}
		buckets[b.Seconds()] = uint64(acc)
	}
	return prometheus.MustNewConstHistogram(d, uint64(h.Count()), h.Sum.Seconds(), buckets)
}

// labelValue returns s as a valid label value: invalid UTF-8, which a host
// or a key from elsewhere might hold, replaced.
func labelValue(s string) string {
	return strings.ToValidUTF8(s, "\uFFFD")
}

// busiest returns the k hosts of hs with the most page requests, ties
// broken by host name, busiest first; none if k <= 0. It costs
// O(len(hs)·log k).
func busiest(hs []politeness.HostStats, k int) []politeness.HostStats {
	if k <= 0 {
		return nil
	}
	if len(hs) <= k {
		top := slices.Clone(hs)
		slices.SortFunc(top, busier)
		return top
	}
	h := make(leastBusyFirst, 0, k)
	for _, s := range hs {
		switch {
		case len(h) < k:
			heap.Push(&h, s)
		case busier(s, h[0]) < 0:
			h[0] = s
			heap.Fix(&h, 0)
		}
	}
	slices.SortFunc(h, busier)
	return h
}

// busier orders a before b if a had more page requests, or as many and
// comes first by name.
func busier(a, b politeness.HostStats) int {
	if c := cmp.Compare(b.Requests, a.Requests); c != 0 {
		return c
	}
	return cmp.Compare(a.Host, b.Host)
}

// leastBusyFirst is a heap of hosts whose top is the least busy.
type leastBusyFirst []politeness.HostStats

func (h leastBusyFirst) Len() int           { return len(h) }
func (h leastBusyFirst) Less(i, j int) bool { return busier(h[j], h[i]) < 0 }
func (h leastBusyFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *leastBusyFirst) Push(x any)        { *h = append(*h, x.(politeness.HostStats)) }
func (h *leastBusyFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// ProxySource is what a proxy collector reads at each scrape: a
// [*fetch.ProxyPool] satisfies it. Stats must be safe to call at any time.
type ProxySource interface {
	Stats() []fetch.ProxyStats
}

var _ ProxySource = (*fetch.ProxyPool)(nil)

// NewProxyCollector returns a collector of the counts of src's proxies,
// which it reads at each scrape, one series of each per proxy, labelled
// proxy with its URL (the password redacted):
//
//	crawler_proxy_requests_total  requests sent through the proxy
//	crawler_proxy_failures_total  of which got no answer, or a 407
//	crawler_proxy_bans_total      of which were answered with a ban
//	crawler_proxy_benched_total   times the proxy was benched
//	crawler_proxy_benched_seconds time left on its bench; 0 if not benched
//
// Options are read as by NewCollector (TopHosts aside); register it
// beside the crawl's collector. It is safe for concurrent use.
func NewProxyCollector(src ProxySource, opts Options) prometheus.Collector {
	ns := cmp.Or(opts.Namespace, DefaultNamespace)
	if !validNamespace(ns) {
		err := fmt.Errorf("metrics: Namespace %q: want ASCII letters, digits and underscores, not starting with a digit", ns)
		return invalidCollector{prometheus.NewInvalidDesc(err), err}
	}
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(ns, "proxy", name), help, []string{"proxy"}, opts.ConstLabels)
	}
	return &proxyCollector{src: src,
		requests: desc("requests_total", "Requests sent through the proxy."),
		failures: desc("failures_total", "Requests through the proxy that got no answer, or a 407."),
		bans:     desc("bans_total", "Requests through the proxy answered with a ban (403, 429, 503, a ban pattern)."),
		benched:  desc("benched_total", "Times the proxy was benched."),
		left:     desc("benched_seconds", "Time left on the proxy's bench; 0 if it is not benched."),
	}
}

// proxyCollector is the prometheus.Collector of NewProxyCollector.
type proxyCollector struct {
	src                                     ProxySource
	requests, failures, bans, benched, left *prometheus.Desc
}

// Describe sends the descriptors of every metric the collector exports.
func (c *proxyCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.requests, c.failures, c.bans, c.benched, c.left} {
		ch <- d
	}
}

// Collect reads the source once and sends its figures.
func (c *proxyCollector) Collect(ch chan<- prometheus.Metric) {
	now := time.Now()
	for _, s := range c.src.Stats() {
		p := labelValue(s.Proxy)
		ch <- prometheus.MustNewConstMetric(c.requests, prometheus.CounterValue, float64(s.Requests), p)
		ch <- prometheus.MustNewConstMetric(c.failures, prometheus.CounterValue, float64(s.Failures), p)
		ch <- prometheus.MustNewConstMetric(c.bans, prometheus.CounterValue, float64(s.Bans), p)
		ch <- prometheus.MustNewConstMetric(c.benched, prometheus.CounterValue, float64(s.Benched), p)
		left := 0.0
		if s.BenchedUntil.After(now) {
			left = s.BenchedUntil.Sub(now).Seconds()
		}
		ch <- prometheus.MustNewConstMetric(c.left, prometheus.GaugeValue, left, p)
	}
}
