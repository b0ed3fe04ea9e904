// Package metrics exports a crawl's figures to Prometheus: [NewCollector]
// returns a collector that reads a [crawler.Crawler]'s TotalStats and
// HostStats at each scrape. Register it on a registry of your own and serve
// that registry with promhttp.HandlerFor:
//
//	c := &crawler.Crawler{...}
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(metrics.NewCollector(c, metrics.Options{}))
//	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//	err := c.Run(ctx, seeds...)
//
// The package keeps no global state: it never touches
// prometheus.DefaultRegisterer. The root package crawler does not import
// Prometheus (its Stats are plain snapshots, pulled); this package is the
// bridge, so a program that does not import it does not link Prometheus.
//
// The collector only pulls: each scrape calls TotalStats and HostStats
// once, and nothing is counted on the crawl's hot path. It is safe for
// concurrent scrapes.
//
// # Metrics
//
// Names below are under the default namespace, "crawler"; Options.Namespace
// changes the prefix, and Options.ConstLabels adds labels to every series.
//
// Counters, from TotalStats: the totals of every Run of the Crawler (and
// of earlier processes, when its Frontier keeps them), so they keep growing
// from one Run to the next:
//
//	crawler_requests_total                page requests sent (robots.txt not included)
//	crawler_pages_fetched_total           page responses received, any status
//	crawler_responses_total{class}        those by status: 2xx, 3xx, 4xx, 5xx, other
//	crawler_bytes_total                   body bytes received
//	crawler_errors_total{kind}            failures by kind (crawler.Kind*); every known kind, 0 or not
//	crawler_redirects_total               redirects followed or found already seen
//	crawler_truncated_total               bodies cut at the size cap
//	crawler_robots_fetches_total          robots.txt requests
//	crawler_robots_denied_total           URLs robots.txt disallows
//	crawler_retries_total                 failed requests tried again
//	crawler_hosts_retired_total           hosts given up
//	crawler_duplicate_links_total         links to URLs already seen
//	crawler_out_of_scope_links_total      links out of the crawl's scope
//	crawler_bad_links_total               links that were not valid URLs
//	crawler_other_scheme_links_total      links to schemes other than http(s)
//	crawler_link_truncated_pages_total    pages whose links were cut at the per-page limit
//	crawler_traps_total{rule}             URLs stopped by trap rules (crawler.Trap*); every rule
//	crawler_duplicate_content_total       pages with the content of an earlier page
//	crawler_depth_refetches_total         pages fetched again nearer a seed
//	crawler_revisits_total                revisits (Crawler.Recrawl)
//	crawler_not_modified_total            revisits answered 304
//	crawler_unchanged_total               revisits that found the page unchanged
//	crawler_near_duplicates_total         pages near-duplicate of an earlier one
//	crawler_logins_total                  first logins to a site that worked (Crawler.Sites)
//	crawler_relogins_total                logins again after a session expired
//	crawler_failed_logins_total           login attempts that failed
//	crawler_sitemaps_total                responses read as sitemaps
//	crawler_sitemap_urls_total            URLs they listed
//	crawler_forwarded_links_total         links sent to other nodes of a shared crawl
//	crawler_received_links_total          links received from them
//	crawler_dns_lookups_total             host names the fetcher looked up
//	crawler_dns_cache_hits_total          names found in its DNS cache
//	crawler_fetch_duration_seconds        histogram of the answered page requests' times
//
// The crawler counts a page request when it sends it, and takes the count
// back if the end of the Run cuts the request short or the address policy
// refuses it: requests_total may dip by the requests in flight then, which
// Prometheus reads as a counter reset.
//
// Gauges, of the current Run:
//
//	crawler_frontier_urls                 URLs waiting in the frontier
//	crawler_seen_urls                     URLs in the seen-set
//	crawler_inflight_urls                 URLs being processed
//	crawler_hosts                         distinct hosts met
//	crawler_hosts_state{state}            hosts contacted, by state (politeness.SummarizeHosts):
//	                                      active, backing_off, waiting, idle, retired
//	crawler_seen_false_positive_rate      the seen-set's estimated false-positive rate
//	crawler_revisiting_pages              pages the crawl keeps revisiting
//	crawler_elapsed_seconds               the time the Runs took (a gauge: it is not a count)
//
// Per host, from HostStats, for the Options.TopHosts busiest hosts by page
// requests (ties broken by name):
//
//	crawler_host_requests_total{host}     page requests sent, retries included
//	crawler_host_errors_total{host}       failures: 429, 5xx, no response, robots.txt unavailable
//	crawler_host_bytes_total{host}        body bytes received
//	crawler_host_delay_seconds{host}      the current wait between two requests
//	crawler_host_cookies{host}            cookies the crawl holds for the host
//
// # Cardinality
//
// The per-host series are bounded: at most TopHosts hosts, whatever the
// size of the crawl. They come and go as the set of busiest hosts changes
// (a host's series are absent from scrapes in which it is not among them),
// and they count the current Run only, so each Run restarts them from 0;
// Prometheus's rate and increase read both as counter resets. Every other
// series is present in every scrape, from before the first Run on (at 0),
// except for an error kind or trap rule the package does not know, which
// appears once the crawl counts one and stays.
package metrics
