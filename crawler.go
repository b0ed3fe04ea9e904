package crawler

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"crawler/canon"
	"crawler/fetch"
	"crawler/frontier"
	"crawler/internal/toggle"
	"crawler/politeness"
	"crawler/revisit"
	"crawler/seen"
	"crawler/simhash"
	"crawler/sitemap"
	"crawler/sites"
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
	// ErrNoPages is wrapped by a [*NoPagesError].
	ErrNoPages = errors.New("crawler: no seed yielded a page")
	// ErrSeedsRefused is wrapped by a [*NoPagesError] when the address
	// policy refused every seed (fetch.ErrBlockedAddress).
	ErrSeedsRefused = errors.New("crawler: every seed was refused by the address policy")
	// ErrDisallowed is why a seed robots.txt disallows yielded no page (in
	// a [NoPagesError]); disallowed URLs do not reach the Handler.
	ErrDisallowed = errors.New("crawler: disallowed by robots.txt")
)

// Crawler crawls the web from seed URLs. Set its fields, then call Run. The
// zero value crawls politely: robots.txt obeyed (RFC 9309), one request at
// a time per host, a second between them or more (politeness.Pacing),
// traps bounded, breadth-first, every http(s) link followed, loopback and
// private addresses refused (fetch.AddressPolicy). Numbers follow the
// package's rule: 0 is the default, negative is off.
//
// Fields must not change while Run is running; Run never writes them. A
// second Run resumes the first (see the package doc).
type Crawler struct {
	// Handler receives every page fetched or tried. Nil: none, the crawl
	// only discovers.
	Handler Handler
	// Fetcher fetches pages and robots.txt. Nil: a [fetch.HTTPFetcher]
	// with its defaults, which refuse loopback and private addresses, and
	// a [cookies.Jar] that keeps the crawl's cookies.
	Fetcher fetch.Fetcher
	// Frontier orders the URLs to fetch and bounds the requests in flight
	// to a host (its PerHost). Nil: a [frontier.FIFO], one at a time.
	Frontier frontier.Frontier
	// Seen is the URL-seen set. Nil: a [seen.Exact].
	Seen seen.Set
	// Canon canonicalizes URLs. Nil: the core rules only.
	Canon *canon.Canonicalizer
	// Robots caches robots.txt per host. Nil: the defaults. A cache whose
	// Fetch is nil lends its settings to one that fetches through Fetcher.
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
	// response) is tried again, each try counting against MaxPages. 0:
	// DefaultMaxRetries; negative: none.
	MaxRetries int
	// MaxRedirects is the longest redirect chain followed. 0:
	// DefaultMaxRedirects; negative: none followed.
	MaxRedirects int
	// MaxLinksPerPage bounds the links taken from one HTML page (see
	// Stats.LinksTruncated). 0: DefaultMaxLinksPerPage; negative: none.
	MaxLinksPerPage int
	// MaxPages bounds the page requests of one Run (robots.txt not
	// counted). 0 or negative: no limit.
	MaxPages int64
	// MaxBytes bounds the body bytes of one Run; fetches in flight when it
	// is reached may pass it. 0 or negative: no limit.
	MaxBytes int64
	// IgnoreRobots, if set, fetches without asking robots.txt.
	IgnoreRobots bool
	// Sitemaps says which sitemaps (and feeds) are read (see
	// [sitemap.Policy]); the zero value, sitemap.Auto, reads those
	// robots.txt files list, and under Recrawl a host's /sitemap.xml if
	// its robots.txt lists none.
	Sitemaps sitemap.Policy
	// Recrawl, if not nil, keeps revisiting the pages fetched, by their
	// rates of change ([revisit.Config]). Nil: each page is fetched once.
	Recrawl *revisit.Config
	// NearDuplicates, if not nil, marks the HTML pages whose text is a
	// near-duplicate of an earlier one ([simhash.Config]). Nil: none.
	NearDuplicates *simhash.Config
	// IgnoreNoFollow, if set, follows nofollow links and pages.
	IgnoreNoFollow bool
	// Sites, if not nil, applies per-site rules ([sites.Policy]): pacing,
	// headers, credentials, logins, paths, ignore_robots. Nil: none.
	Sites *sites.Policy

	running   atomic.Bool
	active    atomic.Pointer[runState] // the Run running; nil between Runs
	paused    toggle.Toggle            // by Pause and Resume
	stats     atomic.Pointer[runStats] // of the current or last Run; nil before the first
	hostStats atomic.Pointer[politeness.Hosts]
	made      made // what Runs made for nil fields, kept for the next Run
}

// Run crawls from the seeds until the frontier is exhausted or a budget
// (MaxPages, MaxBytes) spent, and returns nil; or until ctx is done, and
// returns a [*StoppedError]. A Run given new seeds none of which yielded
// a response returns a [*NoPagesError] saying why (a host whose name does
// not exist is retired within seconds: Pacing.NotFoundRetries). A seed
// that is not an http(s) URL is an error before anything is fetched.
// Every goroutine Run started has exited when it returns.
//
// When ctx is done, Run aborts the requests in flight through it and
// waits for the Handler calls running, which should return promptly; a
// later Run resumes the crawl (see the package doc). A Fetcher of your own
// must return promptly when its ctx is done; its idle connections are
// yours to close.
func (c *Crawler) Run(ctx context.Context, seeds ...string) error {
	return c.runWith(ctx, c.Handler, seeds)
}

// errNotYielded is the error of the Handler of Pages for a page that the
// loop stopped before taking: the crawler puts its URL back.
var errNotYielded = errors.New("crawler: page not yielded")

// Pages runs the crawl like Run and yields each page with its Err, after
// the crawler's own Handler (if any), at the pace of the loop. Breaking
// out stops the crawl as cancelling Run's context does, and loses
// nothing: pages not yet yielded go back to the frontier for a later Run.
// If the crawl fails (a bad seed, ctx done), the last pair is (nil, err).
// The loop must not modify a page; to steer the crawl, use a Handler. The
// sequence is single-use.
func (c *Crawler) Pages(ctx context.Context, seeds ...string) iter.Seq2[*Page, error] {
	return func(yield func(*Page, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		pages := make(chan *Page)
		done := make(chan error, 1)
		send := HandlerFunc(func(ctx context.Context, p *Page) error {
			var err error
			if c.Handler != nil {
				err = c.Handler.Handle(ctx, p)
			}
			select {
			case pages <- p:
				return err
			case <-ctx.Done():
				return errNotYielded
			}
		})
		go func() {
			done <- c.runWith(ctx, send, seeds)
			close(pages)
		}()
		for p := range pages {
			if !yield(p, p.Err) {
				// Take no more pages: their sends end with ctx.
				cancel()
				<-done
				return
			}
		}
		if err := <-done; err != nil {
			yield(nil, err)
		}
	}
}

// runWith is Run with the Handler h: Pages passes its own.
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
	canonSeeds, err := r.canonicalSeeds(seeds)
	if err != nil {
		return err
	}
	if err := r.resume(canonSeeds); err != nil {
		return err
	}
	c.stats.Store(&runStats{before: r.before, counts: r.stats})
	c.hostStats.Store(r.hostTab)
	defer func() { r.stats.end.Store(time.Now().UnixNano()) }()
	if c.Fetcher == nil {
		defer c.made.fetcher.CloseIdleConnections() // leave no idle connections behind
	}
	if err := r.pushSeeds(canonSeeds); err != nil {
		return err
	}
	err = r.loop(ctx)
	if err == nil && r.exhausted && len(r.seeds) > 0 && r.stats.fetched.Load() == 0 {
		return r.noPages(canonSeeds)
	}
	return err
}

// StoppedError is the error of a Run that its context stopped. It unwraps
// to the cause: errors.Is(err, context.Canceled) holds for a cancelled Run.
type StoppedError struct {
	Cause    error // context.Cause of Run's ctx
	Frontier int   // URLs left in the frontier, as Stats().Frontier
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("crawler: stopped with %d URLs left: %v", e.Frontier, e.Cause)
}

// Unwrap returns the cause.
func (e *StoppedError) Unwrap() error { return e.Cause }

// NoPagesError is the error of a Run given seeds whose frontier emptied
// without a response to any page request: Seeds says why each seed
// failed (its name not found, its address refused, robots.txt...). In a
// crawl shared by several frontiers, each Run judges by its own seeds. It
// unwraps to [ErrNoPages], to [ErrSeedsRefused] when the address policy
// refused every seed, and to each seed's error, for errors.Is and As.
type NoPagesError struct {
	Seeds []SeedError // the Run's seeds (those seen before it excepted), in the order given
}

// SeedError is a seed of a [NoPagesError], and why it yielded no page.
type SeedError struct {
	URL string // the seed, canonical
	// Err is why: its Page's Err (a fetch error, fetch.ErrBlockedAddress,
	// politeness.ErrHostRetired wrapping the cause), or ErrDisallowed.
	Err error
}

// maxSeedsShown bounds the seeds that the text of a NoPagesError lists.
const maxSeedsShown = 10

// Error says why each seed yielded no page, a line each (the first ten).
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
	sep := ": "
	if len(e.Seeds) > 1 {
		sep = "\n"
	}
	for i, s := range e.Seeds {
		if i == maxSeedsShown {
			fmt.Fprintf(&b, "\nand %d more", len(e.Seeds)-i)
			break
		}
		fmt.Fprintf(&b, "%s%s: %v", sep, s.URL, s.Err)
	}
	return b.String()
}

// Unwrap returns ErrNoPages, ErrSeedsRefused and each seed's error.
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
	notRefused := func(s SeedError) bool { return !errors.Is(s.Err, fetch.ErrBlockedAddress) }
	return len(e.Seeds) > 0 && !slices.ContainsFunc(e.Seeds, notRefused)
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
	errs = append(errs, c.Pacing.Validate()) // errors.Join drops the nil ones
	if c.NearDuplicates != nil {
		errs = append(errs, c.NearDuplicates.Validate())
	}
	if c.Recrawl != nil {
		errs = append(errs, c.Recrawl.Validate(c.MaxRate))
		if _, shared := c.Frontier.(frontier.Exchanger); shared {
			errs = append(errs, errors.New("crawler: Recrawl with a crawl shared by several frontiers (frontier.Exchanger) is not supported yet"))
		}
	}
	return errors.Join(errs...)
}
