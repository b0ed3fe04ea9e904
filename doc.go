// Package crawler is an SDK for web crawlers: a crawl from a ten-line
// program to a large one, correct, polite and fast by default.
//
//	c := &crawler.Crawler{
//		Handler: crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
//			if p.Err != nil { // not fetched: unreachable, refused, its host given up on...
//				fmt.Println("failed:", p.URL, p.Err)
//				return nil
//			}
//			fmt.Println(p.Status, p.URL, len(p.Links))
//			return nil
//		}),
//		MaxPages: 100,
//	}
//	if err := c.Run(ctx, "https://example.com/"); err != nil {
//		log.Fatal(err) // such as crawler.ErrNoPages: no seed yielded a page, and why
//	}
//
// # What a crawl does
//
// A seed given to [Crawler.Run] (crawler.go) is canonicalized (package
// canon) and pushed as the Run's first step (run.go). The scheduler
// (scheduler.go) discovers each URL: the URL-seen test (package seen),
// the trap rules (package traps), and a push to the frontier (package
// frontier), which hands it out once its host may be asked. A worker
// (worker.go) asks the host's robots.txt (politeness.RobotsCache),
// fetches the URL (package fetch), has the host's pace recorded
// (politeness.Hosts), reads the links of an HTML page, a redirect's
// target or the URLs of a sitemap (sitemap.Discovery), passes the [Page]
// to the [Handler] (handler.go), and sends back the links in scope
// (scope.go). The scheduler applies that outcome as one step: the links
// are discovered, the frontier told, the page's revisit planned
// (revisit.Tracker), and a durable frontier commits the step (keep.go).
//
// One scheduler goroutine owns the frontier and the seen-set, so neither
// needs locks; Workers goroutines do the parallel work. Run returns when
// the frontier is empty, a budget (MaxPages, MaxBytes) is spent, or its
// context is done, and every goroutine it started has exited by then; if
// the frontier emptied without a response to any page, it returns a
// [*NoPagesError] saying why each seed yielded none.
// Cancelling the context aborts the fetches in flight and puts their URLs
// back in the frontier, so a second Run on the same Crawler resumes (see
// Stopping, resuming and durable crawls, below).
//
// # Defaults
//
// The zero Crawler is polite: it obeys robots.txt as RFC 9309 says, sends
// one request at a time to a host and paces each host as
// [politeness.Pacing] says (at least 1 s between requests, more for a slow
// host or one whose robots.txt asks, backoff and Retry-After on failures,
// a host retired after 5 failures in a row), retries a failed URL twice,
// follows at most 10 redirects, honours rel="nofollow", <meta
// name="robots"> and X-Robots-Tag, bounds what crawler traps can cost
// ([Crawler.Traps], package [traps]) and crawls breadth-first
// ([frontier.FIFO]; [frontier.AOPIC] crawls the most important pages
// first). The default fetcher
// ([fetch.HTTPFetcher]) reads at most 10 MiB of a body in at most 30 s,
// keeps no cookies, caches DNS, and refuses to connect to loopback,
// private, link-local and other special-purpose addresses, checked after
// DNS resolution and on every redirect hop ([fetch.AddressPolicy] allows
// some, such as a test server on 127.0.0.1).
//
// # Stopping, resuming and durable crawls
//
// A crawl outlives its Runs. The frontier and seen-set a Run makes for
// nil fields stay in the Crawler, so a second Run resumes the first, and
// so do the trap rules' counts and the revisits. A Run stopped by its
// context puts the URLs cut short back in the frontier, unfetched and
// uncounted: a page is requested again only if its first request was cut
// short.
//
// A durable frontier (package store: a [frontier.Committer] that is also
// a [frontier.Keeper] and [frontier.Recorder]) keeps the crawl across
// processes: the URLs waiting, the seen-set, [Crawler.TotalStats], the
// seeds' hosts (Scope.SameHost), the trap rules' counts and stopped
// patterns, and each revisited page's visits (Crawler.Recrawl) are
// written together, a step at a time, and a process killed with kill -9
// loses none of the steps committed. What was in flight when it died was
// recorded nowhere: those pages are fetched again (the counters kept may
// count them twice), and a Run that resumes a crawl asks no host before
// Pacing.MinDelay has passed. Two things are kept for the Run only: the
// near-duplicate fingerprints (Crawler.NearDuplicates) and, without
// Scope.MaxDepth, the shorter paths found to a URL while it waited
// (Page.Depth).
//
// # Zero and negative values
//
// Every number in a config struct of this SDK (Crawler, Scope, traps.Config,
// politeness.Pacing and RobotsCache, fetch.HTTPFetcher and DNSCache) reads
// the same way: 0 means the default, and a negative value switches off
// what the field does. A delay, backoff or count of tries becomes none
// (Pacing.Delay, MaxRetries, MaxRedirects: -1 follows no redirect); a cap
// on a wait that robots.txt or a server asks for ignores that wait
// (Pacing.MaxCrawlDelay, MaxRetryAfter); a limit no longer limits
// (MaxPages, Scope.MaxDepth, MaxLinksPerPage, the Traps limits,
// Pacing.MaxFailures, PerHost, HTTPFetcher.Timeout). The one number with
// no "off", Workers, makes Run return an error when negative. Each
// field's doc says what its 0 and negative values are. The CLI's flags
// mean what the fields of the same names mean.
//
// # Testing
//
// Package crawlertest serves a deterministic synthetic web of many virtual
// hosts on loopback, with ground truth to assert against; the crawler's
// own tests and benchmarks use it, and so can yours.
package crawler
