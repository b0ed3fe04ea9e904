package crawlertest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of the zero Config.
const (
	DefaultHosts        = 10
	DefaultPagesPerHost = 50
	DefaultPageBytes    = 4096
	DefaultOutDegree    = 25
	// DefaultMaxChain is the longest redirect chain of a default web: the
	// crawler's DefaultMaxRedirects, so that Depths is what a default
	// crawler fetches.
	DefaultMaxChain = 10
)

// Limits on Config, beyond which NewWeb panics.
const (
	MaxHosts        = 1 << 20
	MaxPagesPerHost = 1 << 24
)

// Config describes a synthetic web. The zero value is a valid configuration:
// each zero field means its documented default.
type Config struct {
	// Seed selects the web: the same Seed (and other fields) gives the same
	// web, byte for byte.
	Seed int64
	// Hosts is the number of virtual hosts h0.crawler.test, h1, ...; 0 means
	// DefaultHosts (10).
	Hosts int
	// PagesPerHost is the number of HTML pages per host ("/" is page 0,
	// then /p/1 ...); 0 means DefaultPagesPerHost (50). The same number of
	// private and nofollow pages, images and redirects exists per host.
	PagesPerHost int
	// PageBytes is the approximate size of an HTML body: text pads pages to
	// it (pages with many links may be larger); 0 means DefaultPageBytes (4096).
	PageBytes int
	// OutDegree is the mean number of <a href> links per HTML page (uniform
	// within ±50%); 0 means DefaultOutDegree (25).
	OutDegree int
	// MaxChain is the length of the longest redirect chain /chain/<n>/<k>
	// (k redirects before landing on a page); 0 means DefaultMaxChain (10).
	// A crawler follows chains up to its own redirect limit only.
	MaxChain int
	// Latency is added before every response, robots.txt included. The wait
	// ends early, without a response, when the request is cancelled.
	Latency time.Duration
	// HostLatency, if not nil, returns extra latency for a host name such as
	// "h3.crawler.test" (one slow host, say). It is called once per request,
	// concurrently, and must be safe for concurrent use.
	HostLatency func(host string) time.Duration
	// Gzip makes the server gzip HTML bodies for clients that accept gzip.
	Gzip bool
	// Behavior, if not nil, returns how host index h misbehaves (see
	// Behavior; the zero Behavior is the default). NewWeb calls it once for
	// each host, in order, and keeps the results; it must be deterministic
	// for the web to be. NewWeb panics if a Behavior is invalid.
	Behavior func(host int) Behavior
	// Popularity, if positive, skews the random links of HTML pages
	// towards popular targets: the page index of a random link target is
	// drawn with probability ∝ 1/(n+1)^Popularity (page 0, the home page,
	// is the most popular), and the target host of a cross-host link with
	// probability ∝ 1/(i+1)^Popularity where i is its index among the
	// other hosts, in index order (so h0 is the most popular). Values near
	// 1 give the heavy-tailed in-degrees of the real web, and a PageRank
	// (Web.PageRank) worth ranking by. 0 means uniform targets, the web
	// being then exactly the one without this field. The links every page
	// has (to the next page, and from home pages to the next host's home)
	// are unchanged. It costs 8 bytes per page of a host and per host, once,
	// in NewWeb. NewWeb panics if it is negative, infinite or NaN.
	Popularity float64
	// Traps, if not nil, returns the Trap of host index h: NoTrap for an
	// ordinary ("good") host, or the kind of crawler trap the host serves
	// instead of its pages (see Trap). NewWeb calls it once for each host,
	// in order, and keeps the results; it must be deterministic for the web
	// to be. NewWeb panics if a Trap is invalid or if host 0, which holds
	// the seed, is a trap. Good pages link to trap hosts' entries as to
	// other hosts (see the package doc), and the ground truth (Depths,
	// GoodPages, PageRank) excludes every URL of a trap host. Behaviors
	// apply to trap hosts as to others. With nil, or NoTrap for every host,
	// the web is exactly the one without this field.
	Traps func(host int) Trap
	// Log makes the server record every request it answers, with its
	// times (see Web.Log). It is off by default: a large crawl would grow
	// the log without bound.
	Log bool
	// ChangeInterval, if not nil, makes pages change: it returns the mean
	// time between changes of page n of host h ("/" or /p/<n>), 0 for a
	// page that never changes. Each page then changes as a Poisson process
	// from NewWeb on (at times the Seed fixes), shows its version in its
	// text, carries an ETag and a Last-Modified (of its last change), and
	// answers a conditional request whose validator matches with 304 Not
	// Modified and no body. Web.Version is the ground truth. NewWeb calls
	// it once for each page of each good host, in order. Nil: the web is
	// exactly the one without this field.
	ChangeInterval func(host, page int) time.Duration
	// Sitemaps makes every host that serves a robots.txt list a sitemap
	// index in it, and serve orphan pages that only its sitemaps list (see
	// Web.Orphans and the package doc). Off, the web is exactly the one
	// without this field.
	Sitemaps bool
	// StandardSitemaps, with Sitemaps, serves each host's sitemap index at
	// /sitemap.xml, the standard path, instead (its sitemaps stay under
	// /sitemaps/), and names it in the robots.txt of even hosts only: a
	// crawler finds the others' only by asking for /sitemap.xml, and
	// their orphans only if it gives an index's sitemaps the index's
	// scope (the whole host). Web.Orphans then counts the hosts with no
	// robots.txt too.
	StandardSitemaps bool
	// NearDuplicates, if positive, makes the first NearDuplicates good
	// (non-trap) hosts, in index order (all of them if fewer), story
	// hosts: each also serves max(1, PagesPerHost/5) families of 1 to 5
	// stories, /story/<f>/<v>, linked from its pages. The stories of a
	// family are near-duplicates: the same title and main text, with a
	// different date line, related-links box and read counter; stories of
	// different families share only the site template (nav bar, footer,
	// words). See the package doc and Web.NearDuplicateFamilies, the ground
	// truth. A story's main text is PageBytes/4 to 5·PageBytes/4 bytes,
	// so keep PageBytes at its default or more for near-duplicate
	// detection to have text to work with. 0 means none, the web being
	// then exactly the one without this field; NewWeb panics if it is
	// negative.
	NearDuplicates int
}

// withDefaults returns c with zero fields set to their defaults.
func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.Hosts, DefaultHosts)
	def(&c.PagesPerHost, DefaultPagesPerHost)
	def(&c.PageBytes, DefaultPageBytes)
	def(&c.OutDegree, DefaultOutDegree)
	def(&c.MaxChain, DefaultMaxChain)
	return c
}

// Web is a deterministic synthetic web served on loopback. Create it with
// NewWeb and stop it with Close. Its methods are safe for concurrent use.
type Web struct {
	cfg    Config
	g      gen
	ln     net.Listener
	srv    *http.Server
	addr   string
	counts *counts
	hooks  hooks

	behaviors    []Behavior     // per host; nil if Config.Behavior is nil
	robotsPadded [][]byte       // per host: padded robots.txt body, or nil; nil if no padding
	pageReqs     []atomic.Int64 // per host: page requests so far; nil if behaviors is
	changes      *changes       // with Config.ChangeInterval; else nil

	logMu sync.Mutex
	log   []LoggedRequest // if Config.Log, in the order requests ended

	mu     sync.RWMutex // guards closed against handlers starting
	closed bool
	wg     sync.WaitGroup // running handlers
	done   chan struct{}  // closed by Close: ends latency waits
}

// hooks let the package's own tests observe the server.
type hooks struct {
	waited func(ok bool) // after each latency wait; ok is false if cut short
}

// NewWeb starts serving the web described by cfg on a new listener on
// 127.0.0.1 (an ephemeral port) and returns it. The caller must Close it.
// NewWeb panics if it cannot listen, if cfg exceeds MaxHosts or
// MaxPagesPerHost, or if a Behavior is invalid.
func NewWeb(cfg Config) *Web { return newWeb(cfg, hooks{}) }

func newWeb(cfg Config, h hooks) *Web {
	cfg = cfg.withDefaults()
	if cfg.Hosts > MaxHosts || cfg.PagesPerHost > MaxPagesPerHost || cfg.MaxChain > 1<<20 {
		panic(fmt.Sprintf("crawlertest: Config too large: %d hosts, %d pages per host, chains of %d", cfg.Hosts, cfg.PagesPerHost, cfg.MaxChain))
	}
	var behaviors []Behavior
	if cfg.Behavior != nil {
		behaviors = make([]Behavior, cfg.Hosts)
		for h := range behaviors {
			behaviors[h] = cfg.Behavior(h)
			behaviors[h].validate(h)
		}
	}
	validPopularity(cfg.Popularity)
	g := gen{
		seed:      mix64(uint64(cfg.Seed)),
		hosts:     cfg.Hosts,
		pages:     cfg.PagesPerHost,
		pageBytes: cfg.PageBytes,
		outDegree: cfg.OutDegree,
		maxChain:  cfg.MaxChain,
	}
	if cfg.Popularity > 0 {
		g.pagePop = newZipf(cfg.PagesPerHost, cfg.Popularity)
		g.hostPop = newZipf(cfg.Hosts-1, cfg.Popularity)
	}
	g.setTraps(cfg.Traps)
	if cfg.NearDuplicates < 0 {
		panic(fmt.Sprintf("crawlertest: Config.NearDuplicates = %d, negative", cfg.NearDuplicates))
	}
	g.setStories(cfg.NearDuplicates)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("crawlertest: cannot listen on 127.0.0.1: " + err.Error())
	}
	w := &Web{
		cfg:    cfg,
		g:      g,
		ln:     ln,
		addr:   ln.Addr().String(),
		counts: newCounts(cfg.Hosts),
		hooks:  h,
		done:   make(chan struct{}),
	}
	if behaviors != nil {
		w.behaviors = behaviors
		w.pageReqs = make([]atomic.Int64, cfg.Hosts)
		for h, b := range behaviors {
			if b.RobotsPadding > len(robotsBody) {
				if w.robotsPadded == nil {
					w.robotsPadded = make([][]byte, cfg.Hosts)
				}
				w.robotsPadded[h] = paddedRobots(b.RobotsPadding)
			}
		}
	}
	if cfg.ChangeInterval != nil {
		w.changes = newChanges(&w.g, cfg.ChangeInterval)
	}
	w.srv = &http.Server{Handler: http.HandlerFunc(w.serve), ReadHeaderTimeout: time.Minute}
	go w.srv.Serve(ln)
	return w
}

// Close stops the server: it closes the listener and every connection, ends
// latency waits, and returns once every handler has returned. Close is
// idempotent. The ground-truth methods still work after Close.
func (w *Web) Close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.closed = true
	w.mu.Unlock()
	close(w.done)
	w.srv.Close()
	w.wg.Wait()
}

// Config returns the configuration of the web, with defaults filled in.
func (w *Web) Config() Config { return w.cfg }

// Addr returns the listener's address, "127.0.0.1:port".
func (w *Web) Addr() string { return w.addr }

// ProxyURL returns http://127.0.0.1:port. The server accepts absolute-form
// requests, so a client whose Transport has Proxy: http.ProxyURL(w.ProxyURL())
// reaches the web's hosts without a custom dialer.
func (w *Web) ProxyURL() *url.URL { return &url.URL{Scheme: "http", Host: w.addr} }

// Hosts returns the host names, "h0.crawler.test", "h1.crawler.test", ...
// The slice is new on each call.
func (w *Web) Hosts() []string {
	out := make([]string, w.cfg.Hosts)
	for i := range out {
		out[i] = string(appendHost(nil, i))
	}
	return out
}

// Seeds returns the one seed from which the whole web is reachable,
// "http://h0.crawler.test/".
func (w *Web) Seeds() []string { return []string{w.URL(0, 0)} }

// URL returns the canonical URL of page page of host host:
// "http://h3.crawler.test/" for page 0, "http://h3.crawler.test/p/7" else.
// On a trap host (Config.Traps) such a URL is the trap's entry for page 0,
// and part of the trap or 404 else. It panics if host or page is out of
// range.
func (w *Web) URL(host, page int) string {
	if host < 0 || host >= w.cfg.Hosts || page < 0 || page >= w.cfg.PagesPerHost {
		panic(fmt.Sprintf("crawlertest: URL(%d, %d) out of range", host, page))
	}
	return canonical(res{host: int32(host), kind: kindPage, n: int32(page)})
}

// dialHost returns the host of a DialContext's addr, or the error to
// return: refused for a network other than TCP, or why addr does not split.
func dialHost(network, addr string, refused error) (string, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return "", &net.OpError{Op: "dial", Net: network, Err: refused}
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", &net.OpError{Op: "dial", Net: network, Err: err}
	}
	return host, nil
}

// errRefused is the error of DialContext for addresses outside the web.
var errRefused = errors.New("crawlertest: refusing to dial an address outside *.crawler.test")

// DialContext connects to the web's listener for any address whose host is
// a *.crawler.test name (any port, any case) or the listener's own address.
// It refuses every other address, so a client using it never leaves
// loopback. Use it as http.Transport.DialContext.
func (w *Web) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, err := dialHost(network, addr, errRefused)
	if err != nil {
		return nil, err
	}
	host = strings.TrimSuffix(host, ".")
	ours := addr == w.addr ||
		len(host) > len(domain) && strings.EqualFold(host[len(host)-len(domain):], domain)
	if !ours {
		return nil, &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("%w: %s", errRefused, addr)}
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", w.addr)
}

// Transport returns a new http.Transport that reaches the web through
// DialContext, with no proxy, keep-alive, and pools sized for benchmarks
// (64 idle connections per host). The caller may adjust it before use.
func (w *Web) Transport() *http.Transport {
	return &http.Transport{
		DialContext:         w.DialContext,
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
	}
}

// Client returns a new http.Client over a new Transport. It follows
// redirects as http.Client does by default; set CheckRedirect to change that.
func (w *Web) Client() *http.Client { return &http.Client{Transport: w.Transport()} }

// Requests returns how many times the URL u was requested, whatever its
// spelling: "http://H3.crawler.test:80/x/../p/%35" counts as
// "http://h3.crawler.test/p/5". It returns 0 for URLs outside the web.
func (w *Web) Requests(u string) int {
	h, p, q, ok := w.g.parseURL(u)
	if !ok {
		return 0
	}
	return w.counts.get(countKey{h, p, q})
}

// RequestCounts returns a snapshot of the request counts: canonical URL to
// number of requests, for every URL requested at least once on a known host
// (robots.txt and its redirect hops excluded; throttled requests included).
// Cost: O(distinct URLs requested).
func (w *Web) RequestCounts() map[string]int { return w.counts.snapshot() }

// Coverage compares the requests made with what a compliant crawler from
// seeds (default Seeds()) must fetch, Depths: missed is how many of those
// URLs were never requested, extra how many requests went to them beyond
// one each. A crawl resumed after a crash has missed 0 and extra at most
// what was in flight. Cost: that of Depths.
func (w *Web) Coverage(seeds ...string) (missed, extra int) {
	counts := w.RequestCounts()
	for u := range w.Depths(seeds...) {
		if counts[u] == 0 {
			missed++
		}
		extra += max(counts[u]-1, 0)
	}
	return missed, extra
}

// TotalRequests returns the number of requests to known hosts, robots.txt
// and its redirect hops excluded.
func (w *Web) TotalRequests() int { return int(w.counts.total.Load()) }

// RobotsRequests returns how many times robots.txt of host (a name such as
// "h3.crawler.test") was requested, its redirect hops /robots-hop/<k>
// (Behavior.RobotsRedirects, Behavior.RobotsLoop) included: a chain of n
// redirects fetched once counts n+1.
func (w *Web) RobotsRequests(host string) int {
	h := w.g.hostIndex(host)
	if h < 0 {
		return 0
	}
	return int(w.counts.robots[h].Load())
}

// ResetCounts sets every request count to zero and empties the Log.
// Requests served during the reset may or may not be counted. It does not
// restart the page request counts of Behavior.ThrottleEvery and SlowDown.
func (w *Web) ResetCounts() {
	w.counts.reset()
	w.resetLog()
}

// disallowedPrefix is the path prefix that robotsBody disallows.
const disallowedPrefix = "/private/"

// Bodies that do not depend on the URL.
const (
	robotsBody   = "User-agent: *\nDisallow: " + disallowedPrefix + "\n"
	notFoundBody = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Not found</title>\n</head>\n<body>\n<h1>404 Not found</h1>\n<p>There is no page here.</p>\n</body>\n</html>\n"
	notFoundText = "404 page not found\n"
)

// Header values shared by every response (never modified).
var (
	ctHTML   = []string{"text/html; charset=utf-8"}
	ctText   = []string{"text/plain; charset=utf-8"}
	ctPNG    = []string{"image/png"}
	encGzip  = []string{"gzip"}
	varyAE   = []string{"Accept-Encoding"}
	pngBody  = mustPNG()
	scratchs = sync.Pool{New: func() any { return new(scratch) }}
	gzips    sync.Pool // *gzip.Writer
)

// scratch holds the reusable buffers of one request.
type scratch struct {
	links []link
	body  []byte
	loc   []byte
	gz    bytes.Buffer
}

func mustPNG() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.NRGBA{R: 0x2a, G: 0x6f, B: 0xb0, A: 0xff})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// hostName returns the virtual host name from r.Host: lower-case, no port.
func hostName(h string) string {
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		h = h[:i]
	}
	return strings.ToLower(h)
}

// serve is the handler of every request.
func (w *Web) serve(rw http.ResponseWriter, r *http.Request) {
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		http.Error(rw, "crawlertest: closed", http.StatusServiceUnavailable)
		return
	}
	w.wg.Add(1)
	w.mu.RUnlock()
	defer w.wg.Done()
	var start time.Time
	if w.cfg.Log {
		start = time.Now()
	}

	host := w.g.hostIndex(r.Host)
	p := r.URL.Path
	if p == "" {
		p = "/"
	}
	p = removeDotSegments(p)
	hop := 0 // robots.txt redirect hop: /robots-hop/<hop>
	if host >= 0 && p != "/robots.txt" {
		hop = w.robotsHop(host, p, r.URL.RawQuery) // 0 with a query
	}
	robots := host >= 0 && r.URL.RawQuery == "" && (p == "/robots.txt" || hop > 0)
	if w.cfg.Log {
		sw := &statusWriter{ResponseWriter: rw}
		rw = sw
		// Deferred, so that a request cut short (panic) is logged too.
		defer func() { w.logRequest(r, host, p, robots, sw.status, start) }()
	}
	var nth int64 // page requests to the host so far, this one included
	switch {
	case host < 0:
	case robots:
		w.counts.robots[host].Add(1)
	default:
		w.counts.add(countKey{host, p, r.URL.RawQuery})
		if w.g.isTrap(host) {
			w.counts.traps.Add(1)
		}
		if w.pageReqs != nil {
			nth = w.pageReqs[host].Add(1)
		}
	}
	b := w.behavior(host)

	delay := w.cfg.Latency
	if w.cfg.HostLatency != nil && host >= 0 {
		delay += w.cfg.HostLatency(hostName(r.Host))
	}
	switch {
	case b == nil:
	case robots:
		delay += max(b.RobotsLatency, 0)
	case b.SlowDown > 0:
		delay += time.Duration(nth-1) * b.SlowDown
	}
	if delay > 0 {
		ok := w.wait(r.Context(), delay)
		if w.hooks.waited != nil {
			w.hooks.waited(ok)
		}
		if !ok {
			// Drop the connection without a response (rather than the
			// empty 200 that returning would send).
			panic(http.ErrAbortHandler)
		}
	}

	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		rw.Header().Set("Allow", "GET, HEAD")
		writeBody(rw, r, http.StatusMethodNotAllowed, ctText, []byte("405 method not allowed\n"))
		return
	}
	switch {
	case host < 0:
		writeBody(rw, r, http.StatusNotFound, ctText, []byte("404 unknown host\n"))
		return
	case robots:
		w.serveRobots(rw, r, host, hop)
		return
	case b == nil:
	case b.ThrottleEvery > 0 && nth%int64(b.ThrottleEvery) == 0:
		if b.RetryAfter != "" {
			rw.Header()["Retry-After"] = []string{b.RetryAfter}
		}
		writeBody(rw, r, http.StatusTooManyRequests, ctText, []byte(statusLine(http.StatusTooManyRequests)))
		return
	case b.PageStatus != 0:
		writeBody(rw, r, b.PageStatus, ctHTML, errorPage(b.PageStatus))
		return
	}
	s := scratchs.Get().(*scratch)
	defer scratchs.Put(s)
	if w.g.isTrap(host) {
		w.serveTrap(rw, r, host, p, s)
		return
	}
	if w.cfg.Sitemaps && r.URL.RawQuery == "" {
		if body, ct, ok := w.sitemapFile(host, p); ok {
			writeBody(rw, r, http.StatusOK, ct, body)
			return
		}
	}
	res, ok := w.g.route(host, p)
	if !ok || r.URL.RawQuery != "" {
		writeBody(rw, r, http.StatusNotFound, ctText, []byte(notFoundText))
		return
	}
	switch {
	case isHTML(res.kind):
		version := -1
		if w.changes != nil && res.kind == kindPage {
			var notModified bool
			if version, notModified = w.changes.validate(rw, r, res); notModified {
				writeBody(rw, r, http.StatusNotModified, nil, nil)
				return
			}
		}
		s.links = w.g.links(s.links[:0], res)
		s.body = w.g.render(s.body[:0], res, s.links)
		if version >= 0 {
			s.body = appendVersion(s.body, version)
		}
		w.writeHTML(rw, r, http.StatusOK, s.body, s)
	case res.kind == kindMissing:
		s.body = append(s.body[:0], notFoundBody...)
		w.writeHTML(rw, r, http.StatusNotFound, s.body, s)
	case res.kind == kindImg:
		writeBody(rw, r, http.StatusOK, ctPNG, pngBody)
	default:
		to, status, _ := w.g.redirect(res)
		s.loc = appendLocation(s.loc[:0], res, to)
		rw.Header()["Location"] = []string{string(s.loc)}
		writeBody(rw, r, status, nil, nil)
	}
}

// wait waits for d, and reports false if the request or the server ended
// first.
func (w *Web) wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-w.done:
		return false
	}
}

func writeBody(rw http.ResponseWriter, r *http.Request, status int, ct []string, body []byte) {
	h := rw.Header()
	if ct != nil {
		h["Content-Type"] = ct
	}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	rw.WriteHeader(status)
	if r.Method != http.MethodHead && len(body) > 0 {
		rw.Write(body)
	}
}

// writeHTML writes an HTML body, gzipped if so configured and accepted.
func (w *Web) writeHTML(rw http.ResponseWriter, r *http.Request, status int, body []byte, s *scratch) {
	if w.cfg.Gzip {
		h := rw.Header()
		h["Vary"] = varyAE
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			s.gz.Reset()
			zw, _ := gzips.Get().(*gzip.Writer)
			if zw == nil {
				zw, _ = gzip.NewWriterLevel(&s.gz, gzip.BestSpeed)
			} else {
				zw.Reset(&s.gz)
			}
			zw.Write(body)
			zw.Close()
			gzips.Put(zw)
			h["Content-Encoding"] = encGzip
			body = s.gz.Bytes()
		}
	}
	writeBody(rw, r, status, ctHTML, body)
}

// acceptsGzip reports whether an Accept-Encoding value accepts gzip
// ("gzip" or "*" without q=0).
func acceptsGzip(ae string) bool {
	for part := range strings.SplitSeq(ae, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.TrimSpace(coding)
		if !strings.EqualFold(coding, "gzip") && coding != "*" {
			continue
		}
		q := strings.TrimSpace(params)
		if v, ok := strings.CutPrefix(q, "q="); ok {
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && f == 0 {
				return false
			}
		}
		return true
	}
	return false
}
