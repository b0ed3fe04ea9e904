package crawler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"crawler/canon"
	"crawler/fetch"
	"crawler/frontier"
	"crawler/internal/depths"
	"crawler/politeness"
	"crawler/revisit"
	"crawler/seen"
	"crawler/sitemap"
	"crawler/traps"
)

// Defaults of the Crawler, each used where its field is 0. The pacing
// defaults are politeness's ([politeness.DefaultDelay] and the rest).
const (
	// DefaultWorkers is the number of pages processed at once.
	DefaultWorkers = 16
	// DefaultMaxRetries is how often a URL whose request failed (429,
	// 5xx, no response) is tried again.
	DefaultMaxRetries = 2
	// DefaultMaxRedirects is the longest redirect chain followed.
	DefaultMaxRedirects = 10
	// DefaultMaxLinksPerPage is the most links taken from one page.
	DefaultMaxLinksPerPage = 20000
)

// Errors returned by Run, or found under a Page's Err.
var (
	ErrNoSeeds          = errors.New("crawler: no seeds and an empty frontier")
	ErrRunning          = errors.New("crawler: Run called while the crawler is running")
	ErrNotRunning       = errors.New("crawler: no Run is running")
	ErrTooManyRedirects = errors.New("crawler: too many redirects")
	ErrBadRedirect      = errors.New("crawler: redirect without a valid Location")
	// ErrNoPages is wrapped by the error of a Run that was given seeds
	// and ended without a response to any page request: see
	// [NoPagesError].
	ErrNoPages = errors.New("crawler: no seed yielded a page")
	// ErrSeedsRefused is wrapped by the error of a Run none of whose seeds
	// could be fetched because the fetcher refused every one's address
	// (fetch.ErrBlockedAddress): loopback or private, not allowed. That
	// error is a [*NoPagesError].
	ErrSeedsRefused = errors.New("crawler: every seed was refused by the address policy")
	// ErrDisallowed is why a seed that robots.txt disallows yielded no
	// page, in a [NoPagesError]. Disallowed URLs are not given to the
	// Handler.
	ErrDisallowed = errors.New("crawler: disallowed by robots.txt")
)

// Crawler crawls the web from seed URLs. Set its fields, then call Run. The
// zero value crawls politely: robots.txt obeyed, one request at a time per
// host, a second between them, breadth-first, every http(s) link followed.
// Numbers follow the package's rule: 0 is the default, negative is off.
//
// Fields must not change while Run is running; Run never writes them. A
// second Run resumes the first (see the package doc).
type Crawler struct {
	// Handler receives every page fetched or tried. Nil: none, the crawl
	// only discovers.
	Handler Handler
	// Fetcher fetches pages and robots.txt. Nil: a [fetch.HTTPFetcher]
	// with its defaults, which refuse loopback and private addresses.
	Fetcher fetch.Fetcher
	// Frontier orders the URLs to fetch and says how many requests may be
	// in flight to one host (its PerHost). Nil: a [frontier.FIFO], one
	// request at a time per host.
	Frontier frontier.Frontier
	// Seen is the URL-seen set. Nil: a [seen.Exact].
	Seen seen.Set
	// Canon canonicalizes URLs. Nil: the core rules only.
	Canon *canon.Canonicalizer
	// Robots caches robots.txt per host. Nil: a cache with the defaults.
	// A cache whose Fetch is nil lends its settings to one that fetches
	// through Fetcher.
	Robots *politeness.RobotsCache
	// Scope says which links are followed.
	Scope Scope
	// Traps bounds what crawler traps (endless URL spaces) can cost: the
	// rules of package traps, counted in Stats.Traps by their names.
	Traps traps.Config
	// Pacing says when a host may be asked again: delays, backoff,
	// Retry-After, retirement. The zero value is the polite default.
	Pacing politeness.Pacing
	// Logger receives debug lines for pages and warnings for failures.
	// Nil: no logging.
	Logger *slog.Logger

	// UserAgent is sent with every request and matched against robots.txt
	// groups by its product token. "": fetch.DefaultUserAgent.
	UserAgent string
	// Workers is how many pages are processed at once. 0: DefaultWorkers;
	// negative: an error.
	Workers int
	// MaxRate bounds the requests per second of the whole crawl, robots.txt
	// included. 0 or negative: no bound beyond the per-host pacing.
	MaxRate float64
	// MaxRetries is how often a URL whose request failed (429, 5xx, no
	// response) is tried again, after its host's backoff; each try counts
	// against MaxPages. 0: DefaultMaxRetries; negative: none.
	MaxRetries int
	// MaxRedirects is the longest redirect chain followed. 0:
	// DefaultMaxRedirects; negative: none followed.
	MaxRedirects int
	// MaxLinksPerPage bounds the links taken from one HTML page; the page
	// counts in Stats.LinksTruncated. 0: DefaultMaxLinksPerPage; negative:
	// no bound but the body's.
	MaxLinksPerPage int
	// MaxPages bounds the page requests of one Run (robots.txt not
	// counted). 0 or negative: no limit.
	MaxPages int64
	// MaxBytes bounds the body bytes of one Run; fetches in flight when it
	// is reached may pass it. 0 or negative: no limit.
	MaxBytes int64
	// IgnoreRobots, if set, fetches without asking robots.txt.
	IgnoreRobots bool
	// Sitemaps says which sitemaps are read (see [sitemap.Discovery]);
	// the zero value, sitemap.Listed, reads those robots.txt files list.
	Sitemaps sitemap.Policy
	// Recrawl, if not nil, keeps revisiting the pages fetched, by their
	// estimated rates of change, until the Run's context is done or a
	// budget is spent; see [revisit.Config]. Nil: each page is fetched
	// once.
	Recrawl *revisit.Config
	// NearDuplicates, if not nil, marks the HTML pages whose text is a
	// near-duplicate of a page fetched earlier in the Run
	// (Page.NearDuplicateOf), by SimHash; see [NearDuplicates]. Nil: no
	// such test.
	NearDuplicates *NearDuplicates
	// IgnoreNoFollow, if set, follows rel="nofollow" links and pages whose
	// meta robots says nofollow.
	IgnoreNoFollow bool

	running   atomic.Bool
	active    atomic.Pointer[runState] // the Run running; nil between Runs
	control   control
	stats     atomic.Pointer[runStats] // of the current or last Run; nil before the first
	hostStats atomic.Pointer[politeness.Hosts]
	made      made // what Runs made for nil fields, kept for the next Run
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

// fetchRobots is the Fetch of the robots.txt cache made by Run: through
// the running Run's Fetcher, with its User-Agent.
func (c *Crawler) fetchRobots(ctx context.Context, robotsURL string) (int, []byte, error) {
	return c.active.Load().fetchRobots(ctx, robotsURL)
}

// Stats returns a snapshot of the counters of the current Run, or of the
// last one once it has returned. It is safe to call at any time, from any
// goroutine.
func (c *Crawler) Stats() Stats {
	if s := c.stats.Load(); s != nil {
		return s.counts.snapshot()
	}
	return Stats{Status: map[int]int64{}, Errors: map[string]int64{}, Traps: map[string]int64{}}
}

// HostStats returns the traffic accounting of every host contacted in the
// current Run, or the last one once it has returned, sorted by host. It is
// safe to call at any time, from any goroutine; it costs O(hosts).
func (c *Crawler) HostStats() []politeness.HostStats {
	if t := c.hostStats.Load(); t != nil {
		return t.Snapshot()
	}
	return nil
}

// TotalStats returns the counters of the whole crawl: those of the current
// Run, or the last one, added to those of every Run before it, those of
// earlier processes a durable frontier kept included (see the package
// doc). Elapsed is the Runs' time; the gauges (Seen, Frontier, InFlight,
// Hosts) are the current Run's. Safe to call at any time, from any
// goroutine.
func (c *Crawler) TotalStats() Stats {
	last := c.stats.Load()
	if last == nil {
		if k, ok := c.Frontier.(frontier.Keeper); ok && !c.running.Load() {
			var s Stats
			if found, err := kept(k, keptStats, &s); found && err == nil {
				return s.plus(Stats{})
			}
		}
		return c.Stats()
	}
	return last.before.plus(last.counts.snapshot())
}

// Run crawls from the seeds until the frontier is exhausted, a budget
// (MaxPages, MaxBytes) is reached, or ctx is done. It returns nil in the
// first two cases, and in the last a [*StoppedError] with the context's
// cause and the number of URLs left. But a Run whose frontier was
// exhausted without a response to any page request, though it was given
// seeds (not all seen before), returns a [*NoPagesError] saying why each
// seed yielded no page: its host unreachable (such as a name that does
// not exist, retired within seconds: see Pacing.NotFoundRetries), its
// address refused, robots.txt disallowing it. Every goroutine it started
// has exited when it returns. A seed that is not a valid http(s) URL
// makes Run return an error before anything is fetched.
//
// When ctx is done, Run stops handing out URLs and aborts the fetches and
// robots.txt requests in flight through their context; it waits only for
// Handler calls already running, which see the same ctx and should return
// promptly. The URLs cut short go back to the frontier, and a later Run on
// the same Crawler (with no seeds, or the same ones) resumes there (see
// the package doc). A Fetcher of your own must return promptly when its
// ctx is done, and its idle connections are yours to close.
func (c *Crawler) Run(ctx context.Context, seeds ...string) error {
	return c.runWith(ctx, c.Handler, seeds)
}

func (c *Crawler) runWith(ctx context.Context, h Handler, seeds []string) error {
	if !c.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer c.running.Store(false)
	if err := c.validate(); err != nil {
		return err
	}

	r := c.newRun(h)
	c.active.Store(r)
	defer c.active.Store(nil) // keep no Run's state past its end
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
		return err
	}
	if len(canonSeeds) == 0 && r.frontier.Len() == 0 {
		return ErrNoSeeds
	}
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
	for _, u := range canonSeeds {
		c.made.seedHosts[canon.Host(u)] = true // the crawl's, kept for a Run that resumes it
	}
	r.scope = newScopeCheck(c.Scope, c.made.seedHosts)

	c.stats.Store(&runStats{before: r.before, counts: r.stats})
	c.hostStats.Store(r.hostTab)
	defer func() { r.stats.end.Store(time.Now().UnixNano()) }()
	if c.Fetcher == nil {
		defer c.made.fetcher.CloseIdleConnections() // leave no idle connections behind
	}
	if r.frontier.Len() > 0 {
		// This Run resumes a crawl, whose last requests it does not know:
		// those in flight when the process before was killed, or when the
		// Run before was stopped, went unrecorded. So it asks no host
		// before one least delay has passed.
		r.holdUntil = time.Now().Add(c.Pacing.MinDelay())
	}
	for _, u := range canonSeeds {
		l := link{url: u, fp: canon.Fingerprint(u), host: canon.Host(u)}
		if r.discover(l, "") {
			r.seeds[l.fp] = true
		}
	}
	if err := r.commit(); err != nil {
		return err
	}
	err := r.loop(ctx)
	if err == nil && r.exhausted && len(r.seeds) > 0 && r.stats.fetched.Load() == 0 {
		return r.noPages(canonSeeds)
	}
	return err
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

// NoPagesError is the error of a Run that was given seeds and ended, its
// frontier exhausted, without a response to any page request: every
// seed failed, and Seeds says why each did. A Run that ctx stopped
// returns a [*StoppedError] instead, and one that spent its budget
// (MaxPages, MaxBytes) nil, whatever it fetched. In a crawl shared by
// several frontiers (frontier.Exchanger), each Run judges by its own
// seeds and pages.
//
// It unwraps to [ErrNoPages], to [ErrSeedsRefused] when the address
// policy refused every seed, and to the error of each seed, so that
// errors.Is(err, fetch.ErrBlockedAddress), or errors.As(err, &dnsErr)
// with a *net.DNSError, look into them.
type NoPagesError struct {
	Seeds []SeedError // the Run's seeds (those seen before it excepted), in the order given
}

// SeedError is a seed of a [NoPagesError], and why it yielded no page.
type SeedError struct {
	URL string // the seed, canonical
	// Err is why: the Err its Page was given (a fetch error; for a host
	// retired, politeness.ErrHostRetired naming the host and wrapping the
	// cause; for an address refused, fetch.ErrBlockedAddress), or
	// ErrDisallowed.
	Err error
}

// maxSeedsShown bounds the seeds that the text of a NoPagesError lists.
const maxSeedsShown = 10

// Error says why each seed yielded no page, on a line of its own when
// there are several (the first maxSeedsShown of them, and how many more).
func (e *NoPagesError) Error() string {
	var b strings.Builder
	if e.refused() {
		b.WriteString(ErrSeedsRefused.Error())
	} else {
		b.WriteString(ErrNoPages.Error())
	}
	if len(e.Seeds) > 1 {
		fmt.Fprintf(&b, " (%d seeds):", len(e.Seeds))
	}
	for i, s := range e.Seeds {
		if i == maxSeedsShown {
			fmt.Fprintf(&b, "\nand %d more", len(e.Seeds)-i)
			break
		}
		if len(e.Seeds) > 1 {
			b.WriteString("\n")
		} else {
			b.WriteString(": ")
		}
		fmt.Fprintf(&b, "%s: %v", s.URL, s.Err)
	}
	return b.String()
}

// Unwrap returns ErrNoPages, ErrSeedsRefused if every seed was refused
// its address, and the error of each seed.
func (e *NoPagesError) Unwrap() []error {
	errs := []error{ErrNoPages}
	if e.refused() {
		errs = append(errs, ErrSeedsRefused)
	}
	for _, s := range e.Seeds {
		errs = append(errs, s.Err)
	}
	return errs
}

// refused reports whether every seed was refused its address.
func (e *NoPagesError) refused() bool {
	for _, s := range e.Seeds {
		if !errors.Is(s.Err, fetch.ErrBlockedAddress) {
			return false
		}
	}
	return len(e.Seeds) > 0
}

// validate reports the fields that no crawl can run with: a negative
// Workers, which has no "off", and numbers that are not numbers.
func (c *Crawler) validate() error {
	var errs []error
	if c.Workers < 0 {
		errs = append(errs, fmt.Errorf("crawler: Workers is %d; want 0 (the default) or more", c.Workers))
	}
	if math.IsNaN(c.MaxRate) || math.IsInf(c.MaxRate, 0) {
		errs = append(errs, fmt.Errorf("crawler: MaxRate is %v", c.MaxRate))
	}
	if err := c.Pacing.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.NearDuplicates != nil {
		if err := c.NearDuplicates.validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if c.Recrawl != nil {
		if err := c.Recrawl.Validate(c.MaxRate); err != nil {
			errs = append(errs, err)
		}
		if _, shared := c.Frontier.(frontier.Exchanger); shared {
			errs = append(errs, errors.New("crawler: Recrawl with a crawl shared by several frontiers (frontier.Exchanger) is not supported yet"))
		}
	}
	return errors.Join(errs...)
}

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
	nearDups *nearDuplicates // nil without Crawler.NearDuplicates
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
	// depths holds the shortest link distance known of each URL this Run
	// pushed, while it waits or is in flight; under Scope.MaxDepth, done
	// holds the depth at which each page with links was done. Scheduler
	// only.
	depths, done depths.Table
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
	// trackDepths says whether depths are kept: always under
	// Scope.MaxDepth; without it, only for a frontier in memory, since
	// depths grows with the URLs waiting, which a durable frontier keeps
	// on disk.
	trackDepths bool

	seeds map[uint64]bool // the seeds this Run pushed; read-only once the loop runs
	// sitemaps knows which sitemap URLs a robots.txt listed (or an index
	// found through one), and reads sitemaps. Workers only.
	sitemaps *sitemap.Discovery
	// linkSets holds the sets in which a page's links are found once
	// (resolveLinks), emptied: a set made for each page was a twentieth
	// of a crawl's garbage. Workers only.
	linkSets sync.Pool
	// seedErrs holds why each seed that yielded no page did not.
	// Scheduler only.
	seedErrs map[uint64]error
	// exhausted says that the loop ended with its frontier empty (or,
	// shared, the crawl finished) and its budget not spent. Scheduler only.
	exhausted bool
}

// newRun prepares a Run: the Crawler's fields, or for nil ones what an
// earlier Run made, or new defaults, which it keeps for the next Run.
func (c *Crawler) newRun(h Handler) *runState {
	r := &runState{
		c:         c,
		handler:   h,
		fetcher:   c.Fetcher,
		frontier:  c.Frontier,
		seen:      c.Seen,
		canon:     c.Canon,
		robots:    c.Robots,
		log:       c.Logger,
		stats:     &counters{start: time.Now()},
		userAgent: cmp.Or(c.UserAgent, fetch.DefaultUserAgent),
		workers:   politeness.Or(c.Workers, DefaultWorkers),
		hostTab:   politeness.NewHosts(c.Pacing),
		nearDups:  newNearDuplicates(c.NearDuplicates),
		hosts:     map[string]struct{}{},
		seeds:     map[uint64]bool{},
		seedErrs:  map[uint64]error{},
	}
	m := &c.made
	if r.fetcher == nil {
		if m.fetcher == nil {
			m.fetcher = &fetch.HTTPFetcher{}
		}
		r.fetcher = m.fetcher
	}
	if r.frontier == nil {
		if m.frontier == nil {
			m.frontier = new(frontier.FIFO)
		}
		r.frontier = m.frontier
	}
	if r.seen == nil {
		if m.seen == nil {
			m.seen = seen.NewExact(0)
		}
		r.seen = m.seen
	}
	if m.traps == nil || m.trapsOf != r.frontier {
		m.traps, m.trapsOf = traps.New(c.Traps), r.frontier
	} else {
		m.traps.Configure(c.Traps)
	}
	r.traps = m.traps
	if r.canon == nil {
		r.canon = new(canon.Canonicalizer)
	}
	r.fetchRobots = politeness.FetchThrough(r.fetcher, r.userAgent, r.canon)
	r.sitemaps = &sitemap.Discovery{Policy: c.Sitemaps, Canon: r.canon, LastMods: c.Recrawl != nil}
	if !c.IgnoreRobots {
		r.sitemaps.ListsSitemaps = r.listsSitemaps
	}
	if r.robots == nil || r.robots.Fetch == nil {
		if m.robots == nil || m.robotsOf != c.Robots {
			m.robots, m.robotsOf = c.Robots.WithFetch(c.fetchRobots), c.Robots
		}
		r.robots = m.robots
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	r.maxRedirects = politeness.Or(c.MaxRedirects, DefaultMaxRedirects)
	r.maxRetries = politeness.Or(c.MaxRetries, DefaultMaxRetries)
	r.maxLinks = politeness.Or(c.MaxLinksPerPage, DefaultMaxLinksPerPage)
	if c.MaxRate > 0 {
		r.rateInterval = time.Duration(float64(time.Second) / c.MaxRate)
	}
	r.agentToken = politeness.ProductToken(r.userAgent)
	r.committer, _ = r.frontier.(frontier.Committer)
	r.exchange, _ = r.frontier.(frontier.Exchanger)
	r.batcher, _ = r.seen.(seen.Batcher)
	if d, ok := r.fetcher.(fetch.DNSCaching); ok {
		r.stats.dns, r.stats.dnsBefore = d.DNSStats, d.DNSStats()
	}
	r.fpRate, _ = r.seen.(seen.Estimator)
	r.trackDepths = c.Scope.MaxDepth > 0 || r.committer == nil
	return r
}

// link is a URL found on a page (or a redirect target), canonical and in
// scope, on its way to the seen-test.
type link struct {
	url   string
	fp    uint64
	host  string
	depth int
	hops  int
}

// outcome is what a worker reports to the scheduler about one entry.
type outcome struct {
	entry     frontier.Entry
	requested bool      // a page request was sent (counts against MaxPages)
	retry     bool      // not processed: hand the entry out again
	next      time.Time // when its host may be contacted again
	links     []link    // links to follow (canonical, in scope)
	linkFPs   []uint64  // fingerprints of all the page's out-links and its redirect target
	redirect  bool      // a redirect followed: linkFPs holds its target alone
	depthCut  bool      // links were left out for their depth alone (Scope.MaxDepth)
	html      bool      // a 2xx HTML page was read
	failure   error     // why the entry yielded no page, when it is done with and got no response; nil otherwise
	// visit is the response as Recrawl sees it; its Content is also
	// that of a 2xx HTML page for Traps.DuplicatePages.
	visit revisit.Outcome
}

// job is an entry handed to a worker, with the visit before if it is a
// revisit.
type job struct {
	entry frontier.Entry
	last  *revisit.Last
}

// loop is the scheduler: it owns the frontier and the seen-set, hands ready
// URLs to the workers and takes back what they found.
func (r *runState) loop(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	jobs := make(chan job, r.workers)
	results := make(chan outcome, r.workers) // never full: at most r.workers entries are out
	var wg sync.WaitGroup
	for range r.workers {
		wg.Go(func() {
			for j := range jobs {
				results <- r.process(ctx, j)
			}
		})
	}

	inflight := 0
	var requested, maxPages = int64(0), r.c.MaxPages
	budgetLeft := func() bool {
		if maxPages > 0 && requested+int64(inflight) >= maxPages {
			return false
		}
		return r.c.MaxBytes <= 0 || r.stats.bytes.Load() < r.c.MaxBytes
	}
	var failed error // a step the frontier could not commit: the crawl stops
	apply := func(o outcome) {
		inflight--
		if o.requested {
			requested++
		}
		if o.html && !o.visit.Revisit {
			r.checkContent(o)
		}
		// New links are pushed before Done, so that a frontier spending
		// credit on the page's links (AOPIC) knows them all.
		r.prepare(o.links)
		for _, l := range o.links {
			r.discover(l, o.entry.URL)
		}
		r.frontier.Done(o.entry, frontier.Result{Next: o.next, Retry: o.retry, Links: o.linkFPs, Redirect: o.redirect, Requested: o.requested})
		if !o.retry {
			if o.failure != nil && r.seeds[o.entry.FP] && o.entry.Referrer == "" {
				r.seedErrs[o.entry.FP] = o.failure
			}
			r.finished(o)
			if r.revisits != nil {
				r.revisits.Done(o.entry, o.visit, time.Now())
			}
		}
		if err := r.commit(); err != nil && failed == nil {
			failed = err
		}
		r.publish(inflight)
	}

	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	var nextSlot time.Time    // MaxRate: the earliest time the next URL may be handed out
	var ready <-chan struct{} // links forwarded here by other parts of the crawl
	if r.exchange != nil {
		ready = r.exchange.Ready()
	}
	var err error
	for err == nil && failed == nil {
		var wake time.Time
		if r.revisits != nil {
			failed = r.releaseRevisits(time.Now())
		}
		paused, resumed := r.c.pauseState()
		for !paused && inflight < r.workers && budgetLeft() {
			now := time.Now()
			if now.Before(r.holdUntil) {
				wake = r.holdUntil
				break
			}
			if r.rateInterval > 0 && now.Before(nextSlot) {
				wake = nextSlot
				break
			}
			e, ok, w := r.frontier.Next(now)
			if !ok {
				wake = w
				break
			}
			if r.rateInterval > 0 {
				nextSlot = now.Add(r.rateInterval)
			}
			if d, ok := r.depths.Get(e.FP); ok && d < e.Depth {
				e.Depth = d // a shorter path was found while it waited
			}
			inflight++
			j := job{entry: e}
			if r.revisits != nil {
				j.last = r.revisits.Revisiting(e.FP)
			}
			jobs <- j
		}
		if r.revisits != nil {
			if due, ok := r.revisits.Next(); ok && (wake.IsZero() || due.Before(wake)) {
				wake = due
			}
		}
		r.publish(inflight)
		if left := budgetLeft(); inflight == 0 && !paused && r.ended(left) {
			r.exhausted = left
			break
		}
		if inflight == 0 && failed == nil {
			failed = r.flush() // no step will end before the wait does
		}
		var wakeC <-chan time.Time
		if !wake.IsZero() && !paused && inflight < r.workers && budgetLeft() {
			timer.Reset(time.Until(wake))
			wakeC = timer.C
		}
		select {
		case o := <-results:
			apply(o)
		case <-resumed:
		case <-ready:
			failed = cmp.Or(failed, r.receive())
		case <-wakeC:
		case <-ctx.Done():
			err = context.Cause(ctx)
		}
	}

	// Stop the workers, and keep what those in flight found or left
	// undone: entries cut short go back to the frontier.
	close(jobs)
	cancel()
	wg.Wait()
	for inflight > 0 {
		apply(<-results)
	}
	if err := r.flush(); err != nil && failed == nil {
		failed = err
	}
	r.publish(0)
	switch {
	case failed != nil:
		return failed
	case err != nil:
		return &StoppedError{Cause: err, Frontier: r.frontier.Len()}
	}
	return nil
}

// ended reports whether a loop with nothing in flight is done: its
// frontier is empty or its budget spent, or with an Exchanger, the whole
// crawl is finished.
func (r *runState) ended(budgetLeft bool) bool {
	if r.exchange != nil {
		return r.exchange.Finished()
	}
	return r.frontier.Len() == 0 && (r.revisits == nil || r.revisits.Len() == 0) || !budgetLeft
}

// receive discovers the links other parts of the crawl forwarded here, as
// one step.
func (r *runState) receive() error {
	es := r.exchange.Receive()
	if len(es) == 0 {
		return nil
	}
	r.stats.received.Add(int64(len(es)))
	for _, e := range es {
		r.discover(link{url: e.URL, fp: e.FP, host: e.Host, depth: e.Depth, hops: e.Hops}, e.Referrer)
	}
	return r.commit()
}

// prepare has a seen-set that tests many fingerprints at once
// (seen.Batcher) test those of links, before they are discovered.
func (r *runState) prepare(links []link) {
	if r.batcher == nil || len(links) < 2 {
		return
	}
	r.fps = r.fps[:0]
	for _, l := range links {
		r.fps = append(r.fps, l.fp)
	}
	r.batcher.Prepare(r.fps)
}

// commit ends a step of the scheduler for a frontier that writes in steps
// (frontier.Committer). Its error, wrapped, stops the crawl.
func (r *runState) commit() error {
	if r.committer == nil {
		return nil
	}
	r.traps.Record()
	if err := r.committer.Commit(); err != nil {
		return fmt.Errorf("crawler: frontier commit: %w", err)
	}
	return nil
}

// flush makes the steps ended durable, for a frontier.Committer.
func (r *runState) flush() error {
	if r.committer == nil {
		return nil
	}
	if err := r.committer.Flush(); err != nil {
		return fmt.Errorf("crawler: frontier flush: %w", err)
	}
	return nil
}

// control is what an operator changes while a crawl runs: whether it is
// paused.
type control struct {
	mu      sync.Mutex
	paused  bool
	changed chan struct{} // closed at the next change; nil until asked for
}

// Pause stops the crawl from starting URLs: the fetches in flight end, and
// no new one starts until Resume. A paused Run holds its place (budgets,
// pacing and the frontier stay as they were) and still stops when its
// context is done; a Crawler paused before Run starts paused. Safe to call
// at any time, from any goroutine.
func (c *Crawler) Pause() { c.setPaused(true) }

// Resume lets a paused crawl start URLs again.
func (c *Crawler) Resume() { c.setPaused(false) }

// Paused reports whether the crawl is paused.
func (c *Crawler) Paused() bool {
	paused, _ := c.pauseState()
	return paused
}

func (c *Crawler) setPaused(paused bool) {
	k := &c.control
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.paused != paused {
		k.paused = paused
		if k.changed != nil {
			close(k.changed)
			k.changed = nil
		}
	}
}

// pauseState returns whether the crawl is paused, and a channel closed at
// the next change.
func (c *Crawler) pauseState() (paused bool, changed <-chan struct{}) {
	k := &c.control
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.changed == nil {
		k.changed = make(chan struct{})
	}
	return k.paused, k.changed
}

// RetireHost gives up on host (host[:port], as in canonical URLs) for the
// rest of the current Run, as Pacing does after Pacing.MaxFailures failures:
// its waiting URLs are reported to the Handler with an error wrapping
// politeness.ErrHostRetired and are not fetched. Its fetches in flight end
// as they would. It reports whether the host was retired by this call, and
// fails with ErrNotRunning when no Run is running. A later Run crawls the
// host again. Safe to call from any goroutine.
func (c *Crawler) RetireHost(host, reason string) (bool, error) {
	r := c.active.Load()
	if r == nil {
		return false, ErrNotRunning
	}
	if reason == "" {
		reason = "retired by the operator"
	}
	if !r.hostTab.Retire(host, reason) {
		return false, nil
	}
	r.stats.hostsRetired.Add(1)
	return true, nil
}

// StoppedError is the error of a Run that its context stopped: the
// context's cause, and what was left for a later Run to resume. It unwraps
// to the cause, so errors.Is(err, context.Canceled) holds for a cancelled
// Run.
type StoppedError struct {
	Cause    error // context.Cause of Run's ctx
	Frontier int   // URLs left in the frontier, as Stats().Frontier
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("crawler: stopped with %d URLs left: %v", e.Frontier, e.Cause)
}

// Unwrap returns the cause.
func (e *StoppedError) Unwrap() error { return e.Cause }

// checkContent records the content of an HTML page for the duplicate
// rule of Traps, which may stop the page's path pattern.
func (r *runState) checkContent(o outcome) {
	stopped, duplicate := r.traps.Observe(o.entry.URL, o.entry.Host, o.visit.Content)
	if duplicate {
		r.stats.duplicateContent.Add(1)
	}
	if stopped != "" {
		r.stats.addTrapPattern(stopped)
		r.log.Warn("trap: path pattern keeps serving duplicates; not followed any more", "pattern", stopped)
	}
}

// finished forgets the depth of an entry done with. Under Scope.MaxDepth
// it remembers that of a page with links: found nearer a seed later, the
// page is fetched again, so that the pages within MaxDepth of a seed by
// their shortest path are all fetched, whatever order the paths are found
// in. If the nearer path was found while it was in flight, that is now.
func (r *runState) finished(o outcome) {
	e := o.entry
	d, ok := r.depths.Get(e.FP)
	r.depths.Remove(e.FP)
	switch {
	case r.scope.MaxDepth <= 0 || len(o.linkFPs) == 0 && !o.depthCut:
	case ok && d < e.Depth:
		e.Depth, e.Tries = d, 0
		r.fetchAgain(e)
	default:
		r.done.Set(e.FP, e.Depth)
	}
}

// fetchAgain pushes e, a page done with at a greater depth than e's, to be
// fetched again.
func (r *runState) fetchAgain(e frontier.Entry) {
	r.stats.depthRefetches.Add(1)
	r.depths.Set(e.FP, e.Depth)
	r.frontier.Push(e)
}

// publish makes the scheduler's own figures visible to Stats.
func (r *runState) publish(inflight int) {
	r.stats.inflight.Store(int64(inflight))
	r.stats.frontier.Store(int64(r.frontier.Len()))
	r.stats.seen.Store(int64(r.seen.Len()))
	r.stats.hosts.Store(int64(len(r.hosts)))
	if r.fpRate != nil {
		r.stats.seenFPRate.Store(math.Float64bits(r.fpRate.FPRate()))
	}
	if r.revisits != nil {
		r.stats.revisiting.Store(int64(r.revisits.Len()))
	}
}

// discover runs the URL-seen test on l and pushes it if it is new and no
// trap rule stops it (seeds, with no referrer, always pass the rules). It
// reports whether l was pushed.
func (r *runState) discover(l link, referrer string) bool {
	if r.exchange != nil && r.exchange.Forward(frontier.Entry{URL: l.url, FP: l.fp, Host: l.host, Depth: l.depth, Hops: l.hops, Referrer: referrer}) {
		r.stats.forwarded.Add(1)
		return false
	}
	if !r.seen.Add(l.fp) {
		r.stats.duplicates.Add(1)
		if d, ok := r.depths.Get(l.fp); ok && l.depth < d {
			r.depths.Set(l.fp, l.depth)
		} else if d, ok := r.done.Get(l.fp); ok && l.depth < d {
			r.done.Remove(l.fp)
			r.fetchAgain(frontier.Entry{URL: l.url, FP: l.fp, Host: l.host, Depth: l.depth, Hops: l.hops, Referrer: referrer})
		}
		return false
	}
	if rule := r.traps.Admit(l.url, l.host, referrer == ""); rule != "" {
		r.stats.addTrap(rule, 1)
		return false
	}
	r.hosts[l.host] = struct{}{}
	if r.trackDepths {
		r.depths.Set(l.fp, l.depth)
	}
	r.frontier.Push(frontier.Entry{URL: l.url, FP: l.fp, Host: l.host, Depth: l.depth, Hops: l.hops, Referrer: referrer})
	return true
}
