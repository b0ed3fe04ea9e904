// Command crawl crawls the web from seed URLs, politely by default.
//
//	crawl [flags] URL...
//	crawl -demo            # crawl a synthetic web served on loopback
//
// Every flag value and seed is checked before anything is fetched. stdout
// carries only what was asked for, for programs: the pages with -out -
// (JSON Lines: url, status, depth, importance, content_type, bytes, title,
// links, nofollow_links, fetch_ms, redirect, revisit, unchanged,
// near_duplicate_of, error), then the hosts with -host-stats -, then the
// summary with -json. stderr carries what is for people: warnings (-v
// adds a debug line per page), progress (a line rewritten in place on a
// terminal, a log line every 10 s otherwise), the summary as text (unless
// -json), hints and errors. -http ADDR serves a live status page with
// controls, /status.json and Prometheus /metrics from the crawl's process;
// -report FILE.html writes the page as a static report at the end.
//
// Exit status: 0 when the crawl ended; 1 when it failed (no seed yielded
// a page: every seed refused, unreachable, such as a host name that does
// not exist, or disallowed, crawler.ErrNoPages; output that could not be
// written, which also stops the crawl);
// 2 for bad usage; 130 and 143 when SIGINT or SIGTERM stopped it, after
// the output and the summary were written (a second signal ends the
// process at once). Messages quote at most 200 bytes of a URL. The
// standard HTTP_PROXY, HTTPS_PROXY and NO_PROXY variables are honoured;
// the proxy is trusted whatever its address.
//
// Loopback, private, link-local and other special-purpose addresses are
// refused (counted as blocked-address errors) unless -allow lists them or
// -allow-private is given; a refused seed is reported with the -allow that
// would let it through. The demo's dialer reaches only its own loopback
// listener.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"crawler"
	"crawler/cookies"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/frontier"
	"crawler/politeness"
	"crawler/revisit"
	"crawler/seen"
	"crawler/simhash"
	"crawler/sites"
	"crawler/store"
)

// main runs the command, stopped by SIGINT or SIGTERM, and exits with
// the status exitStatus gives.
func main() {
	ctx, stop := notifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	cause := context.Cause(ctx)
	stop()
	if err != nil {
		printError(os.Stderr, err)
	}
	os.Exit(exitStatus(err, cause))
}

// signalCause is the cause of a context cancelled by a signal.
type signalCause struct{ sig syscall.Signal }

// Error names the signal.
func (s signalCause) Error() string { return s.sig.String() + " signal received" }

// notifyContext returns a copy of parent that the first of sigs cancels,
// with a signalCause; a second signal then has its default effect (a
// second Ctrl-C ends the process at once). stop releases the signals.
func notifyContext(parent context.Context, sigs ...os.Signal) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			sig, _ := s.(syscall.Signal)
			cancel(signalCause{sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
	}
}

// exitStatus is the command's exit status for run's error and the cause
// of its context: 2 for bad usage, 1 for another error, 128 plus the
// signal's number for a crawl a signal stopped, 0 otherwise.
func exitStatus(err, cause error) int {
	var sig signalCause
	switch {
	case errors.As(err, new(usageError)):
		return 2
	case err != nil:
		return 1
	case errors.As(cause, &sig):
		return 128 + int(sig.sig)
	}
	return 0
}

// printError writes err to stderr, a line per line of its message, each
// prefixed with the command's name and its URLs shortened.
func printError(stderr io.Writer, err error) {
	for line := range strings.Lines(err.Error()) {
		fmt.Fprintln(stderr, "crawl:", shortenURLs(strings.TrimSuffix(line, "\n")))
	}
}

// run runs the command with args. It returns a usageError for a mistake
// in args, found before anything starts; another error if the crawl
// failed; nil if it ended, or was stopped by ctx (main tells which by the
// context's cause).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, seeds, err := parseFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if o.stateStats && o.cluster != "" {
		return printCluster(ctx, o, stdout)
	}
	if o.stateStats {
		return printState(o.state, stdout)
	}
	if o.demo {
		seeds = append(seeds, demoSeed)
	}
	if o.cpuProfile != "" {
		stop, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)

	// The state, then every output, before anything starts: a mistake in
	// one is found before the demo web or a fetch.
	var st *store.Store
	var stepped *steps // the outputs kept in step with st
	var archive *archive
	if o.state != "" {
		// The collector keeps its defaults under -state. A durable crawl's
		// Go heap is small (37-43 MB live at 300k pages of bench's web:
		// Pebble's memory is C's, the seen-set's tables are mapped apart),
		// so GOGC=100 collects it often: 181 times in that crawl. With
		// GOGC off under a memory limit of 100 MiB, raised to twice the
		// live heap as that grew, it was collected 109 times, yet the
		// collector's CPU was the same (4.5 s against 4.7, gctrace) and
		// the crawl no faster (three alternating triplets with the
		// in-memory crawl: 0.64x, 0.49x, 0.86x of its pages/s against
		// 0.65x, 0.55x, 0.78x; CPU a page 0.159-0.178 ms against
		// 0.162-0.173), for 10 MB more peak RSS (185-186 MB against 176-180).
		stepped = newSteps(fail)
		// A node's end is the cluster's: its hosts with most requests left go first.
		so := store.Options{PerHost: o.perHost, OnDone: stepped.done, LongestFirst: o.cluster != "",
			BeforeCommit: func() error { return errors.Join(archive.Sync(), stepped.sync()) }}
		if st, err = openState(o, seeds, so); err != nil {
			return err
		}
		if err := o.proxies.keep(st.Frontier()); err != nil { // each proxy's counts, for -stats
			st.Close()
			return err
		}
		defer func() {
			if st != nil { // not closed below: an error on the way
				st.Close()
			}
		}()
	}
	outs, err := openOutputs(o, stdout, st, stepped)
	if err != nil {
		return usageError{err}
	}
	var linkGraph *graphPages
	if o.warc != "" {
		if archive, err = openArchive(o, fail); err != nil {
			return usageError{errors.Join(err, outs.Close())}
		}
	}
	if o.graph != "" {
		var resumed bool
		if linkGraph, resumed, err = openGraph(o, fail, st, stepped); err != nil {
			return usageError{errors.Join(err, outs.Close(), archive.Close())}
		}
		if resumed {
			outs.resumed = append(outs.resumed, "-graph "+o.graph)
		}
	}
	cr := newCrawl(o, outs, stdout, stderr, fail)
	if cr.pages != nil && outs.pages.step != nil {
		cr.pages.steps = stepped
	}
	if st != nil {
		sayResuming(cr.con, o, st, outs.resumed)
	}
	fetcher, closeFetcher := startFetcher(o, cr.con)
	defer closeFetcher()
	cr.c.Fetcher = fetcher
	renderer, err := newRenderer(o, fetcher, cr.c)
	if err != nil {
		return err
	}
	if renderer != nil {
		cr.c.Fetcher = renderer
		defer renderer.Close()
	}
	if archive != nil {
		cr.archive, fetcher.Recorder = archive, archive
	}
	if o.replay != "" {
		if renderer != nil {
			return usageError{fmt.Errorf("-replay: -sites %s renders pages in a browser, which a replay cannot answer yet", o.sitesFile)}
		}
		replayed, err := openReplay(o, fetcher, cr.con)
		if err != nil {
			return usageError{err}
		}
		defer replayed.Close()
		cr.c.Fetcher = replayed
	}
	if linkGraph != nil {
		cr.graph = linkGraph
		cr.c.Handler = crawler.Chain(cr.c.Handler, linkGraph)
	}
	ctx, stopCrawl := context.WithCancelCause(ctx)
	defer stopCrawl(nil)
	if cr.ops, err = startOperations(ctx, o, cr, func() { stopCrawl(errStopControl) }); err != nil {
		return err
	}
	defer cr.ops.Close()
	if st != nil {
		cr.st = st
		cr.c.Seen, cr.c.Frontier = st.Seen(), st.Frontier()
		if o.frontier == "aopic" {
			if cr.c.Frontier, err = st.AOPIC(&frontier.AOPIC{PerHost: o.perHost}); err != nil {
				return fmt.Errorf("-state %s: %w", o.state, err)
			}
		}
		cr.c.Robots = &politeness.RobotsCache{Store: st.Robots()}
		// The budgets count the pages and bytes of every run.
		if o.maxPages > 0 && o.cluster == "" {
			cr.c.MaxPages = o.maxPages - st.Requests()
		}
		bodyBytes := cr.c.TotalStats().Bytes
		if o.maxBytes > 0 {
			cr.c.MaxBytes = o.maxBytes - bodyBytes
		}
		if spent := budgetSpent(o, st.Requests(), bodyBytes); spent != "" && o.cluster == "" {
			fmt.Fprintf(cr.con, "crawl: the crawl in %s has spent its %s; %d URLs wait (raise the budget to go on)\n", o.state, spent, st.Frontier().Len())
			err := cr.closeState(nil)
			st = nil
			return cr.finish(err)
		}
	}
	var leave func() error
	if o.cluster != "" {
		if leave, err = joinCluster(ctx, o, cr, st); err != nil {
			return err
		}
	}
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, o.duration, fmt.Errorf("-duration %v elapsed", o.duration))
		defer cancel()
	}
	stopProgress := startProgress(cr.c, cr.con, stderr, o.progress)
	cr.ran = true
	runErr := cr.c.Run(ctx, seeds...)
	stopProgress()
	if leave != nil {
		runErr = errors.Join(runErr, leave())
	}
	if st != nil {
		if runErr == nil && cr.c.Stats().Requests == 0 && cr.c.Frontier.Len() == 0 {
			fmt.Fprintf(cr.con, "crawl: the crawl in %s is finished: nothing left to fetch\n", o.state)
		}
		if line := seenLine(st.Seen().Stats()); line != "" && o.verbose {
			fmt.Fprintln(cr.con, line)
		}
		runErr = cr.closeState(runErr)
		st = nil
	}
	return cr.finish(runErr)
}

// demoSeed is the seed of the demo web (crawlertest.Web.Seeds), known
// before the web starts: a -state crawl's identity holds its seeds.
const demoSeed = "http://h0.crawler.test/"

// sayResuming tells on con that the crawl resumes the one in o.state, if
// st holds one, with what it has done and what waits, and which outputs go
// on with their files.
func sayResuming(con io.Writer, o *options, st *store.Store, resumed []string) {
	if st.Requests() == 0 && st.Seen().Len() == 0 {
		return
	}
	fmt.Fprintf(con, "crawl: resuming the crawl in %s: %d page requests made, %d URLs seen, %d waiting, %d hosts\n",
		o.state, st.Requests(), st.Seen().Len(), st.Frontier().Len(), st.Hosts())
	if len(resumed) > 0 {
		fmt.Fprintf(con, "crawl: appending to %s\n", strings.Join(resumed, " and "))
	}
}

// openState opens the -state directory for a crawl of seeds, with so,
// which must be the crawl it holds, if any. A directory that holds other
// files, or another crawl, is a usageError.
func openState(o *options, seeds []string, so store.Options) (*store.Store, error) {
	st, err := store.Open(o.state, so)
	if errors.Is(err, store.ErrNotState) {
		return nil, usageError{fmt.Errorf("-state %s: %w", o.state, err)}
	}
	if err != nil {
		return nil, fmt.Errorf("-state %s: %w", o.state, err)
	}
	if err := st.Claim(crawlID(o, seeds)); err != nil {
		st.Close()
		return nil, usageError{fmt.Errorf("-state %s holds another crawl (give the same seeds, -same-host and -max-depth, or another directory): %w", o.state, err)}
	}
	return st, nil
}

// crawlID is the identity of the crawl of seeds that o describes, which a
// -state directory holds one of: its seeds and its scope. The budgets, the
// pacing and the outputs may change from run to run.
func crawlID(o *options, seeds []string) string {
	id := slices.Clone(seeds)
	slices.Sort(id)
	if o.cluster != "" { // nodes may start from different seeds
		return fmt.Sprintf("cluster crawl %s, node %s; -same-host=%v -max-depth=%d", o.crawlName, o.node, o.sameHost, max(o.maxDepth, 0))
	}
	return fmt.Sprintf("seeds %s; -same-host=%v -max-depth=%d", strings.Join(slices.Compact(id), " "), o.sameHost, max(o.maxDepth, 0))
}

// budgetSpent says which budget of o the crawl has spent, with requests
// and bytes in every run so far, or "".
func budgetSpent(o *options, requests, bytes int64) string {
	switch {
	case o.maxPages > 0 && requests >= o.maxPages:
		return fmt.Sprintf("-max-pages budget: %d page requests made", requests)
	case o.maxBytes > 0 && bytes >= o.maxBytes:
		return fmt.Sprintf("-max-bytes budget: %d body bytes received", bytes)
	}
	return ""
}

// printState writes a summary of the state in dir as JSON to w.
func printState(dir string, w io.Writer) error {
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("-state %s: %w", dir, err)
	}
	st, err := store.Open(dir, store.Options{ExpectedURLs: -1}) // counts only: no Bloom filter to fill
	if err != nil {
		return fmt.Errorf("-state %s: %w", dir, err)
	}
	defer st.Close()
	total := withGauges((&crawler.Crawler{Frontier: st.Frontier()}).TotalStats(), st, st.Frontier().Len())
	sum := summaryOf(total, total.Frontier > 0)
	if _, err := frontier.KeptJSON(st.Frontier(), keptProxies, &sum.Proxies); err != nil {
		return fmt.Errorf("-state %s: the proxies' counts: %w", dir, err)
	}
	jar, err := cookies.Kept(st.Frontier())
	if err != nil {
		return fmt.Errorf("-state %s: %w", dir, err)
	}
	var held map[string]int // cookies by the host or domain they are sent to
	for _, e := range jar {
		if held == nil {
			held = map[string]int{}
		}
		held[e.Domain]++
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Seen     int            `json:"seen"`
		Waiting  int            `json:"waiting"`
		Hosts    int            `json:"hosts"`
		Requests int64          `json:"requests"`
		Done     bool           `json:"finished"`
		Cookies  map[string]int `json:"cookies,omitempty"` // the jar the crawl keeps, by host or domain
		Total    summary        `json:"total"`             // the counters of every run, as -json prints one run's; interrupted: URLs wait
	}{total.Seen, total.Frontier, total.Hosts, st.Requests(), total.Frontier == 0, held, sum})
}

// seenLine tells how the durable seen-set answered the run's tests: the
// share the cache answered (Mercator's hit rate: of all tests, new URLs
// included), and the share of those the Bloom filter let through. It is
// "" for a run that tested nothing.
func seenLine(s store.SeenStats) string {
	if s.Tests == 0 {
		return ""
	}
	passed := s.CacheHits + s.Reads // not answered "new" by the Bloom filter
	return fmt.Sprintf("crawl: seen-set: %d tests, %.1f%% answered by the cache (%.1f%% of the %d the Bloom filter passed), %.1f%% new by the filter, %d reads of the store",
		s.Tests, percent(s.CacheHits, s.Tests), percent(s.CacheHits, passed), passed, percent(s.Filtered, s.Tests), s.Reads)
}

// percent is 100*part/whole, or 0 for a whole of 0.
func percent(part, whole int64) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}

// crawl is one run of the command: its options, Crawler and outputs.
type crawl struct {
	o       *options
	c       *crawler.Crawler
	con     *console // stderr
	stdout  io.Writer
	outs    *outputs
	pages   *jsonLines     // the -out Handler; nil without -out
	archive *archive       // the -warc recorder; nil without -warc
	graph   *graphPages    // the -graph Handler; nil without -graph
	ops     *operations    // -http and -report; nil without them
	st      *store.Store   // -state; nil without it
	total   *crawler.Stats // with -state: the counters of every run, taken as the state closed
	ran     bool           // Run was called
}

// withGauges returns the counters of every run, total, with the gauges of
// the state st: its URLs seen, waiting (as the frontier in use counts them:
// an AOPIC on the store keeps its own count) and hosts.
func withGauges(total crawler.Stats, st *store.Store, waiting int) crawler.Stats {
	total.Seen, total.Frontier, total.Hosts = st.Seen().Len(), waiting, st.Hosts()
	return total
}

// closeState closes the crawl's state once Run has returned runErr, and
// takes the crawl's totals from it first; it returns runErr with the
// error of closing.
func (cr *crawl) closeState(runErr error) error {
	total := withGauges(cr.c.TotalStats(), cr.st, cr.c.Frontier.Len())
	cr.total = &total
	if err := cr.st.Close(); err != nil {
		runErr = errors.Join(runErr, fmt.Errorf("-state %s: %w", cr.o.state, err))
	}
	return runErr
}

// newCrawl sets up the crawl o asks for, writing to outs, stdout and
// stderr; fail stops it (with the first error writing -out).
func newCrawl(o *options, outs *outputs, stdout, stderr io.Writer, fail func(error)) *crawl {
	cr := &crawl{o: o, con: newConsole(stderr), stdout: stdout, outs: outs}
	cr.c = newCrawler(o, cr.con)
	handlers := []crawler.Handler{&seedHint{w: cr.con}}
	if outs.pages != nil {
		cr.pages = newJSONLines(outs.pages, fail, o.extract)
		handlers = append(handlers, cr.pages)
	}
	cr.c.Handler = crawler.Chain(handlers...)
	return cr
}

// newCrawler returns the Crawler o describes, logging to con, without
// its Fetcher and Handler.
func newCrawler(o *options, con io.Writer) *crawler.Crawler {
	c := &crawler.Crawler{
		UserAgent:    o.userAgent,
		Workers:      o.workers,
		Pacing:       o.pacing,
		MaxRetries:   o.maxRetries,
		MaxRate:      o.rate,
		IgnoreRobots: o.ignoreRobots,
		Sitemaps:     sitemapPolicies[o.sitemaps],
		MaxPages:     o.maxPages, // with -cluster, the node's: see below
		MaxBytes:     o.maxBytes,
		Scope:        crawler.Scope{SameHost: o.sameHost, MaxDepth: o.maxDepth},
		Traps:        o.traps,
		Logger:       newLogger(con, o.verbose),
	}
	if o.cluster != "" {
		// The budget is the whole crawl's, and the node keeps it: it tells
		// the crawler the crawl is finished once it is spent. A budget of
		// the crawler's own would stop it asking the node first.
		c.MaxPages = 0
	}
	if o.sites != nil {
		c.Sites = &sites.Policy{Rules: o.sites, NoCookies: !o.cookies}
		if o.proxies.pool != nil {
			o.proxies.pool.Banned = c.Sites.Banned // a site's ban_pattern counts against the proxy
		}
	}
	if o.nearDups {
		c.NearDuplicates = &simhash.Config{Distance: o.nearDistance, SkipLinks: o.nearSkipLinks}
	}
	if o.recrawl {
		c.Recrawl = &revisit.Config{Share: o.recrawlShare, MinInterval: o.recrawlMin, MaxInterval: o.recrawlMax, Uniform: o.recrawlUniform, Resources: o.recrawlResources}
	}
	size := o.seenSize
	if size == 0 {
		size = defaultSeenSize
	}
	switch o.seen {
	case "exact":
		c.Seen = seen.NewExact(0)
	case "bloom":
		c.Seen = seen.NewBloom(size, 0.01)
	case "bitmap":
		c.Seen = seen.NewBitmap(uint64(size) * 64) // 1.6% false positives when full
	}
	switch o.frontier {
	case "fifo":
		c.Frontier = &frontier.FIFO{PerHost: o.perHost}
	case "aopic":
		c.Frontier = &frontier.AOPIC{PerHost: o.perHost}
	case "priority":
		c.Frontier = &frontier.Priority{PerHost: o.perHost}
	}
	return c
}

// startFetcher returns the crawl's fetcher. With -demo it also starts the
// demo web, whose seed is demoSeed, and says so on con. closeFetcher
// closes the idle connections and the demo web.
func startFetcher(o *options, con io.Writer) (f *fetch.HTTPFetcher, closeFetcher func()) {
	dns := &fetch.DNSCache{}
	tr := fetch.NewTransportWith(dns)
	tr.Proxy = http.ProxyFromEnvironment
	// Through a proxy, every worker keeps a connection to it idle between
	// requests (NewTransport keeps 1024).
	workers := cmp.Or(o.workers, crawler.DefaultWorkers)
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = max(tr.MaxIdleConns, workers), max(tr.MaxIdleConnsPerHost, workers)
	f = &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}, DNS: dns, Addresses: o.addresses.policy}
	if o.proxies.pool != nil {
		f.Proxies = o.proxies.pool // in place of the environment's proxy
	}
	if o.cookies || sitesWantCookies(o.sites) {
		f.Jar = cmp.Or(o.cookieJar, &cookies.Jar{}) // the -cookie-file's, or an empty one
	}
	// The fetcher's, not tr's: with a Recorder it dials through a copy of tr.
	closeFetcher = f.CloseIdleConnections
	if o.demo {
		cfg := crawlertest.Config{Seed: 1, Hosts: 50, PagesPerHost: 100, PageBytes: 8 << 10}
		if o.recrawl {
			cfg.ChangeInterval = demoChanges
		}
		web := crawlertest.NewWeb(cfg)
		tr.DialContext, tr.Proxy = web.DialContext, nil
		if seeds := web.Seeds(); len(seeds) != 1 || seeds[0] != demoSeed {
			panic(fmt.Sprintf("crawl: the demo web's seeds are %q, not %s", seeds, demoSeed))
		}
		fmt.Fprintf(con, "crawl: demo web of %d hosts on %s, seed %s\n", len(web.Hosts()), web.Addr(), demoSeed)
		closeFetcher = func() {
			f.CloseIdleConnections()
			web.Close()
		}
	}
	return f, closeFetcher
}

// startCPUProfile starts profiling the process's CPU to the file name
// (-cpuprofile); stop ends it and closes the file.
func startCPUProfile(name string) (stop func(), err error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile %s: %w", name, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// sitesWantCookies reports whether a site of rules keeps cookies with
// the crawl's off: one with cookies = true, or a login.
func sitesWantCookies(rules *sites.Rules) bool {
	return slices.ContainsFunc(rules.Sites(), func(s sites.Site) bool {
		return s.Cookies != nil && *s.Cookies || s.Login != nil
	})
}

// demoChanges is how often the pages of the demo web change under
// -recrawl: their mean intervals spread from 5 s to 10 min.
func demoChanges(host, page int) time.Duration {
	u := float64((host*100+page)*7919%5000) / 4999
	return time.Duration(5 * math.Pow(120, u) * float64(time.Second))
}

// finish writes what remains once Run has returned runErr: the pages
// still buffered, the host stats and the summary. It returns why the
// crawl failed: runErr, unless the crawl was only stopped early, and the
// errors of output that could not be written.
func (cr *crawl) finish(runErr error) error {
	var stopped *crawler.StoppedError
	if errors.As(runErr, &stopped) {
		runErr = nil
	}
	errs := []error{runErr}
	if cr.pages != nil {
		errs = append(errs, cr.pages.Flush())
	}
	if cr.outs.hosts != nil {
		errs = append(errs, writeHostStats(cr.outs.hosts, cr.c.HostStats()))
	}
	st := cr.c.Stats()
	if cr.o.json {
		errs = append(errs, writeJSONSummary(cr.stdout, st, cr.total, stopped != nil, cr.o.proxies.proxyStats()))
	} else {
		var cause error
		if stopped != nil {
			cause = stopped.Cause
		}
		if cr.ran {
			writeTextSummary(cr.con, st, cause)
			writeProxyStats(cr.con, cr.o.proxies.proxyStats())
		}
		if cr.total != nil {
			fmt.Fprintf(cr.con, "crawl: the whole crawl in %s, every run: %s\n", cr.o.state, cr.total)
		}
	}
	errs = append(errs, cr.ops.finish(cr.outs.report), cr.outs.Close(), cr.graph.Close(), cr.archive.Close())
	return errors.Join(errs...)
}
