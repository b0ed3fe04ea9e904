package crawlertest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func testGen(hosts, pages, outDegree int) *gen {
	return &gen{seed: mix64(11), hosts: hosts, pages: pages, pageBytes: 2048, outDegree: outDegree, maxChain: 5}
}

// docs returns every HTML document of g.
func (g *gen) docs() []res {
	var out []res
	for h := range g.hosts {
		for n := range g.pages {
			for _, k := range []kind{kindPage, kindPrivate, kindNofollow} {
				out = append(out, res{host: int32(h), kind: k, n: int32(n)})
			}
		}
	}
	return out
}

// TestHrefsResolve renders every document and checks, with an independent
// HTML tokenizer and RFC 3986 resolution, that each <a href> resolves to the
// canonical URL of the generator's link target, with the right nofollow.
func TestHrefsResolve(t *testing.T) {
	g := testGen(6, 40, 20)
	forms := map[string]bool{}
	checkHrefs(t, g, g.docs(), forms)
	if len(forms) != 11 {
		t.Errorf("spellings seen: %v", forms)
	}
}

// checkHrefs renders docs and checks that their hrefs resolve to their
// links' targets, recording the forms of spelling seen.
func checkHrefs(t *testing.T, g *gen, docs []res, forms map[string]bool) {
	t.Helper()
	var ls []link
	var body []byte
	for _, doc := range docs {
		ls = g.links(ls[:0], doc)
		body = g.render(body[:0], doc, ls)
		base, _ := url.Parse(canonical(doc))
		z := html.NewTokenizer(strings.NewReader(string(body)))
		i := 0
		for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
			if tt != html.StartTagToken {
				continue
			}
			tok := z.Token()
			if tok.DataAtom != atom.A {
				continue
			}
			var href string
			nofollow := false
			for _, a := range tok.Attr {
				switch a.Key {
				case "href":
					href = a.Val
				case "rel":
					nofollow = strings.Contains(" "+a.Val+" ", " nofollow ")
				}
			}
			if i >= len(ls) {
				t.Fatalf("%s: more anchors than links", canonical(doc))
			}
			u, err := base.Parse(href)
			if err != nil {
				t.Fatalf("%s: href %q: %v", canonical(doc), href, err)
			}
			got := "http://" + strings.TrimSuffix(strings.ToLower(u.Host), ":80") + (&url.URL{Path: u.Path}).EscapedPath()
			if want := canonical(ls[i].to); got != want || nofollow != ls[i].nofollow || strings.ToLower(u.Scheme) != "http" {
				t.Fatalf("%s: link %d: href %q resolves to %s (nofollow %v), want %s (nofollow %v)",
					canonical(doc), i, href, got, nofollow, want, ls[i].nofollow)
			}
			switch {
			case strings.HasPrefix(href, "HTTP:"):
				forms["upper"] = true
			case strings.HasPrefix(href, "//"):
				forms["scheme-relative"] = true
			case strings.HasPrefix(href, "http:"):
				forms["absolute"] = true
			case strings.HasPrefix(href, "../"):
				forms["up"] = true
			case strings.HasPrefix(href, "./"):
				forms["dot"] = true
			case strings.HasPrefix(href, "/"):
				forms["abs-path"] = true
			default:
				forms["relative"] = true
			}
			for _, s := range []string{":80", "/../", "%", "#"} {
				if strings.Contains(href, s) {
					forms[s] = true
				}
			}
			i++
		}
		if i != len(ls) {
			t.Fatalf("%s: %d anchors, %d links", canonical(doc), i, len(ls))
		}
	}
}

func TestLinkStructure(t *testing.T) {
	g := testGen(10, 50, 25)
	var ls []link
	total, pages, cross := 0, 0, 0
	for _, doc := range g.docs() {
		ls = g.links(ls[:0], doc)
		next, nextHost := false, false
		for _, l := range ls {
			r, ok := g.route(int(l.to.host), string(appendPath(nil, l.to)))
			if !ok || r != l.to {
				t.Fatalf("link target %+v does not round-trip through route: %+v %v", l.to, r, ok)
			}
			if l.to.kind == kindNofollow && !l.nofollow {
				t.Fatalf("%s: followed link to %s", canonical(doc), canonical(l.to))
			}
			if to, _, ok := g.redirect(l.to); ok && to.kind == kindNofollow {
				t.Fatalf("redirect to a nofollow page")
			}
			next = next || !l.nofollow && l.to == page(int(doc.host), int(doc.n)+1)
			nextHost = nextHost || !l.nofollow && l.to == page((int(doc.host)+1)%g.hosts, 0)
			if l.to.host != doc.host {
				cross++
			}
		}
		if doc.kind == kindPage {
			total += len(ls)
			pages++
			if int(doc.n)+1 < g.pages && !next {
				t.Errorf("%s does not link to the next page", canonical(doc))
			}
			if doc.n == 0 && !nextHost {
				t.Errorf("%s does not link to the next host", canonical(doc))
			}
		}
	}
	if mean := float64(total) / float64(pages); mean < 24 || mean > 27.5 {
		t.Errorf("mean out-degree %.2f, want about 25 (+ the forced links)", mean)
	}
	if f := float64(cross) / float64(total*3); f < 0.15 || f > 0.25 {
		t.Errorf("cross-host fraction %.3f, want about 0.2", f)
	}
}

func TestPageSize(t *testing.T) {
	for _, size := range []int{512, 4096, 16384} {
		g := testGen(3, 20, 25)
		g.pageBytes = size
		var ls []link
		var body []byte
		sum := 0
		for _, doc := range g.docs() {
			ls = g.links(ls[:0], doc)
			body = g.render(body[:0], doc, ls)
			sum += len(body)
		}
		mean := sum / len(g.docs())
		if lo, hi := size*9/10, max(size*13/10, 2000); mean < lo || mean > hi {
			t.Errorf("PageBytes %d: mean body %d bytes", size, mean)
		}
	}
}

func TestRoute(t *testing.T) {
	g := testGen(4, 20, 10)
	tests := []struct {
		path string
		want res
		ok   bool
	}{
		{"/", res{host: 1}, true},
		{"/p/19", res{host: 1, n: 19}, true},
		{"/private/0", res{host: 1, kind: kindPrivate}, true},
		{"/nofollow/7", res{host: 1, kind: kindNofollow, n: 7}, true},
		{"/img/3.png", res{host: 1, kind: kindImg, n: 3}, true},
		{"/r/0", res{host: 1, kind: kindRedirect}, true},
		{"/to/3/2", res{host: 1, kind: kindTo, n: 2, k: 3}, true},
		{"/chain/4/5", res{host: 1, kind: kindChain, n: 4, k: 5}, true},
		{"/loop/a", res{host: 1, kind: kindLoopA}, true},
		{"/loop/b", res{host: 1, kind: kindLoopB}, true},
		{"/missing/2", res{host: 1, kind: kindMissing, n: 2}, true},
		{"", res{}, false},
		{"/p/", res{}, false},
		{"/p/0", res{}, false},
		{"/p/20", res{}, false},
		{"/p/01", res{}, false},
		{"/p/-1", res{}, false},
		{"/p/1/", res{}, false},
		{"/p/1x", res{}, false},
		{"/img/3", res{}, false},
		{"/img/3.png/", res{}, false},
		{"/to/4/2", res{}, false},
		{"/to/3", res{}, false},
		{"/chain/4/6", res{}, false},
		{"/chain/4/0", res{}, false},
		{"/chain/4", res{}, false},
		{"/loop/c", res{}, false},
		{"/missing/x", res{}, false},
		{"/P/1", res{}, false},
		{"/p/99999999999999999999", res{}, false},
	}
	for _, tt := range tests {
		got, ok := g.route(1, tt.path)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("route(%q) = %+v, %v; want %+v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
		if ok {
			if p := string(appendPath(nil, got)); p != tt.path {
				t.Errorf("appendPath(route(%q)) = %q", tt.path, p)
			}
		}
	}
}

func TestRemoveDotSegments(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/", "/"},
		{"/p/5", "/p/5"},
		{"/x/../p/5", "/p/5"},
		{"/p/./5", "/p/5"},
		{"/./p/5", "/p/5"},
		{"/a/b/../c/./d", "/a/c/d"},
		{"/..", "/"},
		{"/../..", "/"},
		{"/../p/5", "/p/5"},
		{"/a/.", "/a/"},
		{"/a/..", "/"},
		{"/a/b/..", "/a/"},
		{"/a//../b", "/a/b"},
		{"/..//.", "//"}, // RFC 3986 keeps the empty segment; net/url gives "/"
		{"/a/.b/..c/...", "/a/.b/..c/..."},
		{"/.well-known/x", "/.well-known/x"},
		{"/a/./", "/a/"},
		{"relative/../x", "relative/../x"},
	}
	for _, tt := range tests {
		if got := removeDotSegments(tt.in); got != tt.want {
			t.Errorf("removeDotSegments(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHostIndex(t *testing.T) {
	g := testGen(12, 10, 10)
	tests := []struct {
		in   string
		want int
	}{
		{"h0.crawler.test", 0},
		{"h11.crawler.test", 11},
		{"H11.CRAWLER.TEST", 11},
		{"h3.Crawler.Test:80", 3},
		{"h3.crawler.test:", 3},
		{"h12.crawler.test", -1},
		{"h03.crawler.test", -1},
		{"h3.crawler.test:8080", -1},
		{"h3.crawler.test.", -1},
		{"x3.crawler.test", -1},
		{"h.crawler.test", -1},
		{".crawler.test", -1},
		{"crawler.test", -1},
		{"h3.crawler.testx", -1},
		{"127.0.0.1:80", -1},
		{"[::1]:80", -1},
		{"", -1},
	}
	for _, tt := range tests {
		if got := g.hostIndex(tt.in); got != tt.want {
			t.Errorf("hostIndex(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestAcceptsGzip(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"", false},
		{"gzip", true},
		{"deflate, gzip;q=0.5", true},
		{"GZIP", true},
		{"*", true},
		{"gzip;q=0", false},
		{"gzip; q=0.0", false},
		{"br, deflate", false},
		{"identity", false},
	}
	for _, tt := range tests {
		if got := acceptsGzip(tt.in); got != tt.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestLatencyHonoursCancellation checks that a handler waiting out its
// latency returns as soon as the client gives up.
func TestLatencyHonoursCancellation(t *testing.T) {
	arrived := make(chan struct{})
	waited := make(chan bool, 1)
	var once sync.Once
	w := newWeb(Config{
		Latency: time.Hour,
		HostLatency: func(string) time.Duration {
			once.Do(func() { close(arrived) })
			return 0
		},
	}, hooks{waited: func(ok bool) { waited <- ok }})
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://h1.crawler.test/", nil)
	errc := make(chan error, 1)
	go func() {
		_, err := w.Client().Do(req)
		errc <- err
	}()
	<-arrived
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("request succeeded")
	}
	select {
	case ok := <-waited:
		if ok {
			t.Error("the wait completed")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler still waits 10 s after cancellation")
	}
}

func BenchmarkRender(b *testing.B) {
	g := testGen(10, 50, 25)
	g.pageBytes = 4096
	var ls []link
	var body []byte
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		doc := page(i%10, i%50)
		ls = g.links(ls[:0], doc)
		body = g.render(body[:0], doc, ls)
		i++
	}
	b.SetBytes(int64(len(body)))
}

func BenchmarkDepths(b *testing.B) {
	w := newWeb(Config{Hosts: 20, PagesPerHost: 500}, hooks{})
	defer w.Close()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n = len(w.Depths())
	}
	b.ReportMetric(float64(n), "urls")
}

func TestParseURL(t *testing.T) {
	g := testGen(10, 10, 10)
	tests := []struct{ in, want string }{ // want "" means not a URL of the web
		{"http://h3.crawler.test/p/5", "http://h3.crawler.test/p/5"},
		{"HTTP://H3.Crawler.TEST:80/x/../p/%35#top", "http://h3.crawler.test/p/5"},
		{"http://h1.crawler.test", "http://h1.crawler.test/"},
		{"http://h1.crawler.test/%7e/%C3%BC", "http://h1.crawler.test/~/%C3%BC"},
		{"http://h1.crawler.test/a%2Fb", "http://h1.crawler.test/a/b"}, // routed on the decoded path
		{"http://h1.crawler.test/p/1?b=2&a=1", "http://h1.crawler.test/p/1?b=2&a=1"},
		{"http://h1.crawler.test/..//.", "http://h1.crawler.test//"},
		{"https://h1.crawler.test/", ""},
		{"//h1.crawler.test/", ""},
		{"http://h1.crawler.test:81/", ""},
		{"http://h10.crawler.test/", ""},
		{"mailto:x@h1.crawler.test", ""},
		{"http://h1.crawler.test/%zz", ""},
	}
	for _, tt := range tests {
		got := ""
		if h, p, q, ok := g.parseURL(tt.in); ok {
			got = canonicalString(h, p, q)
		}
		if got != tt.want {
			t.Errorf("canonical(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
