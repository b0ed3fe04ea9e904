package crawlertest

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzRoute checks that route accepts exactly the paths appendPath produces
// (stories included)
// and that removeDotSegments agrees with net/url's RFC 3986 resolution.
func FuzzRoute(f *testing.F) {
	for _, s := range []string{"/", "/p/5", "/p/05", "/img/3.png", "/to/2/3", "/chain/4/1", "/loop/a",
		"/missing/7", "/x/../p/5", "/a/./b/../..", "/..//.", "/p/", "/chain//", "/private/9999999999",
		"/story/1/0", "/story/19/4", "/story/20/0", "/story/01/0", "/story/3"} {
		f.Add(s)
	}
	g := testGen(5, 100, 10)
	g.setStories(3) // host 2 serves stories
	f.Fuzz(func(t *testing.T, p string) {
		if len(p) > 256 {
			return
		}
		if r, ok := g.route(2, p); ok {
			if got := string(appendPath(nil, r)); got != p {
				t.Fatalf("route(%q) = %+v, which formats as %q", p, r, got)
			}
			if r.host != 2 {
				t.Fatalf("route(%q) on host 2 = %+v", p, r)
			}
		}
		if !strings.HasPrefix(p, "/") {
			return
		}
		got := removeDotSegments(p)
		if again := removeDotSegments(got); again != got {
			t.Fatalf("removeDotSegments not idempotent: %q -> %q -> %q", p, got, again)
		}
		base := &url.URL{Scheme: "http", Host: "h.test", Path: "/"}
		ref := &url.URL{Scheme: "http", Host: "h.test", Path: p}
		// net/url merges empty segments next to ".." ("/..//." is "/"),
		// where RFC 3986 keeps them ("//"): compare only without "//".
		if want := base.ResolveReference(ref).Path; want != got && !strings.Contains(p, "//") {
			t.Fatalf("removeDotSegments(%q) = %q, net/url resolves to %q", p, got, want)
		}
	})
}

// FuzzParseURL checks that the canonical form of a URL of the web parses
// back to itself (canonicalization is idempotent) and never panics.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"http://h3.crawler.test/p/5", "HTTP://H3.Crawler.TEST:80/x/../p/%35#top",
		"http://h1.crawler.test", "http://h1.crawler.test/a%2Fb?q=1", "http://h1.crawler.test/%7e/ü",
		"//h1.crawler.test/", "http://h99.crawler.test/", "mailto:x@h1.crawler.test", "http://h1.crawler.test:81/"} {
		f.Add(s)
	}
	g := testGen(10, 10, 10)
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 512 {
			return
		}
		h, p, q, ok := g.parseURL(s)
		if !ok {
			return
		}
		c := canonicalString(h, p, q)
		h2, p2, q2, ok := g.parseURL(c)
		if !ok || h2 != h || p2 != p || q2 != q {
			t.Fatalf("%q: canonical %q parses as (%d %q %q %v), want (%d %q %q)", s, c, h2, p2, q2, ok, h, p, q)
		}
		if c2 := canonicalString(h2, p2, q2); c2 != c {
			t.Fatalf("%q: canonical form not idempotent: %q then %q", s, c, c2)
		}
	})
}

// FuzzTrapPage checks that every trap answers any path and query without
// panicking, that a Soft404 host answers them all alike, and that the
// calendar accepts exactly the months appendMonth spells.
func FuzzTrapPage(f *testing.F) {
	for _, s := range []string{"/", "/calendar?month=2025-01", "/calendar?month=0001-01", "/calendar?month=999999999-12",
		"/p/3?sid=abc", "/d/cedar/alpha/", "/farm/999999999", "/more/extra/1?x", "/d//", "/calendar?month=-"} {
		f.Add(s)
	}
	g := testGen(6, 20, 8)
	g.setTraps(func(h int) Trap { return Trap(h) })
	soft, _ := g.trapPage(nil, int(Soft404), "/", "")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 512 {
			return
		}
		p, q, _ := strings.Cut(s, "?")
		for h := 1; h < int(numTraps); h++ {
			b, ok := g.trapPage(nil, h, p, q)
			if Trap(h) == Soft404 && (!ok || string(b) != string(soft)) {
				t.Fatalf("Soft404 answers %q differently", s)
			}
		}
		if m, ok := parseMonth(q); ok {
			if got := "month=" + string(appendMonth(nil, m)); got != q {
				t.Fatalf("parseMonth(%q) = %d, which spells %q", q, m, got)
			}
		}
	})
}
