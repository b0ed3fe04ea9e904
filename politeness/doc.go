// Package politeness holds what a crawler needs to be polite to hosts:
// robots.txt parsing and matching, a per-origin robots.txt cache, and the
// per-host delay.
//
//	cache := &politeness.RobotsCache{Fetch: fetch} // fetch: a FetchFunc over net/http
//	robots, fetched, err := cache.Get(ctx, "https://example.com") // on error robots is DisallowAll
//	if robots.Allowed(userAgent, "https://example.com/a/b?c=d") { /* fetch it */ }
//	wait := politeness.HostDelay(minDelay, robots.CrawlDelay(userAgent), maxCrawlDelay)
//	// fetched: Get sent a request to the host; count it against wait.
//
// # Matching
//
// Matching is done by github.com/temoto/robotstxt behind this package's own
// types. ParseRobots first rewrites the body into a form temoto reads
// correctly, which also fixes some of temoto's departures from RFC 9309:
//
//   - A group is chosen by the crawler's product token (the leading
//     [A-Za-z_-] run of its User-Agent, e.g. "crawler" from
//     "crawler/0.1 (+https://...)") compared case-insensitively and exactly with
//     the product token of each User-agent line ("Crawler/2.0" in robots.txt
//     names "crawler"). Without a match the "*" group applies; without that,
//     everything is allowed. Groups naming the same agent are merged.
//   - Rules of a group are matched against the target's path and query; the
//     longest matching rule wins, Allow winning a tie within a group. A rule
//     path not starting with '/' gets one ("*.gif" means "/*.gif"). '*' matches
//     any run of bytes; '$' anchors the end. Empty Allow/Disallow lines are
//     ignored, and so are rules before the first User-agent line.
//   - Bytes outside printable ASCII are percent-encoded (upper-case hex) in both
//     rule paths and targets, so a UTF-8 rule matches its encoded URL.
//   - Crawl-delay (not in RFC 9309) is seconds, fractions allowed, capped at
//     24h; invalid values are ignored, and the last one of a group wins.
//   - Sitemap lines are collected wherever they appear.
//   - /robots.txt itself is always allowed.
//
// # Known gaps
//
// These are temoto's, to be fixed when matching moves to RFC 9309 exactly:
//
//   - A rule holding '*' or '$' is an unanchored regular expression: it matches
//     anywhere in the path, not only at its start. "Allow: /p*q" matches
//     "/x/pq", which can allow a URL a Disallow rule meant to block, and
//     "Disallow: /a*b" blocks "/x/ab".
//   - '$' anywhere in a rule anchors the end, so "Disallow: /a$b" matches
//     nothing; RFC 9309 gives '$' that meaning only at the end.
//   - The length of a wildcard rule, used to find the longest match, is that of
//     its regular expression (e.g. "/a.b*c" counts as "/a\.b.*c", 8), not its
//     octets (6).
//   - Percent-encoding is not normalized: "Disallow: /~a" does not match
//     "/%7Ea", nor "/a%3c" match "/a%3C".
//   - Across separate groups naming the same agent, a tie goes to the rule
//     appearing first in the file, not to Allow.
package politeness
