package render

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"crawler/fetch"

	"github.com/chromedp/cdproto/cdp"
	cfetch "github.com/chromedp/cdproto/fetch"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cpage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// render renders the page of req, whose response resp the Fetcher has
// fetched, sending it the cookies sent, in a tab of its own.
func (f *Fetcher) render(ctx context.Context, req *fetch.Request, resp *fetch.Response, sent []*http.Cookie, start time.Time) (*fetch.Response, error) {
	select {
	case f.tabs <- struct{}{}: // given back once the tab is closed
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for a tab: %w", context.Cause(ctx))
	}
	b, err := f.browser(ctx)
	if err != nil {
		<-f.tabs
		if errors.Is(err, ErrClosed) || ctx.Err() != nil {
			return nil, fmt.Errorf("start browser: %w", err)
		}
		return nil, err // says it already
	}

	p := &page{f: f, req: req, resp: resp, sent: sent, kick: make(chan struct{}, 1)}
	// The tab lives in a context of its own under the browser's, which
	// ctx ending cancels (abort): every call then returns at once. Its
	// own browser context keeps the page's cookies and storage apart.
	parent, abort := context.WithCancel(b.ctx)
	tab, closeTab := chromedp.NewContext(parent, chromedp.WithNewBrowserContext(), chromedp.WithListener(p.event))
	hctx, endHandlers := context.WithCancel(tab)
	p.hctx = hctx
	stopAbort := context.AfterFunc(ctx, abort)
	f.stats.tabOpened()
	defer f.background(func() {
		// Handlers end before the tab does, so none answers a request
		// of a closed tab; the tab's token is given back once it is gone.
		stopAbort()
		p.close()
		endHandlers()
		p.handlers.Wait()
		abort()
		t := time.Now()
		closeTab()
		f.log.Debug("tab closed", "page", req.URL, "took", time.Since(t))
		f.stats.tabClosed()
		<-f.tabs
	})

	body, settled, err := p.run(tab)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w (%v)", context.Cause(ctx), err)
		}
		if b.ctx.Err() != nil {
			return nil, fmt.Errorf("%w: browser ended", err)
		}
		return nil, err
	}
	if !settled {
		f.stats.unsettled.Add(1)
	}
	truncated := resp.Truncated
	if limit := cmp.Or(req.MaxBytes, fetch.DefaultMaxBodyBytes); limit > 0 && int64(len(body)) > limit {
		body, truncated = body[:limit], true
	}
	header := resp.Header.Clone()
	if header == nil {
		header = make(http.Header)
	}
	header.Del("Content-Length")
	header.Del("Content-Encoding")
	header.Set("Content-Type", "text/html; charset=utf-8")
	return &fetch.Response{
		URL:       resp.URL,
		Status:    resp.Status,
		Header:    header,
		Body:      body,
		Truncated: truncated,
		Duration:  resp.Duration, // the server's time, which politeness paces by; not the render's
	}, nil
}

// page is the render of one page in one tab.
type page struct {
	f    *Fetcher
	req  *fetch.Request
	resp *fetch.Response // the page's own response, which the browser is given
	sent []*http.Cookie  // the cookies of Jar that the page's own request was sent
	hctx context.Context // the handlers' context, done when the page is

	browserContext cdp.BrowserContextID // the tab's, which holds its cookies; set before interception starts

	// cookieMu serializes the looks at the browser's cookie store, and
	// guards cookies, what the last one saw. Only with a Jar.
	cookieMu sync.Mutex
	cookies  map[cookieKey]browserCookie

	mu       sync.Mutex
	target   *chromedp.Target // the tab, once open
	frameID  cdp.FrameID      // its top frame
	closed   bool             // no handler starts any more
	mainSeen bool             // the page's own document has been asked for
	loaded   bool             // the top document's load event has fired
	pending  int              // requests paused and not yet answered
	last     time.Time        // when pending last changed, or the load event fired
	handlers sync.WaitGroup
	kick     chan struct{} // a token whenever the fields above change
}

// run opens the tab, loads the page in it and waits for the page to
// settle, and returns the document serialized. settled is false if
// MaxWait passed first.
func (p *page) run(tab context.Context) (doc []byte, settled bool, err error) {
	t0 := time.Now()
	if err := chromedp.Do(tab); err != nil {
		return nil, false, fmt.Errorf("open tab: %w", err)
	}
	c := chromedp.FromContext(tab)
	p.mu.Lock()
	p.target, p.frameID = c.Target, cdp.FrameID(c.Target.TargetID)
	p.browserContext = c.BrowserContextID // before the handlers, which p.mu orders after this
	p.mu.Unlock()
	if err := denyDownloads(tab, c.BrowserContextID); err != nil {
		return nil, false, fmt.Errorf("open tab: %w", err)
	}
	if p.f.Jar != nil {
		p.seedCookies(tab, p.req.URL, p.sent, p.resp)
	}
	// Every request, from the first, pauses for p.event to answer.
	all := []*cfetch.RequestPattern{{URLPattern: "*", RequestStage: cfetch.RequestStageRequest}}
	if _, err := cdp.Call(tab, c.Target, cfetch.Enable, cfetch.EnableParams{Patterns: all}); err != nil {
		return nil, false, fmt.Errorf("intercept: %w", err)
	}

	t1 := time.Now()
	deadline := time.Now().Add(cmp.Or(max(p.f.MaxWait, 0), DefaultMaxWait))
	p.mu.Lock()
	p.last = time.Now()
	p.mu.Unlock()
	nav, err := cdp.Call(tab, c.Target, cpage.Navigate, cpage.NavigateParams{URL: p.req.URL})
	if err == nil && nav.ErrorText != "" {
		err = errors.New(nav.ErrorText)
	}
	if err != nil {
		return nil, false, fmt.Errorf("navigate: %w", err)
	}

	t2 := time.Now()
	if p.f.WaitSelector != "" {
		settled, err = p.waitSelector(tab, deadline)
	} else {
		settled, err = p.waitIdle(tab, deadline)
	}
	if err != nil {
		return nil, false, fmt.Errorf("wait: %w", err)
	}
	t3 := time.Now()
	html, err := chromedp.Run(tab, chromedp.Evaluate[string](serializeJS(p.req.URL)))
	if err != nil {
		return nil, false, fmt.Errorf("read document: %w", err)
	}
	if p.f.Jar != nil {
		p.syncCookies(tab) // what scripts set since the page's last request
	}
	p.f.log.Debug("page rendered", "page", p.req.URL, "open", t1.Sub(t0), "navigate", t2.Sub(t1), "wait", t3.Sub(t2), "read", time.Since(t3), "settled", settled)
	return append([]byte("<!DOCTYPE html>"), html...), settled, nil
}

// waitIdle waits until the top document's load event has fired and no
// request has been pending for Idle, or until the deadline.
func (p *page) waitIdle(ctx context.Context, deadline time.Time) (settled bool, err error) {
	idle := cmp.Or(max(p.f.Idle, 0), DefaultIdle)
	late := time.NewTimer(time.Until(deadline))
	defer late.Stop()
	quiet := time.NewTimer(idle)
	defer quiet.Stop()
	for {
		p.mu.Lock()
		ready := p.loaded && p.pending == 0
		left := idle - time.Since(p.last)
		p.mu.Unlock()
		var quieted <-chan time.Time
		if ready {
			if left <= 0 {
				return true, nil
			}
			quiet.Reset(left)
			quieted = quiet.C
		}
		select {
		case <-p.kick:
		case <-quieted:
		case <-late.C:
			return false, nil
		case <-ctx.Done():
			return false, context.Cause(ctx)
		}
	}
}

// errMaxWait ends a wait that MaxWait cut short.
var errMaxWait = errors.New("render: MaxWait passed")

// waitSelector waits until an element matching WaitSelector is visible, or
// until the deadline. A selector that is not valid CSS is an error.
func (p *page) waitSelector(ctx context.Context, deadline time.Time) (settled bool, err error) {
	wctx, cancel := context.WithDeadlineCause(ctx, deadline, errMaxWait)
	defer cancel()
	js := waitSelectorJS(p.f.WaitSelector)
	for {
		_, err := chromedp.Run(wctx, chromedp.Evaluate[bool](js, chromedp.EvalAwaitPromise))
		switch {
		case err == nil:
			return true, nil
		case ctx.Err() != nil:
			return false, context.Cause(ctx)
		case wctx.Err() != nil:
			return false, nil // MaxWait passed
		}
		if _, ok := errors.AsType[*chromedp.ExceptionError](err); ok {
			return false, fmt.Errorf("selector %q: %w", p.f.WaitSelector, err)
		}
		// The document went away under the evaluation (the page moved):
		// ask the next one.
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-t.C:
		case <-wctx.Done():
		}
		t.Stop()
	}
}

// event takes the events of the tab, on the goroutine that reads them: it
// must not block. Each paused request is answered on a goroutine of its
// own, unless the page is done.
func (p *page) event(ev any) {
	switch ev := ev.(type) {
	case *cfetch.EventRequestPaused:
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return
		}
		// The first document asked for is the page: the tab was blank.
		main := !p.mainSeen && ev.ResourceType == network.ResourceTypeDocument
		p.mainSeen = p.mainSeen || main
		top := ev.FrameID == p.frameID
		p.pending++
		p.last = time.Now()
		p.handlers.Add(1)
		p.mu.Unlock()
		p.changed()
		go p.answer(ev, main, top)
	case *cpage.EventFrameNavigated:
		if ev.Frame.ParentID == "" {
			p.mu.Lock()
			p.loaded = false // a new top document, not loaded yet
			p.mu.Unlock()
			p.f.log.Debug("top frame navigated", "page", p.req.URL, "url", ev.Frame.URL)
			p.changed()
		}
	case *cdplog.EventEntryAdded:
		p.f.log.Debug("console", "text", ev.Entry.Text, "url", ev.Entry.URL)
	case *cpage.EventFrameStoppedLoading:
		// A load cut short (the page moved away while loading, and the
		// move was refused) ends with this and no load event.
		if ev.FrameID != p.topFrame() {
			return
		}
		p.mu.Lock()
		if p.mainSeen {
			p.loaded = true
			p.last = time.Now()
		}
		p.mu.Unlock()
		p.changed()
		p.f.log.Debug("top frame stopped loading", "page", p.req.URL)
	case *cpage.EventLoadEventFired:
		p.mu.Lock()
		if p.mainSeen {
			p.loaded = true
			p.last = time.Now()
		}
		p.mu.Unlock()
		p.f.log.Debug("load event", "page", p.req.URL)
		p.changed()
	}
}

// topFrame returns the id of the top frame.
func (p *page) topFrame() cdp.FrameID {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.frameID
}

// changed tells a wait that the page's state changed.
func (p *page) changed() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// close makes event start no more handlers.
func (p *page) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
}

// blockKind is why a request of the browser was not sent.
type blockKind int

const (
	blockRules blockKind = iota
	blockAddress
	blockNavigation
	blockMedia
	blockOther
)

func (k blockKind) String() string {
	return [...]string{"rules", "address", "navigation", "media", "other"}[k]
}

// answer answers the paused request ev: with the page's own response if
// main, else by the crawl's rules. top reports that the request is of the
// top frame.
func (p *page) answer(ev *cfetch.EventRequestPaused, main, top bool) {
	defer func() {
		p.mu.Lock()
		p.pending--
		p.last = time.Now()
		p.mu.Unlock()
		p.changed()
		p.handlers.Done()
	}()
	ctx := p.hctx
	u := ev.Request.URL
	outcome := p.decide(ctx, ev, main, top)
	p.f.log.Debug("browser request", "page", p.req.URL, "url", u, "type", ev.ResourceType, "method", ev.Request.Method, "outcome", outcome)
}

// decide answers the paused request ev and says how.
func (p *page) decide(ctx context.Context, ev *cfetch.EventRequestPaused, main, top bool) (outcome string) {
	if main {
		// As an attachment, it would be a download instead of a page.
		p.fulfil(ctx, ev.RequestID, p.resp, "Content-Disposition")
		return "the page"
	}
	doc := ev.ResourceType == network.ResourceTypeDocument
	u := ev.Request.URL
	pu, err := url.Parse(u)
	switch {
	case err != nil:
		return p.block(ctx, ev.RequestID, doc, blockOther)
	case pu.Scheme == "data" || pu.Scheme == "blob":
		// Made in the page, not fetched.
		call(ctx, p, cfetch.ContinueRequest, cfetch.ContinueRequestParams{RequestID: ev.RequestID})
		return "continued"
	case pu.Scheme != "http" && pu.Scheme != "https",
		ev.Request.Method != http.MethodGet,                // a crawler only reads
		ev.ResourceType == network.ResourceTypeEventSource, // a stream, never done
		ev.ResourceType == network.ResourceTypePrefetch:
		return p.block(ctx, ev.RequestID, doc, blockOther)
	case isMedia(ev.ResourceType, pu) && !p.f.LoadMedia:
		return p.block(ctx, ev.RequestID, doc, blockMedia)
	case doc && !p.navigates(u, top):
		return p.block(ctx, ev.RequestID, doc, blockNavigation)
	}
	if p.f.Allowed != nil {
		if ok, err := p.f.Allowed(ctx, u); !ok || err != nil {
			outcome := p.block(ctx, ev.RequestID, doc, blockRules)
			if err != nil {
				outcome += ": " + err.Error()
			}
			return outcome
		}
	}

	if p.f.Jar != nil && cookiesDiffer(ev.Request.Headers, p.f.Jar.Cookies(pu)) {
		// The browser would send other cookies than Jar: the page's
		// scripts changed its store, which Jar is to know first.
		p.syncCookies(ctx)
	}
	header, sent := p.f.header(pu, nil)
	resp, err := p.fetch(ctx, pu, header)
	switch {
	case errors.Is(err, fetch.ErrBlockedAddress):
		return p.block(ctx, ev.RequestID, doc, blockAddress) + ": " + err.Error()
	case err != nil:
		if ctx.Err() == nil {
			p.f.stats.failed.Add(1)
		}
		p.fail(ctx, ev.RequestID, doc, network.ErrorReasonFailed)
		return "failed: " + err.Error()
	}
	p.f.stats.requests.Add(1)
	p.f.keepCookies(u, resp)
	if p.f.Jar != nil {
		if !doc {
			sent = nil // no document.cookie reads them
		}
		p.seedCookies(ctx, u, sent, resp)
	}
	p.fulfil(ctx, ev.RequestID, resp)
	return "fetched: " + strconv.Itoa(resp.Status)
}

// fetch fetches u for the browser, with the extra headers header, in its
// host's turn.
func (p *page) fetch(ctx context.Context, u *url.URL, header http.Header) (*fetch.Response, error) {
	leave, err := p.f.hosts.enter(ctx, u.Host)
	if err != nil {
		return nil, err
	}
	defer leave()
	if p.f.Pace != nil {
		if err := p.f.Pace(ctx, u.Host); err != nil {
			return nil, err
		}
	}
	return p.f.fetcher.Fetch(ctx, &fetch.Request{
		URL:       u.String(),
		UserAgent: p.req.UserAgent,
		MaxBytes:  p.req.MaxBytes,
		Header:    header,
	})
}

// navigates reports whether the document u may be loaded, in the top
// frame if top, else in a frame.
func (p *page) navigates(u string, top bool) bool {
	if p.f.Navigate != nil {
		return p.f.Navigate(u)
	}
	return !top && sameOrigin(u, p.req.URL)
}

// isMedia reports whether a request of type t for u is for an image, a
// font, media or a favicon.
func isMedia(t network.ResourceType, u *url.URL) bool {
	switch t {
	case network.ResourceTypeImage, network.ResourceTypeMedia, network.ResourceTypeFont, network.ResourceTypeTextTrack:
		return true
	case network.ResourceTypeOther:
		return u.Path == "/favicon.ico" // the browser's own request
	}
	return false
}

// block answers a request that is not to be sent, counting it as kind. A
// document is answered 204 No Content, which leaves its frame (or the
// page) as it was; a failure would show an error page in its place.
func (p *page) block(ctx context.Context, id cfetch.RequestID, doc bool, kind blockKind) (outcome string) {
	p.f.stats.blocked(kind)
	p.fail(ctx, id, doc, network.ErrorReasonBlockedByClient)
	return "blocked: " + kind.String()
}

// fail fails a request with reason, or answers a document 204.
func (p *page) fail(ctx context.Context, id cfetch.RequestID, doc bool, reason network.ErrorReason) {
	if doc {
		call(ctx, p, cfetch.FulfillRequest, cfetch.FulfillRequestParams{RequestID: id, ResponseCode: http.StatusNoContent})
		return
	}
	call(ctx, p, cfetch.FailRequest, cfetch.FailRequestParams{RequestID: id, ErrorReason: reason})
}

// fulfil answers a request with resp, less the headers named in drop. The
// body is already decoded, so Content-Encoding and the length of the
// encoded body are left out too; with a Jar, so is Set-Cookie, whose
// cookies the browser's store got from seedCookies.
func (p *page) fulfil(ctx context.Context, id cfetch.RequestID, resp *fetch.Response, drop ...string) {
	keys := make([]string, 0, len(resp.Header))
	for key := range resp.Header {
		switch name := http.CanonicalHeaderKey(key); {
		case name == "Content-Encoding", name == "Content-Length", name == "Transfer-Encoding":
		case name == "Set-Cookie" && p.f.Jar != nil:
		case !slices.Contains(drop, name):
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	var headers []*cfetch.HeaderEntry
	for _, key := range keys {
		for _, v := range resp.Header[key] {
			headers = append(headers, &cfetch.HeaderEntry{Name: key, Value: v})
		}
	}
	err := call(ctx, p, cfetch.FulfillRequest, cfetch.FulfillRequestParams{
		RequestID:       id,
		ResponseCode:    int64(resp.Status),
		ResponseHeaders: headers,
		Body:            resp.Body,
	})
	if err != nil && ctx.Err() == nil {
		// A response the browser will not take (a status it does not
		// know, say): the request fails instead.
		call(ctx, p, cfetch.FailRequest, cfetch.FailRequestParams{RequestID: id, ErrorReason: network.ErrorReasonFailed})
	}
}

// call runs the command, one of the answers to a paused request, on the
// tab.
func call[P any](ctx context.Context, p *page, cmd cdp.Command[P, cdp.Empty], params P) error {
	p.mu.Lock()
	t := p.target // set before interception starts
	p.mu.Unlock()
	_, err := cdp.Call(ctx, t, cmd, params)
	return err
}

// sameOrigin reports whether URLs a and b have the same scheme, host and
// port.
func sameOrigin(a, b string) bool {
	ua, err := url.Parse(a)
	if err != nil {
		return false
	}
	ub, err := url.Parse(b)
	if err != nil {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(hostPort(ua), hostPort(ub))
}

// hostPort returns u's host and port, the scheme's default port if none.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return u.Hostname() + ":" + port
}

// serializeJS is the script that returns the top document as HTML, for
// the page fetched as pageURL. A document whose base URL is not pageURL
// (it moved, or has a <base> of its own) gets a <base> with its absolute
// base URL, so that its links resolve as they did in the browser.
func serializeJS(pageURL string) string {
	return `((pageURL) => {
	const root = document.documentElement;
	if (!root) return "";
	if (document.baseURI === pageURL) return root.outerHTML;
	let base = document.querySelector("base[href]"), old = null;
	if (base) {
		old = base.getAttribute("href");
		base.setAttribute("href", document.baseURI);
	} else {
		base = document.createElement("base");
		base.setAttribute("href", document.baseURI);
		(document.head || root).prepend(base);
	}
	const html = root.outerHTML;
	if (old === null) base.remove(); else base.setAttribute("href", old);
	return html;
})(` + jsString(pageURL) + `)`
}

// waitSelectorJS is the script whose promise resolves once an element
// matching sel is visible. A selector that is not valid CSS rejects it.
func waitSelectorJS(sel string) string {
	return `new Promise((resolve) => {
	const sel = ` + jsString(sel) + `;
	const visible = () => {
		const e = document.querySelector(sel);
		if (!e) return false;
		const s = getComputedStyle(e);
		if (s.visibility === "hidden" || s.display === "none") return false;
		const r = e.getBoundingClientRect();
		return r.width > 0 || r.height > 0;
	};
	if (visible()) return resolve(true);
	const id = setInterval(() => { if (visible()) { clearInterval(id); resolve(true); } }, 50);
})`
}

// jsString returns s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}
