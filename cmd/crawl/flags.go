package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"crawler"
	"crawler/canon"
	"crawler/cookies"
	"crawler/extract"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/render"
	"crawler/replay"
	"crawler/revisit"
	"crawler/simhash"
	"crawler/sitemap"
	"crawler/sites"
	"crawler/status"
	"crawler/traps"
	"crawler/warc"
)

// Defaults of the flags that are the CLI's own (not a field's).
const (
	// defaultSeenSize is the number of URLs -seen-size 0 sizes the bloom
	// and bitmap sets for.
	defaultSeenSize = 10_000_000
	// defaultProgress is the interval of the progress line at -progress 0.
	defaultProgress = time.Second
	// defaultLogProgress is the interval of the progress log lines at
	// -progress 0 when stderr is not a terminal.
	defaultLogProgress = 10 * time.Second
)

// options are the command's flags.
type options struct {
	maxPages, maxBytes int64
	maxDepth, workers  int
	perHost            int
	maxRetries         int
	rate               float64
	pacing             politeness.Pacing
	traps              traps.Config
	addresses          addressFlags
	proxies            proxyFlags // -proxy, -proxies, -proxy-rotate; validate makes the pool
	hostStats          string
	sameHost, demo     bool
	ignoreRobots       bool
	sitemaps           string
	recrawl            bool
	recrawlUniform     bool
	recrawlResources   bool
	recrawlShare       float64
	recrawlMin         time.Duration
	recrawlMax         time.Duration
	duration           time.Duration
	userAgent, out     string
	cookies            bool         // keep cookies (-cookies)
	cookieFile         string       // -cookie-file
	cookieJar          *cookies.Jar // filled from cookieFile by validate; nil without it
	cpuProfile         string       // -cpuprofile
	sitesFile          string       // -sites
	sites              *sites.Rules // loaded from sitesFile by validate; nil without it
	json, verbose      bool
	progress           time.Duration
	seen               string
	frontier           string
	seenSize           int
	state              string
	stateStats         bool
	cluster, node      string
	crawlName          string
	nearDups           bool
	nearDistance       int
	nearSkipLinks      bool
	warc               string
	warcMaxSize        int64
	replay, replayMiss string // -replay DIR, -replay-miss fail|live
	graph              string
	http, httpToken    string
	report             string
	extract            extract.Rules
	render             bool
	renderHosts        string
	renderTabs         int
}

// usageError is a mistake in the command line: a flag, its value or a
// seed. The command exits with status 2 on one, before the crawl starts.
type usageError struct{ err error }

// Error returns the mistake's one-line description.
func (e usageError) Error() string { return e.err.Error() }

// Unwrap returns the mistake.
func (e usageError) Unwrap() error { return e.err }

// usageHead is the start of -help: what the command does, what it prints
// where, and its exit statuses. The flags follow.
const usageHead = `usage: crawl [flags] URL...
       crawl -demo [flags]

Crawls the web from the seed URLs, politely by default (robots.txt obeyed,
one request at a time per host, at least 1s apart). Flags go before the URLs.

Where output goes:
  stdout  only what you ask for, for programs: the pages with -out - (one
          JSON line each, written as the crawl goes), then at the end the
          hosts with -host-stats - (one JSON line each), then the summary
          as one JSON object with -json.
  stderr  everything for people: warnings (one line each; -v adds a debug
          line per page), progress (a line rewritten in place on a
          terminal, else a log line every 10s), the summary as text
          (unless -json), hints and errors. -http serves a live status
          page, /status.json and Prometheus /metrics; -report writes an
          HTML report at the end.
  Examples:
    crawl -out - https://example.com/ | jq -r 'select(.status == 200) | .url'
    crawl -json -max-pages 100 https://example.com/ | jq .fetched

Exit status: 0 the crawl ended (frontier empty or a budget spent); 1 it
failed (no seed yielded a page: each refused, unreachable or disallowed;
output that could not be written); 2 bad usage
(a flag value or seed, checked before anything is fetched); 130 or 143
stopped by SIGINT or SIGTERM, after writing the output and the summary.

Numbers: each flag's default is named below. 0, like a negative value,
switches off what the flag does (-delay 0: no delay; -max-pages 0: no
limit), except where said otherwise: a count that cannot be 0 (-workers)
takes 0 as its default. Durations take a unit: 500ms, 2s, 1m.

Flags:
`

// parseFlags parses args into options and seeds, and checks every value
// before anything starts. -help prints the usage to stdout and returns
// flag.ErrHelp; any other mistake is a usageError of one line.
func parseFlags(args []string, stdout io.Writer) (*options, []string, error) {
	var o options
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned, in one line
	fs.Usage = func() {}
	registerFlags(fs, &o)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprint(stdout, usageHead)
			fs.PrintDefaults()
			return nil, nil, err
		}
		return nil, nil, usageError{err}
	}
	if !flagSet(fs, "delay") && o.demo {
		o.pacing.Delay = -1 // our own web on loopback
	}
	pacingOff(&o.pacing)
	trapsOff(&o.traps)
	off(&o.maxRetries, &o.nearDistance)
	off(&o.recrawlShare)
	off(&o.recrawlMax)
	off(&o.warcMaxSize)
	seeds := fs.Args()
	for i, a := range seeds {
		if name, ok := flagName(a); ok && fs.Lookup(name) != nil {
			return nil, nil, usageError{fmt.Errorf("flag %s after the seed URL %s: flags go before the seeds (crawl [flags] URL...)", a, shortenURLs(seeds[max(i-1, 0)]))}
		}
	}
	if o.stateStats {
		if o.state == "" && o.cluster == "" {
			return nil, nil, usageError{errors.New("-stats needs -state DIR, or -cluster URL for a shared crawl's nodes")}
		}
		return &o, seeds, nil
	}
	if len(seeds) == 0 && !o.demo {
		return nil, nil, usageError{errors.New("no seed URL given (or use -demo; -help for usage)")}
	}
	if err := errors.Join(o.validate(), validateSeeds(seeds)); err != nil {
		return nil, nil, usageError{err}
	}
	return &o, seeds, nil
}

// registerFlags binds every flag to its field of o.
func registerFlags(fs *flag.FlagSet, o *options) {
	fs.Int64Var(&o.maxPages, "max-pages", 0, "stop after this many page requests (0 or negative: no limit)")
	durationVar(fs, &o.duration, "duration", 0, "stop after this long, print the summary and exit 0 (0 or negative: no limit); with -state the next run resumes")
	fs.Int64Var(&o.maxBytes, "max-bytes", 0, "stop starting fetches after this many body bytes (0 or negative: no limit)")
	fs.IntVar(&o.maxDepth, "max-depth", 0, "deepest link distance from a seed to fetch (0 or negative: no limit)")
	fs.IntVar(&o.workers, "workers", crawler.DefaultWorkers, "pages processed at once (0: the default; negative: an error)")
	fs.IntVar(&o.perHost, "per-host", 1, "requests in flight per host (0: the default; negative: no limit but -workers)")
	fs.IntVar(&o.maxRetries, "max-retries", crawler.DefaultMaxRetries, "times a failed request's URL is tried again (0: none)")
	fs.Float64Var(&o.rate, "rate", 0, "requests per second of the whole crawl, robots.txt included (0 or negative: no bound beyond per-host pacing; NaN and infinities: an error)")
	registerPacing(fs, &o.pacing)
	fs.StringVar(&o.hostStats, "host-stats", "", "write per-host accounting (requests, bytes, errors, delay, retired) as JSON lines to this file at the end (- for stdout); the file is created before the crawl starts")
	fs.BoolVar(&o.sameHost, "same-host", false, "stay on the seeds' hosts")
	fs.BoolVar(&o.ignoreRobots, "ignore-robots", false, "do not obey robots.txt (only for sites you own)")
	fs.StringVar(&o.sitemaps, "sitemaps", "auto", "sitemaps (and RSS and Atom feeds) to read for URLs: auto (those robots.txt lists, and with -recrawl /sitemap.xml of each host whose robots.txt lists none), listed (those robots.txt lists; also true), all (those, and each host's /sitemap.xml, one request more a host) or off (also false)")
	fs.BoolVar(&o.recrawl, "recrawl", false, "keep revisiting the pages fetched, each at the rate that keeps most copies fresh by its estimated rate of change (conditional GETs: a 304 costs no body), until -duration, -max-pages or a signal; needs -rate, which revisits share with new URLs")
	fs.BoolVar(&o.recrawlUniform, "recrawl-uniform", false, "with -recrawl: revisit every page at the same rate (the baseline policy)")
	fs.BoolVar(&o.recrawlResources, "recrawl-resources", false, "with -recrawl: revisit resources that are not HTML pages (images, PDFs: by the Content-Type of their last fetch) as pages, out of the same budget; without it each is revisited only every -recrawl-max (never with 0), outside the pages' budget")
	fs.Float64Var(&o.recrawlShare, "recrawl-share", revisit.DefaultShare, "with -recrawl: the share of -rate revisits take while new URLs wait; all of it when none wait (0: none)")
	durationVar(fs, &o.recrawlMin, "recrawl-min", 0, "with -recrawl: the shortest time between two visits of a page (0: no bound but its host's pacing)")
	durationVar(fs, &o.recrawlMax, "recrawl-max", revisit.DefaultMaxInterval, "with -recrawl: the longest time between two visits of a page (0: none, a page may never be revisited)")
	fs.StringVar(&o.userAgent, "user-agent", fetch.DefaultUserAgent, "User-Agent header, without control characters; its product token is matched against robots.txt")
	fs.BoolVar(&o.cookies, "cookies", true, "keep cookies as a browser does (RFC 6265), bounded: 50 a site, 4 KiB a cookie, 3000 in all (-cookies=false: none)")
	fs.StringVar(&o.cookieFile, "cookie-file", "", "load the cookies of a Netscape `cookies.txt` (as curl, wget and browser exports write it) before the crawl")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the crawl to this `file` (go tool pprof reads it)")
	fs.StringVar(&o.sitesFile, "sites", "", "per-site rules: a TOML `file` of [[site]] entries, each a match (host, *.domain or URL prefix) and what differs there: delay, per_host, max_pages, user_agent, headers, basic_auth, render, cookies, ignore_query, allow, deny, ignore_robots, login (see the README)")
	fs.StringVar(&o.out, "out", "", "write one JSON line per page to this file (- for stdout); the file is created before the crawl starts, and a write error stops the crawl")
	fs.BoolVar(&o.json, "json", false, "print the final summary as JSON on stdout (instead of text on stderr)")
	fs.BoolVar(&o.verbose, "v", false, "log a debug line per page on stderr, besides the warnings")
	fs.BoolVar(&o.demo, "demo", false, "serve a synthetic web on loopback and crawl it (no internet needed)")
	durationVar(fs, &o.progress, "progress", 0, fmt.Sprintf("progress interval on stderr: a line rewritten in place on a terminal (0: every %v), else a log line (0: every %v); with -max-pages it gives the share done and the time left (negative: off)", defaultProgress, defaultLogProgress))
	fs.StringVar(&o.seen, "seen", "exact", "URL-seen set: exact, bloom (1% false positives) or bitmap")
	fs.IntVar(&o.seenSize, "seen-size", defaultSeenSize, "URLs the bloom or bitmap set is sized for (0: the default; negative: an error)")
	fs.StringVar(&o.frontier, "frontier", "fifo", "URL order: fifo (breadth-first), aopic (most important first, by on-line PageRank estimate) or priority (most backlinks found so far plus URL score, I(P) = backlinks + 1/(1+path depth)); -out records each page's importance")
	fs.StringVar(&o.state, "state", "", "keep the crawl's seen-set and frontier (fifo or aopic) in this directory (made if needed): the same command run again resumes the crawl, after a kill -9 too; -max-pages and -max-bytes then count every run")
	fs.BoolVar(&o.stateStats, "stats", false, "with -state: print the state's summary (JSON on stdout) and exit, crawling nothing; with -cluster, the crawl -crawl-id's totals and the last report of each of its node processes, live or gone")
	fs.StringVar(&o.cluster, "cluster", "", "share the crawl with other nodes through the NATS JetStream server at this URL (nats://HOST:PORT); needs -state and -node")
	fs.StringVar(&o.node, "node", "", "with -cluster: this node's name, unique among the crawl's nodes and the same when it restarts (letters, digits, - and _)")
	fs.StringVar(&o.crawlName, "crawl-id", "crawl", "with -cluster: the crawl's name on the NATS server, so that several crawls can share one")
	fs.BoolVar(&o.nearDups, "near-dups", false, "find HTML pages whose text is a near-duplicate of a page fetched before (64-bit SimHash); -out names the earlier page as near_duplicate_of")
	fs.IntVar(&o.nearDistance, "near-dups-distance", simhash.DefaultDistance, "with -near-dups: the most bits of 64 in which near-duplicates' fingerprints differ (0: only identical fingerprints)")
	fs.BoolVar(&o.nearSkipLinks, "near-dups-skip-links", false, "with -near-dups: do not follow the links of near-duplicates")
	fs.StringVar(&o.warc, "warc", "", "archive every request and response (robots.txt and sitemaps too) as WARC 1.1 files in this directory (made if needed), as the bytes crossed the connection; a resumed crawl adds files")
	fs.Int64Var(&o.warcMaxSize, "warc-max-size", warc.DefaultMaxFileBytes, "with -warc: start a new file once one reaches this many bytes (0: never)")
	fs.StringVar(&o.replay, "replay", "", "answer every fetch (robots.txt and sitemaps too) from the WARC files in this directory (-warc's, or another tool's with response records) instead of the web: the latest capture of each URL, exactly as recorded, nothing sent and no -delay waited after a replayed page; an index, "+replay.IndexName+", is kept there")
	fs.StringVar(&o.replayMiss, "replay-miss", "fail", "with -replay: what a URL the archive does not hold gets: fail (the page ends with the error kind not-archived) or live (fetched from the web, politely, and recorded if -warc is given)")
	fs.StringVar(&o.graph, "graph", "", "write the link graph (each HTML page fetched, its links and each redirect; URLs written once) to this file, for cmd/rank's PageRank and HITS; like -out, each run writes it anew")
	fs.StringVar(&o.http, "http", "", "serve the live status page (plots, host tables, pause/resume/stop/retire controls), /status.json and Prometheus /metrics at this address: PORT or :PORT listen on loopback; another host needs -http-token")
	fs.StringVar(&o.httpToken, "http-token", os.Getenv("CRAWL_HTTP_TOKEN"), "with -http: a secret every request must carry (Authorization: Bearer TOKEN, or ?token=TOKEN in the page's URL); required off loopback (default: $CRAWL_HTTP_TOKEN, which keeps it out of the process list)")
	fs.StringVar(&o.report, "report", "", "write a self-contained HTML report of the crawl (plots over the whole run, host tables, last errors) to this file at the end; the file is created before the crawl starts")
	fs.Func("extract", "with -out: NAME=SELECTOR adds to the record of each 2xx HTML page \"extract\": {\"NAME\": [the text of each element the CSS selector matches]}; repeatable", func(s string) error {
		r, err := extract.ParseRule(s)
		if err == nil {
			o.extract = append(o.extract, r)
		}
		return err
	})
	fs.BoolVar(&o.render, "render", false, "load every HTML page in headless Chromium and take its links and -extract texts from the rendered document; every request the browser makes goes through the crawl's own rules (addresses and -allow, robots.txt, -delay per host) or fails in the page, never leaving the machine otherwise")
	fs.StringVar(&o.renderHosts, "render-hosts", "", "render only the HTML pages of these hosts (host[:port], comma-separated), as -render does")
	fs.IntVar(&o.renderTabs, "render-tabs", render.DefaultTabs, "with -render or -render-hosts: pages rendered at once, each in a tab of one browser (0: the default; negative: an error)")
	registerTraps(fs, &o.traps)
	o.addresses.register(fs)
	o.proxies.register(fs)
}

// flagSet reports whether the flag called name was given.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// validate reports the values no crawl can run with, one error (of one
// line) per flag, each naming its flag.
func (o *options) validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(o.workers >= 0, "-workers %d: want 1 or more (default %d)", o.workers, crawler.DefaultWorkers)
	check(finite(o.rate), "-rate %v: want a number (0 or negative: no bound)", o.rate)
	check(finite(o.pacing.DelayFactor), "-delay-factor %v: want a number (0: none)", o.pacing.DelayFactor)
	check(o.seenSize >= 0, "-seen-size %d: want 1 or more (default %d)", o.seenSize, defaultSeenSize)
	check(o.seen == "exact" || o.seen == "bloom" || o.seen == "bitmap", "-seen %q: want exact, bloom or bitmap", o.seen)
	check(o.frontier == "fifo" || o.frontier == "aopic" || o.frontier == "priority", "-frontier %q: want fifo, aopic or priority", o.frontier)
	check(o.state == "" || o.frontier != "priority", "-state keeps a fifo or aopic frontier: -frontier priority is in memory only")
	_, ok := sitemapPolicies[o.sitemaps]
	check(ok, "-sitemaps %q: want auto, listed, all or off", o.sitemaps)
	check(!o.recrawl || o.rate > 0, "-recrawl needs -rate R: the crawl's requests per second, which revisits share with new URLs")
	check(finite(o.recrawlShare) && o.recrawlShare <= 1, "-recrawl-share %v: want at most 1 (0: none while new URLs wait)", o.recrawlShare)
	check(!o.recrawl || o.cluster == "", "-recrawl: a crawl shared with -cluster does not revisit yet")
	check(o.nearDistance <= simhash.MaxDistance, "-near-dups-distance %d: want at most %d", o.nearDistance, simhash.MaxDistance)
	check(o.state == "" || o.seen == "exact", "-state keeps its own seen-set: drop -seen %s", o.seen)
	check(o.cluster == "" || o.state != "" && o.node != "", "-cluster needs -state DIR and -node NAME: a node restarts from its own state")
	check(o.cluster == "" || o.frontier == "fifo", "-cluster: -frontier %s is not shared between nodes; use fifo", o.frontier)
	if o.http != "" {
		if _, err := status.CheckAddr(o.http, o.httpToken); err != nil {
			errs = append(errs, fmt.Errorf("-http %s: %w", o.http, err))
		}
	}
	check(len(o.extract) == 0 || o.out != "", "-extract adds to the -out records: give -out FILE (or -)")
	names := map[string]bool{}
	for _, r := range o.extract {
		check(!names[r.Name], "-extract %s: the name %s is taken by another -extract", r, r.Name)
		names[r.Name] = true
	}
	check(o.replayMiss == "fail" || o.replayMiss == "live", "-replay-miss %q: want fail or live", o.replayMiss)
	check(o.replay != "" || o.replayMiss == "fail", "-replay-miss %s needs -replay DIR", o.replayMiss)
	check(o.replay == "" || !o.render && o.renderHosts == "", "-replay: -render loads pages in a browser, which a replay cannot answer yet")
	check(o.renderTabs >= 0, "-render-tabs %d: want 1 or more (default %d)", o.renderTabs, render.DefaultTabs)
	check(o.report != "-", "-report writes an HTML file: give its path, not -")
	check(o.cookieFile == "" || o.cookies, "-cookie-file %s: cookies are off (-cookies=false)", o.cookieFile)
	if o.cookieFile != "" && o.cookies {
		var err error
		if o.cookieJar, err = readCookieFile(o.cookieFile); err != nil {
			errs = append(errs, fmt.Errorf("-cookie-file %s: %w", o.cookieFile, err))
		}
	}
	if o.sitesFile != "" {
		var err error
		if o.sites, err = sites.LoadFile(o.sitesFile); err != nil {
			errs = append(errs, fmt.Errorf("-sites: %w", err))
		}
	}
	if err := o.proxies.load(&o.addresses.policy); err != nil {
		errs = append(errs, err)
	}
	check(!o.demo || len(o.proxies.urls) == 0, "-proxy, -proxies: -demo crawls its own web on loopback, not through proxies")
	if i := controlChar(o.userAgent); i >= 0 {
		errs = append(errs, fmt.Errorf("-user-agent: control character %q at byte %d; a header value cannot carry one", o.userAgent[i], i))
	}
	return errors.Join(errs...)
}

// readCookieFile returns a jar of the cookies of a Netscape cookies.txt,
// and refuses a file of which the jar would refuse some (a public
// suffix's, one too large): the crawl would not have the session it was
// given. Expired cookies are dropped, as a browser drops them.
func readCookieFile(name string) (*cookies.Jar, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := cookies.ReadNetscape(f)
	if err != nil {
		return nil, err
	}
	jar := &cookies.Jar{}
	return jar, jar.Import(entries)
}

// finite reports whether f is neither NaN nor infinite.
func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// controlChar returns the index of the first ASCII control character
// (tab, CR and LF included) in s, or -1.
func controlChar(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return i
		}
	}
	return -1
}

// validateSeeds reports the seeds that are not http(s) URLs the crawler
// can fetch, as Run would. The errors quote the URLs (canon's do),
// shortened.
func validateSeeds(seeds []string) error {
	var c canon.Canonicalizer // the rules of a Crawler whose Canon is nil
	var errs []error
	for _, s := range seeds {
		if _, err := c.Canonical(s); err != nil {
			errs = append(errs, fmt.Errorf("bad seed: %s", shortenURLs(err.Error())))
		}
	}
	return errors.Join(errs...)
}

// sitemapPolicies maps the values of -sitemaps to the Crawler's.
var sitemapPolicies = map[string]sitemap.Policy{
	"auto":   sitemap.Auto,
	"listed": sitemap.Listed,
	"all":    sitemap.All,
	"off":    sitemap.Off,
	"true":   sitemap.Listed,
	"false":  sitemap.Off,
}

// off sets each of vs that is 0 to -1: a flag given as 0 means what a
// negative value means to the library's field it sets ("none", "no
// limit", "never"), whose 0 means its default. The flags' own defaults
// are the real values, so a 0 was typed.
func off[T int | int64 | float64 | time.Duration](vs ...*T) {
	for _, v := range vs {
		if *v == 0 {
			*v = -1
		}
	}
}

// durationValue is a time.Duration flag whose errors say what a duration
// looks like: "-delay 5" is a number without a unit.
type durationValue time.Duration

// durationVar defines a duration flag with its default, as
// flag.DurationVar does.
func durationVar(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var((*durationValue)(p), name, usage)
}

// Set parses s as a duration.
func (d *durationValue) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
			return fmt.Errorf("%s has no unit: a duration is written like %ss, %sms or 1m30s", s, s, s)
		}
		return fmt.Errorf("not a duration (write it like 1s, 500ms or 1m30s)")
	}
	*d = durationValue(v)
	return nil
}

// String formats the duration, as time.Duration does.
func (d *durationValue) String() string { return time.Duration(*d).String() }

// flagName returns the name of the flag arg spells (-name, --name,
// -name=value), if it spells one.
func flagName(arg string) (string, bool) {
	name, ok := strings.CutPrefix(arg, "-")
	if !ok || name == "" {
		return "", false
	}
	name = strings.TrimPrefix(name, "-")
	name, _, _ = strings.Cut(name, "=")
	return name, name != ""
}
