package crawler

import (
	"html"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"crawler/canon"
	"crawler/frontier"
)

func TestExtractLinks(t *testing.T) {
	tests := []struct {
		desc, html   string
		keepNoFollow bool
		hrefs        []string
		base, canon  string
		noFollow     bool
		noIndex      bool
	}{
		{desc: "a and area", html: `<a href="/a">x</a><map><area href="b.html"></map>`, hrefs: []string{"/a", "b.html"}},
		{desc: "no href", html: `<a name="x">x</a><a href="">empty</a>`, hrefs: []string{""}},
		{desc: "other tags ignored", html: `<img src="/i.png"><script>var a = "<a href='/js'>";</script><link href="/style.css" rel="stylesheet"><a href="/ok">`, hrefs: []string{"/ok"}},
		{desc: "rel nofollow", html: `<a href="/f">f</a><a rel="NoFollow" href="/n">n</a><a rel="noopener nofollow" href="/n2">n</a>`, hrefs: []string{"/f"}},
		{desc: "rel nofollow kept", html: `<a href="/f">f</a><a rel="nofollow" href="/n">n</a>`, keepNoFollow: true, hrefs: []string{"/f", "/n"}},
		{desc: "base first wins", html: `<base href="http://b/dir/"><base href="http://other/"><a href="x">`, base: "http://b/dir/", hrefs: []string{"x"}},
		{desc: "canonical", html: `<link rel="canonical" href="http://a/c"><link rel="alternate" href="/alt">`, canon: "http://a/c"},
		{desc: "meta nofollow", html: `<meta name="robots" content="noindex, nofollow"><a href="/x">`, hrefs: []string{"/x"}, noFollow: true, noIndex: true},
		{desc: "meta none", html: `<META NAME="Robots" CONTENT="none">`, noFollow: true, noIndex: true},
		{desc: "meta other agent", html: `<meta name="googlebot" content="nofollow">`},
		{desc: "attribute order and case", html: `<A HREF="/Up" REL="x">`, hrefs: []string{"/Up"}},
		{desc: "entities decoded", html: `<a href="/q?a=1&amp;b=2">`, hrefs: []string{"/q?a=1&b=2"}},
		{desc: "malformed", html: `<a href="/1"<a href='/2'><a href=/3 ><div <a href="/4">`, hrefs: []string{"/1", "/3"}},
		{desc: "self-closing", html: `<a href="/s"/>`, hrefs: []string{"/s"}},
		{desc: "comment", html: `<!-- <a href="/c"> --><a href="/d">`, hrefs: []string{"/d"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			ex := extractLinks([]byte(tt.html), tt.keepNoFollow, "crawler", defaultLimits)
			if !slices.Equal(ex.hrefs, tt.hrefs) {
				t.Errorf("hrefs = %q, want %q", ex.hrefs, tt.hrefs)
			}
			if ex.base != tt.base || ex.canonical != tt.canon {
				t.Errorf("base, canonical = %q, %q; want %q, %q", ex.base, ex.canonical, tt.base, tt.canon)
			}
			if ex.noFollow != tt.noFollow || ex.noIndex != tt.noIndex {
				t.Errorf("noFollow, noIndex = %v, %v; want %v, %v", ex.noFollow, ex.noIndex, tt.noFollow, tt.noIndex)
			}
		})
	}
}

// defaultLimits are the link limits of a Crawler's zero fields.
var defaultLimits = linkLimits{links: DefaultMaxLinksPerPage}

func TestExtractLinksBounded(t *testing.T) {
	page := []byte(strings.Repeat(`<a href="/x">`, DefaultMaxLinksPerPage+100))
	ex := extractLinks(page, false, "crawler", defaultLimits)
	if len(ex.hrefs) != DefaultMaxLinksPerPage || !ex.tooMany {
		t.Errorf("kept %d links (more dropped: %v), want the cap %d and more dropped",
			len(ex.hrefs), ex.tooMany, DefaultMaxLinksPerPage)
	}
	if ex := extractLinks(page, false, "crawler", linkLimits{}); len(ex.hrefs) != DefaultMaxLinksPerPage+100 || ex.tooMany {
		t.Errorf("without limits: kept %d links (more dropped: %v), want all %d", len(ex.hrefs), ex.tooMany, DefaultMaxLinksPerPage+100)
	}

	// A long token costs its bytes only: the links after it are found.
	for _, long := range []struct{ token, href string }{
		{`<img alt="` + strings.Repeat("x", 1<<20) + `">`, ""},
		{`<a` + strings.Repeat(" x", 1<<19) + ` href="/in">`, "/in"},
		{`<!--` + strings.Repeat("-", 1<<20) + `-->`, ""},
		{`<script>` + strings.Repeat("x", 1<<20) + `</script>`, ""},
		{strings.Repeat("text ", 1<<18), ""},
	} {
		page := []byte(`<a href="/before">` + long.token + `<a href="/after">`)
		want := slices.DeleteFunc([]string{"/before", long.href, "/after"}, func(h string) bool { return h == "" })
		if ex := extractLinks(page, false, "crawler", defaultLimits); !slices.Equal(ex.hrefs, want) {
			t.Errorf("a token of %d bytes: hrefs %q, want %q", len(long.token), ex.hrefs, want)
		}
	}

	// An href too long to be a URL is counted, not kept.
	long := "/" + strings.Repeat("a", maxHrefBytes)
	ex = extractLinks([]byte(`<a href="/a"><a href="`+long+`"><base href="`+long+`"><a href="/b">`), false, "crawler", defaultLimits)
	if !slices.Equal(ex.hrefs, []string{"/a", "/b"}) || ex.longHrefs != 1 || ex.base != "" {
		t.Errorf("hrefs %q, %d long, base of %d bytes; want [/a /b], 1 long, no base", ex.hrefs, ex.longHrefs, len(ex.base))
	}
}

func TestIsHTML(t *testing.T) {
	tests := []struct {
		ct, body string
		want     bool
	}{
		{"text/html; charset=utf-8", "", true},
		{"TEXT/HTML", "", true},
		{"application/xhtml+xml", "", true},
		{"text/plain", "<html>", false},
		{"image/png", "", false},
		{"", "<!DOCTYPE html><html>", true},
		{"", "\x89PNG\r\n", false},
		{"text/html;;bad", "", true},
	}
	for _, tt := range tests {
		if got := isHTML(tt.ct, []byte(tt.body)); got != tt.want {
			t.Errorf("isHTML(%q, %q) = %v, want %v", tt.ct, tt.body, got, tt.want)
		}
	}
}

// FuzzExtractLinks extracts the links of a fuzzed page, with a known link
// planted first, and reads it as a response with readResponse. It checks that
// dropping nofollow links only drops links, that the planted link comes
// out as written and resolves first, and that every resolved link (and
// the canonical link) is an absolute, canonical http(s) URL with a host,
// no fragment and at most canon.MaxLength bytes, each once.
func FuzzExtractLinks(f *testing.F) {
	f.Add([]byte(`<a href="/a" rel="nofollow"><base href="x"><meta name=robots content=none>`), "/p")
	f.Add([]byte(`<a href='`), "")
	f.Add([]byte(`<area href=/x><link rel=canonical href=/c>`), "http://other.example/y#f")
	f.Add([]byte(`<base href="//h/"><a href=a><a href=./a><a href=mailto:x>`), "javascript:void(0)")
	f.Add([]byte(`<a href="HTTP://EXAMPLE.com:80/%7e/">`), "?q&amp;r")
	// The page URLs the links are resolved against, by readResponse as in
	// a crawl.
	pages := []string{"http://example.com/a/b?q", "https://[::1]:8443/x/", "http://127.0.0.1/"}
	r := new(Crawler).newRun(nil)
	f.Fuzz(func(t *testing.T, body []byte, href string) {
		if len(body) > 64<<10 || len(href) > 4<<10 {
			return
		}
		doc := append([]byte(`<a href="`+html.EscapeString(href)+`">x</a>`), body...)
		ex := extractLinks(doc, false, "crawler", defaultLimits)
		all := extractLinks(doc, true, "crawler", defaultLimits)
		if len(all.hrefs) > DefaultMaxLinksPerPage {
			t.Fatalf("%d links kept, over the cap %d", len(all.hrefs), DefaultMaxLinksPerPage)
		}
		if len(all.hrefs) < DefaultMaxLinksPerPage && !isSubsequence(ex.hrefs, all.hrefs) {
			t.Fatalf("dropping nofollow links changed others: %q, all %q", ex.hrefs, all.hrefs)
		}
		if ex.base != all.base || ex.canonical != all.canonical || ex.noFollow != all.noFollow ||
			ex.noIndex != all.noIndex || ex.content != all.content {
			t.Fatalf("keeping nofollow links changed more than the links: %+v vs %+v", ex, all)
		}
		again := extractLinks(doc, false, "crawler", defaultLimits)
		if !slices.Equal(again.hrefs, ex.hrefs) || again.content != ex.content {
			t.Fatal("extractLinks is not deterministic")
		}
		// The tokenizer turns CR and CR LF into LF and NUL into U+FFFD.
		planted := !strings.ContainsAny(href, "\r\x00")
		if planted && (len(ex.hrefs) == 0 || ex.hrefs[0] != href) {
			t.Fatalf("planted link %q extracted as %q", href, ex.hrefs)
		}

		for _, page := range pages {
			u, err := url.Parse(page)
			if err != nil {
				t.Fatal(err)
			}
			p := &Page{URL: page}
			resp := &Response{URL: page, Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: doc}
			if _, isHTML := r.readResponse(p, u, frontier.Entry{URL: page}, resp); !isHTML {
				t.Fatal("readResponse did not read the page as HTML")
			}
			if len(p.Links) > len(ex.hrefs) {
				t.Fatalf("%d links from %d hrefs", len(p.Links), len(ex.hrefs))
			}
			seen := map[string]bool{}
			for _, l := range p.Links {
				checkLink(t, l)
				if seen[l] {
					t.Fatalf("link %q listed twice", l)
				}
				seen[l] = true
			}
			if p.Canonical != "" {
				checkLink(t, p.Canonical)
			}
			if want, err := r.canon.Resolve(u, href); planted && ex.base == "" && err == nil {
				if len(p.Links) == 0 || p.Links[0] != want {
					t.Fatalf("planted link %q resolves against %s to %q, but the links are %q", href, page, want, p.Links)
				}
			}
		}
	})
}

// checkLink fails t unless l is an absolute, canonical http(s) URL with a
// host, no fragment and at most canon.MaxLength bytes.
func checkLink(t *testing.T, l string) {
	t.Helper()
	if len(l) > canon.MaxLength {
		t.Fatalf("link of %d bytes, over canon.MaxLength", len(l))
	}
	pu, err := url.Parse(l)
	if err != nil || pu.Scheme != "http" && pu.Scheme != "https" || pu.Host == "" || pu.Fragment != "" || strings.Contains(l, "#") {
		t.Fatalf("link %q is not an absolute http(s) URL without fragment (%v)", l, err)
	}
	if c, err := (*canon.Canonicalizer)(nil).Canonical(l); err != nil || c != l {
		t.Fatalf("link %q is not canonical: %q, %v", l, c, err)
	}
	if canon.Host(l) != pu.Host {
		t.Fatalf("link %q: canon.Host %q, net/url %q", l, canon.Host(l), pu.Host)
	}
}

// isSubsequence reports whether sub is s with some elements left out.
func isSubsequence(sub, s []string) bool {
	for _, x := range sub {
		i := slices.Index(s, x)
		if i < 0 {
			return false
		}
		s = s[i+1:]
	}
	return true
}

func TestXRobotsTag(t *testing.T) {
	tests := []struct {
		values            []string
		noIndex, noFollow bool
	}{
		{nil, false, false},
		{[]string{"noindex"}, true, false},
		{[]string{"NOFOLLOW"}, false, true},
		{[]string{"none"}, true, true},
		{[]string{"noindex, nofollow"}, true, true},
		{[]string{"noarchive", "nofollow"}, false, true},
		{[]string{"crawler: noindex"}, true, false},
		{[]string{"Crawler:none"}, true, true},
		{[]string{"otherbot: noindex"}, false, false},
		{[]string{"otherbot: noindex", "nofollow"}, false, true},
		{[]string{"unavailable_after: 25 Jun 2030 15:00:00 PST"}, false, false},
		{[]string{"max-snippet: 20, noindex"}, true, false},
		{[]string{"all"}, false, false},
		{[]string{"index, follow"}, false, false},
	}
	for _, tt := range tests {
		i, f := xRobotsTag(tt.values, "crawler")
		if i != tt.noIndex || f != tt.noFollow {
			t.Errorf("xRobotsTag(%q) = %v, %v; want %v, %v", tt.values, i, f, tt.noIndex, tt.noFollow)
		}
	}
}
