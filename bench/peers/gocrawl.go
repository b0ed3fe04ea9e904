package peers

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"

	"github.com/PuerkitoBio/gocrawl"
)

// Gocrawl crawls with github.com/PuerkitoBio/gocrawl: no crawl delay, any
// host, robots.txt obeyed, MaxVisits cfg.Budget, every <a href> harvested
// by gocrawl itself and each URL visited once (the default Filter).
//
// cfg.Workers is not used: gocrawl runs one goroutine per host, each
// fetching its host's URLs one at a time, so its concurrency is the number
// of hosts with URLs waiting (8 on an 8-host web, 100 on a 100-host one),
// whatever cfg.Workers is.
//
// gocrawl's MaxVisits counts visits, the 2xx answers only: redirects
// (which gocrawl does not follow but enqueues) and 404s are not counted, so
// MaxVisits alone lets it make many more than cfg.Budget page requests
// (about 390 for 300 on the 8-host web of the tests).
// The budget is therefore also counted here, in Fetch, which every request
// goes through: past cfg.Budget page requests, and once ctx is done, Fetch
// refuses without a request and gocrawl drains what it had queued, fast.
//
// Stop is not called when ctx is done: gocrawl's Stop closes the channel
// that its own loop also closes when the crawl ends or MaxVisits is
// reached, and the loop can pick a worker's answer after a Stop and close
// it again (a panic). Refusing in Fetch, with the requests bound to ctx,
// ends the crawl as promptly without that race.
//
// What gocrawl does on its own, and differs from the others:
//   - It deduplicates by the URL normalized in place with
//     purell.FlagsAllGreedy (lower-case scheme and host, no default port,
//     dot segments removed, no fragment, and also no trailing slash, no
//     "www.", https made http, query sorted), but fetches the URL as it
//     was spelled. It keeps the *url.URL and drops the string purell
//     returns, where unnecessary escapes are decoded: "/p/%35" and "/p/5"
//     are two URLs to it.
//   - It fetches each host's robots.txt first, in the host's goroutine,
//     and tests the decoded path against it; its group is the one whose
//     User-agent prefixes Options.RobotUserAgent, lower-cased
//     ("peerbench/1.0" falls back to "*" here).
func Gocrawl(ctx context.Context, cfg Config) (Result, error) {
	x := &gocrawlExtender{
		ctx:    ctx,
		budget: int64(cfg.Budget),
		client: &http.Client{
			Transport:     cfg.Transport,
			CheckRedirect: gocrawlRedirect,
		},
	}
	opts := gocrawl.NewOptions(x)
	opts.MaxVisits = cfg.Budget
	opts.CrawlDelay = 0
	opts.SameHostOnly = false
	opts.UserAgent = UserAgent
	opts.RobotUserAgent = UserAgent
	opts.LogFlags = gocrawl.LogNone

	err := gocrawl.NewCrawlerWithOptions(opts).Run(cfg.Seeds)
	if errors.Is(err, gocrawl.ErrMaxVisits) {
		err = nil
	}
	res := Result{Fetched: min(x.fetched.Load(), x.budget)}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, err
}

// gocrawlRedirect is gocrawl's redirect policy (that of its package-level
// HttpClient, which is not used so as to leave package globals alone):
// robots.txt follows up to 10 redirects, any other URL none, and
// ErrEnqueueRedirect tells gocrawl to enqueue the Location instead.
func gocrawlRedirect(req *http.Request, via []*http.Request) error {
	if !isRobotsPath(req.URL.Path) && !isRobotsPath(via[0].URL.Path) {
		return gocrawl.ErrEnqueueRedirect
	}
	if len(via) >= 10 {
		return errors.New("peers: robots.txt: stopped after 10 redirects")
	}
	return nil
}

// gocrawlExtender is gocrawl's DefaultExtender with its own HTTP client,
// a budget of page requests and a context. The default Visit returns (nil,
// true): gocrawl harvests the links; the default Filter visits a
// normalized URL once.
type gocrawlExtender struct {
	gocrawl.DefaultExtender

	ctx     context.Context
	client  *http.Client
	budget  int64
	fetched atomic.Int64 // page requests tried; past budget they are refused
	spent   atomic.Bool  // budget reached: refuse robots.txt too
}

// Fetch requests u.URL() as spelled, over the extender's client, unless
// the budget is spent or the context done.
func (x *gocrawlExtender) Fetch(u *gocrawl.URLContext, userAgent string, head bool) (*http.Response, error) {
	if err := x.ctx.Err(); err != nil {
		return nil, err
	}
	if x.spent.Load() {
		return nil, errBudget
	}
	if !isRobotsPath(u.URL().Path) && x.fetched.Add(1) > x.budget {
		x.spent.Store(true)
		return nil, errBudget
	}
	method := http.MethodGet
	if head {
		method = http.MethodHead
	}
	req, err := http.NewRequestWithContext(x.ctx, method, u.URL().String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", userAgent)
	return x.client.Do(req)
}
