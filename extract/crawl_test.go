package extract_test

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"crawler"
	"crawler/canon"
	"crawler/crawlertest"
	"crawler/extract"
	"crawler/fetch"
	"crawler/politeness"
)

// loopback lets a crawler fetch the tests' own servers.
var loopback = fetch.AddressPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}

// page is a page the test server serves, with what extraction must find
// in it.
type page struct {
	status int
	ctype  string
	body   string

	// What extraction finds; for HTML pages only.
	title, description, canonical string // canonical: a path on the server
	og                            map[string]string
	jsonLD                        []string
	text                          string
	h1                            []string
	links                         []string // URLs("a[href]", "href"): paths on the server
}

// site is the test server's pages, by path.
var site = map[string]page{
	"/": {
		body: `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>  Home &amp;
	Garden </title>
<meta name="Description" content="  Tools, seeds
 &amp; plants &mdash; since 1901 ">
<meta name="description" content="a second description, ignored">
<link rel="stylesheet" href="/style.css">
<link REL="alternate Canonical" href="/?from=canonical">
<meta property="og:title" content="Home &amp; Garden">
<meta property="og:type" content=" website ">
<meta property="OG:Title" content="a second og:title, ignored">
<meta name="og:site_name" content="The Garden">
<meta property="og:" content="no property name, ignored">
<meta property="twitter:card" content="not Open Graph">
<script type="application/ld+json">
{"@context": "https://schema.org", "@type": "Organization", "name": "Home & Garden"}
</script>
<script type="application/ld+json">{"@type": "WebSite", "name": oops}</script>
<script type="Application/LD+JSON; charset=utf-8">
  [{"@type": "BreadcrumbList"}, {"@type": "Thing"}]
</script>
<script>var secret = "SCRIPT-TEXT"; if (a < b) document.write("<p>nope</p>");</script>
<style>body { content: "STYLE-TEXT" }</style>
</head>
<body>
<noscript>NOSCRIPT-TEXT</noscript>
<template><p>TEMPLATE-TEXT</p></template>
<h1>Welcome   to <em>the</em>
garden</h1>
<div class="intro"><p>One <b>bold</b>&nbsp;word, <a href="a">a link</a>.</p>
<ul><li>first</li><li>second <i>item</i></li></ul></div>
<p>&lt;tag&gt; caf&eacute; &#x263A; AT&amp;T<br>next line</p>
<div hidden>HIDDEN-TEXT</div>
<table><tr><td>cell 1</td><td>cell 2</td></tr><tr><th>cell 3</th></tr></table>
<p><a href="/b/">B</a> <a href="data.json">data</a> <a href="plain.txt">plain</a>
<a href="/img.png">image</a> <a href="/missing">missing</a> <a href="#top">top</a>
<script type="application/ld+json"></script>
</body>
</html>
`,
		title:       "Home & Garden",
		description: "Tools, seeds & plants — since 1901",
		canonical:   "/?from=canonical",
		og:          map[string]string{"og:title": "Home & Garden", "og:type": "website", "og:site_name": "The Garden"},
		jsonLD: []string{
			`{"@context": "https://schema.org", "@type": "Organization", "name": "Home & Garden"}`,
			`[{"@type": "BreadcrumbList"}, {"@type": "Thing"}]`,
		},
		text: "Welcome to the garden\n" +
			"One bold word, a link.\n" +
			"first\n" +
			"second item\n" +
			"<tag> café ☺ AT&T\n" +
			"next line\n" +
			"cell 1 cell 2\n" +
			"cell 3\n" +
			"B data plain image missing top",
		h1:    []string{"Welcome to the garden"},
		links: []string{"/a", "/b/", "/data.json", "/plain.txt", "/img.png", "/missing", "/#top"},
	},
	// A <base href> changes what relative URLs resolve against.
	"/a": {
		body: `<html><head><base href="/deep/dir/"><title>Page A</title>
<link rel=canonical href="../a-canonical">
<meta property=og:url content="/a">
</head><body><h1>A</h1><h1>Second <span>heading</span></h1>
<article><section><div><div><p>deeply <b><i>nested</i></b></p></div></div></section></article>
<a href="x">x</a> <a href="/">home</a> <a href="//other.test/y">other</a>
<svg><title>SVG title, not the page's</title></svg>
</body></html>`,
		title:     "Page A",
		canonical: "/deep/a-canonical",
		og:        map[string]string{"og:url": "/a"},
		text:      "A\nSecond heading\ndeeply nested\nx home other SVG title, not the page's",
		h1:        []string{"A", "Second heading"},
		links:     []string{"/deep/dir/x", "/", "http://other.test/y"},
	},
	// A page in ISO-8859-1, as its Content-Type says: decoded to UTF-8.
	"/b/": {
		ctype: "text/html; charset=iso-8859-1",
		body:  "<title>Caf\xe9</title><p>cr\xe8me br\xfbl\xe9e</p><a href=../a>A</a>",
		title: "Café",
		og:    map[string]string{},
		text:  "crème brûlée\nA",
		links: []string{"/a"},
	},
	// A 404 page is HTML too: it reaches the handler's function.
	"/missing": {
		status: http.StatusNotFound,
		body:   "<title>Not found</title><h1>404</h1>",
		title:  "Not found",
		og:     map[string]string{},
		text:   "404",
		h1:     []string{"404"},
	},
	// Pages that are not HTML are fetched but skipped.
	"/data.json":  {ctype: "application/json", body: `{"<html>": "<title>no</title>"}`},
	"/plain.txt":  {ctype: "text/plain; charset=utf-8", body: "<title>no</title>"},
	"/img.png":    {ctype: "image/png", body: "\x89PNG\r\n\x1a\n"},
	"/deep/dir/x": {body: ""}, // HTML without a body: skipped
}

func (p page) isHTML() bool { return p.ctype == "" || strings.HasPrefix(p.ctype, "text/html") }

// serve serves site, counting requests per path.
func serve(t *testing.T) (*httptest.Server, *sync.Map) {
	var counts sync.Map // path -> *atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := counts.LoadOrStore(r.URL.Path, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		p, ok := site[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		ct := p.ctype
		if ct == "" {
			ct = "text/html; charset=utf-8"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(cmpOr(p.status, http.StatusOK))
		w.Write([]byte(p.body))
	}))
	t.Cleanup(srv.Close)
	return srv, &counts
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// extracted is what the test's handler finds in a page.
type extracted struct {
	status                                   int
	title, pageTitle, description, canonical string
	og                                       map[string]string
	jsonLD                                   []string
	text                                     string
	h1                                       []string
	links                                    []string
	rules                                    map[string][]string
}

// The crawl of the test server: every HTML page reaches the function once,
// with what it served; the other pages are fetched but skipped.
func TestHandlerCrawl(t *testing.T) {
	srv, counts := serve(t)
	rules := extract.Rules{mustRule(t, "h1=h1"), mustRule(t, "items=ul > li"), mustRule(t, "none=blink")}
	var (
		mu  sync.Mutex
		got = map[string]extracted{}
	)
	c := &crawler.Crawler{
		Fetcher: &fetch.HTTPFetcher{Addresses: loopback},
		Pacing:  politeness.Pacing{Delay: -1},
		Scope:   crawler.Scope{SameHost: true}, // not other.test
		Handler: extract.Handler(func(ctx context.Context, p *crawler.Page, d *extract.Document) error {
			e := extracted{
				status:      p.Status,
				title:       d.Title(),
				pageTitle:   p.Title,
				description: d.Description(),
				canonical:   d.Canonical(),
				og:          d.OpenGraph(),
				text:        d.Text(),
				rules:       rules.Extract(d),
			}
			for _, b := range d.JSONLD() {
				e.jsonLD = append(e.jsonLD, string(b))
			}
			var err error
			if e.h1, err = d.Texts("h1"); err != nil {
				return err
			}
			if e.links, err = d.URLs("a[href]", "href"); err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			if _, dup := got[p.URL]; dup {
				t.Errorf("%s: handled twice", p.URL)
			}
			got[p.URL] = e
			return nil
		}),
	}
	if err := c.Run(t.Context(), srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if n := c.Stats().Errors[crawler.KindHandler]; n != 0 {
		t.Errorf("%d handler errors", n)
	}

	abs := func(path string) string {
		if path == "" || !strings.HasPrefix(path, "/") {
			return path
		}
		return srv.URL + path
	}
	for path, want := range site {
		n, _ := counts.Load(path)
		if n == nil || n.(*atomic.Int64).Load() != 1 {
			t.Errorf("%s: not fetched once", path)
			continue
		}
		e, ok := got[srv.URL+path]
		if !want.isHTML() || want.body == "" {
			if ok {
				t.Errorf("%s (%q, %d bytes) reached the handler's function", path, want.ctype, len(want.body))
			}
			continue
		}
		if !ok {
			t.Errorf("%s: not handled", path)
			continue
		}
		check := func(what string, got, want any) {
			t.Helper()
			if !equal(got, want) {
				t.Errorf("%s: %s = %q\nwant %q", path, what, got, want)
			}
		}
		check("status", e.status, cmpOr(want.status, http.StatusOK))
		check("Title", e.title, want.title)
		if want.status == 0 && !strings.Contains(want.ctype, "charset=") {
			// The crawler reads the title of 2xx pages, as UTF-8.
			check("Title vs Page.Title", e.title, e.pageTitle)
		}
		check("Description", e.description, want.description)
		check("Canonical", e.canonical, abs(want.canonical))
		check("OpenGraph", e.og, want.og)
		check("JSONLD", e.jsonLD, want.jsonLD)
		check("Text", e.text, want.text)
		check("Texts(h1)", e.h1, want.h1)
		var links []string
		for _, l := range want.links {
			links = append(links, abs(l))
		}
		check("URLs(a[href])", e.links, links)
		check("Extract h1", e.rules["h1"], orEmpty(want.h1))
		if e.rules["none"] == nil || len(e.rules["none"]) != 0 {
			t.Errorf("%s: rule none = %#v, want an empty slice", path, e.rules["none"])
		}
		for _, hidden := range []string{"SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HIDDEN", "nope", "ignored"} {
			if strings.Contains(e.text, hidden) {
				t.Errorf("%s: Text has %s", path, hidden)
			}
		}
	}
	if items := got[srv.URL+"/"].rules["items"]; !slices.Equal(items, []string{"first", "second item"}) {
		t.Errorf("rule items = %q", items)
	}
}

// equal compares what the crawl test compares: strings, ints, string
// slices (nil as empty) and string maps.
func equal(a, b any) bool {
	switch a := a.(type) {
	case []string:
		return slices.Equal(a, b.([]string))
	case map[string]string:
		return maps.Equal(a, b.(map[string]string))
	}
	return a == b
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// On a crawlertest web, the DOM agrees with the crawler's link scanner:
// the same title, and the same links once canonical.
func TestHandlerAgreesWithScanner(t *testing.T) {
	web := crawlertest.NewWeb(crawlertest.Config{Seed: 3, Hosts: 3, PagesPerHost: 20})
	defer web.Close()
	var (
		mu      sync.Mutex
		handled int
	)
	c := &crawler.Crawler{
		Fetcher: &fetch.HTTPFetcher{Client: web.Client()},
		Pacing:  politeness.Pacing{Delay: -1},
		Handler: extract.Handler(func(ctx context.Context, p *crawler.Page, d *extract.Document) error {
			hrefs, err := d.URLs("a[href], area[href]", "href")
			if err != nil {
				return err
			}
			want := map[string]bool{}
			for _, l := range slices.Concat(p.Links, p.NoFollowLinks) {
				want[l] = true
			}
			have := map[string]bool{}
			for _, h := range hrefs {
				if u, err := (*canon.Canonicalizer)(nil).Canonical(h); err == nil {
					have[u] = true
				}
			}
			mu.Lock()
			defer mu.Unlock()
			handled++
			if p.Status == http.StatusOK && d.Title() != p.Title { // the crawler reads 2xx pages only
				t.Errorf("%s: Title %q, Page.Title %q", p.URL, d.Title(), p.Title)
			}
			if !maps.Equal(have, want) {
				t.Errorf("%s: links %v\nPage's %v", p.URL, slices.Sorted(maps.Keys(have)), slices.Sorted(maps.Keys(want)))
			}
			if h1, _ := d.Texts("h1"); p.Status == http.StatusOK && (len(h1) != 1 || h1[0] != p.Title) {
				t.Errorf("%s: h1 %q, title %q", p.URL, h1, p.Title)
			}
			return nil
		}),
	}
	if err := c.Run(t.Context(), web.Seeds()...); err != nil {
		t.Fatal(err)
	}
	if want := len(web.GoodPages()); handled < want {
		t.Errorf("%d pages handled, want at least the %d good pages", handled, want)
	}
}
