package links

import (
	"html"
	"slices"
	"strings"
	"testing"
)

func TestExtractLinks(t *testing.T) {
	tests := []struct {
		desc, html   string
		keepNoFollow bool
		hrefs        []string
		noFollowed   []string
		title        string
		base, canon  string
		noFollow     bool
		noIndex      bool
	}{
		{desc: "a and area", html: `<a href="/a">x</a><map><area href="b.html"></map>`, hrefs: []string{"/a", "b.html"}},
		{desc: "no href", html: `<a name="x">x</a><a href="">empty</a>`, hrefs: []string{""}},
		{desc: "other tags ignored", html: `<img src="/i.png"><script>var a = "<a href='/js'>";</script><link href="/style.css" rel="stylesheet"><a href="/ok">`, hrefs: []string{"/ok"}},
		{desc: "rel nofollow", html: `<a href="/f">f</a><a rel="NoFollow" href="/n">n</a><a rel="noopener nofollow" href="/n2">n</a>`, hrefs: []string{"/f"}, noFollowed: []string{"/n", "/n2"}},
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
		{desc: "title", html: `<html><head><title>
			A  page's	title </title></head><title>second</title>`, title: "A page's title"},
		{desc: "title entities", html: `<title>Fish &amp; chips &lt;b&gt; &#x263A;</title>`, title: "Fish & chips <b> ☺"},
		{desc: "title holds no tags", html: `<title>a <b>bold</b> claim</title><a href="/x">`, title: "a <b>bold</b> claim", hrefs: []string{"/x"}},
		{desc: "empty title", html: `<title></title>not the title<title>nor this</title>`},
		{desc: "self-closing title", html: `<title/>text`, title: "text"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			ex := Extract([]byte(tt.html), tt.keepNoFollow, "crawler", defaultMaxLinks)
			if !slices.Equal(ex.Hrefs, tt.hrefs) || !slices.Equal(ex.NoFollow, tt.noFollowed) {
				t.Errorf("hrefs = %q, nofollow %q; want %q, %q", ex.Hrefs, ex.NoFollow, tt.hrefs, tt.noFollowed)
			}
			if ex.Title != tt.title {
				t.Errorf("title = %q, want %q", ex.Title, tt.title)
			}
			if ex.Base != tt.base || ex.Canonical != tt.canon {
				t.Errorf("base, canonical = %q, %q; want %q, %q", ex.Base, ex.Canonical, tt.base, tt.canon)
			}
			if ex.MetaNoFollow != tt.noFollow || ex.MetaNoIndex != tt.noIndex {
				t.Errorf("noFollow, noIndex = %v, %v; want %v, %v", ex.MetaNoFollow, ex.MetaNoIndex, tt.noFollow, tt.noIndex)
			}
		})
	}
}

// defaultMaxLinks is the crawler's default MaxLinksPerPage.
const defaultMaxLinks = 20000

func TestExtractLinksBounded(t *testing.T) {
	page := []byte(strings.Repeat(`<a href="/x">`, defaultMaxLinks+100))
	ex := Extract(page, false, "crawler", defaultMaxLinks)
	if len(ex.Hrefs) != defaultMaxLinks || !ex.TooMany {
		t.Errorf("kept %d links (more dropped: %v), want the cap %d and more dropped",
			len(ex.Hrefs), ex.TooMany, defaultMaxLinks)
	}
	if ex := Extract(page, false, "crawler", 0); len(ex.Hrefs) != defaultMaxLinks+100 || ex.TooMany {
		t.Errorf("without limits: kept %d links (more dropped: %v), want all %d", len(ex.Hrefs), ex.TooMany, defaultMaxLinks+100)
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
		if ex := Extract(page, false, "crawler", defaultMaxLinks); !slices.Equal(ex.Hrefs, want) {
			t.Errorf("a token of %d bytes: hrefs %q, want %q", len(long.token), ex.Hrefs, want)
		}
	}

	// A title costs at most MaxTitleBytes.
	if ex := Extract([]byte(`<title>`+strings.Repeat("word ", 1<<20)+`</title>`), false, "crawler", defaultMaxLinks); len(ex.Title) > MaxTitleBytes || len(ex.Title) < MaxTitleBytes-5 {
		t.Errorf("a 5 MiB title kept as %d bytes, want at most %d", len(ex.Title), MaxTitleBytes)
	}

	// An href too long to be a URL is counted, not kept.
	long := "/" + strings.Repeat("a", MaxHrefBytes)
	ex = Extract([]byte(`<a href="/a"><a href="`+long+`"><base href="`+long+`"><a href="/b">`), false, "crawler", defaultMaxLinks)
	if !slices.Equal(ex.Hrefs, []string{"/a", "/b"}) || ex.LongHrefs != 1 || ex.Base != "" {
		t.Errorf("hrefs %q, %d long, base of %d bytes; want [/a /b], 1 long, no base", ex.Hrefs, ex.LongHrefs, len(ex.Base))
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
		if got := IsHTML(tt.ct, []byte(tt.body)); got != tt.want {
			t.Errorf("IsHTML(%q, %q) = %v, want %v", tt.ct, tt.body, got, tt.want)
		}
	}
}

// FuzzExtractLinks extracts the links of a fuzzed page, with a known link
// planted first. It checks that the cap holds, that dropping nofollow
// links only drops links, that extraction is deterministic, and that the
// planted link comes out as written. (The crawler's FuzzReadResponse
// resolves what it finds.)
func FuzzExtractLinks(f *testing.F) {
	f.Add([]byte(`<a href="/a" rel="nofollow"><base href="x"><meta name=robots content=none>`), "/p")
	f.Add([]byte(`<a href='`), "")
	f.Add([]byte(`<area href=/x><link rel=canonical href=/c>`), "http://other.example/y#f")
	f.Add([]byte(`<base href="//h/"><a href=a><a href=./a><a href=mailto:x>`), "javascript:void(0)")
	f.Add([]byte(`<a href="HTTP://EXAMPLE.com:80/%7e/">`), "?q&amp;r")
	f.Fuzz(func(t *testing.T, body []byte, href string) {
		if len(body) > 64<<10 || len(href) > 4<<10 {
			return
		}
		doc := append([]byte(`<a href="`+html.EscapeString(href)+`">x</a>`), body...)
		ex := Extract(doc, false, "crawler", defaultMaxLinks)
		all := Extract(doc, true, "crawler", defaultMaxLinks)
		if len(all.Hrefs) > defaultMaxLinks {
			t.Fatalf("%d links kept, over the cap %d", len(all.Hrefs), defaultMaxLinks)
		}
		if len(all.Hrefs) < defaultMaxLinks && !isSubsequence(ex.Hrefs, all.Hrefs) {
			t.Fatalf("dropping nofollow links changed others: %q, all %q", ex.Hrefs, all.Hrefs)
		}
		if ex.Base != all.Base || ex.Canonical != all.Canonical || ex.MetaNoFollow != all.MetaNoFollow ||
			ex.MetaNoIndex != all.MetaNoIndex || ex.Content != all.Content {
			t.Fatalf("keeping nofollow links changed more than the links: %+v vs %+v", ex, all)
		}
		again := Extract(doc, false, "crawler", defaultMaxLinks)
		if !slices.Equal(again.Hrefs, ex.Hrefs) || again.Content != ex.Content {
			t.Fatal("extractLinks is not deterministic")
		}
		// The tokenizer turns CR and CR LF into LF and NUL into U+FFFD.
		planted := !strings.ContainsAny(href, "\r\x00")
		if planted && (len(ex.Hrefs) == 0 || ex.Hrefs[0] != href) {
			t.Fatalf("planted link %q extracted as %q", href, ex.Hrefs)
		}

	})
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
		i, f := XRobotsTag(tt.values, "crawler")
		if i != tt.noIndex || f != tt.noFollow {
			t.Errorf("XRobotsTag(%q) = %v, %v; want %v, %v", tt.values, i, f, tt.noIndex, tt.noFollow)
		}
	}
}
