// Command crawl crawls the web from seed URLs, politely by default.
//
//	crawl [flags] URL...
//	crawl -demo            # crawl a synthetic web served on loopback
//
// It writes one JSON object per fetched page to -out (JSON Lines: url,
// status, depth, content_type, bytes, links, fetch_ms, error) and a summary
// at the end: as text on stderr, or as JSON on stdout with -json. While it
// runs, a progress line is shown on stderr if stderr is a terminal. Ctrl-C
// stops the crawl cleanly and still prints the summary. The standard
// HTTP_PROXY, HTTPS_PROXY and NO_PROXY variables are honoured; the proxy
// is trusted whatever its address.
//
// The crawler's warnings go to stderr, one short line each (-v adds a
// debug line per page).
//
// Loopback, private, link-local and other special-purpose addresses are
// refused (counted as blocked-address errors) unless -allow lists them or
// -allow-private is given; a refused seed is reported with the -allow that
// would let it through, and a crawl whose every seed was refused exits
// with status 1 (2 is for bad usage). The demo's dialer reaches only its
// own loopback listener.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/frontier"
	"crawler/politeness"
	"crawler/seen"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "crawl:", err)
		}
		os.Exit(exitStatus(err))
	}
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ err error }

// Error returns the mistake's description.
func (e usageError) Error() string { return e.err.Error() }

// Unwrap returns the mistake.
func (e usageError) Unwrap() error { return e.err }

// exitStatus is the command's exit status for run's error err: 2 for bad
// usage (-help included), 1 for a crawl that failed.
func exitStatus(err error) int {
	if errors.Is(err, flag.ErrHelp) || errors.As(err, new(usageError)) {
		return 2
	}
	return 1
}

// options are the command's flags.
type options struct {
	maxPages, maxBytes int64
	maxDepth, workers  int
	perHost            int
	maxRetries         int
	rate               float64
	pacing             politeness.Pacing
	traps              crawler.Traps
	addresses          addressFlags
	hostStats          string
	sameHost, demo     bool
	ignoreRobots       bool
	userAgent, out     string
	json, verbose      bool
	progress           time.Duration
	seen               string
	frontier           string
	seenSize           int
}

func parseFlags(args []string, stderr io.Writer) (*options, []string, error) {
	var o options
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crawl [flags] URL...\n       crawl -demo [flags]\n\nflags:")
		fs.PrintDefaults()
	}
	fs.Int64Var(&o.maxPages, "max-pages", 0, "stop after this many page requests (0: no limit)")
	fs.Int64Var(&o.maxBytes, "max-bytes", 0, "stop starting fetches after this many body bytes (0: no limit)")
	fs.IntVar(&o.maxDepth, "max-depth", 0, "deepest link distance from a seed to fetch (0 or negative: no limit)")
	fs.IntVar(&o.workers, "workers", 0, fmt.Sprintf("pages processed at once (0: %d)", crawler.DefaultWorkers))
	fs.IntVar(&o.perHost, "per-host", 0, "requests in flight per host (0: 1)")
	fs.IntVar(&o.maxRetries, "max-retries", 0, fmt.Sprintf("times a failed request's URL is tried again (0: %d; negative: none)", crawler.DefaultMaxRetries))
	fs.Float64Var(&o.rate, "rate", 0, "requests per second of the whole crawl, robots.txt included (0 or negative: no bound beyond per-host pacing)")
	registerPacing(fs, &o.pacing)
	fs.StringVar(&o.hostStats, "host-stats", "", "write per-host accounting (requests, bytes, errors, delay, retired) as JSON lines to this file at the end (- for stdout)")
	fs.BoolVar(&o.sameHost, "same-host", false, "stay on the seeds' hosts")
	fs.BoolVar(&o.ignoreRobots, "ignore-robots", false, "do not obey robots.txt (only for sites you own)")
	fs.StringVar(&o.userAgent, "user-agent", fetch.DefaultUserAgent, "User-Agent header; its product token is matched against robots.txt")
	fs.StringVar(&o.out, "out", "", "write one JSON line per page to this file (- for stdout)")
	fs.BoolVar(&o.json, "json", false, "print the final summary as JSON on stdout")
	fs.BoolVar(&o.verbose, "v", false, "log a debug line per page on stderr, besides the warnings")
	fs.BoolVar(&o.demo, "demo", false, "serve a synthetic web on loopback and crawl it (no internet needed)")
	fs.DurationVar(&o.progress, "progress", time.Second, "progress line interval on a terminal (0: off)")
	fs.StringVar(&o.seen, "seen", "exact", "URL-seen set: exact, bloom (1% false positives) or bitmap")
	fs.IntVar(&o.seenSize, "seen-size", 10_000_000, "URLs the bloom or bitmap set is sized for")
	fs.StringVar(&o.frontier, "frontier", "fifo", "URL order: fifo (breadth-first) or aopic (most important first, by on-line PageRank estimate; -out records each page's importance)")
	registerTraps(fs, &o.traps)
	o.addresses.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, err
		}
		return nil, nil, usageError{err}
	}
	delaySet := false
	fs.Visit(func(f *flag.Flag) { delaySet = delaySet || f.Name == "delay" })
	if o.demo && !delaySet {
		o.pacing.Delay = -1 // our own web on loopback
	}
	seeds := fs.Args()
	if len(seeds) == 0 && !o.demo {
		fs.Usage()
		return nil, nil, usageError{errors.New("no seed URL given (or use -demo)")}
	}
	return &o, seeds, nil
}

// run runs the command with args. It returns a usageError for a mistake
// in args, another error if the crawl failed (every seed refused), and nil
// if it ended or was stopped by ctx.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, seeds, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	con := newConsole(stderr)
	c := &crawler.Crawler{
		UserAgent:    o.userAgent,
		Workers:      o.workers,
		PerHost:      o.perHost,
		Pacing:       o.pacing,
		MaxRetries:   o.maxRetries,
		MaxRate:      o.rate,
		IgnoreRobots: o.ignoreRobots,
		MaxPages:     o.maxPages,
		MaxBytes:     o.maxBytes,
		Scope:        crawler.Scope{SameHost: o.sameHost, MaxDepth: o.maxDepth},
		Traps:        o.traps,
		Logger:       newLogger(con, o.verbose),
	}
	switch o.seen {
	case "exact":
		c.Seen = seen.NewExact(0)
	case "bloom":
		c.Seen = seen.NewBloom(o.seenSize, 0.01)
	case "bitmap":
		c.Seen = seen.NewBitmap(uint64(o.seenSize) * 64) // 1.6% false positives when full
	default:
		return usageError{fmt.Errorf("-seen %q: want exact, bloom or bitmap", o.seen)}
	}
	switch o.frontier {
	case "fifo":
		c.Frontier = &frontier.FIFO{PerHost: o.perHost}
	case "aopic":
		c.Frontier = &frontier.AOPIC{PerHost: o.perHost}
	default:
		return usageError{fmt.Errorf("-frontier %q: want fifo or aopic", o.frontier)}
	}
	tr := fetch.NewTransport()
	tr.Proxy = http.ProxyFromEnvironment
	if o.demo {
		web := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 50, PagesPerHost: 100, PageBytes: 8 << 10})
		defer web.Close()
		tr.DialContext, tr.Proxy = web.DialContext, nil
		seeds = append(seeds, web.Seeds()...)
		fmt.Fprintf(con, "crawl: demo web of %d hosts on %s, seed %s\n", len(web.Hosts()), web.Addr(), web.Seeds()[0])
	}
	defer tr.CloseIdleConnections()
	c.Fetcher = &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}, Addresses: o.addresses.policy}

	handlers := []crawler.Handler{&seedHint{w: con}}
	if o.out != "" {
		w := stdout
		if o.out != "-" {
			f, err := os.Create(o.out)
			if err != nil {
				return err
			}
			defer f.Close()
			w = f
		}
		jw := newJSONLines(w)
		defer jw.Flush()
		handlers = append(handlers, jw)
	}
	c.Handler = crawler.Chain(handlers...)

	stopProgress := startProgress(c, con, stderr, o.progress)
	runErr := c.Run(ctx, seeds...)
	stopProgress()
	interrupted := runErr != nil && ctx.Err() != nil
	if runErr != nil && !interrupted && !errors.Is(runErr, crawler.ErrSeedsRefused) {
		return runErr // nothing was crawled
	}
	if o.hostStats != "" {
		if err := writeHostStats(o.hostStats, stdout, c.HostStats()); err != nil {
			return err
		}
	}
	st := c.Stats()
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(summaryOf(st, interrupted)); err != nil {
			return err
		}
	} else {
		if interrupted {
			fmt.Fprintf(con, "crawl: interrupted, %d URLs left\n", st.Frontier)
		}
		fmt.Fprintln(con, "crawl:", st)
		if len(st.Errors) > 0 {
			fmt.Fprintln(con, "crawl: errors:", st.ErrorSummary())
		}
	}
	if interrupted {
		return nil
	}
	return runErr // nil, or every seed refused: the crawl failed
}

// record is one line of -out.
type record struct {
	URL         string  `json:"url"`
	Status      int     `json:"status"`
	Depth       int     `json:"depth"`
	Importance  float64 `json:"importance,omitempty"`
	ContentType string  `json:"content_type,omitempty"`
	Bytes       int     `json:"bytes"`
	Links       int     `json:"links"`
	FetchMS     float64 `json:"fetch_ms"`
	Redirect    string  `json:"redirect,omitempty"`
	Error       string  `json:"error,omitempty"`
}

// jsonLines is a Handler writing one record per page; safe for concurrent
// use.
type jsonLines struct {
	mu  sync.Mutex
	w   *bufio.Writer
	enc *json.Encoder
	err error
}

func newJSONLines(w io.Writer) *jsonLines {
	bw := bufio.NewWriter(w)
	return &jsonLines{w: bw, enc: json.NewEncoder(bw)}
}

func (j *jsonLines) Handle(_ context.Context, p *crawler.Page) error {
	r := record{
		URL: p.URL, Status: p.Status, Depth: p.Depth, Importance: p.Importance, ContentType: p.ContentType,
		Bytes: len(p.Body), Links: len(p.Links), Redirect: p.Redirect,
		FetchMS: float64(p.Duration.Microseconds()) / 1000,
	}
	if p.Err != nil {
		r.Error = p.Err.Error()
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err == nil {
		j.err = j.enc.Encode(r)
	}
	return j.err
}

// Flush writes what is buffered.
func (j *jsonLines) Flush() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.w.Flush()
}

// summary is the -json output.
type summary struct {
	Interrupted      bool             `json:"interrupted"`
	Requests         int64            `json:"requests"`
	Fetched          int64            `json:"fetched"`
	Bytes            int64            `json:"bytes"`
	Status           map[int]int64    `json:"status"`
	Errors           map[string]int64 `json:"errors"`
	Redirects        int64            `json:"redirects"`
	RobotsFetched    int64            `json:"robots_fetched"`
	RobotsBlocked    int64            `json:"robots_blocked"`
	Retries          int64            `json:"retries"`
	HostsRetired     int64            `json:"hosts_retired"`
	Duplicates       int64            `json:"duplicates"`
	OutOfScope       int64            `json:"out_of_scope"`
	Traps            map[string]int64 `json:"traps"`
	TrapPatterns     []string         `json:"trap_patterns"`
	DuplicateContent int64            `json:"duplicate_content"`
	Seen             int              `json:"seen"`
	Frontier         int              `json:"frontier"`
	Hosts            int              `json:"hosts"`
	ElapsedSec       float64          `json:"elapsed_sec"`
	PagesPerSec      float64          `json:"pages_per_sec"`
}

func summaryOf(s crawler.Stats, interrupted bool) summary {
	return summary{
		Interrupted: interrupted, Requests: s.Requests, Fetched: s.Fetched, Bytes: s.Bytes,
		Status: s.Status, Errors: s.Errors, Redirects: s.Redirects, RobotsFetched: s.RobotsFetched,
		RobotsBlocked: s.RobotsBlocked, Retries: s.Retries, HostsRetired: s.HostsRetired,
		Duplicates: s.Duplicates, OutOfScope: s.OutOfScope,
		Traps: s.Traps, TrapPatterns: s.TrapPatterns, DuplicateContent: s.DuplicateContent,
		Seen: s.Seen, Frontier: s.Frontier, Hosts: s.Hosts,
		ElapsedSec: s.Elapsed.Seconds(), PagesPerSec: s.PagesPerSec,
	}
}
