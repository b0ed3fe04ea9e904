package crawler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"crawler/canon"
	"crawler/fetch"
	"crawler/frontier"
	"crawler/internal/depths"
	"crawler/politeness"
	"crawler/revisit"
	"crawler/seen"
	"crawler/simhash"
	"crawler/sitemap"
	"crawler/traps"
)

// runState is the state of one Run: what the scheduler and the workers share, and what each alone uses.
type runState struct {
	c        *Crawler
	handler  Handler
	fetcher  fetch.Fetcher
	frontier frontier.Frontier
	seen     seen.Set
	canon    *canon.Canonicalizer
	robots   *politeness.RobotsCache
	scope    *scopeCheck
	traps    *traps.Guard
	nearDups *simhash.Detector // nil without Crawler.NearDuplicates
	log      *slog.Logger
	stats    *counters
	before   *Stats // the totals of the crawl before this Run; nil: none
	hostTab  *politeness.Hosts
	// holdUntil is when a Run that resumes a crawl may ask its first
	// host (see run); zero for a new crawl.
	holdUntil time.Time

	// fetchRobots fetches robots.txt through fetcher for the robots
	// cache Run made (see Crawler.fetchRobots).
	fetchRobots politeness.FetchFunc

	userAgent, agentToken string
	workers               int
	maxRedirects          int
	maxRetries            int
	maxLinks              int           // per page; <= 0: no bound
	rateInterval          time.Duration // between two requests of the crawl; 0: no global bound

	hosts map[string]struct{} // scheduler only
	// depths are the shortest link distances known of the URLs this Run
	// pushed. Scheduler only.
	depths depths.Shortest
	// committer is the frontier, if it writes in steps; else nil.
	committer frontier.Committer
	exchange  frontier.Exchanger // the frontier, if it holds part of a crawl shared with others
	// batcher is the seen-set, if it tests many fingerprints at once;
	// else nil. fps is its buffer. Scheduler only.
	batcher seen.Batcher
	fps     []uint64
	// fpRate is the seen-set, if it estimates its false-positive rate;
	// else nil.
	fpRate seen.Estimator
	// revisits are the pages Crawler.Recrawl revisits; nil without it.
	// Scheduler only.
	revisits *revisit.Tracker

	seeds map[uint64]bool // the seeds this Run pushed; read-only once the loop runs
	// sitemaps knows which sitemap URLs a robots.txt listed (or an index
	// found through one), and reads sitemaps. Workers only.
	sitemaps *sitemap.Discovery
	// linkSets holds the sets in which a page's links are found once
	// (links.Resolve), emptied: a set made for each page was a twentieth
	// of a crawl's garbage. Workers only.
	linkSets sync.Pool
	// seedErrs holds why each seed that yielded no page did not.
	// Scheduler only.
	seedErrs map[uint64]error
	// exhausted says that the loop ended with its frontier empty (or,
	// shared, the crawl finished) and its budget not spent. Scheduler only.
	exhausted bool
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
	// seedHosts are the hosts of every seed the crawl was given, which
	// Scope.SameHost keeps it on, in Runs that resume it too.
	seedHosts map[string]bool
	// revisits are the pages a Recrawl revisits, for the frontier
	// revisitsOf.
	revisits   *revisit.Tracker
	revisitsOf frontier.Frontier
	// traps are the trap rules and what they counted, for the frontier
	// trapsOf: a Run that resumes the crawl carries on with them.
	traps   *traps.Guard
	trapsOf frontier.Frontier
}

// newRun prepares a Run: the Crawler's fields, or for nil ones what an
// earlier Run made, or new defaults, which it keeps for the next Run.
func (c *Crawler) newRun(h Handler) *runState {
	r := &runState{
		c:            c,
		handler:      h,
		canon:        cmp.Or(c.Canon, new(canon.Canonicalizer)),
		log:          cmp.Or(c.Logger, slog.New(slog.DiscardHandler)),
		stats:        &counters{start: time.Now()},
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
	if c.NearDuplicates != nil {
		r.nearDups = simhash.NewDetector(c.NearDuplicates.Distance)
	}
	r.fetchRobots = politeness.FetchThrough(r.fetcher, r.userAgent, r.canon)
	r.sitemaps = &sitemap.Discovery{Policy: c.Sitemaps, Canon: r.canon, LastMods: c.Recrawl != nil}
	if !c.IgnoreRobots {
		r.sitemaps.ListsSitemaps = r.listsSitemaps
	}
	r.committer, _ = r.frontier.(frontier.Committer)
	r.exchange, _ = r.frontier.(frontier.Exchanger)
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
			m.fetcher = &fetch.HTTPFetcher{}
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
			m.robots, m.robotsOf = c.Robots.WithFetch(c.fetchRobots), c.Robots
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

// fetchRobots is the Fetch of the robots.txt cache made by Run: through
// the running Run's Fetcher, with its User-Agent.
func (c *Crawler) fetchRobots(ctx context.Context, robotsURL string) (int, []byte, error) {
	return c.active.Load().fetchRobots(ctx, robotsURL)
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
