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
//	rank := w.PageRank() // canonical URL -> PageRank, for every good page
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
// With Config.Sitemaps, robots.txt also lists /sitemaps/index.xml, an index
// of a gzipped urlset (/sitemaps/pages.xml.gz) and a text sitemap
// (/sitemaps/more.txt) that list orphan pages /orphan/<n>, which no link
// reaches ([Web.Orphans]); with Config.StandardSitemaps the index is
// /sitemap.xml, and only even hosts' robots.txt lists it. With Config.ChangeInterval, pages change as
// Poisson processes: their text shows their version, they carry an ETag
// and a Last-Modified and answer conditional requests with 304, and
// [Web.Version] tells the version of a page at any time, the ground truth
// of a revisiting crawler's freshness.
//
// On a good (non-trap) host, anything else, and any URL with a query, is
// 404 (on hosts with Behavior.RobotsRedirects or RobotsLoop,
// /robots-hop/<k> is also served, and with Config.NearDuplicates
// /story/<f>/<v>: see below). Every page n links to page
// n+1 of its host and every home page to the next host's home page (and
// past a trap host to the next good one), so the whole web is reachable
// from [Web.Seeds]. The other links are random:
// about 20% cross hosts, and the rest mix pages, images, redirects, chains,
// the loop, broken links, private pages and nofollow links. Random link
// targets are uniform, unless Config.Popularity skews them (Zipf): the page
// index n of a target is then drawn with probability ∝ 1/(n+1)^s, and the
// host of a cross-host link likewise by index, so home pages and
// low-numbered hosts are popular and PageRank is far from flat. Links are
// spelled in many canonically equal ways: relative ("5", "./5", "../p/5",
// "p/5"), absolute-path, absolute and scheme-relative, with an upper-case
// scheme or host, an explicit ":80", dot segments ("/x/../p/5"), an escaped
// unreserved character ("/p/%35") or a fragment ("#top"). Markup varies too:
// single quotes, upper-case tags, rel before href, and rel token lists such
// as rel="external nofollow". Redirects' Location headers may be relative.
//
// # Near-duplicates
//
// Config.NearDuplicates makes the first NearDuplicates good hosts story
// hosts, for tests of near-duplicate detection. Each serves
// [Web.StoryFamilies] families of stories (PagesPerHost/5, at least 1),
// family f of 1 to 5 variants:
//
//	/story/<f>/<v>   a news story in the host's site template: nav bar of
//	                 4 links, title, "Updated <weekday>, <d> <month> <year>,
//	                 <hh:mm>" line, article (PageBytes/4 to 5·PageBytes/4
//	                 bytes of text), a "Related stories" box of 2 to 4
//	                 links, "This story has been read <n> times.", footer
//
// The variants of a family are near-duplicates, as real ones are: the
// same title and article, but their own date line, related links (drawn
// from the family's 6), read counter, session id in a script and href
// spellings. Stories of different families (families of one story
// included) share only the site template: the nav bar, the footer, the
// site's name, and the 64 words of every page; they are not
// near-duplicates, nor are ordinary pages. Story slot s, variant s/F of
// family s%F for F families (if the family has it), is linked from page
// s mod PagesPerHost of its host, so every story is reachable from
// [Web.Seeds] and counts in Depths, GoodPages and PageRank like any page.
//
// [Web.NearDuplicateFamilies] is the ground truth: the URLs of each
// family of two or more. [Web.ScoreNearDuplicates] judges a crawler's
// verdicts against it (precision, recall and wrong merges), given the
// order in which it fetched pages and the earlier page it matched each
// near-duplicate to.
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
// [Web.RobotsDisallows] tells whether requesting a URL, in any spelling,
// breaks the robots.txt that a compliant crawler applies.
//
// # Traps
//
// Config.Traps makes hosts crawler traps (see [Trap]): a trap host serves
// an unbounded space of URLs instead of its pages, entered from its home
// page "/", which good pages link to as to any other host (cross-host links
// to a trap host go to its entry). Its robots.txt is the ordinary one. Host
// 0 holds the seed and cannot be a trap.
//
//	Calendar   /calendar?month=YYYY-MM, every month from 0001-01 on, each
//	           linking to the previous and next month and to a good page
//	SessionID  "/" and /p/<n> with ?sid=<id>: every link to the host
//	           carries a fresh sid; the text does not depend on the sid
//	DeepPath   /d/<word>/<word>/.../, each linking relatively to two deeper
//	           directories ("cedar/"), its parent and a good page
//	LinkFarm   /farm/<n> for n < 10⁹, 2×OutDegree links each, all within
//	           the farm
//	Soft404    200 and the same "not found" HTML for every path and query,
//	           linking relatively to more/1, more/2 and extra/1 (ever-new
//	           paths) and to a good host's home page
//
// [Web.IsTrap] tells a trap URL in any spelling, [Web.TrapHosts] lists the
// trap hosts, and [Web.TrapRequests] counts the requests a crawler spent in
// them.
//
// # Faults
//
// A [FaultServer] serves the ways a server can be broken or hostile, one
// [Fault] per host <fault>.faults.test (and its subdomains), for tests
// that a crawler survives them: it finishes, counts what happened, and
// stays within its memory bounds and timeouts. [Faults] lists them all.
// Every host answers /robots.txt with 404 unless its fault is about
// robots.txt; "/" is the fault itself, or a page linking to its variants:
//
//	slow-body       a 1 KiB page, one byte per FaultConfig.SlowInterval (2 s)
//	no-answer       connections accepted on a second listener, never read
//	conn-reset      8 KiB of a 16 KiB body, then a TCP reset
//	truncated-body  a chunked body that stops mid-chunk (connection closed)
//	lying-length    /over: Content-Length 1 GiB, 1 KiB, closed; /under:
//	                Content-Length 16 before a 4 KiB page linking to /never
//	gzip-bomb       gzip inflating to 4 GiB (a link to /inside, then
//	                spaces), 1 MiB per gzip member: about 4 MiB on the wire
//	endless-body    paragraphs forever, after a link to /inside
//	redirect-loop   /a -> /b -> /a, /self -> /self
//	redirect-chain  "/" -> /hop/1 -> ... -> /hop/49 -> /end: 50 hops
//	5xx-storm       /p/1 ... /p/50: 500, 502, 503 (Retry-After: 3600), 504
//	429-flood       /p/1 ... /p/50: 429, Retry-After: 3600
//	invalid-utf8    invalid UTF-8 in the text and in four hrefs
//	wrong-charset   /latin1 (Latin-1 labelled UTF-8), /utf16 (UTF-16LE
//	                labelled ISO-8859-1), /sjis (Shift_JIS in a meta tag
//	                only), /bogus (an unknown charset)
//	unclosed-tags   unclosed tags and quotes; /hidden inside an unclosed
//	                comment
//	huge-attribute  links to /before and /attrs, a 1 MiB alt attribute,
//	                then a link to /after; /attrs: an <a> tag of 524,288
//	                attributes, then a link to /after-attrs
//	many-links      a million links, /l/0 to /l/999999 (about 25 MiB)
//	control-chars   hrefs with tab, LF, NUL, DEL, BEL, leading C0 controls,
//	                "java\tscript:" and a host with a control character
//	long-urls       hrefs of 64 KiB and 4 KiB; /redirect: a 64 KiB Location
//	bad-percent     "/%zz", "/%", "/%4", "/p%E9%", "/%%30%30", "/?q=%zz&r=%"...
//	idn-hosts       links to bücher., 日本語., straße., ☃. (and an invalid
//	                xn--zz.) idn-hosts.faults.test
//	ipv6-hosts      links to [2001:db8::1], [2001:DB8:0:0::1], [2001:db8::2]:80,
//	                and to malformed literals
//	other-schemes   mailto:, javascript:, ftp:, file:, data:, tel:, ws:,
//	                gopher: links, and one HTTP: link to /ok
//	huge-header     a 1 MiB response header
//	huge-robots     a 2 MiB robots.txt: "Disallow: /early" first and
//	                "Disallow: /late" at the end, past what RFC 9309 asks
//	                a crawler to parse (500 KiB); "/" links to both
//	binary-robots   robots.txt is gzip bytes (of "Disallow: /"), sent as is
//	html-robots     robots.txt is an HTML error page, with status 200
//
// Any other path of a fault host, and the hosts idn-hosts and ipv6-hosts link
// to, answer 200 with a small page without links. The Fault size constants
// (FaultBombBytes, FaultLinks, ...) give the sizes, and
// [FaultServer.Requests] what each fault's hosts were asked. Reach the server
// with [FaultServer.DialContext], which dials nothing but its own two
// listeners on 127.0.0.1, so that a crawler following hostile links never
// leaves loopback.
//
// # Ground truth
//
// [Web.Depths] returns every URL a compliant crawler requests, with its
// minimum depth, computed from the generator itself; [Web.Disallowed] the
// URLs it must skip because of robots.txt, and [Web.Unreachable] those it
// must skip because their host's robots.txt is unavailable (429 or 5xx).
// A redirect costs no depth.
// There is no hop limit: a crawler that stops chains early must configure
// Config.MaxChain below its own limit. All of them cover the good URLs
// only: trap hosts' URLs are left out, so they stay finite and exact.
//
// [Web.GoodPages] lists the good pages: the HTML pages in Depths answering
// 200, the pages a crawler should harvest. [Web.PageRank] is their true
// PageRank (damping 0.85, power iteration to convergence) over the graph
// of their followed links, redirects resolved to their final page and
// links to anything but a good page ignored: the reference for a crawler's
// importance estimates (such as AOPIC's), most telling with Popularity.
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
