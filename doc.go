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
// (politeness.Hosts), reads the links of an HTML page (internal/links), a
// redirect's target or the URLs of a sitemap (sitemap.Discovery) in
// response.go, passes the [Page] to the [Handler] (handler.go), and sends
// back the links in scope (scope.go). The scheduler applies that outcome as one step: the links
// are discovered, the frontier told, the page's revisit planned
// (revisit.Tracker), and a durable frontier commits the step.
//
// One scheduler goroutine owns the frontier and the seen-set, so neither
// needs locks; Workers goroutines do the parallel work. Package
// crawlertest serves a synthetic web on loopback, with ground truth, to
// test a crawl against: the crawler's own tests use it, and so can yours.
//
// # Stopping, resuming and durable crawls
//
// A crawl outlives its Runs: the frontier and seen-set a Run makes for nil
// fields stay in the Crawler, with the trap rules' counts and the
// revisits, so a second Run resumes the first. A Run stopped by its
// context puts the URLs cut short back in the frontier, uncounted.
//
// A durable frontier (package store: a [frontier.Committer], Keeper and
// Recorder) keeps the crawl across processes: the URLs waiting, the
// seen-set, [Crawler.TotalStats], the seeds' hosts, the trap rules' state,
// the revisits and the cookies (of a fetch.HTTPFetcher whose Jar is a
// cookies.Jar) are written together, a step at a time, and kill -9
// loses no step committed. The pages in flight then are fetched again
// (and may be counted twice), and a Run that resumes a crawl asks no host
// before Pacing.MinDelay. Kept for the Run only: the near-duplicate
// fingerprints, and without Scope.MaxDepth, the shorter paths found to a
// URL while it waited (Page.Depth).
//
// # Zero and negative values
//
// Every number in a config struct of this SDK (Crawler, Scope, and the
// packages' Config, Pacing, RobotsCache, HTTPFetcher, DNSCache...) reads
// the same way: 0 means the default, and a negative value switches off
// what the field does. A delay or count of tries becomes none (MaxRedirects
// -1 follows no redirect); a cap on a wait robots.txt or a server asks for
// ignores that wait (Pacing.MaxCrawlDelay); a limit no longer limits
// (MaxPages, PerHost, HTTPFetcher.Timeout). Workers, which has no "off",
// makes Run fail when negative. Each field's doc says what its 0 and
// negative are; the CLI's flags mean what the fields of their names mean.
package crawler
