package links

import (
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"crawler/canon"
)

func TestResolve(t *testing.T) {
	long := "/" + strings.Repeat("a", canon.MaxLength)
	tests := []struct {
		desc      string
		ex        Result
		links     []string
		noFollow  []string
		canonical string
		other     int
		tooLong   int
		bad       int
	}{
		{desc: "none", links: []string{}},
		{desc: "against the page, each once", ex: Result{Hrefs: []string{"c", "/d#f", "./c", "HTTP://Example.com:80/d"}},
			links: []string{"http://example.com/a/c", "http://example.com/d"}},
		{desc: "dropped", ex: Result{Hrefs: []string{"mailto:x@example.com", "javascript:void(0)", long, "http://[::1", "/ok"}},
			links: []string{"http://example.com/ok"}, other: 2, tooLong: 1, bad: 1},
		{desc: "base and canonical", ex: Result{Base: "http://other.example/dir/", Hrefs: []string{"x"}, Canonical: "c"},
			links: []string{"http://other.example/dir/x"}, canonical: "http://other.example/dir/c"},
		{desc: "relative base", ex: Result{Base: "../up/", Hrefs: []string{"x"}},
			links: []string{"http://example.com/up/x"}},
		{desc: "base that does not resolve", ex: Result{Base: "javascript:x", Hrefs: []string{"x"}, Canonical: "mailto:c"},
			links: []string{"http://example.com/a/x"}},
		{desc: "nofollow, none of links", ex: Result{Hrefs: []string{"/f", "/n"}, NoFollow: []string{"/n", "/m", "/m", "ftp://x/"}},
			links: []string{"http://example.com/f", "http://example.com/n"}, noFollow: []string{"http://example.com/m"}, other: 1},
	}
	page, err := url.Parse("http://example.com/a/b?q")
	if err != nil {
		t.Fatal(err)
	}
	var sets sync.Pool
	for _, pool := range []*sync.Pool{nil, &sets} {
		for _, tt := range tests {
			for range 2 { // a set back in the pool is empty
				l := Resolve(new(canon.Canonicalizer), page, &tt.ex, pool)
				if l.Links == nil || !slices.Equal(l.Links, tt.links) || !slices.Equal(l.NoFollow, tt.noFollow) || (l.NoFollow == nil) != (tt.noFollow == nil) {
					t.Errorf("%s: links %q, nofollow %q; want %q, %q", tt.desc, l.Links, l.NoFollow, tt.links, tt.noFollow)
				}
				if l.Canonical != tt.canonical {
					t.Errorf("%s: canonical %q, want %q", tt.desc, l.Canonical, tt.canonical)
				}
				if l.OtherSchemes != tt.other || l.TooLong != tt.tooLong || l.Bad != tt.bad {
					t.Errorf("%s: dropped %d other schemes, %d too long, %d bad; want %d, %d, %d",
						tt.desc, l.OtherSchemes, l.TooLong, l.Bad, tt.other, tt.tooLong, tt.bad)
				}
			}
		}
	}
}
