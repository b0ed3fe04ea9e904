package crawler

import (
	"slices"
	"strings"
	"testing"
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
var defaultLimits = linkLimits{links: DefaultMaxLinksPerPage, tokenBytes: DefaultMaxHTMLTokenBytes}

func TestExtractLinksBounded(t *testing.T) {
	page := []byte(strings.Repeat(`<a href="/x">`, DefaultMaxLinksPerPage+100))
	ex := extractLinks(page, false, "crawler", defaultLimits)
	if len(ex.hrefs) != DefaultMaxLinksPerPage || !ex.tooMany || ex.tokenTooLong {
		t.Errorf("kept %d links (more dropped: %v, token too long: %v), want the cap %d and more dropped",
			len(ex.hrefs), ex.tooMany, ex.tokenTooLong, DefaultMaxLinksPerPage)
	}
	if ex := extractLinks(page, false, "crawler", linkLimits{}); len(ex.hrefs) != DefaultMaxLinksPerPage+100 || ex.tooMany {
		t.Errorf("without limits: kept %d links (more dropped: %v), want all %d", len(ex.hrefs), ex.tooMany, DefaultMaxLinksPerPage+100)
	}

	// A token over the buffer bound ends extraction: the links before it
	// are kept, those after it lost.
	for _, long := range []string{
		`<img alt="` + strings.Repeat("x", 2000) + `">`,
		`<p` + strings.Repeat(" x", 1000) + `>`,
		`<!--` + strings.Repeat("-", 2000) + `-->`,
		`<script>` + strings.Repeat("x", 2000) + `</script>`,
		strings.Repeat("text ", 400),
	} {
		page := []byte(`<a href="/before">` + long + `<a href="/after">`)
		ex := extractLinks(page, false, "crawler", linkLimits{tokenBytes: 1000})
		if !slices.Equal(ex.hrefs, []string{"/before"}) || !ex.tokenTooLong {
			t.Errorf("token of %d bytes, bound 1000: hrefs %q, token too long %v; want [/before], true", len(long), ex.hrefs, ex.tokenTooLong)
		}
		if ex := extractLinks(page, false, "crawler", defaultLimits); len(ex.hrefs) != 2 || ex.tokenTooLong {
			t.Errorf("token of %d bytes, default bound: hrefs %q, want both", len(long), ex.hrefs)
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

func FuzzExtractLinks(f *testing.F) {
	f.Add([]byte(`<a href="/a" rel="nofollow"><base href="x"><meta name=robots content=none>`))
	f.Add([]byte(`<a href='`))
	f.Add([]byte(`<area href=/x><link rel=canonical href=/c>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ex := extractLinks(body, false, "crawler", defaultLimits)
		all := extractLinks(body, true, "crawler", defaultLimits)
		if len(ex.hrefs) > len(all.hrefs) || len(all.hrefs) > DefaultMaxLinksPerPage {
			t.Fatalf("nofollow filtering added links: %d > %d", len(ex.hrefs), len(all.hrefs))
		}
	})
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
