package render

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"time"

	"crawler/fetch"
	"crawler/internal/links"
)

// Defaults of the Fetcher, each overridable by a field.
const (
	// DefaultTabs is how many pages are rendered at once.
	DefaultTabs = 4
	// DefaultIdle is how long no request of a page may be pending before
	// the page counts as loaded.
	DefaultIdle = 500 * time.Millisecond
	// DefaultMaxWait bounds the wait for a page to settle.
	DefaultMaxWait = 10 * time.Second
)

// Errors of the Fetcher.
var (
	// ErrClosed is the error of a Fetch after Close.
	ErrClosed = errors.New("render: fetcher closed")
	// ErrNoBrowser is wrapped by the error of FindBrowser, and of a render
	// when no browser was named and none was found.
	ErrNoBrowser = errors.New("render: no browser found")
)

// BrowserEnv is the environment variable that [FindBrowser] reads first.
const BrowserEnv = "CRAWLER_BROWSER"

// browserNames are the programs FindBrowser looks for on PATH, in order.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// FindBrowser returns the path of a Chromium-based browser: the program
// that the environment variable CRAWLER_BROWSER names (a path, or a name
// looked up on PATH), else the first of chromium, chromium-browser,
// google-chrome and google-chrome-stable found on PATH. It returns an
// error wrapping [ErrNoBrowser] if there is none.
func FindBrowser() (string, error) {
	if env := os.Getenv(BrowserEnv); env != "" {
		p, err := exec.LookPath(env)
		if err != nil {
			return "", errors.Join(ErrNoBrowser, err)
		}
		return p, nil
	}
	for _, name := range browserNames {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBrowser
}

// Fetcher is a [fetch.Fetcher] that renders HTML pages in headless
// Chromium: it fetches the page, loads it in a browser tab, lets its
// scripts run until the page settles, and returns the document as the
// scripts left it. Every request the browser makes for the page is
// intercepted and made by Fetcher instead, under the crawl's rules (see
// the package documentation); the browser itself reaches no network.
//
// The zero value is ready to use: it renders every HTML page with the
// defaults below. A Fetcher is safe for concurrent use; set its fields
// before the first Fetch and do not change them after. The browser starts
// at the first page rendered and runs until Close, which the owner must
// call; a browser that dies is replaced at the next render, and one that
// fails to start is tried again a minute later (renders fail meanwhile).
type Fetcher struct {
	// Fetcher makes every request: the page itself, then each request the
	// browser makes for it, whose response is handed to the browser as if
	// it came from the network. So its AddressPolicy (against SSRF, and
	// the crawl's own allowances), proxy, cap on bodies and timeouts apply
	// to the browser's requests exactly as to the crawl's own. Nil: a
	// [fetch.HTTPFetcher] with its defaults.
	Fetcher fetch.Fetcher
	// Allowed, if not nil, is asked before each request of the browser
	// (not the page itself, which the crawler checked before asking for
	// it): robots.txt and the crawl's own rules. False or an error fails
	// the request in the page, as a browser extension blocking it would
	// (net::ERR_BLOCKED_BY_CLIENT), without sending it. It is called on
	// many goroutines at once.
	Allowed func(ctx context.Context, url string) (bool, error)
	// Navigate, if not nil, is asked for each document the page loads
	// other than itself: a frame's document, or the page moving to
	// another URL (location = ..., a meta refresh, a click made by
	// script); false blocks it, leaving the frame or page as it was. Nil:
	// frames of the page's own origin (scheme, host and port) are loaded,
	// and nothing else: other frames stay empty and the page never moves.
	// A document Navigate allows is still subject to Allowed and to
	// Fetcher's policy. A move it allows is followed like a redirect
	// inside the browser: the document returned is then the one moved
	// to, with a <base> naming its URL so that its links resolve.
	Navigate func(url string) bool
	// Pace, if not nil, is called before each request of the browser,
	// with the host (host[:port], as in the URL), and returns when the
	// host may be asked: the crawl's per-host politeness. Its error fails
	// the request. Either way, the requests of the browser to one host are
	// sent one at a time, across all tabs (a request that hangs holds its
	// host until its page is done); nil means no delay beyond that.
	Pace func(ctx context.Context, host string) error
	// Render says which pages are rendered, by their URL; the others are
	// returned as fetched. Nil: every HTML page (a 2xx response other than
	// 204 and 205 whose Content-Type is text/html or
	// application/xhtml+xml, sniffed when absent). Responses that are not
	// such pages are never rendered.
	Render func(url string) bool
	// Tabs is how many tabs may be open at once, so how many pages are
	// rendered at once; a Fetch that would exceed it waits for a tab (a
	// tab is closed in the background once its page is done, and frees
	// its place once gone). 0: DefaultTabs. Each tab costs a renderer
	// process, tens to hundreds of MB.
	Tabs int
	// Idle is how long no request of the page's may have been pending for
	// the page to count as loaded, once its load event has fired. 0:
	// DefaultIdle.
	Idle time.Duration
	// MaxWait bounds the wait for the page to settle (Idle, or
	// WaitSelector); once it has passed, the document is taken as it is.
	// 0: DefaultMaxWait.
	MaxWait time.Duration
	// WaitSelector, if set, is a CSS selector that the page counts as
	// loaded once an element matching it is visible, instead of by Idle.
	WaitSelector string
	// LoadMedia, if set, fetches images, fonts, media and favicons; if
	// not, they fail in the page without a request, which saves most of a
	// page's bytes and changes no link.
	LoadMedia bool
	// Jar, if not nil, holds the crawl's cookies, which the rendering
	// shares both ways. Every request of the page (its own, and each of
	// the browser's: documents, scripts, XHR and fetch) is sent with the
	// Cookie header that Jar.Cookies gives for its URL, and the
	// Set-Cookie headers of its response go to Jar.SetCookies. What the
	// page's scripts set (document.cookie, the Cookie Store API) and what
	// the browser keeps of responses reaches Jar too, with the attributes
	// the browser gave it (its domain, path, expiry, Secure, HttpOnly and
	// SameSite; a deletion as a deletion): before the page's next
	// request whose cookies it changes, and in any case before Fetch
	// returns. So a cookie a plain fetch put in Jar is sent by a later
	// render, and one a render got is sent by a later plain fetch.
	//
	// The browser also holds cookies, for document.cookie: each page has
	// a store of its own (its own browser context), thrown away with the
	// page, that starts empty. As each document of the page loads, the
	// store is given the cookies that document's request was sent, as
	// cookies of its host with path "/" readable by script (Jar says no
	// more than names and values); and before any response reaches the
	// browser, the cookies it sets, with their attributes (the browser is
	// handed the response without its Set-Cookie, so a script cannot run
	// before the store has them). Jar is the truth: the browser's store
	// only mirrors it for the page's scripts, the browser's own Cookie
	// headers are not sent, and pages see each other's cookies only
	// through Jar (a page sends what another page set meanwhile, but its
	// scripts read only what its documents were sent and what it set).
	// Cookies the browser partitions (CHIPS, in a frame) are not taken.
	//
	// Give Jar here, not to Fetcher as well: a fetch.HTTPFetcher with a
	// Jar of its own adds that jar's cookies to the Cookie header that
	// this one sets, so the same jar would send each cookie twice. Nil:
	// the rendering keeps no cookies of its own; the requests carry what
	// Fetcher sends (an HTTPFetcher with a Jar keeps and sends cookies for
	// them, at the HTTP level), while what the browser gets (Set-Cookie
	// of the responses handed to it, document.cookie) stays in the page's
	// own store, is never sent, and is thrown away with the page.
	Jar http.CookieJar
	// Headers, if not nil, gives extra headers for each request of the
	// page, by its URL: a site's own headers and credentials
	// (Authorization, say), which it should give for that site's hosts
	// only, so that they never go to another host's scripts, frames or
	// XHR. They are set over Fetcher's own (as fetch.Request.Header is);
	// a Cookie header it gives is sent before Jar's cookies. The page's
	// own request gets them too, under the Request's Header, which wins
	// name by name and goes to that request only. The headers of the
	// browser's own requests (those a script set on an XHR, say) are not
	// sent. It is called on many goroutines at once, and must not change
	// the header it returns. Nil: no extra headers but the Request's.
	Headers func(u *url.URL) http.Header
	// ExecPath is the browser to run. "": [FindBrowser].
	ExecPath string
	// Logger, if not nil, is told of the browser's start (Info) and
	// death (Warn), and of each request of the browser and what became
	// of it (Debug).
	Logger *slog.Logger

	once    sync.Once
	fetcher fetch.Fetcher // Fetcher, or the default one
	log     *slog.Logger  // Logger, or one that discards
	tabs    chan struct{} // a token for each tab open
	hosts   gates         // one request at a time per host

	mu      sync.Mutex
	closed  bool
	b       *browser // the running browser; nil before the first render and after it died
	start   *launch  // the start under way, or the last one if it failed
	closing sync.WaitGroup

	stats counters

	// guardsOff, set by tests only, starts the browser without some of
	// its network guards, to show what they stop.
	guardsOff guards
}

// launch is one start of the browser.
type launch struct {
	done chan struct{} // closed when the start has ended
	b    *browser      // the browser started, if err is nil
	err  error
	at   time.Time // when it ended
}

// retryStart is how long a browser that failed to start is not tried
// again: renders fail with the error of the start meanwhile.
const retryStart = time.Minute

func (f *Fetcher) init() {
	f.fetcher = f.Fetcher
	if f.fetcher == nil {
		f.fetcher = &fetch.HTTPFetcher{}
	}
	f.tabs = make(chan struct{}, cmp.Or(max(f.Tabs, 0), DefaultTabs))
	f.log = f.Logger
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
}

// Fetch fetches req with Fetcher and, if the response is an HTML page to
// render, renders it: the response returned then has the URL, status and
// headers of the page's own response (its Content-Type set to
// "text/html; charset=utf-8"), and as Body the document the page's
// scripts made, serialized, cut at the request's cap (Truncated then
// set). Duration is the page's own response time, as Fetcher measured
// it, not the render's: the crawler's adaptive delay (Pacing.DelayFactor)
// paces a host by how fast it answers, and the browser's time says nothing
// about that. The page is requested once, with req's Header over those
// Headers gives and the cookies of Jar; the browser gets it from that
// response.
//
// A render that fails returns a *fetch.FetchError with Op "render" whose
// error says which step failed: starting the browser, opening a tab,
// navigating, waiting, or reading the document. Once ctx is done, Fetch
// returns at once with its error; the tab is closed in the background
// (Close waits for it).
func (f *Fetcher) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	f.once.Do(f.init)
	if f.isClosed() {
		return nil, &fetch.FetchError{Op: "fetch", URL: req.URL, Err: ErrClosed}
	}
	start := time.Now()
	preq, sent := f.pageRequest(req)
	resp, err := f.fetcher.Fetch(ctx, preq)
	if resp != nil {
		f.keepCookies(req.URL, resp)
	}
	if err != nil || !f.renders(req.URL, resp) {
		if resp != nil {
			f.stats.passed.Add(1)
		}
		return resp, err
	}
	out, err := f.render(ctx, req, resp, sent, start)
	if err != nil {
		f.stats.errors.Add(1)
		return nil, &fetch.FetchError{Op: "render", URL: req.URL, Err: err}
	}
	f.stats.rendered.Add(1)
	return out, nil
}

// renders reports whether resp, the response for url, is a page to render.
func (f *Fetcher) renders(url string, resp *fetch.Response) bool {
	if resp.Status/100 != 2 || resp.Status == http.StatusNoContent || resp.Status == http.StatusResetContent {
		return false
	}
	if !links.IsHTML(resp.Header.Get("Content-Type"), resp.Body) {
		return false
	}
	return f.Render == nil || f.Render(url)
}

func (f *Fetcher) isClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// browser returns the running browser, starting it if there is none (or
// the last one died), waiting at most until ctx is done.
func (f *Fetcher) browser(ctx context.Context) (*browser, error) {
	f.once.Do(f.init)
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil, ErrClosed
	}
	if f.b != nil && f.b.ctx.Err() != nil {
		// It died (crashed, or was killed): start another, and let the
		// old one's remains go in the background.
		dead := f.b
		f.b = nil
		f.log.Warn("browser died; starting another", "pid", dead.pid)
		f.closing.Add(1)
		go func() {
			defer f.closing.Done()
			dead.stop()
		}()
	}
	if f.b != nil {
		b := f.b
		f.mu.Unlock()
		return b, nil
	}
	l := f.start
	if l == nil || l.err != nil && time.Since(l.at) >= retryStart {
		l = &launch{done: make(chan struct{})}
		f.start = l
		f.closing.Add(1)
		go func() {
			defer f.closing.Done()
			f.launch(l)
		}()
	}
	f.mu.Unlock()

	select {
	case <-l.done:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	if l.err != nil {
		return nil, l.err
	}
	return l.b, nil
}

// launch starts the browser for l. Renders fail with the error of a start
// that failed for retryStart, and then try again.
func (f *Fetcher) launch(l *launch) {
	path := f.ExecPath
	var err error
	if path == "" {
		path, err = FindBrowser()
	}
	var b *browser
	if err == nil {
		b, err = startBrowser(path, f.guardsOff)
	}
	f.mu.Lock()
	l.b, l.err, l.at = b, err, time.Now()
	stop := false
	switch {
	case err != nil:
	case f.closed:
		stop = true
		l.err = ErrClosed
	default:
		f.b = b
		f.start = nil
		f.stats.browsers.Add(1)
		f.log.Info("browser started", "path", path, "pid", b.pid)
	}
	f.mu.Unlock()
	close(l.done)
	if stop {
		b.stop()
	}
}

// Close ends the browser and its processes, waits for them to exit, and
// removes the browser's profile directory. A Fetch after Close fails with
// [ErrClosed]; a render under way when Close is called fails. Close is
// safe to call more than once; it returns nil.
func (f *Fetcher) Close() error {
	f.mu.Lock()
	f.closed = true
	b := f.b
	f.b = nil
	f.mu.Unlock()
	if b != nil {
		b.stop()
	}
	// A start under way sees closed and stops its browser; tabs being
	// closed end with theirs.
	f.closing.Wait()
	return nil
}

// background runs fn on a goroutine of its own that Close waits for; after
// Close, it runs fn itself.
func (f *Fetcher) background(fn func()) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		fn()
		return
	}
	f.closing.Add(1)
	f.mu.Unlock()
	go func() {
		defer f.closing.Done()
		fn()
	}()
}

// Stats returns a snapshot of the Fetcher's counts. It is safe to call at
// any time.
func (f *Fetcher) Stats() Stats {
	return f.stats.snapshot()
}

// gates lets one request at a time go to each host.
type gates struct {
	mu sync.Mutex
	m  map[string]*gate
}

// gate is the turn of one host, held by a token in ch.
type gate struct {
	ch   chan struct{}
	refs int // requests holding or waiting for the gate
}

// enter waits for host's turn, or for ctx to be done. The caller calls
// leave once its request is over.
func (g *gates) enter(ctx context.Context, host string) (leave func(), err error) {
	g.mu.Lock()
	if g.m == nil {
		g.m = make(map[string]*gate)
	}
	h := g.m[host]
	if h == nil {
		h = &gate{ch: make(chan struct{}, 1)}
		g.m[host] = h
	}
	h.refs++
	g.mu.Unlock()
	drop := func() {
		g.mu.Lock()
		if h.refs--; h.refs == 0 {
			delete(g.m, host)
		}
		g.mu.Unlock()
	}
	select {
	case h.ch <- struct{}{}:
		return func() { <-h.ch; drop() }, nil
	case <-ctx.Done():
		drop()
		return nil, context.Cause(ctx)
	}
}

// CookieJar returns the jar the rendering keeps its cookies in: Jar, else
// that of the Fetcher under it, if it tells (a fetch.HTTPFetcher does).
func (f *Fetcher) CookieJar() http.CookieJar {
	if f.Jar != nil {
		return f.Jar
	}
	if j, ok := f.Fetcher.(interface{ CookieJar() http.CookieJar }); ok {
		return j.CookieJar()
	}
	return nil
}
