package crawlertest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/html"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/internal/browsertest"
	"crawler/politeness"
)

// scriptGet fetches path from s, failing the test on a transport error,
// and returns the response (body closed) and its body.
func scriptGet(t *testing.T, s *crawlertest.ScriptSite, path string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(s.URL() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp, body
}

// scriptPaths returns every path the site serves with 200.
func scriptPaths(s *crawlertest.ScriptSite) []string {
	paths := []string{"/robots.txt", "/static/logo.png", "/api/links.json", "/js/private/1", "/js/private/2"}
	for _, u := range append(s.StaticPages(), s.ScriptOnlyPages()...) {
		paths = append(paths, strings.TrimPrefix(u, s.URL()))
	}
	for _, u := range s.ScriptOnlyPages() {
		if n, ok := strings.CutPrefix(u, s.URL()+"/js/fetch/"); ok {
			paths = append(paths, "/api/fetch/"+n+".json")
		}
	}
	return append(paths, s.Forbidden()...)
}

// TestScriptSiteWithoutRendering crawls the site with the crawler, which
// does not run scripts: it must fetch exactly StaticPages (and robots.txt),
// nothing that scripts reference, and nothing of the canary.
func TestScriptSiteWithoutRendering(t *testing.T) {
	s := crawlertest.NewScriptSite(crawlertest.ScriptConfig{})
	defer s.Close()
	var mu sync.Mutex
	var got []string
	c := &crawler.Crawler{
		Handler: crawler.HandlerFunc(func(_ context.Context, p *crawler.Page) error {
			if p.Err != nil || p.Status != http.StatusOK {
				t.Errorf("%s: status %d, err %v", p.URL, p.Status, p.Err)
			}
			mu.Lock()
			defer mu.Unlock()
			got = append(got, p.URL)
			return nil
		}),
		Pacing:  politeness.Pacing{Delay: -1, DelayFactor: -1, Backoff: -1},
		Workers: 4,
		Fetcher: &fetch.HTTPFetcher{Addresses: fetch.AddressPolicy{
			Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Run(ctx, s.Seed()); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	want := s.StaticPages()
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("crawled %q\nwant %q", got, want)
	}
	wantReqs := map[string]int{"/robots.txt": 1}
	for _, u := range want {
		wantReqs[strings.TrimPrefix(u, s.URL())] = 1
	}
	if reqs := s.RequestCounts(); !maps.Equal(reqs, wantReqs) {
		t.Errorf("requests %v\nwant %v", reqs, wantReqs)
	}
	for _, u := range s.ScriptOnlyPages() {
		if n := s.Requests(strings.TrimPrefix(u, s.URL())); n != 0 {
			t.Errorf("%s requested %d times", u, n)
		}
	}
	for _, p := range s.Forbidden() {
		if n := s.Requests(p); n != 0 {
			t.Errorf("forbidden %s requested %d times", p, n)
		}
	}
	if n := s.CanaryRequests(); n != 0 {
		t.Errorf("canary got %d requests", n)
	}
}

// TestScriptSiteDeterministic checks that two sites of a config are the
// same but for their ports, and that the truth has the documented sizes.
func TestScriptSiteDeterministic(t *testing.T) {
	for _, pages := range []int{0, 1, 7} {
		t.Run("pages="+strconv.Itoa(pages), func(t *testing.T) {
			cfg := crawlertest.ScriptConfig{Pages: pages}
			a, b := crawlertest.NewScriptSite(cfg), crawlertest.NewScriptSite(cfg)
			defer a.Close()
			defer b.Close()
			if a.Addr() == b.Addr() || a.CanaryAddr() == a.Addr() {
				t.Fatalf("addresses %s, %s, canary %s", a.Addr(), b.Addr(), a.CanaryAddr())
			}
			// norm rewrites a's origin and canary into b's.
			norm := strings.NewReplacer(a.URL(), b.URL(), a.CanaryAddr(), b.CanaryAddr()).Replace
			normAll := func(us []string) []string {
				out := make([]string, len(us))
				for i, u := range us {
					out[i] = norm(u)
				}
				return out
			}
			if got, want := normAll(a.StaticPages()), b.StaticPages(); !slices.Equal(got, want) {
				t.Errorf("StaticPages: %q vs %q", got, want)
			}
			if got, want := normAll(a.ScriptOnlyPages()), b.ScriptOnlyPages(); !slices.Equal(got, want) {
				t.Errorf("ScriptOnlyPages: %q vs %q", got, want)
			}
			if got, want := a.Forbidden(), b.Forbidden(); !slices.Equal(got, want) {
				t.Errorf("Forbidden: %q vs %q", got, want)
			}
			pa, pb := a.Products(), b.Products()
			if len(pa) != len(pb) {
				t.Errorf("Products: %d pages vs %d", len(pa), len(pb))
			}
			for u, names := range pa {
				if !slices.Equal(names, pb[norm(u)]) {
					t.Errorf("Products[%s] = %q vs %q", u, names, pb[norm(u)])
				}
			}
			for _, p := range scriptPaths(a) {
				ra, ba := scriptGet(t, a, p)
				rb, bb := scriptGet(t, b, p)
				if ra.StatusCode != rb.StatusCode || !bytes.Equal([]byte(norm(string(ba))), bb) {
					t.Errorf("%s differs: %s vs %s\n%s\n----\n%s", p, ra.Status, rb.Status, ba, bb)
				}
			}

			// Sizes.
			n := scriptOr(pages, crawlertest.DefaultScriptPages)
			if got := len(a.StaticPages()); got != 1+crawlertest.ScriptStaticPages {
				t.Errorf("%d static pages", got)
			}
			if got := len(a.ScriptOnlyPages()); got != 3*n {
				t.Errorf("%d script-only pages, want %d", got, 3*n)
			}
			var all []string
			for _, u := range a.ScriptOnlyPages() {
				names := pa[u]
				if len(names) < 2 || len(names) > 4 {
					t.Errorf("%s: %d products", u, len(names))
				}
				all = append(all, names...)
			}
			if len(pa) != len(a.ScriptOnlyPages()) {
				t.Errorf("Products has %d pages, want %d", len(pa), len(a.ScriptOnlyPages()))
			}
			for i, name := range all { // numbered from 1 in page order
				if want := "Product " + strconv.Itoa(i+1); name != want {
					t.Fatalf("product %d is %q, want %q", i, name, want)
				}
			}
			t.Logf("%d static pages, %d script-only pages, %d products", len(a.StaticPages()), len(a.ScriptOnlyPages()), len(all))
		})
	}
}

// scriptOr returns v, or def if v is 0.
func scriptOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// scriptDoc is what a page's HTML, as served, holds.
type scriptDoc struct {
	links    []string // href of <a> and <area>, and src of every element, as written
	classes  []string // every class token
	scripts  []string // inline scripts' text
	srcs     []string // src of <script>
	products []string // texts of .product .name
}

func scriptParse(t *testing.T, body []byte) scriptDoc {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var d scriptDoc
	for n := range root.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		for _, a := range n.Attr {
			switch {
			case a.Key == "href" || a.Key == "src":
				d.links = append(d.links, a.Val)
				if n.Data == "script" {
					d.srcs = append(d.srcs, a.Val)
				}
			case a.Key == "class":
				d.classes = append(d.classes, strings.Fields(a.Val)...)
				if scriptHasClass(n, "name") && n.Parent != nil && scriptHasClass(n.Parent, "product") {
					d.products = append(d.products, scriptText(n))
				}
			}
		}
		if n.Data == "script" && n.FirstChild != nil {
			d.scripts = append(d.scripts, n.FirstChild.Data)
		}
	}
	return d
}

func scriptHasClass(n *html.Node, c string) bool {
	for _, a := range n.Attr {
		if a.Key == "class" && slices.Contains(strings.Fields(a.Val), c) {
			return true
		}
	}
	return false
}

func scriptText(n *html.Node) string {
	var b strings.Builder
	for c := range n.Descendants() {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// TestScriptSitePages checks the site as served: content types, that no
// page's HTML has a product or a link to a script-made page, and that each
// script-made page carries the script that builds its content.
func TestScriptSitePages(t *testing.T) {
	s := crawlertest.NewScriptSite(crawlertest.ScriptConfig{Latency: time.Millisecond})
	defer s.Close()

	wantCT := func(p string) string {
		switch {
		case strings.HasSuffix(p, ".png"):
			return "image/png"
		case strings.HasSuffix(p, ".json"):
			return "application/json; charset=utf-8"
		case strings.HasSuffix(p, ".js"):
			return "text/javascript; charset=utf-8"
		case p == "/robots.txt":
			return "text/plain; charset=utf-8"
		}
		return "text/html; charset=utf-8"
	}
	for _, p := range scriptPaths(s) {
		resp, body := scriptGet(t, s, p)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != wantCT(p) || len(body) == 0 {
			t.Errorf("%s: %s, %q, %d bytes", p, resp.Status, resp.Header.Get("Content-Type"), len(body))
		}
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			continue
		}
		d := scriptParse(t, body)
		if len(d.products) > 0 || slices.Contains(d.classes, "product") {
			t.Errorf("%s: products in the HTML: %q", p, d.products)
		}
		for _, l := range d.links {
			u, err := url.Parse(l)
			if err != nil || strings.Contains(u.Path, "/js/") || u.Host != "" && u.Host != s.CanaryAddr() {
				t.Errorf("%s: HTML references %q", p, l)
			}
		}
	}
	for _, p := range []string{"/nosuch", "/js/now/0", "/js/now/6", "/static/1?x=1", "/api/fetch/0.json"} {
		resp, _ := scriptGet(t, s, p)
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("%s: %s, %q", p, resp.Status, resp.Header.Get("Content-Type"))
		}
	}
	resp, err := http.Post(s.Seed(), "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %s", resp.Status)
	}

	// The home page: static links to the static pages only; the scripts.
	_, body := scriptGet(t, s, "/")
	home := scriptParse(t, body)
	var static []string
	for _, u := range s.StaticPages()[1:] {
		static = append(static, strings.TrimPrefix(u, s.URL()))
	}
	for _, want := range append(static, "/static/logo.png", "/private/pixel.png", "http://"+s.CanaryAddr()+"/img.png", "/private/tracker.js") {
		if !slices.Contains(home.links, want) {
			t.Errorf("home does not reference %s: %q", want, home.links)
		}
	}
	if len(home.scripts) != 1 {
		t.Fatalf("home has %d inline scripts", len(home.scripts))
	}
	for _, want := range []string{"add('js/now/1'", "location.origin + '/js/timer/1'", "fetch('/api/links.json')",
		"fetch('/private/data.json')", "fetch('http://" + s.CanaryAddr() + "/beacon'", "}, 300);"} {
		if !strings.Contains(home.scripts[0], want) {
			t.Errorf("home's script lacks %s", want)
		}
	}
	var links struct{ Links []struct{ Href, Text string } }
	if _, body := scriptGet(t, s, "/api/links.json"); json.Unmarshal(body, &links) != nil ||
		len(links.Links) != 1 || links.Links[0].Href != "/js/fetch/1" {
		t.Errorf("/api/links.json: %s", body)
	}

	// Script-made pages: one inline script each, building the products.
	products := s.Products()
	for _, u := range s.ScriptOnlyPages() {
		p := strings.TrimPrefix(u, s.URL())
		resp, body := scriptGet(t, s, p)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %s", p, resp.Status)
		}
		d := scriptParse(t, body)
		if len(d.scripts) != 1 || len(d.srcs) != 0 {
			t.Errorf("%s: %d inline scripts, %d external", p, len(d.scripts), len(d.srcs))
			continue
		}
		script := d.scripts[0]
		names := products[u]
		kind, n, _ := strings.Cut(strings.TrimPrefix(p, "/js/"), "/")
		if kind == "fetch" {
			api := "/api/fetch/" + n + ".json"
			if !strings.Contains(script, "fetch('"+api+"')") {
				t.Errorf("%s: script does not fetch %s", p, api)
			}
			var data struct {
				Products []struct{ Name, Price string }
				Next     string
			}
			_, body := scriptGet(t, s, api)
			if err := json.Unmarshal(body, &data); err != nil {
				t.Fatalf("%s: %v: %s", api, err, body)
			}
			var got []string
			for _, p := range data.Products {
				got = append(got, p.Name)
			}
			if !slices.Equal(got, names) {
				t.Errorf("%s: products %q, want %q", api, got, names)
			}
			continue
		}
		first := strings.TrimPrefix(names[0], "Product ")
		call := fmt.Sprintf("build(products(%s, [", first)
		i := strings.Index(script, call)
		if i < 0 {
			t.Errorf("%s: script lacks %s", p, call)
			continue
		}
		prices := script[i+len(call):]
		prices = prices[:strings.IndexByte(prices, ']')]
		if got := len(strings.Split(prices, ",")); got != len(names) {
			t.Errorf("%s: script makes %d products, want %d", p, got, len(names))
		}
		if timer := strings.Contains(script, "setTimeout("); timer != (kind == "timer") {
			t.Errorf("%s: script sets a timer: %v", p, timer)
		}
	}
}

// TestScriptSiteLatency checks that Latency delays responses, and that
// Close cuts the waits short.
func TestScriptSiteLatency(t *testing.T) {
	s := crawlertest.NewScriptSite(crawlertest.ScriptConfig{Latency: 50 * time.Millisecond})
	start := time.Now()
	if resp, _ := scriptGet(t, s, "/"); resp.StatusCode != http.StatusOK {
		t.Fatal(resp.Status)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("answered in %v", d)
	}
	s.Close()
	s.Close()
	if n := s.Requests("/"); n != 1 {
		t.Errorf("Requests after Close: %d", n)
	}

	s = crawlertest.NewScriptSite(crawlertest.ScriptConfig{Latency: time.Hour})
	errc := make(chan error, 1)
	go func() {
		resp, err := http.Get(s.Seed())
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	for s.Requests("/") == 0 {
		time.Sleep(time.Millisecond)
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waits for the latency")
	}
	if err := <-errc; err == nil {
		t.Error("a request cut short by Close got a response")
	}
	if _, err := http.Get(s.Seed()); err == nil {
		t.Error("the site answers after Close")
	}
	if _, err := http.Get("http://" + s.CanaryAddr() + "/"); err == nil {
		t.Error("the canary answers after Close")
	}
}

func TestScriptSiteCanary(t *testing.T) {
	s := crawlertest.NewScriptSite(crawlertest.ScriptConfig{})
	defer s.Close()
	for i, p := range []string{"/beacon", "/img.png", "/anything?x=1"} {
		resp, err := http.Get("http://" + s.CanaryAddr() + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Errorf("%s: %s", p, resp.Status)
		}
		if n := s.CanaryRequests(); n != i+1 {
			t.Errorf("CanaryRequests = %d, want %d", n, i+1)
		}
	}
	if len(s.RequestCounts()) != 0 {
		t.Errorf("the site counted %v", s.RequestCounts())
	}
}

func TestNewScriptSitePanics(t *testing.T) {
	for _, pages := range []int{-1, crawlertest.MaxScriptPages + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Pages %d: no panic", pages)
				}
			}()
			crawlertest.NewScriptSite(crawlertest.ScriptConfig{Pages: pages}).Close()
		}()
	}
}

// TestScriptSiteRendered crawls the site with a browser that runs every
// script and loads everything (no robots.txt, no address policy): a
// rendering crawler that polices nothing. It must reach ScriptOnlyPages,
// see the products of Products, and, taking the bait, request every
// Forbidden path and the canary and reach the /js/private/ pages. This is
// what makes the site's traps meaningful: a policing renderer must show 0
// where this one does not. The browser is chromium, as in package
// status's tests (CRAWLER_BROWSER, CRAWLER_CI); -short skips the test.
func TestScriptSiteRendered(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	browser := browsertest.Need(t)
	// Two pages of each kind keep the browser starts few (7), and still
	// make a script-made page's script-made link the only way to a page.
	s := crawlertest.NewScriptSite(crawlertest.ScriptConfig{Pages: 2})
	defer s.Close()
	// Anything the browser sends beyond loopback goes to this dead end.
	hole, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hole.Close()
	var holed atomic.Int64
	go func() {
		for {
			c, err := hole.Accept()
			if err != nil {
				return
			}
			holed.Add(1)
			c.Close()
		}
	}()

	// A breadth-first crawl, two pages at a time. A page with a script is
	// rendered; one without is its HTML (saving a browser's start).
	type result struct {
		u   string
		dom []byte
	}
	load := func(u string) []byte {
		resp, err := http.Get(u)
		if err != nil {
			t.Error(err)
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s, %v", u, resp.Status, err)
		}
		if !bytes.Contains(body, []byte("<script")) {
			return body
		}
		return scriptRender(t, browser, hole.Addr().String(), u)
	}
	seen := map[string]bool{s.Seed(): true}
	doms := map[string]scriptDoc{}
	for level := []string{s.Seed()}; len(level) > 0; {
		results := make(chan result, len(level))
		sem := make(chan struct{}, 2)
		var wg sync.WaitGroup
		for _, u := range level {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				results <- result{u, load(u)}
			})
		}
		wg.Wait()
		close(results)
		level = nil
		for r := range results {
			dom := scriptParse(t, r.dom)
			doms[r.u] = dom
			base, _ := url.Parse(r.u)
			for _, l := range dom.links {
				ref, err := base.Parse(l)
				if err != nil {
					t.Errorf("%s: bad link %q", r.u, l)
					continue
				}
				ref.Fragment = ""
				v := ref.String()
				if ref.Host != s.Addr() || strings.Contains(ref.Path, ".") || seen[v] {
					continue // other hosts, images, scripts
				}
				seen[v] = true
				level = append(level, v)
			}
		}
	}

	want := append(s.StaticPages(), s.ScriptOnlyPages()...)
	want = append(want, s.URL()+"/js/private/1", s.URL()+"/js/private/2")
	slices.Sort(want)
	got := slices.Sorted(maps.Keys(doms))
	if !slices.Equal(got, want) {
		t.Errorf("rendered crawl reached %q\nwant %q", got, want)
	}
	products := s.Products()
	for u, d := range doms {
		if !slices.Equal(d.products, products[u]) {
			t.Errorf("%s: rendered products %q, want %q", u, d.products, products[u])
		}
	}
	for _, p := range s.Forbidden() {
		if s.Requests(p) == 0 {
			t.Errorf("the browser did not request %s", p)
		}
	}
	if s.CanaryRequests() == 0 {
		t.Error("the browser did not reach the canary")
	}
	if n := holed.Load(); n > 0 {
		t.Logf("the browser's %d attempts to go beyond loopback met the dead-end proxy", n)
	}
}

// renderDOM returns the DOM of u as a headless browser serializes it once
// the page is idle, timers included (a virtual-time budget of 5 s). The
// browser resolves no host name and sends whatever is not for 127.0.0.1
// to the proxy at hole.
func scriptRender(t *testing.T, browser, hole, u string) []byte {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser,
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--disable-quic",
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		"--proxy-server=http://"+hole,
		"--user-data-dir="+t.TempDir(),
		"--virtual-time-budget=5000",
		"--dump-dom", u)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("%s %s: %v\n%s", browser, u, err, stderr.Bytes())
	}
	return out
}

// ExampleNewScriptSite serves the site and shows what a crawl without
// rendering can reach, and what only a renderer can. (No Output: the
// URLs hold ports.)
func ExampleNewScriptSite() {
	s := crawlertest.NewScriptSite(crawlertest.ScriptConfig{Pages: 2})
	defer s.Close()

	fmt.Println("seed:", s.Seed())
	fmt.Println("allow:", s.Addr(), "but not", s.CanaryAddr())
	fmt.Println("static:", s.StaticPages())
	for _, u := range s.ScriptOnlyPages() {
		fmt.Println("rendering only:", u, s.Products()[u])
	}
	fmt.Println("never requested by a polite renderer:", s.Forbidden())
}
