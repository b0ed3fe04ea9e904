package crawler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"crawler/canon"
	"crawler/cookies"
	"crawler/fetch"
	"crawler/frontier"
	"crawler/internal/depths"
	"crawler/politeness"
	"crawler/revisit"
	"crawler/seen"
	"crawler/simhash"
	"crawler/sitemap"
	"crawler/sites"
	"crawler/traps"
)

// runState is the state of one Run. Its first fields are set before the
// loop starts and only read then, by the scheduler and the workers alike.
type runState struct {
	c         *Crawler
	handler   Handler
	fetcher   fetch.Fetcher
	send      fetch.Fetcher // fetcher, with the Crawler's Sites rules applied
	frontier  frontier.Frontier
	seen      seen.Set
	canon     *canon.Canonicalizer
	robots    *politeness.RobotsCache
	scope     *scopeCheck
	traps     *traps.Guard
	nearDups  *simhash.Detector // nil without Crawler.NearDuplicates
	log       *slog.Logger
	stats     *counters
	before    *Stats // the totals of the crawl before this Run; nil: none
	hostTab   *politeness.Hosts
	holdUntil time.Time // when a Run that resumes a crawl may ask its first host (see pushSeeds)

	fetchRobots           politeness.FetchFunc // robots.txt through fetcher, for the cache Run made (lend)
	userAgent, agentToken string
	workers               int
	maxRedirects          int
	maxRetries            int
	maxLinks              int             // per page; <= 0: no bound
	rateInterval          time.Duration   // between two requests of the crawl; 0: no global bound
	seeds                 map[uint64]bool // the seeds this Run pushed

	// The frontier and seen-set as the optional interfaces they may be;
	// nil if not.
	committer frontier.Committer // writes in steps
	exchange  frontier.Exchanger // holds part of a crawl shared with others
	waker     frontier.Waker     // makes the hosts the operator retires ready at once
	batcher   seen.Batcher       // tests many fingerprints at once
	fpRate    seen.Estimator     // estimates its false-positive rate

	// The scheduler's alone.
	hosts     map[string]struct{} // hosts met
	depths    depths.Shortest     // the shortest link distances known of the URLs pushed
	fps       []uint64            // batcher's buffer
	revisits  *revisit.Tracker    // nil without Crawler.Recrawl
	seedErrs  map[uint64]error    // why each seed that yielded no page did not
	exhausted bool                // the loop ended with its frontier empty (shared: the crawl finished), budget left

	// The workers' alone.
	sitemaps *sitemap.Discovery // which sitemaps robots.txt listed; reads them
	// linkSets holds the sets in which a page's links are found once
	// (links.Resolve), emptied: a set made for each page was a twentieth
	// of a crawl's garbage.
	linkSets sync.Pool
}

// runStats are the counters of a Run and the totals of the crawl before
// it, swapped together so that TotalStats never counts a Run twice.
type runStats struct {
	before *Stats // nil: none
	counts *counters
}

// made is what Run made for the Crawler's nil fields. Only Run touches it,
// and only one Run runs at a time.
type made struct {
	fetcher  *fetch.HTTPFetcher
	frontier frontier.Frontier
	seen     seen.Set
	robots   *politeness.RobotsCache
	robotsOf *politeness.RobotsCache // the Robots field whose settings robots took
	// The crawl's, not a Run's: Runs that resume it carry on with them.
	seedHosts  map[string]bool  // the hosts of every seed, which Scope.SameHost keeps to
	revisits   *revisit.Tracker // for the frontier revisitsOf
	revisitsOf frontier.Frontier
	traps      *traps.Guard // for the frontier trapsOf
	trapsOf    frontier.Frontier
}

// newRun prepares a Run: the Crawler's fields, or for nil ones what an
// earlier Run made, or new defaults, which it keeps for the next Run.
func (c *Crawler) newRun(h Handler) *runState {
	r := &runState{
		c:            c,
		handler:      h,
		canon:        cmp.Or(c.Canon, new(canon.Canonicalizer)),
		log:          cmp.Or(c.Logger, slog.New(slog.DiscardHandler)),
		stats:        newCounters(),
		userAgent:    cmp.Or(c.UserAgent, fetch.DefaultUserAgent),
		workers:      politeness.Or(c.Workers, DefaultWorkers),
		maxRedirects: politeness.Or(c.MaxRedirects, DefaultMaxRedirects),
		maxRetries:   politeness.Or(c.MaxRetries, DefaultMaxRetries),
		maxLinks:     politeness.Or(c.MaxLinksPerPage, DefaultMaxLinksPerPage),
		hostTab:      politeness.NewHosts(c.Pacing),
		hosts:        map[string]struct{}{},
		seeds:        map[uint64]bool{},
		seedErrs:     map[uint64]error{},
	}
	r.agentToken = politeness.ProductToken(r.userAgent)
	if c.MaxRate > 0 {
		r.rateInterval = time.Duration(float64(time.Second) / c.MaxRate)
	}
	c.made.lend(c, r)
	env := sites.Env{Agent: r.agentToken, Delay: c.Pacing.MinDelay(), Logger: r.log,
		Logins: &r.stats.logins, Relogins: &r.stats.relogins, LoginsFailed: &r.stats.loginsFailed}
	if !c.IgnoreRobots {
		env.Robots = r.robots // a login asks robots.txt
	}
	r.send, r.canon = c.Sites.Apply(r.fetcher, r.canon, r.hostTab, r.frontier, env)
	if jar := cookies.Find(r.fetcher); jar != nil {
		r.hostTab.CountCookies(jar.HostCount)
	}
	if c.NearDuplicates != nil {
		r.nearDups = simhash.NewDetector(c.NearDuplicates.Distance)
	}
	r.fetchRobots = politeness.FetchThrough(r.send, r.userAgent, r.canon)
	r.sitemaps = &sitemap.Discovery{Policy: c.Sitemaps, Canon: r.canon, Recrawl: c.Recrawl != nil}
	if !c.IgnoreRobots {
		r.sitemaps.ListsSitemaps = func(ctx context.Context, origin string) bool {
			rules, _, err := r.robots.Get(ctx, origin)
			return err == nil && len(rules.Sitemaps()) > 0
		}
	}
	r.committer, _ = r.frontier.(frontier.Committer)
	r.exchange, _ = r.frontier.(frontier.Exchanger)
	r.waker, _ = r.frontier.(frontier.Waker)
	r.batcher, _ = r.seen.(seen.Batcher)
	r.fpRate, _ = r.seen.(seen.Estimator)
	if d, ok := r.fetcher.(fetch.DNSCaching); ok {
		r.stats.dns, r.stats.dnsBefore = d.DNSStats, d.DNSStats()
	}
	// Without a depth limit, the depths of the URLs waiting are kept only
	// for a frontier in memory: they grow with the URLs, which a durable
	// frontier keeps on disk.
	r.depths = depths.Shortest{MaxDepth: c.Scope.MaxDepth, Waiting: r.committer == nil}
	return r
}

// lend gives r the Crawler's fetcher, frontier, seen-set, robots.txt
// cache and trap rules, or for nil fields what an earlier Run made, made
// now if none was.
func (m *made) lend(c *Crawler, r *runState) {
	if r.fetcher = c.Fetcher; r.fetcher == nil {
		if m.fetcher == nil {
			m.fetcher = &fetch.HTTPFetcher{Jar: &cookies.Jar{}} // the crawl's cookies: kept for Runs that resume it
		}
		r.fetcher = m.fetcher
	}
	if r.frontier = c.Frontier; r.frontier == nil {
		if m.frontier == nil {
			m.frontier = new(frontier.FIFO)
		}
		r.frontier = m.frontier
	}
	if r.seen = c.Seen; r.seen == nil {
		if m.seen == nil {
			m.seen = seen.NewExact(0)
		}
		r.seen = m.seen
	}
	if r.robots = c.Robots; r.robots == nil || r.robots.Fetch == nil {
		if m.robots == nil || m.robotsOf != c.Robots {
			fetchRobots := func(ctx context.Context, robotsURL string) (int, []byte, error) {
				return c.active.Load().fetchRobots(ctx, robotsURL) // through the running Run's Fetcher
			}
			m.robots, m.robotsOf = c.Robots.WithFetch(fetchRobots), c.Robots
		}
		r.robots = m.robots
	}
	if m.traps == nil || m.trapsOf != r.frontier {
		m.traps, m.trapsOf = traps.New(c.Traps), r.frontier
	} else {
		m.traps.Configure(c.Traps)
	}
	r.traps = m.traps
}

// canonicalSeeds returns the seeds canonical, or the errors of those
// that are not valid http(s) URLs; ErrNoSeeds if there are none and
// nothing waits in the frontier.
func (r *runState) canonicalSeeds(seeds []string) ([]string, error) {
	canonSeeds := make([]string, 0, len(seeds))
	var errs []error
	for _, s := range seeds {
		u, err := r.canon.Canonical(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("crawler: seed %q: %w", s, err))
			continue
		}
		canonSeeds = append(canonSeeds, u)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(canonSeeds) == 0 && r.frontier.Len() == 0 {
		return nil, ErrNoSeeds
	}
	return canonSeeds, nil
}

// resume takes what the Runs before this one left, in this process or,
// from a durable frontier, in earlier ones: the totals, the seeds' hosts,
// the trap rules' counts, the revisits. It adds the hosts of seeds.
func (r *runState) resume(seeds []string) error {
	c := r.c
	if c.made.seedHosts == nil {
		c.made.seedHosts = map[string]bool{}
	}
	if last := c.stats.Load(); last != nil { // the last Run is now before this one
		t := last.before.plus(last.counts.snapshot())
		r.before = &t
	}
	if k, ok := r.frontier.(frontier.Keeper); ok {
		if err := r.restore(k); err != nil {
			return err
		}
	}
	if err := r.startRevisits(); err != nil {
		return err
	}
	for _, u := range seeds {
		c.made.seedHosts[canon.Host(u)] = true // the crawl's, kept for a Run that resumes it
	}
	r.scope = newScopeCheck(c.Scope, c.made.seedHosts)
	return nil
}

// pushSeeds discovers the seeds, as the Run's first step.
func (r *runState) pushSeeds(seeds []string) error {
	if r.frontier.Len() > 0 {
		// This Run resumes a crawl, whose last requests it does not know:
		// those in flight when the process before was killed, or when the
		// Run before was stopped, went unrecorded. So it asks no host
		// before one least delay has passed.
		r.holdUntil = time.Now().Add(r.c.Pacing.MinDelay())
	}
	for _, u := range seeds {
		l := link{url: u, fp: canon.Fingerprint(u), host: canon.Host(u)}
		if r.discover(l, "") {
			r.seeds[l.fp] = true
		}
	}
	return r.commit()
}

// noPages returns the error of a Run none of whose seeds, canonical and
// in the order given, yielded a page.
func (r *runState) noPages(seeds []string) *NoPagesError {
	e := &NoPagesError{}
	listed := map[uint64]bool{}
	for _, u := range seeds {
		fp := canon.Fingerprint(u)
		if !r.seeds[fp] || listed[fp] {
			continue // seen before this Run, or given twice
		}
		listed[fp] = true
		err := r.seedErrs[fp]
		if err == nil { // every way a seed ends without a page says why; this is a bug
			err = errors.New("crawler: not fetched, for no known reason")
		}
		e.Seeds = append(e.Seeds, SeedError{URL: u, Err: err})
	}
	return e
}

// startRevisits sets up the revisits of a Run under Crawler.Recrawl:
// those an earlier Run on the same frontier left, or, for a frontier
// that is a Recorder, those its records hold.
func (r *runState) startRevisits() error {
	c := r.c
	if c.Recrawl == nil {
		return nil
	}
	m := &c.made
	if m.revisits == nil || m.revisitsOf != r.frontier {
		t := revisit.NewTracker(*c.Recrawl, c.MaxRate)
		if err := t.Load(r.frontier); err != nil {
			return err
		}
		m.revisits, m.revisitsOf = t, r.frontier
	}
	r.revisits = m.revisits
	r.revisits.Configure(*c.Recrawl, c.MaxRate)
	return nil
}

// Names of what a Run keeps in a frontier.Keeper, so that a crawl resumed
// from it (a durable store, after a restart or a crash) has it back. The
// trap rules keep theirs (traps.Guard.Restore).
const (
	keptStats     = "crawler/stats"      // TotalStats as of the last commit
	keptSeedHosts = "crawler/seed-hosts" // the hosts of every seed, which Scope.SameHost keeps to
)

// restore reads what an earlier Run kept in k and registers, for this Run,
// what k is to keep. A value k kept that does not decode is an error: the
// crawl's state is damaged, and guessing would crawl out of scope or
// count wrong.
func (r *runState) restore(k frontier.Keeper) error {
	c := r.c
	var before Stats
	var hosts []string
	found, err := frontier.KeptJSON(k, keptStats, &before)
	if err == nil {
		_, err = frontier.KeptJSON(k, keptSeedHosts, &hosts)
	}
	if err == nil {
		err = r.traps.Restore(k)
	}
	if err != nil {
		return err
	}
	if found {
		r.before = &before
	}
	for _, h := range hosts {
		c.made.seedHosts[h] = true
	}
	if jar := cookies.Find(r.fetcher); jar != nil { // keep the cookies of a cookies.Jar
		if err := jar.Restore(k); errors.Is(err, cookies.ErrRefused) {
			r.log.Warn("cookies kept but refused", "err", err) // the others are in the jar
		} else if err != nil {
			return err
		}
	}

	frontier.KeepJSON(k, keptStats, 0, nil, c.TotalStats)
	seedHosts := func() uint64 { return uint64(len(c.made.seedHosts)) }
	frontier.KeepJSON(k, keptSeedHosts, uint64(len(hosts)), seedHosts, func() []string {
		return slices.Sorted(maps.Keys(c.made.seedHosts))
	})
	return nil
}
