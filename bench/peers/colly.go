package peers

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"

	"github.com/gocolly/colly/v2"
)

// Colly crawls with github.com/gocolly/colly/v2: asynchronous, one
// LimitRule for every domain with Parallelism cfg.Workers and no delay,
// robots.txt obeyed, depth and domains unlimited, every <a href> followed.
//
// colly has no page limit, so the budget is counted here: OnRequest counts
// every page request and aborts those past cfg.Budget, and the redirect
// handler counts every redirect colly's http.Client follows (each is one
// more request, which OnRequest does not see) and stops following past the
// budget. The server so sees at most cfg.Budget page requests; OnRequest
// alone let 350 to 375 through for 300 on the 8-host web of the tests.
//
// What colly does on its own, and differs from the others:
//   - Async mode starts a goroutine for every URL it accepts (Visit); the
//     goroutines wait for the LimitRule's slots, so the queue of the crawl
//     is goroutines, in no order but the runtime's.
//   - It deduplicates by the WHATWG serialization of the URL, fragment
//     included: "/p/5", "/p/5#top" and "/p/%35" are three URLs to it.
//   - It follows redirects inside the request, 10 at most (so not to the
//     end of the web's 12-hop chains), and checks the redirect targets
//     against the seen-set but not against robots.txt.
//   - It fetches robots.txt synchronously in Visit, outside the LimitRule,
//     without ctx, and without coalescing: several goroutines meeting a
//     new host at once each fetch its robots.txt (about 20 fetches for 8
//     hosts in the tests). It matches groups by prefix of the User-Agent,
//     lower-cased ("peerbench/1.0" falls back to "*" here).
func Colly(ctx context.Context, cfg Config) (Result, error) {
	c := colly.NewCollector(
		colly.Async(true),
		colly.UserAgent(UserAgent),
		colly.MaxDepth(0), // unlimited
		colly.StdlibContext(ctx),
	)
	// NewCollector ignores robots.txt by default; there is no option to
	// undo colly.IgnoreRobotsTxt, only the field.
	c.IgnoreRobotsTxt = false
	c.WithTransport(cfg.Transport)
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: cfg.Workers}); err != nil {
		return Result{}, err
	}

	var requests atomic.Int64 // page requests let through, redirect hops included
	spend := func() bool {
		return ctx.Err() == nil && requests.Add(1) <= int64(cfg.Budget)
	}
	c.OnRequest(func(r *colly.Request) {
		if !spend() {
			r.Abort()
		}
	})
	c.SetRedirectHandler(func(req *http.Request, via []*http.Request) error {
		// robots.txt's hops use this handler too, and are not pages.
		if !isRobotsPath(via[0].URL.Path) && !spend() {
			return errBudget
		}
		if len(via) >= 10 { // colly's own limit, which this handler replaces
			return http.ErrUseLastResponse
		}
		return nil
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		if u := e.Request.AbsoluteURL(e.Attr("href")); u != "" {
			e.Request.Visit(u) // errors are URLs refused: seen, robots.txt, ...
		}
	})

	var errs []error
	for _, s := range cfg.Seeds {
		errs = append(errs, c.Visit(s))
	}
	c.Wait()
	fetched := min(requests.Load(), int64(cfg.Budget))
	if err := ctx.Err(); err != nil {
		return Result{Fetched: fetched}, err
	}
	if fetched == 0 {
		return Result{}, errors.Join(errs...) // no seed could be visited
	}
	return Result{Fetched: fetched}, nil
}
