// Package crawlertest serves a deterministic synthetic web on loopback, for
// the tests, benchmarks and demos of a web crawler, and knows exactly what a
// compliant crawler of it must fetch:
//
//	w := crawlertest.NewWeb(crawlertest.Config{Seed: 1})
//	defer w.Close()
//	client := w.Client() // dials the listener for every *.crawler.test host
//	resp, err := client.Get(w.Seeds()[0])
//	...
//	want := w.Depths() // canonical URL -> minimum depth, for every URL to fetch
//
// # Hosts and addresses
//
// One listener on 127.0.0.1 serves every virtual host h0.crawler.test,
// h1.crawler.test, ..., routed by the Host header (or the host of an
// absolute-form request, so the listener also works as an HTTP proxy: see
// [Web.ProxyURL]). URLs never carry the listener's port. Reach the web with
// [Web.Client], [Web.Transport] or [Web.DialContext], or through the proxy.
// A Host that is not one of the web's (including an explicit port other than
// 80) gets 404.
//
// # The web
//
// The same Config gives the same web, byte for byte. Each host has:
//
//	/robots.txt          "User-agent: *" and "Disallow: /private/", except on
//	                     h3, h7, h11, ... (every host index ≡ 3 mod 4): 404
//	/ and /p/<n>         HTML pages 0..PagesPerHost-1, title "Host 3 page 7"
//	/private/<n>         HTML pages, disallowed where robots.txt exists
//	/nofollow/<n>        HTML pages linked only with rel="nofollow"
//	/img/<n>.png         a small image/png
//	/r/<n>               301 to /p/<n> (same host)
//	/to/<k>/<n>          302 to http://h<k>.crawler.test/p/<n>
//	/chain/<n>/<k>       307 to /chain/<n>/<k-1>; /chain/<n>/1 308 to /p/<n>
//	/loop/a, /loop/b     302 and 303 to each other
//	/missing/<n>         404 with a small HTML body without links
//
// Anything else, and any URL with a query, is 404 (on hosts with
// Behavior.RobotsRedirects or RobotsLoop, /robots-hop/<k> is also served: see
// below). Every page n links to
// page n+1 of its host and every home page to the next host's home page, so
// the whole web is reachable from [Web.Seeds]. The other links are random:
// about 20% cross hosts, and the rest mix pages, images, redirects, chains,
// the loop, broken links, private pages and nofollow links. Links are
// spelled in many canonically equal ways: relative ("5", "./5", "../p/5",
// "p/5"), absolute-path, absolute and scheme-relative, with an upper-case
// scheme or host, an explicit ":80", dot segments ("/x/../p/5"), an escaped
// unreserved character ("/p/%35") or a fragment ("#top"). Markup varies too:
// single quotes, upper-case tags, rel before href, and rel token lists such
// as rel="external nofollow". Redirects' Location headers may be relative.
//
// # Misbehaving hosts
//
// Config.Behavior gives hosts a [Behavior], to test a crawler's robots.txt
// handling (RFC 9309), back-off and pacing. With Config.Behavior nil, or
// returning the zero Behavior, the web is exactly the one above. Per host:
//
//	RobotsStatus     robots.txt answers this status (4xx or 5xx), short body
//	RobotsRedirects  /robots.txt -> /robots-hop/1 -> ... -> /robots-hop/<n>,
//	                 301, 302, 307, 308 in turn, then the final answer
//	RobotsLoop       /robots.txt 302 -> /robots-hop/1 301 -> /robots.txt ...
//	RobotsPadding    200 robots.txt padded with comments after the rules
//	RobotsLatency    extra latency on robots.txt and its hops
//	ThrottleEvery    every n-th page request answers 429 (+ RetryAfter)
//	PageStatus       every page request (not robots.txt) answers this status
//	                 (4xx or 5xx) with an HTML page without links
//	SlowDown         page request k (from 0) waits k*SlowDown longer
//
// "Page requests" are all requests to the host but robots.txt and its hops.
// The ground truth follows what a compliant crawler sees: a robots.txt
// answering 4xx (not 429) or behind more than 5 redirects or a loop imposes
// nothing; one answering 429 or 5xx makes the host unreachable (nothing on
// it is requested: [Web.Unreachable]); a PageStatus host's URLs are
// requested but lead nowhere; throttling and latencies change nothing.
//
// # Ground truth
//
// [Web.Depths] returns every URL a compliant crawler requests, with its
// minimum depth, computed from the generator itself; [Web.Disallowed] the
// URLs it must skip because of robots.txt, and [Web.Unreachable] those it
// must skip because their host's robots.txt is unavailable (429 or 5xx).
// A redirect costs no depth.
// There is no hop limit: a crawler that stops chains early must configure
// Config.MaxChain below its own limit.
//
// # Request log
//
// The server counts requests per canonical URL, whatever the spelling on the
// wire ([Web.Requests], [Web.RequestCounts]), so a crawler that fetches a
// page twice under two spellings shows a count of 2. robots.txt and its
// redirect hops are counted apart ([Web.RobotsRequests]).
//
// With Config.Log, the server also records every request it answers, in
// [Web.Log]: host, target as sent, canonical URL, whether it is part of
// fetching robots.txt, status, User-Agent, and when the handler started
// (before any latency) and finished. Tests use it to prove that a crawler
// never requested a page before robots.txt, nor broke a host's pacing (the
// gaps between Start times of a host). The log is off by default because a
// large crawl would grow it without bound; ResetCounts empties it.
package crawlertest
