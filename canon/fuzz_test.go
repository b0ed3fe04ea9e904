package canon

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzCanonical checks that Canonical never panics, that its output is a
// fixed point and parses with net/url, that the fast path agrees with the
// general one, and the same for Resolve against a few bases.
func FuzzCanonical(f *testing.F) {
	for _, tc := range coreCases {
		if len(tc.in) < 200 {
			f.Add(tc.in)
		}
	}
	for _, tc := range resolveCases {
		f.Add(tc.in)
	}
	for _, s := range fuzzFound {
		f.Add(s)
	}
	for _, tc := range browserCases {
		f.Add(tc.in)
	}
	bases := []*url.URL{}
	for _, s := range []string{rfcBase, "https://Example.com:443/a/b/c/", "http://[::1]/x?y"} {
		u, err := url.Parse(s)
		if err != nil {
			f.Fatal(err)
		}
		bases = append(bases, u)
	}
	configs := []*Canonicalizer{
		{},
		{SortQuery: true, StripSessionIDs: true, MergeSlashes: true, StripTrailingDot: true, DropEmptyQuery: true},
		{StripSessionIDs: true},
		{MergeSlashes: true},
		{IgnoreParams: ignoreOnA, SortQuery: true},
	}
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 2048 {
			return
		}
		for _, c := range configs {
			check := func(op, got string) {
				again, err := c.Canonical(got)
				if err != nil || again != got {
					t.Fatalf("%s(%q) = %q, but Canonical of that = %q, %v (config %+v)", op, in, got, again, err, *c)
				}
				// The general path must agree with the fast path.
				var p parts
				_, rest, _ := splitScheme(got)
				p.https = got[4] == 's'
				p.absolute(rest)
				slow, err := c.build(&p, got)
				if err != nil || slow != got {
					t.Fatalf("build(%q) = %q, %v; fast path disagrees (config %+v)", got, slow, err, *c)
				}
				checkURL(t, got)
			}
			if got, err := c.Canonical(in); err == nil {
				check("Canonical", got)
			}
			for _, base := range bases {
				if got, err := c.Resolve(base, in); err == nil {
					check("Resolve", got)
				}
			}
		}
	})
}

// checkURL fails t unless got, a result of Canonical or Resolve, is an
// absolute http(s) URL that net/url parses, with a host, no fragment and at
// most MaxLength bytes, whose Host and PathQuery agree with net/url.
func checkURL(t *testing.T, got string) {
	t.Helper()
	if len(got) > MaxLength {
		t.Fatalf("%d bytes, over MaxLength: %.100q", len(got), got)
	}
	u, err := url.Parse(got)
	if err != nil {
		t.Fatalf("url.Parse(%q): %v", got, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Opaque != "" || u.Fragment != "" || strings.Contains(got, "#") {
		t.Fatalf("%q: scheme %q, opaque %q, fragment %q: not an absolute http(s) URL without fragment", got, u.Scheme, u.Opaque, u.Fragment)
	}
	if Host(got) == "" || Host(got) != u.Host {
		t.Fatalf("Host(%q) = %q, net/url says %q", got, Host(got), u.Host)
	}
	if _, query := PathQuery(got); query != u.RawQuery {
		t.Fatalf("PathQuery(%q) query %q, net/url says %q", got, query, u.RawQuery)
	}
}

// fuzzFound are inputs the fuzzer once found interesting (see the table
// tests for their expected outputs).
var fuzzFound = []string{
	"http:0..", // with StripTrailingDot, trailing dots must go before the IPv4 test
}

// FuzzResolve resolves a fuzzed ref against a fuzzed base (parsed by
// net/url, as a crawler would parse a page URL or <base href>): no panic,
// and the result is a fixed point of Canonical.
func FuzzResolve(f *testing.F) {
	for _, tc := range resolveCases {
		f.Add(rfcBase, tc.in)
	}
	f.Add("HTTP://A:80/b/./c?x#f", "d")
	f.Add("http:a/b/c", "../d")
	f.Add("https://[::1]:8443/a%2Fb/c", "?q")
	f.Add("http://u:p@münchen.de/a/b", "//x.org")
	for _, tc := range browserCases {
		if tc.base != "" {
			f.Add(tc.base, tc.in)
		}
	}
	var c Canonicalizer
	f.Fuzz(func(t *testing.T, base, ref string) {
		if len(base) > 1024 || len(ref) > 1024 {
			return
		}
		check := func(b *url.URL) {
			got, err := c.Resolve(b, ref)
			// An absolute http(s) URL means itself, whatever the base.
			if strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://") {
				want, werr := c.Canonical(ref)
				if got != want || (err == nil) != (werr == nil) {
					t.Fatalf("Resolve(%q, %q) = %q, %v; but Canonical(%[2]q) = %q, %v", b, ref, got, err, want, werr)
				}
			}
			if err != nil {
				return
			}
			checkURL(t, got)
			again, err := c.Canonical(got)
			if err != nil || again != got {
				t.Fatalf("Resolve(%q, %q) = %q, but Canonical of that = %q, %v", b, ref, got, again, err)
			}
		}
		if b, err := url.Parse(base); err == nil {
			check(b)
			// Against a canonical base, "" and a fragment mean the base.
			if cb, err := c.Canonical(base); err == nil && cb == base {
				for _, self := range []string{"", "#" + ref} {
					if got, err := c.Resolve(b, self); err != nil || got != base {
						t.Fatalf("Resolve(%q, %q) = %q, %v; want the base", base, self, got, err)
					}
				}
			}
			// The alloc-free escapedPath must mean what EscapedPath means
			// whenever EscapedPath keeps the page's own spelling (otherwise
			// it re-escapes Path, turning "!" into "%21": escapedPath keeps
			// RawPath then, on purpose).
			ours := appendEscaped(nil, escapedPath(b), &plain, true)
			std := appendEscaped(nil, b.EscapedPath(), &plain, true)
			if (b.RawPath == "" || b.EscapedPath() == b.RawPath) && string(ours) != string(std) {
				t.Fatalf("escapedPath(%q) normalizes to %q, EscapedPath to %q", base, ours, std)
			}
		}
		// A hand-built base: any path, even one without a leading slash.
		check(&url.URL{Scheme: "https", Host: "example.com", Path: base, RawQuery: ref})
	})
}
