package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"crawler/canon"
	"crawler/fetch"
	"crawler/frontier"
	"crawler/politeness"
	"crawler/revisit"
	"crawler/traps"
)

// process does the parallel part of one URL on a worker goroutine: robots,
// the request and its accounting, then a retry or the response read, the
// handler, and the links for the scheduler.
func (r *runState) process(ctx context.Context, j job) outcome {
	e := j.entry
	o := outcome{entry: e, visit: revisit.Outcome{Revisit: j.last != nil}}
	if ctx.Err() != nil {
		o.retry = true
		return o
	}
	u, err := url.Parse(e.URL)
	if err != nil { // canonical URLs always parse; this is a bug upstream
		r.stats.errors.Add(fetch.KindOther, 1)
		r.log.Warn("unparsable canonical URL", "url", e.URL, "err", err)
		o.failure = err
		return o
	}
	if err := r.hostTab.Begin(e.Host); err != nil {
		r.skip(ctx, &o, err)
		return o
	}
	defer r.hostTab.End(e.Host)
	if err := r.traps.Stopped(e.URL, e.Host); err != nil {
		r.stats.traps.Add(traps.Duplicates, 1)
		o.failure = err
		r.handle(ctx, pageOf(e, err, time.Now()), &o)
		return o
	}

	crawlDelay := time.Duration(0)
	if !r.c.IgnoreRobots && !r.c.Sites.IgnoresRobots(e.URL) {
		var done bool
		if crawlDelay, done = r.checkRobots(ctx, u, &o); done {
			return o
		}
	}
	a, done := r.request(ctx, j, u, &o, crawlDelay)
	if done || r.retryLater(&o, &a) {
		return o
	}
	p := r.read(ctx, u, &o, j.last, &a)
	if o.retry { // a redirect to itself, to fetch again (see readRedirect)
		return o
	}
	r.handle(ctx, p, &o)
	skipLinks := p.NearDuplicateOf != "" && r.c.NearDuplicates.SkipLinks
	if (!p.NoFollow || r.c.IgnoreNoFollow) && !skipLinks {
		r.scopeLinks(p, e, &o)
	}
	return o
}

// attempt is one request of a page, as the worker accounted it.
type attempt struct {
	start   time.Time
	resp    *fetch.Response // nil: no response, and err says why
	err     error
	pace    politeness.Outcome // what the host's pacing was told of it
	retired error              // why the host was retired upon it; nil: it was not
}

// request fetches the page of j at u for o, conditionally if it is a
// revisit, and accounts the request: the counters, the host's pacing and
// health (see account). done reports that o is settled with no response
// to read: the crawl ended first, or the page's address is not allowed.
func (r *runState) request(ctx context.Context, j job, u *url.URL, o *outcome, crawlDelay time.Duration) (a attempt, done bool) {
	o.requested = true
	a.start = time.Now()
	req := &fetch.Request{URL: j.entry.URL, UserAgent: r.userAgent}
	if j.last != nil {
		req.ETag, req.LastModified = j.last.ETag, j.last.LastModified
	}
	a.resp, a.err = r.send.Fetch(ctx, req)
	if a.err != nil && ctx.Err() != nil {
		// Cut short by the end of the crawl: leave it for a later Run.
		o.requested, o.retry = false, true
		return a, true
	}
	if errors.Is(a.err, fetch.ErrBlockedAddress) || errors.Is(a.err, fetch.ErrNotSent) {
		o.requested = false
		r.skip(ctx, o, a.err)
		return a, true
	}
	// Counted once sent, never taken back, so that the counter only grows
	// (Prometheus reads a fall as a restart).
	r.stats.requests.Add(1)
	if o.visit.Revisit {
		r.stats.revisits.Add(1)
	}
	r.account(u, o, &a, crawlDelay)
	return a, false
}

// account tells the host table of a, the request of o's page at u, ending
// now (see recordRequest): it sets a.pace, o.next and a.retired.
func (r *runState) account(u *url.URL, o *outcome, a *attempt, crawlDelay time.Duration) {
	end := time.Now()
	a.pace = politeness.Outcome{Err: a.err, Duration: end.Sub(a.start), CrawlDelay: crawlDelay}
	var bodyBytes int64
	if a.resp != nil {
		a.pace.Status, a.pace.RetryAfter, a.pace.Duration = a.resp.Status, a.resp.Header.Get("Retry-After"), a.resp.Duration
		a.pace.Replayed = a.resp.Replayed
		bodyBytes = int64(len(a.resp.Body))
		r.stats.fetchTime.Observe(a.pace.Duration)
	}
	a.retired = r.recordRequest(o, u, false, bodyBytes, end, a.pace, a.err)
}

// recordRequest tells the host table of a request to o's host at u (for
// robots.txt if robots) that ended at end, and sets o.next. If the
// request retired the host, it counts and logs it, and returns the error
// the host's pages get; else a host whose name was not found has its DNS
// answer forgotten, for its retry to ask the resolver again.
func (r *runState) recordRequest(o *outcome, u *url.URL, robots bool, bytes int64, end time.Time, pace politeness.Outcome, cause error) (retired error) {
	o.next, retired = r.hostTab.Record(o.entry.Host, robots, bytes, end, pace, cause)
	switch {
	case retired != nil:
		r.stats.hostsRetired.Add(1)
		r.log.Warn("host retired", "host", o.entry.Host, "err", retired)
	case politeness.HostNotFound(pace.Err):
		if f, ok := r.fetcher.(fetch.DNSCaching); ok {
			f.ForgetDNS(u.Hostname())
		}
	}
	return retired
}

// retryLater reports whether the page of o is to be tried again after a:
// a 429, a 5xx or no response, with tries left and its host not retired.
// Then it sets o to retry, counting: the host's backoff applies first,
// and the handler hears of the page only at the end.
func (r *runState) retryLater(o *outcome, a *attempt) bool {
	if !a.pace.Failed() || o.entry.Tries >= r.maxRetries || a.retired != nil {
		return false
	}
	o.retry = true
	o.entry.Tries++
	r.stats.retries.Add(1)
	if a.resp != nil {
		r.countResponse(a.resp)
	} else {
		r.stats.errors.Add(ErrorKind(a.err), 1)
	}
	r.log.Debug("request failed, will retry", "url", o.entry.URL, "status", a.pace.Status, "err", a.err, "tries", o.entry.Tries)
	return true
}

// read returns the Page of a, the request of o's page at u: its response
// read (and compared with last, the visit before, for a revisit), or its
// error.
func (r *runState) read(ctx context.Context, u *url.URL, o *outcome, last *revisit.Last, a *attempt) *Page {
	e := o.entry
	p := pageOf(e, a.err, a.start)
	p.Revisit = o.visit.Revisit
	if a.err != nil {
		p.Duration = time.Since(a.start)
		r.stats.errors.Add(ErrorKind(a.err), 1)
		r.log.Warn("fetch failed", "url", e.URL, "err", a.err)
		o.failure = a.err
		if a.retired != nil {
			o.failure = a.retired // it says that the host is given up, and why
		}
		return p
	}
	r.readResponse(ctx, p, u, o, a.resp)
	if last != nil && o.visit.Unchanged(last) { // a 304, or a 2xx with the content it had
		p.Unchanged = true
		r.stats.unchanged.Add(1)
		if o.visit.Status == http.StatusNotModified {
			r.stats.notModified.Add(1)
		}
	}
	return p
}

// pageOf starts the Page of entry e, tried at the given time.
func pageOf(e frontier.Entry, err error, at time.Time) *Page {
	return &Page{URL: e.URL, Depth: e.Depth, Referrer: e.Referrer, Importance: e.Importance, Err: err, FetchedAt: at}
}

// checkRobots asks robots.txt whether e may be fetched, fetching the file
// if needed, and sets o for the scheduler. done reports that the entry's
// processing ends here (disallowed, deferred, or the file's request took
// the host's turn). crawlDelay is the host's Crawl-delay for this crawler.
func (r *runState) checkRobots(ctx context.Context, u *url.URL, o *outcome) (crawlDelay time.Duration, done bool) {
	e := o.entry
	start := time.Now()
	rules, fetched, err := r.robots.Get(ctx, u.Scheme+"://"+u.Host) // rules is never nil
	crawlDelay = rules.CrawlDelay(r.agentToken)
	if ctx.Err() != nil {
		o.retry = true
		return crawlDelay, true
	}
	uerr, unavailable := errors.AsType[*politeness.UnavailableError](err)
	if errors.Is(err, fetch.ErrBlockedAddress) {
		if unavailable {
			err = uerr.Err
		}
		r.skip(ctx, o, err)
		return crawlDelay, true
	}
	if fetched && r.robotsRequested(ctx, u, o, start, rules, err) {
		return crawlDelay, true // the host is retired
	}
	switch {
	case unavailable:
		// RFC 9309: crawl nothing there for now. The URL waits for the
		// next try of robots.txt, keeping its place.
		o.retry = true
		if uerr.RetryAt.After(o.next) {
			o.next = uerr.RetryAt
		}
		return crawlDelay, true
	case err != nil: // not a URL robots.txt can be asked for; a bug upstream
		r.stats.errors.Add(fetch.KindOther, 1)
		o.failure = err
		r.handle(ctx, pageOf(e, err, time.Now()), o)
		return crawlDelay, true
	case fetched && (o.next.After(time.Now()) || r.rateInterval > 0):
		// Come back once the host's turn comes again, and under MaxRate
		// once the crawl's turn does: the robots.txt request took both.
		o.retry = true
		return crawlDelay, true
	case !rules.Allowed(r.agentToken, e.URL):
		o.visit.Gone, o.failure = true, ErrDisallowed
		r.stats.robotsBlocked.Add(1)
		r.log.Debug("disallowed by robots.txt", "url", e.URL)
		return crawlDelay, true
	}
	return crawlDelay, false
}

// robotsRequested accounts the robots.txt request that checkRobots made,
// from start, for o's entry: it used the host's turn, and rules and err
// are what the cache made of its answer. It schedules the sitemaps the
// file lists, as links of o's entry. It reports whether the host is
// retired, and with it o done.
func (r *runState) robotsRequested(ctx context.Context, u *url.URL, o *outcome, start time.Time, rules *politeness.Robots, err error) (retired bool) {
	r.stats.robotsFetched.Add(1)
	end := time.Now()
	pace := politeness.Outcome{Status: http.StatusOK, Duration: end.Sub(start), CrawlDelay: rules.CrawlDelay(r.agentToken)}
	if rp, ok := r.fetcher.(interface{ Replays(url string) bool }); ok { // an archive answered it: nothing sent
		pace.Replayed = rp.Replays(u.Scheme + "://" + u.Host + "/robots.txt")
	}
	uerr, unavailable := errors.AsType[*politeness.UnavailableError](err)
	if unavailable {
		pace.Status, pace.Err = uerr.Status, uerr.Err
	}
	retiredErr := r.recordRequest(o, u, true, 0, end, pace, err)
	if unavailable { // counted, and logged once the host table has it
		kind, msg := KindRobotsUnavailable, "robots.txt unavailable: host deferred"
		if politeness.HostNotFound(uerr.Err) {
			kind, msg = fetch.KindDNS, "host name not found: host deferred"
		}
		r.stats.errors.Add(kind, 1)
		if retiredErr == nil {
			r.log.Warn(msg, "host", o.entry.Host, "url", uerr.URL, "err", uerr.Err, "retry_at", uerr.RetryAt)
		}
	}
	if retiredErr != nil {
		r.skip(ctx, o, retiredErr)
		return true
	}
	if err == nil {
		// They are no links of the page: no importance flows along them.
		for _, l := range r.sitemaps.FromRobots(u, rules.Sitemaps()) {
			r.addLink(o, l, o.entry.Depth+1, 0)
		}
		o.linkFPs = o.linkFPs[:0]
	}
	return false
}

// skip reports o's page, unfetched and not to be tried again, to the
// handler with err, counted under ErrorKind(err): a host retired, an
// address not allowed (nothing was sent: the host's pacing stays as it
// was).
func (r *runState) skip(ctx context.Context, o *outcome, err error) {
	o.visit.Gone, o.failure = true, err
	r.stats.errors.Add(ErrorKind(err), 1)
	if errors.Is(err, fetch.ErrBlockedAddress) {
		r.log.Warn("address not allowed", "url", o.entry.URL, "err", err)
	}
	r.handle(ctx, pageOf(o.entry, err, time.Now()), o)
}

// handle runs the handler on p, the page of o, counting (not propagating)
// its errors and panics. A page the Pages loop stopped before taking goes
// back to the frontier.
func (r *runState) handle(ctx context.Context, p *Page, o *outcome) {
	if r.handler == nil {
		return
	}
	err := func() (err error) {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("crawler: handler panic: %v", v)
			}
		}()
		return r.handler.Handle(ctx, p)
	}()
	if errors.Is(err, errNotYielded) {
		o.retry = true
		return
	}
	if err != nil && !errors.Is(err, ErrSkip) {
		r.stats.errors.Add(KindHandler, 1)
		r.log.Warn("handler failed", "url", p.URL, "err", err)
	}
}

// scopeLinks turns the page's links and redirect target into outcome links
// for the scheduler, dropping those out of scope.
func (r *runState) scopeLinks(p *Page, e frontier.Entry, o *outcome) {
	if p.Redirect != "" && p.Err == nil {
		o.redirect = true
		r.addLink(o, p.Redirect, e.Depth, e.Hops+1)
	}
	if len(p.Links) == 0 {
		return
	}
	o.linkFPs = slices.Grow(o.linkFPs, len(p.Links))
	o.links = slices.Grow(o.links, len(p.Links))
	for _, l := range p.Links {
		r.addLink(o, l, e.Depth+1, 0)
	}
}

func (r *runState) addLink(o *outcome, u string, depth, hops int) {
	fp, host := canon.Fingerprint(u), canon.Host(u)
	o.linkFPs = append(o.linkFPs, fp)
	if rule := r.traps.Check(u); rule != "" {
		r.stats.traps.Add(rule, 1)
		return
	}
	if ok, tooDeep := r.scope.allows(u, host, depth); !ok || !r.c.Sites.Follow(u) {
		r.stats.outOfScope.Add(1)
		o.depthCut = o.depthCut || tooDeep
		return
	}
	o.links = append(o.links, link{url: u, fp: fp, host: host, depth: depth, hops: hops})
}
