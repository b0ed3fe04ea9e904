package crawlertest_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"crawler/crawlertest"
	"crawler/sitemap"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// small is a web small enough to crawl in a test, with every feature.
var small = crawlertest.Config{Seed: 7, Hosts: 5, PagesPerHost: 30, PageBytes: 1024, OutDegree: 8, MaxChain: 4}

func newWeb(t testing.TB, cfg crawlertest.Config) *crawlertest.Web {
	t.Helper()
	w := crawlertest.NewWeb(cfg)
	t.Cleanup(w.Close)
	return w
}

// noFollow returns a client of w that does not follow redirects.
func noFollow(w *crawlertest.Web) *http.Client {
	c := w.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

type result struct {
	status   int
	header   http.Header
	body     string
	location string
}

func get(t testing.TB, c *http.Client, u string) result {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", u, err)
	}
	return result{resp.StatusCode, resp.Header, string(b), resp.Header.Get("Location")}
}

func title(body string) string {
	_, s, _ := strings.Cut(body, "<title>")
	s, _, _ = strings.Cut(s, "</title>")
	return s
}

// canon is the test's own canonicalization: resolve ref against base
// (RFC 3986, dot segments removed), lower-case scheme and host, drop :80 and
// the fragment, decode unreserved escapes (by re-escaping the decoded path).
func canon(base *url.URL, ref string) (string, bool) {
	u, err := base.Parse(strings.TrimSpace(ref))
	if err != nil || strings.ToLower(u.Scheme) != "http" {
		return "", false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Host), ":80")
	p := u.Path
	if p == "" {
		p = "/"
	}
	s := "http://" + host + (&url.URL{Path: p}).EscapedPath()
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	return s, true
}

type aLink struct {
	href     string
	nofollow bool
}

// extract returns the <a href> links of an HTML document, in order.
func extract(body string) []aLink {
	var out []aLink
	z := html.NewTokenizer(strings.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if atom.Lookup(name) != atom.A {
				continue
			}
			var l aLink
			found := false
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "href":
					l.href, found = string(v), true
				case "rel":
					for _, tok := range strings.Fields(strings.ToLower(string(v))) {
						l.nofollow = l.nofollow || tok == "nofollow"
					}
				}
			}
			if found {
				out = append(out, l)
			}
		}
	}
}

// robots fetches and parses robots.txt of a host: the Disallow prefixes of
// the "User-agent: *" group (the only group the web uses).
func robots(t testing.TB, c *http.Client, host string) []string {
	r := get(t, c, "http://"+host+"/robots.txt")
	if r.status != http.StatusOK {
		return nil
	}
	var dis []string
	star := false
	for line := range strings.Lines(r.body) {
		k, v, _ := strings.Cut(line, ":")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		switch k {
		case "user-agent":
			star = v == "*"
		case "disallow":
			if star && v != "" {
				dis = append(dis, v)
			}
		}
	}
	return dis
}

// referenceCrawl crawls w from its seeds as a compliant crawler does, with a
// 0-1 breadth-first search (redirects cost no depth), never entering a host
// of w.TrapHosts. It returns the depth of every URL requested, the
// disallowed URLs it met, and, sorted, the URLs that answered 200 with HTML.
func referenceCrawl(t testing.TB, w *crawlertest.Web) (depth map[string]int, disallowed, pages []string) {
	c := noFollow(w)
	traps := map[string]bool{}
	for _, h := range w.TrapHosts() {
		traps[h] = true
	}
	rules := map[string][]string{}
	allowed := func(u string) bool {
		pu, _ := url.Parse(u)
		if _, ok := rules[pu.Host]; !ok {
			rules[pu.Host] = robots(t, c, pu.Host)
		}
		for _, p := range rules[pu.Host] {
			if strings.HasPrefix(pu.Path, p) {
				return false
			}
		}
		return true
	}
	type item struct {
		u string
		d int
	}
	depth = map[string]int{}
	blocked := map[string]bool{}
	var front, back []item
	push := func(u string, d int, zero bool) {
		if pu, _ := url.Parse(u); traps[pu.Host] {
			return
		}
		if !allowed(u) {
			blocked[u] = true
			return
		}
		if old, ok := depth[u]; ok && old <= d {
			return
		}
		depth[u] = d
		if zero {
			front = append(front, item{u, d})
		} else {
			back = append(back, item{u, d})
		}
	}
	for _, s := range w.Seeds() {
		push(s, 0, true)
	}
	for len(front)+len(back) > 0 {
		var it item
		if len(front) > 0 {
			it, front = front[len(front)-1], front[:len(front)-1]
		} else {
			it, back = back[0], back[1:]
		}
		if depth[it.u] < it.d {
			continue
		}
		base, _ := url.Parse(it.u)
		r := get(t, c, it.u)
		switch {
		case r.status >= 300 && r.status < 400:
			if to, ok := canon(base, r.location); ok {
				push(to, it.d, true)
			}
		case r.status == 200 && strings.HasPrefix(r.header.Get("Content-Type"), "text/html"):
			pages = append(pages, it.u)
			for _, l := range extract(r.body) {
				if to, ok := canon(base, l.href); ok && !l.nofollow {
					push(to, it.d+1, false)
				}
			}
		}
	}
	slices.Sort(pages)
	pages = slices.Compact(pages)
	return depth, slices.Sorted(maps.Keys(blocked)), pages
}

func TestReferenceCrawlMatchesGroundTruth(t *testing.T) {
	for _, cfg := range []crawlertest.Config{small, {Seed: 3, Gzip: true}, popular} {
		t.Run(fmt.Sprintf("seed=%d/hosts=%d", cfg.Seed, cfg.Hosts), func(t *testing.T) {
			w := newWeb(t, cfg)
			want := w.Depths()
			got, blocked, _ := referenceCrawl(t, w)
			if !maps.Equal(got, want) {
				for u, d := range got {
					if wd, ok := want[u]; !ok || wd != d {
						t.Errorf("crawl: %s at depth %d; Depths: %d (present %v)", u, d, wd, ok)
					}
				}
				for u, d := range want {
					if _, ok := got[u]; !ok {
						t.Errorf("Depths: %s at depth %d; not crawled", u, d)
					}
				}
			}
			if wantB := w.Disallowed(); !slices.Equal(blocked, wantB) {
				t.Errorf("crawl met %d disallowed URLs, Disallowed returns %d", len(blocked), len(wantB))
			}
			if len(blocked) == 0 {
				t.Error("no disallowed URL met: the web should link to /private/")
			}
			// The reference crawler requests each URL once, under its canonical spelling.
			counts := w.RequestCounts()
			if !slices.Equal(slices.Sorted(maps.Keys(counts)), slices.Sorted(maps.Keys(want))) {
				t.Errorf("RequestCounts has %d URLs, Depths %d", len(counts), len(want))
			}
			for u, n := range counts {
				if n != 1 {
					t.Errorf("RequestCounts[%s] = %d, want 1", u, n)
				}
			}
			if w.TotalRequests() != len(want) {
				t.Errorf("TotalRequests = %d, want %d", w.TotalRequests(), len(want))
			}
			// Every kind of resource is reached; no nofollow page is.
			kinds := map[string]int{}
			for u := range want {
				p := strings.SplitN(strings.TrimPrefix(u, "http://"), "/", 3)
				kinds[p[1]]++
			}
			for _, k := range []string{"", "p", "private", "img", "r", "to", "chain", "loop", "missing"} {
				if kinds[k] == 0 {
					t.Errorf("no /%s URL reached; kinds: %v", k, kinds)
				}
			}
			if kinds["nofollow"] != 0 {
				t.Errorf("%d /nofollow/ URLs in the ground truth", kinds["nofollow"])
			}
			for h := range w.Config().Hosts {
				for p := range w.Config().PagesPerHost {
					if _, ok := want[w.URL(h, p)]; !ok {
						t.Fatalf("page %s unreachable", w.URL(h, p))
					}
				}
			}
		})
	}
}

func TestDeterminism(t *testing.T) {
	a := newWeb(t, small)
	b := newWeb(t, small)
	cfg := small
	cfg.Seed++
	other := newWeb(t, cfg)
	ca, cb, co := noFollow(a), noFollow(b), noFollow(other)
	urls := []string{"/", "/p/1", "/p/29", "/private/3", "/nofollow/4", "/img/2.png", "/r/3", "/to/1/2", "/missing/1", "/robots.txt"}
	differ := 0
	for h := range small.Hosts {
		for _, p := range urls {
			u := fmt.Sprintf("http://h%d.crawler.test%s", h, p)
			ra, rb, ro := get(t, ca, u), get(t, cb, u), get(t, co, u)
			if ra.status != rb.status || ra.body != rb.body || ra.location != rb.location {
				t.Errorf("%s differs between two webs of the same seed", u)
			}
			if ra.body != ro.body {
				differ++
			}
		}
	}
	if differ < small.Hosts*4 {
		t.Errorf("only %d responses differ between seeds %d and %d", differ, small.Seed, cfg.Seed)
	}
	if !maps.Equal(a.Depths(), b.Depths()) {
		t.Error("Depths differ between two webs of the same seed")
	}
	if maps.Equal(a.Depths(), other.Depths()) {
		t.Error("Depths equal for different seeds")
	}
}

func TestRouting(t *testing.T) {
	w := newWeb(t, small)
	c := noFollow(w)
	tests := []struct {
		name, url, host string // host overrides the Host header
		status          int
		title           string
	}{
		{"home", "http://h2.crawler.test/", "", 200, "Host 2 page 0"},
		{"page", "http://h4.crawler.test/p/29", "", 200, "Host 4 page 29"},
		{"private", "http://h1.crawler.test/private/0", "", 200, "Host 1 private 0"},
		{"nofollow", "http://h1.crawler.test/nofollow/2", "", 200, "Host 1 nofollow 2"},
		{"upper host", "http://H2.CRAWLER.TEST/p/3", "", 200, "Host 2 page 3"},
		{"port 80", "http://h2.crawler.test:80/p/3", "", 200, "Host 2 page 3"},
		{"escaped", "http://h2.crawler.test/p/%33", "", 200, "Host 2 page 3"},
		{"dots", "http://h2.crawler.test/x/../p/./3", "", 200, "Host 2 page 3"},
		{"listener with Host", "http://" + w.Addr() + "/p/3", "h2.crawler.test", 200, "Host 2 page 3"},
		{"listener without Host", "http://" + w.Addr() + "/p/3", "", 404, ""},
		{"other port", "http://" + w.Addr() + "/", "h2.crawler.test:8080", 404, ""},
		{"unknown host", "http://h5.crawler.test/", "", 404, ""},
		{"leading zero host", "http://h02.crawler.test/", "", 404, ""},
		{"page 0", "http://h2.crawler.test/p/0", "", 404, ""},
		{"leading zero page", "http://h2.crawler.test/p/03", "", 404, ""},
		{"page out of range", "http://h2.crawler.test/p/30", "", 404, ""},
		{"trailing slash", "http://h2.crawler.test/p/3/", "", 404, ""},
		{"query", "http://h2.crawler.test/p/3?x=1", "", 404, ""},
		{"unknown path", "http://h2.crawler.test/nope", "", 404, ""},
		{"missing", "http://h2.crawler.test/missing/4", "", 404, "Not found"},
		{"chain too long", "http://h2.crawler.test/chain/1/5", "", 404, ""},
		{"chain 0", "http://h2.crawler.test/chain/1/0", "", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", tt.url, nil)
			if tt.host != "" {
				req.Host = tt.host
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status || title(string(b)) != tt.title {
				t.Errorf("status %d, title %q; want %d, %q", resp.StatusCode, title(string(b)), tt.status, tt.title)
			}
			if tt.status == 200 && resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", resp.Header.Get("Content-Type"))
			}
			if tt.title == "Not found" && strings.Contains(string(b), "<a") {
				t.Error("404 page has a link")
			}
		})
	}
}

func TestResources(t *testing.T) {
	w := newWeb(t, small)
	r := get(t, noFollow(w), "http://h1.crawler.test/img/3.png")
	if r.status != 200 || r.header.Get("Content-Type") != "image/png" || !strings.HasPrefix(r.body, "\x89PNG\r\n\x1a\n") || len(r.body) > 200 {
		t.Errorf("image: status %d, type %q, %d bytes", r.status, r.header.Get("Content-Type"), len(r.body))
	}
	head, err := w.Client().Head("http://h1.crawler.test/p/2")
	if err != nil {
		t.Fatal(err)
	}
	head.Body.Close()
	if head.StatusCode != 200 || head.ContentLength < 512 {
		t.Errorf("HEAD: status %d, length %d", head.StatusCode, head.ContentLength)
	}
	resp, err := w.Client().Post("http://h1.crawler.test/p/2", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d", resp.StatusCode)
	}
}

func TestRobots(t *testing.T) {
	w := newWeb(t, crawlertest.Config{Hosts: 8})
	c := w.Client()
	for i, h := range w.Hosts() {
		r := get(t, c, "http://"+h+"/robots.txt")
		if i%4 == 3 {
			if r.status != 404 {
				t.Errorf("%s: status %d, want 404", h, r.status)
			}
			continue
		}
		if r.status != 200 || r.body != "User-agent: *\nDisallow: /private/\n" || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
			t.Errorf("%s: status %d, body %q", h, r.status, r.body)
		}
		if n := w.RobotsRequests(h); n != 1 {
			t.Errorf("RobotsRequests(%s) = %d, want 1", h, n)
		}
	}
	if w.TotalRequests() != 0 {
		t.Errorf("TotalRequests = %d after robots.txt only", w.TotalRequests())
	}
	// Disallowed URLs are /private/ on hosts with robots.txt only.
	for _, u := range w.Disallowed() {
		if !strings.Contains(u, "/private/") || strings.HasPrefix(u, "http://h3.") || strings.HasPrefix(u, "http://h7.") {
			t.Errorf("Disallowed: %s", u)
		}
	}
	d := w.Depths()
	privateOn3 := 0
	for u := range d {
		if strings.HasPrefix(u, "http://h3.crawler.test/private/") {
			privateOn3++
		}
		if strings.Contains(u, "/private/") && !strings.HasPrefix(u, "http://h3.") && !strings.HasPrefix(u, "http://h7.") {
			t.Errorf("Depths has disallowed %s", u)
		}
	}
	if privateOn3 == 0 {
		t.Error("no /private/ page of h3 (no robots.txt) in Depths")
	}
}

func TestRedirects(t *testing.T) {
	w := newWeb(t, small)
	c := noFollow(w)
	tests := []struct {
		url    string
		status int
		to     string // canonical target
	}{
		{"http://h0.crawler.test/r/5", 301, "http://h0.crawler.test/p/5"},
		{"http://h0.crawler.test/r/0", 301, "http://h0.crawler.test/"},
		{"http://h0.crawler.test/to/3/4", 302, "http://h3.crawler.test/p/4"},
		{"http://h0.crawler.test/to/2/4", 302, "http://h2.crawler.test/p/4"},
		{"http://h0.crawler.test/to/1/4", 302, "http://h1.crawler.test/p/4"},
		{"http://h1.crawler.test/chain/2/3", 307, "http://h1.crawler.test/chain/2/2"},
		{"http://h1.crawler.test/chain/2/1", 308, "http://h1.crawler.test/p/2"},
		{"http://h1.crawler.test/loop/a", 302, "http://h1.crawler.test/loop/b"},
		{"http://h1.crawler.test/loop/b", 303, "http://h1.crawler.test/loop/a"},
	}
	for _, tt := range tests {
		r := get(t, c, tt.url)
		base, _ := url.Parse(tt.url)
		got, _ := canon(base, r.location)
		if r.status != tt.status || got != tt.to {
			t.Errorf("%s: %d to %q (%s); want %d to %s", tt.url, r.status, r.location, got, tt.status, tt.to)
		}
	}
	// A following client lands on the page after the whole chain ...
	f := w.Client()
	resp, err := f.Get("http://h1.crawler.test/chain/2/4")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || title(string(b)) != "Host 1 page 2" {
		t.Errorf("chain: %d %q", resp.StatusCode, title(string(b)))
	}
	// ... and gives up on the loop.
	if _, err := f.Get("http://h1.crawler.test/loop/a"); err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Errorf("loop: err = %v", err)
	}
	// Redirect URLs and their targets share a depth.
	d := w.Depths()
	for _, tt := range tests {
		if du, ok := d[tt.url]; ok && d[tt.to] > du {
			t.Errorf("depth %s = %d > depth of redirecting %s = %d", tt.to, d[tt.to], tt.url, du)
		}
	}
}

func TestGzip(t *testing.T) {
	const u = "http://h1.crawler.test/p/3"
	for _, on := range []bool{false, true} {
		t.Run(fmt.Sprint("gzip=", on), func(t *testing.T) {
			cfg := small
			cfg.Gzip = on
			w := newWeb(t, cfg)
			tr := w.Transport()
			tr.DisableCompression = true // see the raw bytes
			c := &http.Client{Transport: tr}
			plain := get(t, c, u)
			req, _ := http.NewRequest("GET", u, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if got := resp.Header.Get("Content-Encoding"); (got == "gzip") != on {
				t.Fatalf("Content-Encoding %q", got)
			}
			body := raw
			if on {
				zr, err := gzip.NewReader(bytes.NewReader(raw))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
				if len(raw) >= len(body) {
					t.Errorf("gzip did not compress: %d >= %d", len(raw), len(body))
				}
			}
			if string(body) != plain.body || plain.header.Get("Content-Encoding") != "" {
				t.Error("gzipped body differs from the plain body")
			}
			// The default transport asks for gzip and decompresses.
			r2 := get(t, w.Client(), u)
			if r2.body != plain.body {
				t.Error("body through the default transport differs")
			}
		})
	}
}

func TestProxy(t *testing.T) {
	w := newWeb(t, small)
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(w.ProxyURL())}}
	r := get(t, c, "http://h2.crawler.test/")
	if r.status != 200 || title(r.body) != "Host 2 page 0" {
		t.Errorf("through the proxy: %d %q", r.status, title(r.body))
	}
	if w.Requests("http://h2.crawler.test/") != 1 {
		t.Errorf("Requests = %d, want 1", w.Requests("http://h2.crawler.test/"))
	}
	if w.ProxyURL().String() != "http://"+w.Addr() || !strings.HasPrefix(w.Addr(), "127.0.0.1:") {
		t.Errorf("ProxyURL %s, Addr %s", w.ProxyURL(), w.Addr())
	}
}

func TestDialContextRefuses(t *testing.T) {
	w := newWeb(t, small)
	for _, addr := range []string{"example.com:80", "127.0.0.2:80", "crawler.test.evil.com:80", "localhost:80"} {
		if conn, err := w.DialContext(context.Background(), "tcp", addr); err == nil {
			conn.Close()
			t.Errorf("DialContext(%s) succeeded", addr)
		}
	}
	for _, addr := range []string{"h1.crawler.test:80", "H9.Crawler.Test:443", w.Addr()} {
		conn, err := w.DialContext(context.Background(), "tcp", addr)
		if err != nil {
			t.Errorf("DialContext(%s): %v", addr, err)
			continue
		}
		conn.Close()
	}
	if _, err := w.Client().Get("http://example.com/"); err == nil {
		t.Error("client reached example.com")
	}
}

func TestCounts(t *testing.T) {
	w := newWeb(t, small)
	c := noFollow(w)
	spellings := []string{
		"http://h3.crawler.test/p/5",
		"HTTP://H3.Crawler.TEST:80/p/%35",
		"http://h3.crawler.test/x/../p/5",
		"http://h3.crawler.test/p/./5#top",
	}
	for _, u := range spellings {
		get(t, c, u)
	}
	get(t, c, "http://h3.crawler.test/robots.txt")
	get(t, c, "http://h3.crawler.test/nope")
	get(t, c, "http://h9.crawler.test/") // unknown host: not counted
	for _, u := range spellings {
		if n := w.Requests(u); n != len(spellings) {
			t.Errorf("Requests(%s) = %d, want %d", u, n, len(spellings))
		}
	}
	want := map[string]int{"http://h3.crawler.test/p/5": 4, "http://h3.crawler.test/nope": 1}
	if got := w.RequestCounts(); !maps.Equal(got, want) {
		t.Errorf("RequestCounts = %v, want %v", got, want)
	}
	if w.TotalRequests() != 5 || w.RobotsRequests("h3.crawler.test") != 1 || w.RobotsRequests("H3.crawler.test:80") != 1 {
		t.Errorf("TotalRequests %d, RobotsRequests %d", w.TotalRequests(), w.RobotsRequests("h3.crawler.test"))
	}
	if w.Requests("http://example.com/p/5") != 0 || w.Requests("::") != 0 {
		t.Error("Requests counts URLs outside the web")
	}
	w.ResetCounts()
	if w.TotalRequests() != 0 || len(w.RequestCounts()) != 0 || w.Requests(spellings[0]) != 0 || w.RobotsRequests("h3.crawler.test") != 0 {
		t.Error("ResetCounts left counts")
	}
}

// Coverage counts the ground truth's URLs never requested, and the
// requests to them beyond one each.
func TestCoverage(t *testing.T) {
	w := newWeb(t, small)
	c := noFollow(w)
	truth := w.Depths()
	if missed, extra := w.Coverage(); missed != len(truth) || extra != 0 {
		t.Fatalf("before any request: Coverage = %d, %d; want %d, 0", missed, extra, len(truth))
	}
	for u := range truth {
		get(t, c, u)
	}
	seed := w.Seeds()[0]
	get(t, c, seed)
	get(t, c, seed)
	get(t, c, "http://h3.crawler.test/nope-not-linked") // outside the truth: neither
	if missed, extra := w.Coverage(); missed != 0 || extra != 2 {
		t.Errorf("every URL once, the seed 3 times: Coverage = %d, %d; want 0, 2", missed, extra)
	}
}

func TestLatency(t *testing.T) {
	w := newWeb(t, crawlertest.Config{
		Latency: 20 * time.Millisecond,
		HostLatency: func(h string) time.Duration {
			if h == "h1.crawler.test" {
				return 30 * time.Millisecond
			}
			return 0
		},
	})
	c := w.Client()
	for _, tt := range []struct {
		url string
		min time.Duration
	}{
		{"http://h0.crawler.test/", 20 * time.Millisecond},
		{"http://h1.crawler.test/", 50 * time.Millisecond},
	} {
		start := time.Now()
		get(t, c, tt.url)
		if d := time.Since(start); d < tt.min {
			t.Errorf("%s answered in %v, want >= %v", tt.url, d, tt.min)
		}
	}
}

func TestCloseWithPendingRequest(t *testing.T) {
	arrived := make(chan struct{})
	var once sync.Once
	w := crawlertest.NewWeb(crawlertest.Config{
		Latency: time.Hour,
		HostLatency: func(string) time.Duration {
			once.Do(func() { close(arrived) })
			return 0
		},
	})
	errc := make(chan error, 1)
	go func() {
		_, err := w.Client().Get(w.Seeds()[0])
		errc <- err
	}()
	<-arrived // the handler is about to wait
	w.Close() // must not wait an hour
	if err := <-errc; err == nil {
		t.Error("request succeeded after Close")
	}
	w.Close() // idempotent
}

func TestHostsSeedsURL(t *testing.T) {
	w := newWeb(t, crawlertest.Config{Hosts: 3})
	if got := w.Hosts(); !slices.Equal(got, []string{"h0.crawler.test", "h1.crawler.test", "h2.crawler.test"}) {
		t.Errorf("Hosts = %v", got)
	}
	if got := w.Seeds(); !slices.Equal(got, []string{"http://h0.crawler.test/"}) {
		t.Errorf("Seeds = %v", got)
	}
	if got := w.URL(2, 7); got != "http://h2.crawler.test/p/7" {
		t.Errorf("URL(2, 7) = %s", got)
	}
	cfg := w.Config()
	if cfg.PagesPerHost != 50 || cfg.PageBytes != 4096 || cfg.OutDegree != 25 || cfg.MaxChain != 10 {
		t.Errorf("defaults: %+v", cfg)
	}
	defer func() {
		if recover() == nil {
			t.Error("URL(3, 0) did not panic")
		}
	}()
	w.URL(3, 0)
}

func TestDepthsSeeds(t *testing.T) {
	w := newWeb(t, small)
	d := w.Depths("http://H2.crawler.test:80/p/%35", "http://h1.crawler.test/nope", "http://h0.crawler.test/private/1", "http://example.com/")
	tests := map[string]int{
		"http://h2.crawler.test/p/5":  0,
		"http://h2.crawler.test/p/6":  1,
		"http://h1.crawler.test/nope": 0,
	}
	for u, want := range tests {
		if got, ok := d[u]; !ok || got != want {
			t.Errorf("depth of %s = %d (present %v), want %d", u, got, ok, want)
		}
	}
	for _, u := range []string{"http://h0.crawler.test/private/1", "http://example.com/"} {
		if _, ok := d[u]; ok {
			t.Errorf("Depths has %s", u)
		}
	}
	if !maps.Equal(w.Depths(), w.Depths(w.Seeds()...)) {
		t.Error("Depths() differs from Depths(Seeds()...)")
	}
}

func TestConcurrentClients(t *testing.T) {
	w := newWeb(t, small)
	want := w.Depths()
	urls := slices.Sorted(maps.Keys(want))
	c := noFollow(w)
	errc := make(chan error, 4)
	for g := range 4 {
		go func() {
			for i := g; i < len(urls); i += 4 {
				resp, err := c.Get(urls[i])
				if err != nil {
					errc <- err
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			errc <- nil
		}()
	}
	for range 4 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	if got := w.RequestCounts(); len(got) != len(urls) || w.TotalRequests() != len(urls) {
		t.Errorf("%d URLs counted, %d requests; want %d", len(got), w.TotalRequests(), len(urls))
	}
}

var errSink error

func BenchmarkServe(b *testing.B) {
	for _, gz := range []bool{false, true} {
		b.Run(fmt.Sprintf("gzip=%v", gz), func(b *testing.B) {
			w := newWeb(b, crawlertest.Config{Seed: 1, Gzip: gz})
			c := noFollow(w)
			var urls []string
			for h := range 10 {
				for p := range 50 {
					urls = append(urls, w.URL(h, p))
				}
			}
			b.ReportAllocs()
			i, n := 0, int64(0)
			start := time.Now()
			for b.Loop() {
				resp, err := c.Get(urls[i%len(urls)])
				if err != nil {
					errSink = err
					b.Fatal(err)
				}
				m, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				n += m
				i++
			}
			b.SetBytes(n / int64(max(i, 1)))
			b.ReportMetric(float64(i)/time.Since(start).Seconds(), "req/s")
		})
	}
}

// popular is a small web with skewed link targets (Config.Popularity).
var popular = crawlertest.Config{Seed: 5, Hosts: 6, PagesPerHost: 40, PageBytes: 1024, OutDegree: 10, MaxChain: 4, Popularity: 1}

// With Config.Sitemaps, robots.txt lists an index whose sitemaps, parsed by
// package sitemap, list every orphan page of the host, which serves them.
func TestSitemapsServed(t *testing.T) {
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 4, PagesPerHost: 40, Sitemaps: true})
	defer w.Close()
	c := w.Client()
	get := func(u string) (int, []byte) {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, b
	}
	_, robots := get("http://h0.crawler.test/robots.txt")
	if !strings.Contains(string(robots), "\nSitemap: http://h0.crawler.test/sitemaps/index.xml\n") {
		t.Fatalf("robots.txt:\n%s", robots)
	}
	listed := map[string]bool{}
	var read func(u string)
	read = func(u string) {
		_, body := get(u)
		r, err := sitemap.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", u, err)
			}
			if r.Kind() == sitemap.Index {
				read(e.Loc)
			} else {
				listed[e.Loc] = true
			}
		}
	}
	read("http://h0.crawler.test/sitemaps/index.xml")
	orphans := 0
	for _, u := range w.Orphans() {
		if !strings.HasPrefix(u, "http://h0.") {
			continue
		}
		orphans++
		if !listed[u] {
			t.Errorf("%s not listed", u)
		}
		if status, _ := get(u); status != 200 {
			t.Errorf("%s: %d", u, status)
		}
	}
	if orphans != w.OrphansPerHost() || orphans != 4 || len(listed) != orphans+1 {
		t.Errorf("%d orphans on h0 (%d per host), %d URLs listed", orphans, w.OrphansPerHost(), len(listed))
	}
	if _, ok := w.Depths(w.Seeds()...)["http://h0.crawler.test/orphan/0"]; ok {
		t.Error("an orphan is reachable by links")
	}
	for _, u := range []string{"http://h0.crawler.test/orphan/4", "http://h0.crawler.test/orphan/01", "http://h0.crawler.test/orphan/-1"} {
		if status, _ := get(u); status != 404 {
			t.Errorf("%s: %d, want 404", u, status)
		}
	}
	off := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 4, PagesPerHost: 40})
	defer off.Close()
	if off.Orphans() != nil {
		t.Error("Orphans without Config.Sitemaps")
	}
}

// With Config.StandardSitemaps, the index is at /sitemap.xml, named in
// the robots.txt of even hosts alone, with its sitemaps under /sitemaps/;
// Orphans counts the hosts with no robots.txt (h3) too.
func TestStandardSitemapsServed(t *testing.T) {
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 4, PagesPerHost: 40, Sitemaps: true, StandardSitemaps: true})
	defer w.Close()
	c := w.Client()
	get := func(u string) (int, string) {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	for h, want := range []string{"\nSitemap: http://h0.crawler.test/sitemap.xml\n", "", "\nSitemap: http://h2.crawler.test/sitemap.xml\n", ""} {
		status, robots := get(fmt.Sprintf("http://h%d.crawler.test/robots.txt", h))
		if got := strings.Contains(robots, "Sitemap:"); got != (want != "") || !strings.Contains(robots, want) || (status == 200) != (h != 3) {
			t.Errorf("h%d's robots.txt (%d):\n%s\nwant the line %q", h, status, robots, want)
		}
		if status, _ := get(fmt.Sprintf("http://h%d.crawler.test/sitemaps/index.xml", h)); status != 404 {
			t.Errorf("h%d's /sitemaps/index.xml: %d, want 404", h, status)
		}
		status, index := get(fmt.Sprintf("http://h%d.crawler.test/sitemap.xml", h))
		r, err := sitemap.NewReader(strings.NewReader(index))
		if status != 200 || err != nil || r.Kind() != sitemap.Index || !strings.Contains(index, fmt.Sprintf("http://h%d.crawler.test/sitemaps/more.txt", h)) {
			t.Errorf("h%d's /sitemap.xml (%d, %v):\n%s", h, status, err, index)
		}
	}
	hosts := map[string]bool{}
	for _, u := range w.Orphans() {
		hosts[u[:len("http://h0.crawler.test")]] = true
	}
	if len(hosts) != 4 || len(w.Orphans()) != 4*w.OrphansPerHost() {
		t.Errorf("Orphans on %d hosts, %d of them; want all 4, %d a host", len(hosts), len(w.Orphans()), w.OrphansPerHost())
	}
}
