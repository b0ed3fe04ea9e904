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
			ex := extractLinks([]byte(tt.html), tt.keepNoFollow, "crawler")
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

func TestExtractLinksBounded(t *testing.T) {
	page := strings.Repeat(`<a href="/x">`, maxLinksPerPage+100)
	if n := len(extractLinks([]byte(page), false, "crawler").hrefs); n != maxLinksPerPage {
		t.Fatalf("kept %d links, want the cap %d", n, maxLinksPerPage)
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
		ex := extractLinks(body, false, "crawler")
		all := extractLinks(body, true, "crawler")
		if len(ex.hrefs) > len(all.hrefs) || len(all.hrefs) > maxLinksPerPage {
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
