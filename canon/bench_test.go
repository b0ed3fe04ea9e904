package canon

import (
	"net/url"
	"testing"

	"github.com/PuerkitoBio/purell"
)

// purellFlags are the purell flags closest to canon's core rules.
const purellFlags = purell.FlagsSafe | purell.FlagRemoveDotSegments | purell.FlagRemoveFragment |
	purell.FlagDecodeDWORDHost | purell.FlagDecodeOctalHost | purell.FlagDecodeHexHost |
	purell.FlagRemoveEmptyPortSeparator

// benchBase and benchLinks are a realistic mix of hrefs found on a page:
// mostly relative paths, some absolute and canonical, some with queries,
// fragments, upper case or escapes, and a few non-http links.
const benchBase = "https://www.example.com/news/2024/05/article.html"

var benchLinks = []string{
	"/",
	"/news/",
	"/news/2024/05/other-article.html",
	"other-article.html",
	"../04/older.html",
	"#comments",
	"?page=2",
	"/search?q=go+crawler&lang=en",
	"https://www.example.com/about/team.html",
	"https://cdn.example.org/static/js/app.min.js",
	"https://twitter.com/share?url=https%3A%2F%2Fwww.example.com%2F",
	"//fonts.example.net/css?family=Roboto:400,700",
	"http://Example.COM/Products/Widget%20Pro/",
	"/tags/caf%c3%a9",
	"mailto:editor@example.com",
	"javascript:void(0)",
	"/news/2024/05/article.html#top",
	"https://www.example.com/news/2024/05/article.html",
	"/img/photo.jpg",
	"tel:+15551234567",
	"https://shop.example.com/cart?item=42&qty=1",
	"/a/b/../c/./d.html",
	"https://www.example.com:443/secure/",
	"/video?v=dQw4w9WgXcQ&t=42s",
	"https://en.wikipedia.org/wiki/Web_crawler",
}

// absLinks are benchLinks resolved (via net/url), for Canonical.
func absLinks(b *testing.B) []string {
	base, _ := url.Parse(benchBase)
	var out []string
	for _, l := range benchLinks {
		u, err := base.Parse(l)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, u.String())
	}
	return out
}

func BenchmarkCanonical(b *testing.B) {
	links := absLinks(b)
	b.Run("impl=ours", func(b *testing.B) {
		var c Canonicalizer
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range links {
				_, _ = c.Canonical(l)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(links)), "ns/link")
	})
	b.Run("impl=purell", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range links {
				_, _ = purell.NormalizeURLString(l, purellFlags)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(links)), "ns/link")
	})
}

// BenchmarkCanonicalFast measures an already-canonical URL (the fast path).
func BenchmarkCanonicalFast(b *testing.B) {
	var c Canonicalizer
	l := "https://www.example.com/news/2024/05/other-article.html?page=2&lang=en"
	b.ReportAllocs()
	for b.Loop() {
		_, _ = c.Canonical(l)
	}
}

func BenchmarkResolve(b *testing.B) {
	base, _ := url.Parse(benchBase)
	b.Run("impl=ours", func(b *testing.B) {
		var c Canonicalizer
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range benchLinks {
				_, _ = c.Resolve(base, l)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchLinks)), "ns/link")
	})
	b.Run("impl=purell", func(b *testing.B) {
		// net/url resolves, purell normalizes: what a purell user would write.
		b.ReportAllocs()
		for b.Loop() {
			for _, l := range benchLinks {
				u, err := base.Parse(l)
				if err != nil {
					continue
				}
				_ = purell.NormalizeURL(u, purellFlags)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchLinks)), "ns/link")
	})
}

func BenchmarkFingerprint(b *testing.B) {
	l := "https://www.example.com/news/2024/05/other-article.html?page=2&lang=en"
	b.ReportAllocs()
	b.SetBytes(int64(len(l)))
	for b.Loop() {
		_ = Fingerprint(l)
	}
}

// TestPurell measures purell on the core table and the merge pairs: how
// many valid inputs it canonicalizes as expected, how many invalid ones it
// rejects, and how many pairs of different pages it merges. The figures are
// logged (go test -run TestPurell -v) and quoted in the package doc.
func TestPurell(t *testing.T) {
	valid, validRight, invalid, invalidRight := 0, 0, 0, 0
	for _, tc := range coreCases {
		got, err := purell.NormalizeURLString(tc.in, purellFlags)
		var ok bool
		if tc.err != nil {
			invalid++
			ok = err != nil
			if ok {
				invalidRight++
			}
		} else {
			valid++
			ok = err == nil && got == tc.want
			if ok {
				validRight++
			}
		}
		if !ok && testing.Verbose() {
			t.Logf("purell %-40.60q -> %.60q, %v; want %.60q", tc.in, got, err, tc.want)
		}
	}
	wrongMerges, pairs := 0, 0
	for _, p := range mergePairs {
		if p.merge {
			continue
		}
		pairs++
		a, erra := purell.NormalizeURLString(p.a, purellFlags)
		b, errb := purell.NormalizeURLString(p.b, purellFlags)
		if erra == nil && errb == nil && a == b {
			wrongMerges++
			t.Logf("purell merges %q and %q into %q", p.a, p.b, a)
		}
	}
	t.Logf("purell: %d of %d valid core cases right, %d of %d invalid rejected, %d of %d must-not-merge pairs merged",
		validRight, valid, invalidRight, invalid, wrongMerges, pairs)
}

// BenchmarkResolveKind measures Resolve per kind of href.
func BenchmarkResolveKind(b *testing.B) {
	base, _ := url.Parse(benchBase)
	for _, k := range []struct{ name, ref string }{
		{"relative", "../04/older.html"},
		{"root-relative", "/search?q=go+crawler&lang=en"},
		{"absolute-canonical", "https://cdn.example.org/static/js/app.min.js"},
		{"absolute-upper-host", "http://Example.COM/Products/Widget%20Pro/"},
		{"fragment", "#comments"},
		{"javascript", "javascript:void(0)"},
		{"idn", "https://münchen.de/straße"},
	} {
		b.Run("kind="+k.name, func(b *testing.B) {
			var c Canonicalizer
			b.ReportAllocs()
			for b.Loop() {
				_, _ = c.Resolve(base, k.ref)
			}
		})
	}
}
