package status_test

// The tests in this file open the status page and the report in a real
// browser: chromium, driven over the DevTools protocol by chromedp. They
// check the page's DOM contract (data-mode, data-samples, the plots'
// polylines, the tables), its controls, and that what crawled pages say is
// shown as text, never run. Without a browser they are skipped, except
// under CI (CRAWLER_CI set), where they fail. CRAWLER_BROWSER names the
// browser to use; CRAWLER_SCREENSHOTS, a directory where full-page PNGs
// of the live page (status.png) and of the report (report.png) are saved.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/internal/browsertest"
	"crawler/politeness"
	"crawler/status"
)

const (
	// browserTimeout bounds each test's browser, start to end.
	browserTimeout = 60 * time.Second
	// waitTimeout bounds each wait for the page or the crawl to get
	// somewhere; the page polls /status.json every second.
	waitTimeout = 15 * time.Second
)

// The titles of the pages of the hostile site, which the page must show as
// text: a script element, and markup breaking out of an attribute.
const (
	scriptTitle = `<script>alert(1)</script>`
	attrTitle   = `"><img src=x onerror=alert(2)>`
)

// The plots of the page; each must draw one polyline.series per series.
var plotIDs = []string{"plot-rate", "plot-frontier", "plot-status"}

// The page's controls, which the report must not have.
var controlIDs = []string{"pause", "resume", "stop", "retire-host", "retire"}

// TestBrowserLive checks the live page against the samples the server has:
// with sampling driven by the test (m.Sample), the page must come to show
// exactly the samples taken, each plot's series drawing one point per
// sample, with no console error on the way.
func TestBrowserLive(t *testing.T) {
	t.Parallel()
	tb := newTab(t)
	cr := startCrawl(t, crawlSetup{opts: status.Options{Interval: time.Hour}})
	srv := httptest.NewServer(cr.m.Handler(status.ServerOptions{}))
	defer srv.Close()

	cr.waitPages(t, 5)
	for range 3 {
		cr.m.Sample()
	}
	tb.navigate(srv.URL + "/")
	tb.waitFor("3 samples rendered", `document.body.dataset.samples === "3"`)
	checkPlots(t, tb.plots(), "live", 3)
	if n := len(getStatus(t, srv.URL+"/status.json").Samples); n != 3 {
		t.Errorf("/status.json has %d samples after 3 Sample calls", n)
	}

	for range 2 {
		cr.m.Sample()
	}
	tb.waitFor("5 samples rendered", `document.body.dataset.samples === "5"`)
	checkPlots(t, tb.plots(), "live", 5)
	if n := len(getStatus(t, srv.URL+"/status.json").Samples); n != 5 {
		t.Errorf("/status.json has %d samples after 5 Sample calls", n)
	}

	tb.waitFor("the recent pages table filled", `document.querySelectorAll("#recent-pages tr").length > 0`)
	if s := tb.text("#state"); s != "running" {
		t.Errorf("#state %q, want running", s)
	}
	for _, id := range controlIDs {
		// Without ServerOptions.Stop, the page has no stop control.
		if has := tb.exists("#" + id); has != (id != "stop") {
			t.Errorf("the live page without ServerOptions.Stop has #%s: %v", id, has)
		}
	}
	if s := tb.text("#error"); s != "" {
		t.Errorf("#error says %q", s)
	}
	tb.check()
}

// TestBrowserControls clicks the page's controls and checks their effect
// on the crawl: Pause stops the requests the web server sees, Resume
// starts them again, Retire retires the host typed in, a host row's Retire
// button its host, Stop calls ServerOptions.Stop; #state follows. It saves
// status.png, mid-crawl.
func TestBrowserControls(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a browser driving a crawl's controls: about 5 s")
	}
	tb := newTab(t)
	cr := startCrawl(t, crawlSetup{opts: status.Options{Interval: 250 * time.Millisecond}, run: true})
	var stopOnce sync.Once
	stopped := make(chan struct{})
	srv := httptest.NewServer(cr.m.Handler(status.ServerOptions{
		Stop: func() { stopOnce.Do(func() { close(stopped) }) },
	}))
	defer srv.Close()

	tb.navigate(srv.URL + "/")
	tb.waitFor("8 samples, and the tables filled", `+document.body.dataset.samples >= 8 &&
		document.querySelectorAll("#recent-pages tr").length >= 5 &&
		document.querySelectorAll("#hosts-busiest tr").length >= 2`)
	tb.waitFor("state running", stateIs("running"))
	checkPlots(t, tb.plots(), "live", -1)
	tb.screenshot("status.png")

	tb.click("#pause")
	tb.waitFor("state paused", stateIs("paused"))
	if !cr.c.Paused() {
		t.Fatal("#pause clicked, state paused, but the crawler is not paused")
	}
	// Stats.InFlight counts the URLs the scheduler has handed out and not
	// taken back, from before the worker's request to after its Handler.
	waitWithin(t, waitTimeout, "the fetches in flight to end", func() bool { return cr.c.Stats().InFlight == 0 })
	before := cr.requests()
	time.Sleep(time.Second) // the quiet of a pause can only be watched
	if after := cr.requests(); after != before {
		t.Errorf("paused, with no fetch in flight: the server saw %d requests more in 1 s", after-before)
	}

	tb.click("#resume")
	tb.waitFor("state running", stateIs("running"))
	if cr.c.Paused() {
		t.Error("#resume clicked, but the crawler is still paused")
	}
	waitWithin(t, waitTimeout, "requests after resuming", func() bool { return cr.requests() > before })

	const host = "h5.crawler.test"
	tb.sendKeys("#retire-host", host)
	tb.click("#retire")
	cr.waitRetired(t, host)

	// A row's Retire button. The tables are drawn anew at each poll, so
	// the button is found and clicked in one evaluation, not by the mouse.
	const rowHost = "h3.crawler.test"
	tb.waitFor("a Retire button in the row of "+rowHost, fmt.Sprintf(`(() => {
		const b = document.querySelector('#hosts-busiest button.retire[data-host=%q]');
		b?.click();
		return b != null;
	})()`, rowHost))
	cr.waitRetired(t, rowHost)

	tb.click("#stop")
	select {
	case <-stopped:
	case <-time.After(waitTimeout):
		t.Fatal("#stop clicked, but ServerOptions.Stop was not called")
	}
	tb.waitFor("state stopping", stateIs("stopping"))

	cr.stop()
	cr.m.Finish()
	tb.waitFor("state finished", stateIs("finished"))
	if s := tb.text("#error"); s != "" {
		t.Errorf("#error says %q", s)
	}
	tb.check()
}

// TestBrowserXSS crawls a site whose page titles are markup, and checks
// that the live page and the report show them as text: the exact title in
// a cell of the recent pages, no dialog, no element made of them. The
// report must also agree with Snapshot, have no controls, and load
// without errors from a file:// URL. It saves report.png.
func TestBrowserXSS(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a browser loading the live page and the report of a hostile crawl: about 3.5 s")
	}
	tb := newTab(t)
	const maxPages = 60
	cr := startCrawl(t, crawlSetup{
		opts:     status.Options{Interval: 100 * time.Millisecond, MaxPages: maxPages, Recent: 100},
		run:      true,
		maxPages: maxPages,
	})
	srv := httptest.NewServer(cr.m.Handler(status.ServerOptions{}))
	defer srv.Close()

	tb.navigate(srv.URL + "/")
	tb.waitFor("the hostile titles shown", titlesShown)
	checkNoMarkup(t, tb)

	if err := cr.wait(); err != nil {
		t.Fatalf("crawl: %v", err)
	}
	if got := cr.title(cr.xssURL); got != scriptTitle {
		t.Fatalf("the crawler read the title %q, want %q: the fixture is wrong", got, scriptTitle)
	}
	cr.stop() // the sampling, so that the report has the samples of snap
	cr.m.Finish()
	tb.waitFor("state finished", stateIs("finished"))
	checkNoMarkup(t, tb)
	tb.check()

	// The report, from a file.
	snap := cr.m.Snapshot()
	file := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := cr.m.WriteReport(f); err != nil {
		t.Fatalf("WriteReport: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	tb.navigate((&url.URL{Scheme: "file", Path: file}).String())
	tb.waitFor("the report rendered", `document.body.dataset.mode === "report" && document.body.dataset.samples !== undefined`)
	checkPlots(t, tb.plots(), "report", len(snap.Samples))
	if !tb.eval(titlesShown).(bool) {
		t.Error("the report does not show the hostile titles as text")
	}
	checkNoMarkup(t, tb)
	for _, id := range controlIDs {
		if tb.exists("#" + id) {
			t.Errorf("the report has #%s", id)
		}
	}
	if s := tb.text("#state"); s != "finished" {
		t.Errorf("report #state %q, want finished", s)
	}
	tb.screenshot("report.png")
	tb.check()
}

// TestBrowserToken serves the page with a Token: opened with ?token=, it
// must load its data and steer the crawl with it.
func TestBrowserToken(t *testing.T) {
	t.Parallel()
	tb := newTab(t)
	cr := startCrawl(t, crawlSetup{opts: status.Options{Interval: time.Hour}})
	const token = "s3cret"
	srv := httptest.NewServer(cr.m.Handler(status.ServerOptions{Token: token}))
	defer srv.Close()
	cr.m.Sample()
	cr.m.Sample()

	resp, err := http.Get(srv.URL + "/status.json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Error("/status.json without the token: 200 OK")
	}
	getStatus(t, srv.URL+"/status.json?token="+token)

	tb.navigate(srv.URL + "/?token=" + token)
	tb.waitFor("2 samples rendered", `document.body.dataset.samples === "2"`)
	checkPlots(t, tb.plots(), "live", 2)
	tb.click("#pause")
	tb.waitFor("state paused", stateIs("paused"))
	if !cr.c.Paused() {
		t.Error("#pause clicked with a token, but the crawler is not paused")
	}
	if s := tb.text("#error"); s != "" {
		t.Errorf("#error says %q", s)
	}
	tb.check()
}

// titlesShown is true when a cell of #recent-pages holds each hostile
// title, exactly, as text.
var titlesShown = fmt.Sprintf(`(() => {
	const cells = [...document.querySelectorAll("#recent-pages td")].map(td => td.textContent.trim());
	return cells.includes(%q) && cells.includes(%q);
})()`, scriptTitle, attrTitle)

// checkNoMarkup checks that the tables hold no element a crawled page
// could have put there: no script, no image, no event handler attribute.
func checkNoMarkup(t *testing.T, tb *tab) {
	t.Helper()
	bad := tb.eval(`[...document.querySelectorAll("tbody *")]
		.filter(e => ["SCRIPT", "IMG"].includes(e.tagName) || [...e.attributes].some(a => a.name.startsWith("on")))
		.map(e => e.outerHTML)`)
	if l, _ := bad.([]any); len(l) > 0 {
		t.Errorf("the tables hold elements a crawled page made: %v", l)
	}
}

// stateIs returns an expression true when #state says s.
func stateIs(s string) string {
	return fmt.Sprintf(`(document.getElementById("state")?.textContent ?? "").trim() === %q`, s)
}

// plots is what the page drew, read in one evaluation.
type plots struct {
	Mode    string   `json:"mode"`
	Samples string   `json:"samples"` // body's data-samples
	Series  []series `json:"series"`
}

// series is one polyline.series.
type series struct {
	Plot       string  `json:"plot"`       // the id of its svg
	Key        string  `json:"key"`        // its data-series
	DataPoints string  `json:"dataPoints"` // its data-points
	Points     float64 `json:"points"`     // the x,y pairs of its points attribute
	Bad        string  `json:"bad"`        // a token of points that is not a finite number
}

const plotsJS = `(() => {
	const b = document.body;
	const series = [...document.querySelectorAll("polyline.series")].map(p => {
		const toks = (p.getAttribute("points") || "").trim().split(/[\s,]+/).filter(s => s !== "");
		return {
			plot: p.closest("svg")?.id ?? "",
			key: p.getAttribute("data-series") ?? "",
			dataPoints: p.getAttribute("data-points") ?? "",
			points: toks.length / 2,
			bad: toks.find(s => !Number.isFinite(Number(s))) ?? "",
		};
	});
	return {mode: b.dataset.mode ?? "", samples: b.dataset.samples ?? "", series};
})()`

// plots reads the page's plots.
func (tb *tab) plots() plots {
	tb.t.Helper()
	p, err := chromedp.Run(tb.ctx, chromedp.Evaluate[plots](plotsJS))
	if err != nil {
		tb.t.Fatalf("reading the plots: %v", err)
	}
	return p
}

// checkPlots checks that the page is in mode and shows want samples (any
// number above 1 if want is negative), and that every series of every plot
// draws one point per sample, and says so.
func checkPlots(t *testing.T, p plots, mode string, want int) {
	t.Helper()
	if p.Mode != mode {
		t.Errorf("data-mode %q, want %q", p.Mode, mode)
	}
	n, err := strconv.Atoi(p.Samples)
	switch {
	case err != nil:
		t.Fatalf("data-samples %q: %v", p.Samples, err)
	case want >= 0 && n != want:
		t.Errorf("data-samples %d, want %d", n, want)
	case want < 0 && n < 2:
		t.Errorf("data-samples %d, want 2 or more", n)
	}
	perPlot := map[string]int{}
	for _, s := range p.Series {
		perPlot[s.Plot]++
		if s.DataPoints != strconv.Itoa(n) || s.Points != float64(n) {
			t.Errorf("series %q of #%s: data-points %q, %g points drawn; data-samples %d", s.Key, s.Plot, s.DataPoints, s.Points, n)
		}
		if s.Bad != "" {
			t.Errorf("series %q of #%s has the point coordinate %q", s.Key, s.Plot, s.Bad)
		}
	}
	for _, id := range plotIDs {
		if perPlot[id] == 0 {
			t.Errorf("#%s draws no polyline.series", id)
		}
		delete(perPlot, id)
	}
	for id := range perPlot {
		t.Errorf("a polyline.series outside the plots, in %q", id)
	}
}

// crawlSetup says how startCrawl crawls.
type crawlSetup struct {
	opts     status.Options
	run      bool  // run the Monitor's sampling (Run) with the crawl
	maxPages int64 // the crawl's MaxPages; 0: none, it runs until stopped
}

// crawl is a crawl running under a Monitor: of a crawlertest web of 6
// hosts, slowed down to be watched, one throttling (429) and one failing
// (503) host among them, and of a hostile site whose titles are markup.
type crawl struct {
	c      *crawler.Crawler
	m      *status.Monitor
	web    *crawlertest.Web
	site   *httptest.Server // the hostile site
	xssURL string           // its page titled scriptTitle

	cancel   context.CancelFunc
	done     chan error     // the crawl's Run result
	sampling sync.WaitGroup // the Monitor's Run
	mu       sync.Mutex
	titles   map[string]string // URL -> Page.Title, as the Handler saw them
	sites    int               // requests to the hostile site
}

func startCrawl(t *testing.T, s crawlSetup) *crawl {
	t.Helper()
	cr := &crawl{titles: map[string]string{}}
	cr.web = crawlertest.NewWeb(crawlertest.Config{
		Seed: 11, Hosts: 6, PagesPerHost: 40, PageBytes: 1024, OutDegree: 10,
		Latency: 10 * time.Millisecond,
		Behavior: func(h int) crawlertest.Behavior {
			switch h {
			case 2:
				return crawlertest.Behavior{ThrottleEvery: 4, RetryAfter: "1"}
			case 4:
				return crawlertest.Behavior{PageStatus: http.StatusServiceUnavailable}
			}
			return crawlertest.Behavior{}
		},
	})
	t.Cleanup(cr.web.Close)

	mux := http.NewServeMux()
	page := func(title, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			cr.mu.Lock()
			cr.sites++
			cr.mu.Unlock()
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			// <title> is RCDATA: its text is the markup as written.
			fmt.Fprintf(w, "<!doctype html><title>%s</title><body>%s</body>", title, body)
		}
	}
	mux.Handle("GET /{$}", page(scriptTitle, `<a href="/attr">attr</a> <a href="/gone">gone</a>`))
	mux.Handle("GET /attr", page(attrTitle, `<a href="/">home</a>`))
	cr.site = httptest.NewServer(mux)
	t.Cleanup(cr.site.Close)
	cr.xssURL = cr.site.URL + "/"

	siteAddr := netip.MustParseAddrPort(cr.site.Listener.Addr().String())
	tr := cr.web.Transport()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == siteAddr.String() {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		}
		return cr.web.DialContext(ctx, network, addr) // refuses all but the web
	}
	t.Cleanup(tr.CloseIdleConnections)

	cr.c = &crawler.Crawler{
		Fetcher: &fetch.HTTPFetcher{
			Client:    &http.Client{Transport: tr},
			Addresses: fetch.AddressPolicy{AllowAddrPorts: []netip.AddrPort{siteAddr}},
		},
		Pacing:   politeness.Pacing{Delay: 100 * time.Millisecond, DelayFactor: -1, Backoff: 200 * time.Millisecond, MaxBackoff: time.Second},
		Workers:  2,
		MaxPages: s.maxPages,
	}
	cr.m = status.New(cr.c, s.opts)
	cr.c.Handler = cr.m.Wrap(crawler.HandlerFunc(func(_ context.Context, p *crawler.Page) error {
		cr.mu.Lock()
		defer cr.mu.Unlock()
		cr.titles[p.URL] = p.Title
		return nil
	}))

	ctx, cancel := context.WithCancel(context.Background())
	cr.cancel = cancel
	cr.done = make(chan error, 1)
	if s.run {
		cr.sampling.Go(func() { cr.m.Run(ctx) })
	}
	go func() { cr.done <- cr.c.Run(ctx, cr.xssURL, cr.web.Seeds()[0]) }()
	t.Cleanup(cr.stop)
	return cr
}

// wait waits for the crawl to end by itself, and returns Run's error.
func (cr *crawl) wait() error {
	select {
	case err := <-cr.done:
		cr.done <- err
		return err
	case <-time.After(waitTimeout):
		return errors.New("still running after " + waitTimeout.String())
	}
}

// stop stops the crawl and the Monitor's sampling, and waits for both
// Runs to return.
func (cr *crawl) stop() {
	cr.cancel()
	err := <-cr.done
	cr.done <- err
	cr.sampling.Wait()
}

// requests returns the page requests the servers have answered.
func (cr *crawl) requests() int {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	return cr.web.TotalRequests() + cr.sites
}

// title returns the title the Handler saw for u.
func (cr *crawl) title(u string) string {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	return cr.titles[u]
}

// waitRetired waits until host is retired.
func (cr *crawl) waitRetired(t *testing.T, host string) {
	t.Helper()
	waitWithin(t, waitTimeout, host+" retired", func() bool {
		for _, h := range cr.c.HostStats() {
			if h.Host == host {
				return h.Retired != ""
			}
		}
		return false
	})
}

// waitPages waits until the Handler has seen n pages.
func (cr *crawl) waitPages(t *testing.T, n int) {
	t.Helper()
	waitWithin(t, waitTimeout, fmt.Sprintf("%d pages crawled", n), func() bool {
		cr.mu.Lock()
		defer cr.mu.Unlock()
		return len(cr.titles) >= n
	})
}

// statusJSON is the part of /status.json the tests read.
type statusJSON struct {
	Samples []json.RawMessage `json:"samples"`
	State   string            `json:"state"`
}

func getStatus(t *testing.T, u string) statusJSON {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	var s statusJSON
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return s
}

// tab is a tab of a headless browser of its own, with a viewport 1280
// pixels wide, that records what a page must never do: write an error to
// the console, throw an exception no code catches, fail to load something,
// or open a dialog (which the tab dismisses).
type tab struct {
	t   *testing.T
	ctx context.Context

	mu       sync.Mutex
	problems []string       // in the order first seen
	seen     map[string]int // problem -> times seen
}

func newTab(t *testing.T) *tab {
	t.Helper()
	path := browsertest.Need(t)
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // tests may run as root
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		// Keep the browser from calling home: only 127.0.0.1 is reached.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	ctx, cancelTab := chromedp.NewContext(ctx)
	tb := &tab{t: t, ctx: ctx, seen: map[string]int{}}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc() // waits for the browser to exit
		cancel()
		wg.Wait()
	})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	if err := chromedp.Listen(ctx, tb.listen); err != nil {
		t.Fatal(err)
	}
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	wg.Go(func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	})
	return tb
}

// listen records the events that are problems. It runs on the tab's
// reading goroutine, before any command that follows the event returns.
func (tb *tab) listen(ev any) {
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range e.Args {
				if len(a.Value) > 0 {
					args = append(args, string(a.Value))
				} else {
					args = append(args, a.Description)
				}
			}
			tb.problem("console.%s: %s", e.Type, strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		tb.problem("%v", &chromedp.ExceptionError{ExceptionDetails: e.ExceptionDetails})
	case *log.EventEntryAdded:
		if e.Entry.Level == log.EntryLevelError {
			tb.problem("browser log, %s: %s (%s)", e.Entry.Source, e.Entry.Text, e.Entry.URL)
		}
	case *page.EventJavascriptDialogOpening:
		tb.problem("%s dialog opened: %q", e.Type, e.Message)
	}
}

func (tb *tab) problem(format string, args ...any) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	p := fmt.Sprintf(format, args...)
	if tb.seen[p] == 0 {
		tb.problems = append(tb.problems, p)
	}
	tb.seen[p]++
}

// check fails the test for each problem recorded, once per text, and
// forgets them.
func (tb *tab) check() {
	tb.t.Helper()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, p := range tb.problems {
		tb.t.Errorf("page problem (%d×): %s", tb.seen[p], p)
	}
	tb.problems, tb.seen = nil, map[string]int{}
}

func (tb *tab) navigate(u string) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Navigate(u)); err != nil {
		tb.t.Fatalf("opening %s: %v", u, err)
	}
}

// eval evaluates the JavaScript expression, and returns its JSON value.
func (tb *tab) eval(expr string) any {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[any](expr))
	if err != nil {
		tb.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// text returns the trimmed textContent of the element sel selects, "" if
// none.
func (tb *tab) text(sel string) string {
	tb.t.Helper()
	return tb.eval(fmt.Sprintf(`(document.querySelector(%q)?.textContent ?? "").trim()`, sel)).(string)
}

func (tb *tab) exists(sel string) bool {
	tb.t.Helper()
	return tb.eval(fmt.Sprintf(`document.querySelector(%q) !== null`, sel)).(bool)
}

func (tb *tab) click(sel string) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		tb.t.Fatalf("clicking %s: %v", sel, err)
	}
}

func (tb *tab) sendKeys(sel, keys string) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, chromedp.SendKeys(chromedp.CSS(sel), keys)); err != nil {
		tb.t.Fatalf("typing into %s: %v", sel, err)
	}
}

// waitFor polls the JavaScript expression expr, a bool, until it is true.
// It fails the test, saying what the page shows, if that takes longer
// than waitTimeout.
func (tb *tab) waitFor(what, expr string) {
	tb.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		ok, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](expr))
		if err != nil {
			tb.check()
			tb.t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			tb.check()
			tb.t.Fatalf("timed out waiting for %s; the page shows %v", what, tb.eval(`({
				mode: document.body.dataset.mode, samples: document.body.dataset.samples,
				state: document.getElementById("state")?.textContent,
				error: document.getElementById("error")?.textContent})`))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screenshot saves a full-page PNG of the tab as name in the directory
// $CRAWLER_SCREENSHOTS, if set.
func (tb *tab) screenshot(name string) {
	tb.t.Helper()
	dir := os.Getenv("CRAWLER_SCREENSHOTS")
	if dir == "" {
		return
	}
	// Quality 100 makes a PNG; below, FullScreenshot makes a JPEG.
	png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
}
