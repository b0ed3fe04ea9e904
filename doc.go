// Package crawler is an SDK for web crawlers: a crawl from a ten-line
// program to a large one, correct, polite and fast by default.
//
//	c := &crawler.Crawler{
//		Handler: crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
//			fmt.Println(p.Status, p.URL, len(p.Links))
//			return nil
//		}),
//		MaxPages: 100,
//	}
//	err := c.Run(ctx, "https://example.com/")
//
// # What a crawl does
//
// [Crawler.Run] starts from seed URLs. Each URL is canonicalized (package
// canon), tested against the URL-seen set (package seen) and, if new,
// pushed to the frontier (package frontier), which hands out URLs only
// from hosts that politeness lets us contact now. A worker checks the
// host's robots.txt (package politeness), fetches the URL with the
// [fetch.Fetcher], extracts links from HTML, passes the [Page] to the [Handler],
// and sends the links back; redirects are not followed inside the fetch
// but scheduled as new URLs under their own host's politeness.
//
// One scheduler goroutine owns the frontier and the seen-set, so neither
// needs locks; Workers goroutines do the parallel work. Run returns when
// the frontier is empty, a budget (MaxPages, MaxBytes) is spent, or its
// context is done, and every goroutine it started has exited by then.
// Cancelling the context aborts the fetches in flight and puts their URLs
// back in the frontier, so a second Run on the same Crawler resumes.
//
// # Defaults
//
// The zero Crawler is polite: it obeys robots.txt as RFC 9309 says (a host
// whose robots.txt fails is left alone and asked again later), sends one
// request at a time to a host and waits max(1 s, its Crawl-delay capped at
// 30 s, 5x its last response time capped at 30 s) before the next, backs
// off exponentially and honours Retry-After when a host answers 429 or 5xx
// or not at all, retries such a URL twice and gives up on a host after 5
// failures in a row ([ErrHostRetired]), sends [fetch.DefaultUserAgent], reads at
// most 10 MiB of a body in at most 30 s, follows at most 10 redirects,
// honours rel="nofollow", <meta name="robots"> and X-Robots-Tag, and looks
// a host's name up once per five minutes rather than once per connection
// ([fetch.DNSCache]; a failed lookup is kept for 30 s), and bounds what crawler
// traps can cost ([Traps]: URL length, path depth, repeated segments, path
// patterns that keep serving duplicate content). It crawls breadth-first
// ([frontier.FIFO]); [frontier.AOPIC] crawls the most important pages
// first and estimates their importance on the way ([Page.Importance]).
// It fetches only http and https URLs, keeps no cookies, sends a URL's
// credentials to its own host only, and refuses to connect to loopback,
// private, link-local and the other special-purpose addresses, checked
// after DNS resolution and on every redirect hop (SSRF protection; see
// [fetch.AddressPolicy] to allow some).
// Each default is a field to change; [Crawler.HostStats] accounts for each host's traffic. Every piece (Fetcher, Frontier, Seen, Canon,
// Robots, Handler, Scope) can be replaced by your own.
//
// # Testing
//
// Package crawlertest serves a deterministic synthetic web of many virtual
// hosts on loopback, with ground truth to assert against; the crawler's
// own tests and benchmarks use it, and so can yours.
package crawler
