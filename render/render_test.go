package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"crawler/fetch"
	"crawler/internal/leak"
	"crawler/internal/links"

	"github.com/chromedp/chromedp"
)

// scriptSite is a page whose links are all made by script: at once, after
// a timer, and from JSON fetched.
var scriptSite = map[string]resource{
	"/": html(`<!doctype html><html><head><title>script site</title>
<script src="/app.js"></script></head>
<body><p>static text</p><a href="/static">static</a>
<script>
document.body.insertAdjacentHTML("beforeend", '<a href="/at-once">at once</a>');
setTimeout(() => document.body.insertAdjacentHTML("beforeend", '<a href="/after-timer">timer</a>'), 100);
fetch("/links.json").then(r => r.json()).then(list => {
	for (const l of list) document.body.insertAdjacentHTML("beforeend", '<a href="' + l + '">from json</a>');
});
</script></body></html>`),
	"/app.js":     js(`document.addEventListener("DOMContentLoaded", () => document.body.insertAdjacentHTML("beforeend", '<a href="/from-app-js">app</a>'));`),
	"/links.json": {ctype: "application/json", body: `["/from-json-1", "/from-json-2"]`},
}

func hrefs(body []byte) []string {
	return links.Extract(body, true, "crawler", 0).Hrefs
}

func TestScriptLinks(t *testing.T) {
	t.Parallel()
	s := newSite(t, scriptSite)
	var paced sync.Map // host → calls
	f := newFetcher(t, s, func(f *Fetcher) {
		f.Pace = func(ctx context.Context, host string) error {
			n, _ := paced.LoadOrStore(host, new(atomic.Int64))
			n.(*atomic.Int64).Add(1)
			return nil
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := f.Fetch(ctx, &fetch.Request{URL: s.URL + "/", UserAgent: "rendertest/1.0"}) // its subresources' too
	if err != nil {
		t.Fatal(err)
	}

	got := hrefs(resp.Body)
	for _, want := range []string{"/static", "/at-once", "/after-timer", "/from-json-1", "/from-json-2", "/from-app-js"} {
		if !slices.Contains(got, want) {
			t.Errorf("link %s missing from the rendered page; links: %q", want, got)
		}
	}
	if !bytes.HasPrefix(resp.Body, []byte("<!DOCTYPE html><html>")) {
		t.Errorf("body starts %q", resp.Body[:min(len(resp.Body), 40)])
	}
	if n := s.count("/"); n != 1 {
		t.Errorf("page requested %d times, want 1", n)
	}
	if n := s.count("/links.json"); n != 1 {
		t.Errorf("/links.json requested %d times, want 1", n)
	}
	if resp.Status != 200 || resp.URL != s.URL+"/" {
		t.Errorf("status %d, URL %s", resp.Status, resp.URL)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if ua := s.userAgent("/links.json"); ua != "rendertest/1.0" {
		t.Errorf("User-Agent of the browser's request %q, want the Request's", ua)
	}
	host := s.Listener.Addr().String()
	if n, ok := paced.Load(host); !ok || n.(*atomic.Int64).Load() < 2 {
		t.Errorf("Pace not called for each request to %s", host)
	}
	st := f.Stats()
	if st.Rendered != 1 || st.Requests < 2 || st.Browsers != 1 || st.Errors != 0 {
		t.Errorf("stats: %v", st)
	}
	t.Logf("stats: %v; took %v", st, resp.Duration)

}

func TestAllowedBlocksRequests(t *testing.T) {
	t.Parallel()
	s := newSite(t, map[string]resource{
		"/": html(`<html><body><p>page</p>
<script src="/disallowed.js"></script>
<script src="/failing.js"></script>
<script src="/allowed.js"></script>
</body></html>`),
		"/disallowed.js": js(`document.body.insertAdjacentHTML("beforeend", '<a href="/from-disallowed">x</a>');`),
		"/failing.js":    js(`document.body.insertAdjacentHTML("beforeend", '<a href="/from-failing">x</a>');`),
		"/allowed.js":    js(`document.body.insertAdjacentHTML("beforeend", '<a href="/from-allowed">x</a>');`),
	})
	var asked []string
	var mu sync.Mutex
	f := newFetcher(t, s, func(f *Fetcher) {
		f.Allowed = func(ctx context.Context, u string) (bool, error) {
			mu.Lock()
			asked = append(asked, strings.TrimPrefix(u, s.URL))
			mu.Unlock()
			switch {
			case strings.HasSuffix(u, "/disallowed.js"):
				return false, nil
			case strings.HasSuffix(u, "/failing.js"):
				return true, errors.New("robots.txt unavailable")
			}
			return true, nil
		}
	})
	resp := get(t, f, s, "/")
	for _, p := range []string{"/disallowed.js", "/failing.js"} {
		if n := s.count(p); n != 0 {
			t.Errorf("%s requested %d times; Allowed refused it", p, n)
		}
	}
	got := hrefs(resp.Body)
	if slices.Contains(got, "/from-disallowed") || slices.Contains(got, "/from-failing") {
		t.Errorf("a refused script ran: links %q", got)
	}
	if !slices.Contains(got, "/from-allowed") || s.count("/allowed.js") != 1 {
		t.Errorf("the allowed script did not run: links %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if slices.Contains(asked, "/") {
		t.Errorf("Allowed was asked about the page itself: %q", asked)
	}
	if st := f.Stats(); st.BlockedRules != 2 {
		t.Errorf("BlockedRules = %d, want 2 (%v)", st.BlockedRules, st)
	}
}

// markJS defines mark(name), which adds <p id="m-name"> to the page: an
// element whose serialized form is not in the page's source, so that
// finding it shows the script ran.
const markJS = `<script>function mark(name) { const p = document.createElement("p"); p.id = "m-" + name; document.body.append(p); }</script>`

// marked reports whether body holds the element mark(name) added.
func marked(body []byte, name string) bool {
	return bytes.Contains(body, []byte(`<p id="m-`+name+`"></p>`))
}

// leakPage tries every way a page has to reach another server (the
// canary): an image, a script, fetch, an iframe, a redirect from its own
// site, a beacon, a prefetch, a popup and a WebSocket, which the
// interception cannot see.
var leakPage = map[string]resource{
	"/": html(`<html><head><link rel="prefetch" href="{{canary}}/prefetch"></head><body>` + markJS + `
<img src="{{canary}}/img.png">
<script src="{{canary}}/script.js"></script>
<script src="/redirect.js"></script>
<iframe src="{{canary}}/frame.html"></iframe>
<script>
mark("ran");
fetch("{{canary}}/fetch").catch(e => mark("fetch-failed"));
fetch("/to-canary").catch(e => mark("redirect-failed"));
navigator.sendBeacon("{{canary}}/beacon", "data");
window.open("{{canary}}/popup");
const ws = new WebSocket("ws://{{canaryhost}}/ws");
ws.onerror = () => mark("ws-failed");
ws.onopen = () => mark("ws-open");
</script></body></html>`),
	"/redirect.js": {serve: func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/redirected.js", http.StatusFound)
	}},
	"/redirected.js": js(`mark("after-redirect");`),
}

func TestCanaryGetsNothing(t *testing.T) {
	t.Parallel()
	canary := newSite(t, nil)
	pages := withCanary(leakPage, canary)
	pages["/to-canary"] = resource{serve: func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, canary.URL+"/redirected", http.StatusFound)
	}}
	s := newSite(t, pages)
	// Everything that can be let through is, so that only the address
	// policy stands between the page and the canary.
	f := newFetcher(t, s, func(f *Fetcher) {
		f.LoadMedia = true
		f.Navigate = func(string) bool { return true }
		f.guardsOff = guards{lna: true} // see TestNetworkGuards
	})
	resp := get(t, f, s, "/")
	for _, m := range []string{"ran", "fetch-failed", "redirect-failed", "ws-failed", "after-redirect"} {
		if !marked(resp.Body, m) {
			t.Errorf("mark %s missing: the page did not run as expected:\n%s", m, resp.Body)
		}
	}
	if marked(resp.Body, "ws-open") {
		t.Error("the WebSocket to the canary opened")
	}
	if n := canary.total(); n != 0 {
		t.Errorf("the canary got %d requests: %v", n, canary.hits)
	}
	st := f.Stats()
	// img, script, iframe, fetch, the redirect's target
	if st.BlockedAddress < 5 {
		t.Errorf("BlockedAddress = %d, want at least 5 (%v)", st.BlockedAddress, st)
	}
	if st.BlockedOther < 1 { // the beacon (POST); the prefetch, if made
		t.Errorf("BlockedOther = %d, want at least 1 (%v)", st.BlockedOther, st)
	}
	t.Logf("stats: %v", st)
}

// TestNetworkGuards shows that the WebSocket of TestCanaryGetsNothing,
// which no interception sees, is stopped by each of the browser's network
// guards (the resolver that resolves nothing, the dead proxy) alone, and
// not by chance: without them, the browser connects to the canary itself.
// Chromium's Local Network Access checks are off throughout: they would
// stop a connection to the canary on loopback, but not to a public
// address.
func TestNetworkGuards(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("four browsers (both network guards, each alone, none) opening a WebSocket: about 5 s; -short keeps TestCanaryGetsNothing")
	}
	canary := newSite(t, nil)
	s := newSite(t, withCanary(map[string]resource{
		"/": html(`<html><body>` + markJS + `<script>
const ws = new WebSocket("ws://{{canaryhost}}/ws");
ws.onerror = () => mark("ws-failed");
ws.onopen = () => mark("ws-open");
</script></body></html>`),
	}, canary))
	for _, c := range []struct {
		name string
		off  guards
	}{
		{"all", guards{lna: true}},
		{"proxy", guards{lna: true, resolver: true}},
		{"resolver", guards{lna: true, proxy: true}},
		{"none", guards{lna: true, proxy: true, resolver: true}},
	} {
		t.Run("guards="+c.name, func(t *testing.T) {
			f := newFetcher(t, s, func(f *Fetcher) { f.guardsOff = c.off })
			before := canary.total()
			resp := get(t, f, s, "/")
			n := canary.total() - before
			guarded := !c.off.proxy || !c.off.resolver
			switch {
			case guarded && (n != 0 || !marked(resp.Body, "ws-failed")):
				t.Errorf("the canary got %d requests; the WebSocket failed: %v", n, marked(resp.Body, "ws-failed"))
			case !guarded && n == 0:
				t.Errorf("without guards, the canary got no request: the WebSocket check proves nothing; page:\n%s", resp.Body)
			}
		})
	}
}

func TestWebRTCSendsNothing(t *testing.T) {
	t.Parallel()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	var packets atomic.Int64
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			packets.Add(1)
		}
	}()
	port := strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
	s := newSite(t, map[string]resource{
		"/": html(strings.ReplaceAll(`<html><body><script>
(async () => {
	const a = new RTCPeerConnection({iceServers: [{urls: "stun:127.0.0.1:PORT"}]});
	a.createDataChannel("x");
	let candidates = 0;
	a.onicecandidate = e => { if (e.candidate) candidates++; };
	const offer = await a.createOffer();
	await a.setLocalDescription(offer);
	const b = new RTCPeerConnection();
	await b.setRemoteDescription(offer);
	await b.setLocalDescription(await b.createAnswer());
	await b.addIceCandidate({candidate: "candidate:1 1 udp 2122260223 127.0.0.1 PORT typ host", sdpMid: "0", sdpMLineIndex: 0});
	setTimeout(() => document.body.insertAdjacentHTML("beforeend", '<p id="done">' + candidates + ' candidates</p>'), 1000);
})().catch(e => document.body.insertAdjacentHTML("beforeend", '<p id="done">error ' + e + '</p>'));
</script></body></html>`, "PORT", port)),
	})
	f := newFetcher(t, s, func(f *Fetcher) {
		f.WaitSelector = "#done"
		f.guardsOff = guards{lna: true} // only the WebRTC policy may stop it
	})
	resp := get(t, f, s, "/")
	body := string(resp.Body)
	if !strings.Contains(body, `<p id="done">0 candidates</p>`) {
		t.Errorf("WebRTC gathered candidates or failed:\n%s", body)
	}
	if n := packets.Load(); n != 0 {
		t.Errorf("the UDP canary got %d packets", n)
	}
}

func TestMedia(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a browser per LoadMedia case, with and without media: about 3 s")
	}
	pages := map[string]resource{
		"/":        html(`<html><body><img src="/img.png"><video src="/clip.webm"></video><p>page</p></body></html>`),
		"/img.png": {ctype: "image/png", body: "not really a png"},
	}
	for _, load := range []bool{false, true} {
		t.Run(fmt.Sprintf("LoadMedia=%v", load), func(t *testing.T) {
			s := newSite(t, pages)
			f := newFetcher(t, s, func(f *Fetcher) { f.LoadMedia = load })
			get(t, f, s, "/")
			want := 0
			if load {
				want = 1
			}
			if n := s.count("/img.png"); n != want {
				t.Errorf("image requested %d times, want %d", n, want)
			}
			if !load && (s.count("/clip.webm") != 0 || s.count("/favicon.ico") != 0) {
				t.Errorf("media requested: %v", s.hits)
			}
			if st := f.Stats(); !load && st.BlockedMedia < 2 {
				t.Errorf("BlockedMedia = %d, want at least 2", st.BlockedMedia)
			}
		})
	}
}

// movingPages move by script to another URL, and hold frames of their
// own site and of the canary.
var movingPages = map[string]resource{
	"/a": html(`<html><body><p id="a">page a</p><a href="/link-a">a</a>
<iframe src="/frame.html"></iframe>
<iframe src="{{canary}}/frame.html"></iframe>
<script>setTimeout(() => { location = "/refused"; }, 50);</script></body></html>`),
	"/b": html(`<html><body><p id="b">page b</p>
<script>setTimeout(() => { location.href = "/allowed-move/"; }, 50);</script></body></html>`),
	"/frame.html":    html(`<html><body>frame<script src="/frame.js"></script></body></html>`),
	"/frame.js":      js(`1`),
	"/refused":       html(`<html><body>refused</body></html>`),
	"/allowed-move/": html(`<html><body><p id="moved">moved</p><a href="next">next</a></body></html>`),
}

func TestNavigation(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a browser per case of pages that navigate away: about 3 s")
	}
	canary := newSite(t, nil)

	t.Run("default", func(t *testing.T) {
		s := newSite(t, withCanary(movingPages, canary))
		f := newFetcher(t, s, nil)
		resp := get(t, f, s, "/a")
		if !strings.Contains(string(resp.Body), `<p id="a">page a</p>`) {
			t.Errorf("the page moved away:\n%s", resp.Body)
		}
		if n := s.count("/refused"); n != 0 {
			t.Errorf("/refused requested %d times", n)
		}
		if s.count("/frame.html") != 1 || s.count("/frame.js") != 1 {
			t.Errorf("the frame of the page's own origin was not loaded with its script: %v", s.hits)
		}
		if n := canary.total(); n != 0 {
			t.Errorf("the canary got %d requests", n)
		}
		if st := f.Stats(); st.BlockedNavigation != 2 || st.BlockedAddress != 0 || st.Unsettled != 0 {
			t.Errorf("want 2 navigations blocked, no address, settled: %v", st)
		}
	})

	t.Run("Navigate", func(t *testing.T) {
		s := newSite(t, withCanary(movingPages, canary))
		var mu sync.Mutex
		var asked []string
		f := newFetcher(t, s, func(f *Fetcher) {
			f.Navigate = func(u string) bool {
				mu.Lock()
				asked = append(asked, strings.TrimPrefix(u, s.URL))
				mu.Unlock()
				return strings.Contains(u, "/allowed-move/")
			}
		})
		resp := get(t, f, s, "/a")
		if !strings.Contains(string(resp.Body), "page a") || s.count("/refused") != 0 {
			t.Errorf("a refused move happened: %d requests, body:\n%s", s.count("/refused"), resp.Body)
		}
		resp = get(t, f, s, "/b")
		body := string(resp.Body)
		if !strings.Contains(body, `<p id="moved">moved</p>`) {
			t.Errorf("the allowed move did not happen:\n%s", body)
		}
		// The links of the document moved to resolve against its URL.
		if !strings.Contains(body, `<base href="`+s.URL+`/allowed-move/">`) {
			t.Errorf("no <base> for the document moved to:\n%s", body)
		}
		if resp.URL != s.URL+"/b" || resp.Status != 200 {
			t.Errorf("response of %s, status %d; want the page's own", resp.URL, resp.Status)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, want := range []string{"/refused", "/frame.html", "/allowed-move/"} {
			if !slices.Contains(asked, want) {
				t.Errorf("Navigate not asked about %s: %q", want, asked)
			}
		}
		if slices.Contains(asked, "/a") || slices.Contains(asked, "/b") {
			t.Errorf("Navigate asked about the page itself: %q", asked)
		}
	})
}

func TestPassThrough(t *testing.T) {
	t.Parallel()
	s := newSite(t, map[string]resource{
		"/data.json": {ctype: "application/json", body: `{"a": 1}`},
		"/text":      {ctype: "text/plain", body: `<a href="/x">not html</a>`},
		"/norender":  html(`<html><body><script>document.write("script ran")</script></body></html>`),
	})
	f := newFetcher(t, s, func(f *Fetcher) {
		f.Render = func(u string) bool { return !strings.HasSuffix(u, "/norender") }
	})
	for _, c := range []struct {
		path, body string
		status     int
	}{
		{"/data.json", `{"a": 1}`, 200},
		{"/text", `<a href="/x">not html</a>`, 200},
		{"/norender", `<html><body><script>document.write("script ran")</script></body></html>`, 200},
		{"/missing", "404 page not found\n", 404},
	} {
		resp := get(t, f, s, c.path)
		if resp.Status != c.status || string(resp.Body) != c.body {
			t.Errorf("%s: status %d body %q, want %d %q", c.path, resp.Status, resp.Body, c.status, c.body)
		}
	}
	if st := f.Stats(); st.Passed != 4 || st.Rendered != 0 || st.Browsers != 0 {
		t.Errorf("want 4 passed and no browser started: %v", st)
	}
	f.mu.Lock()
	started := f.b != nil || f.start != nil
	f.mu.Unlock()
	if started {
		t.Error("the browser was started")
	}
}

func TestTabsBound(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("nine browser renders of a slow script, under a tab bound: about 6 s")
	}
	pages := map[string]resource{
		"/slow.js": {serve: func(w http.ResponseWriter, r *http.Request) {
			// A slow server, so that renders overlap.
			select {
			case <-time.After(150 * time.Millisecond):
			case <-r.Context().Done():
			}
			w.Header().Set("Content-Type", "text/javascript")
			w.Write([]byte(`document.body.insertAdjacentHTML("beforeend", '<a href="/slow-done">x</a>')`))
		}},
	}
	const pagesN = 8
	for i := range pagesN {
		pages["/p"+strconv.Itoa(i)] = html(`<html><body><script src="/slow.js"></script></body></html>`)
	}
	s := newSite(t, pages)
	const tabs = 2
	f := newFetcher(t, s, func(f *Fetcher) { f.Tabs = tabs })
	get(t, f, s, "/p0") // starts the browser

	// Watch the browser's own count of pages while the renders run.
	f.mu.Lock()
	b := f.b
	f.mu.Unlock()
	stop := make(chan struct{})
	seen := make(chan int)
	go func() {
		most := 0
		for {
			infos, err := chromedp.Targets(b.ctx)
			if err == nil {
				n := 0
				for _, info := range infos {
					if info.Type == "page" && info.URL != "about:blank" {
						n++
					}
				}
				most = max(most, n)
			}
			select {
			case <-stop:
				seen <- most
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()

	var wg sync.WaitGroup
	for i := range pagesN {
		wg.Go(func() {
			resp := get(t, f, s, "/p"+strconv.Itoa(i))
			if !slices.Contains(hrefs(resp.Body), "/slow-done") {
				t.Errorf("/p%d: script did not run", i)
			}
		})
	}
	wg.Wait()
	close(stop)
	most := <-seen
	st := f.Stats()
	if st.PeakTabs != tabs {
		t.Errorf("PeakTabs = %d, want %d", st.PeakTabs, tabs)
	}
	if most > tabs {
		t.Errorf("the browser had %d pages open at once, Tabs is %d", most, tabs)
	}
	if st.Rendered != pagesN+1 {
		t.Errorf("stats: %v", st)
	}
	t.Logf("most pages open in the browser: %d; stats: %v", most, st)
}

func TestCancel(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	s := newSite(t, map[string]resource{
		"/":        html(`<html><body><script src="/hang.js"></script></body></html>`),
		"/hang.js": {serve: func(w http.ResponseWriter, r *http.Request) { <-release }},
	})
	defer close(release)
	f := newFetcher(t, s, func(f *Fetcher) { f.MaxWait = time.Minute })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := warm(ctx, f, s); err != nil {
		t.Fatal(err)
	}

	ctx, cancel = context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := f.Fetch(ctx, &fetch.Request{URL: s.URL + "/"})
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want one wrapping context.DeadlineExceeded", err)
	}
	if took > 700*time.Millisecond+5*time.Second { // hanging would take the minute of MaxWait
		t.Errorf("Fetch returned %v after it was cancelled", took-700*time.Millisecond)
	}
	t.Logf("returned after %v: %v", took, err)
}

// warm starts f's browser.
func warm(ctx context.Context, f *Fetcher, s *site) error {
	_, err := f.browser(ctx)
	return err
}

func TestClose(t *testing.T) {
	leak.Check(t)
	s := newSite(t, scriptSite)
	f := newFetcher(t, s, nil)
	get(t, f, s, "/")
	f.mu.Lock()
	pid := f.b.pid
	f.mu.Unlock()
	dir := userDataDir(t, pid)
	if dir == "" {
		t.Fatalf("no --user-data-dir for process %d", pid)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
		t.Errorf("browser process %d still exists", pid)
	}
	if procs := processesUsing(dir); len(procs) > 0 {
		t.Errorf("processes of the browser left: %v", procs)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("profile directory %s left (%v)", dir, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := f.Fetch(ctx, &fetch.Request{URL: s.URL + "/"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Fetch after Close: %v, want ErrClosed", err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestCloseDuringRender(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	s := newSite(t, map[string]resource{
		"/":        html(`<html><body><script src="/hang.js"></script></body></html>`),
		"/hang.js": {serve: func(w http.ResponseWriter, r *http.Request) { <-release }},
	})
	defer close(release)
	f := newFetcher(t, s, func(f *Fetcher) { f.MaxWait = time.Minute })
	started := make(chan struct{})
	var once sync.Once
	f.Pace = func(ctx context.Context, host string) error {
		once.Do(func() { close(started) })
		return nil
	}
	errc := make(chan error, 1)
	go func() {
		_, err := f.Fetch(context.Background(), &fetch.Request{URL: s.URL + "/"})
		errc <- err
	}()
	select {
	case <-started: // the page is loading
	case err := <-errc:
		t.Fatalf("Fetch returned early: %v", err)
	}
	start := time.Now()
	f.Close()
	select {
	case err := <-errc:
		var fe *fetch.FetchError
		if !errors.As(err, &fe) || fe.Op != "render" {
			t.Errorf("Fetch during Close: %v, want a render error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Fetch did not return after Close")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Close took %v", took)
	}
}

func TestBrowserDies(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a browser killed and started again: about 2.5 s")
	}
	s := newSite(t, scriptSite)
	f := newFetcher(t, s, nil)
	get(t, f, s, "/")
	f.mu.Lock()
	b := f.b
	f.mu.Unlock()
	if err := syscall.Kill(b.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-b.ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the browser's death went unnoticed")
	}
	resp := get(t, f, s, "/")
	if !slices.Contains(hrefs(resp.Body), "/from-json-1") {
		t.Errorf("render after a restart: %s", resp.Body)
	}
	if st := f.Stats(); st.Browsers != 2 {
		t.Errorf("Browsers = %d, want 2", st.Browsers)
	}
}

func TestRenderErrors(t *testing.T) {
	t.Parallel()
	s := newSite(t, scriptSite)
	t.Run("no browser", func(t *testing.T) {
		f := &Fetcher{Fetcher: onlySite(s), ExecPath: "/nonexistent/chromium"}
		defer f.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := f.Fetch(ctx, &fetch.Request{URL: s.URL + "/"})
		var fe *fetch.FetchError
		if !errors.As(err, &fe) || fe.Op != "render" || !strings.Contains(err.Error(), "start browser") {
			t.Errorf("err = %v, want a render error saying the browser did not start", err)
		}
		if st := f.Stats(); st.Errors != 1 {
			t.Errorf("Errors = %d", st.Errors)
		}
	})
	t.Run("bad selector", func(t *testing.T) {
		f := newFetcher(t, s, func(f *Fetcher) { f.WaitSelector = "a[" })
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := f.Fetch(ctx, &fetch.Request{URL: s.URL + "/"})
		if err == nil || !strings.Contains(err.Error(), "wait: selector") {
			t.Errorf("err = %v, want one naming the selector", err)
		}
	})
}

func TestMaxWaitAndCap(t *testing.T) {
	t.Parallel()
	s := newSite(t, map[string]resource{
		// The script comes first: the page itself is cut at the cap too.
		"/": html(`<html><body><script>
setInterval(() => fetch("/poll"), 50);
document.body.insertAdjacentHTML("beforeend", "<p>" + "y".repeat(5000) + "</p>");
</script></body></html>`),
		"/poll": {ctype: "text/plain", body: "ok"},
	})
	// Polls 50 ms apart, Idle 500 ms: however late a loaded machine runs
	// a poll, the page never goes a whole Idle without a request.
	f := newFetcher(t, s, func(f *Fetcher) { f.MaxWait, f.Idle = 800*time.Millisecond, 500*time.Millisecond })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := f.Fetch(ctx, &fetch.Request{URL: s.URL + "/", MaxBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Body) != 1000 || !resp.Truncated || !bytes.Contains(resp.Body, []byte("yyyy")) {
		t.Errorf("body of %d bytes, truncated %v; want 1000, true", len(resp.Body), resp.Truncated)
	}
	if st := f.Stats(); st.Unsettled != 1 || s.count("/poll") < 3 {
		t.Errorf("Unsettled = %d after %d polls, want 1 (a page that polls never settles)", st.Unsettled, s.count("/poll"))
	}
}

func TestFindBrowser(t *testing.T) {
	path := needBrowser(t)
	t.Setenv(BrowserEnv, "/nonexistent/browser")
	if _, err := FindBrowser(); !errors.Is(err, ErrNoBrowser) {
		t.Errorf("FindBrowser with a bad %s: %v", BrowserEnv, err)
	}
	t.Setenv(BrowserEnv, path)
	if got, err := FindBrowser(); err != nil || got != path {
		t.Errorf("FindBrowser = %q, %v; want %q", got, err, path)
	}
}

// userDataDir returns the --user-data-dir of process pid.
func userDataDir(t *testing.T, pid int) string {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	for arg := range bytes.SplitSeq(cmdline, []byte{0}) {
		if dir, ok := strings.CutPrefix(string(arg), "--user-data-dir="); ok {
			return dir
		}
	}
	return ""
}

// processesUsing returns the processes whose command line names dir as
// their user data directory.
func processesUsing(dir string) []string {
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(cmdline, []byte("--user-data-dir="+dir+"\x00")) {
			found = append(found, e.Name())
		}
	}
	return found
}
