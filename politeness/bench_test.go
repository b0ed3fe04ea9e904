package politeness

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// benchRobots is a robots.txt of typical size: a few groups, ~120 rules, some
// with wildcards.
func benchRobots() []byte {
	var b strings.Builder
	b.WriteString("# robots.txt\nSitemap: https://example.com/sitemap.xml\n\n")
	for _, agent := range []string{"googlebot", "bingbot", "*"} {
		fmt.Fprintf(&b, "User-agent: %s\nCrawl-delay: 1\n", agent)
		for i := range 40 {
			switch i % 4 {
			case 0:
				fmt.Fprintf(&b, "Disallow: /section%d/\n", i)
			case 1:
				fmt.Fprintf(&b, "Allow: /section%d/public/\n", i-1)
			case 2:
				fmt.Fprintf(&b, "Disallow: /*?sort=%d\n", i)
			case 3:
				fmt.Fprintf(&b, "Disallow: /files/*.pdf$ # %d\n", i)
			}
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

func BenchmarkParseRobots(b *testing.B) {
	body := benchRobots()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		ParseRobots(body)
	}
}

func BenchmarkAllowed(b *testing.B) {
	r := ParseRobots(benchRobots())
	for _, target := range []string{"/section8/public/page.html", "https://example.com/files/a/b.pdf?x=1"} {
		b.Run("target="+strings.Trim(target[len(target)-8:], "/"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.Allowed(ua, target)
			}
		})
	}
}

// BenchmarkAllowedPathological matches a pattern of many wildcards against a
// long path it almost matches: the cost must stay near linear in the path.
func BenchmarkAllowedPathological(b *testing.B) {
	r := ParseRobots([]byte("User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n"))
	for _, n := range []int{1 << 10, 64 << 10} {
		target := "/" + strings.Repeat("a", n)
		b.Run(fmt.Sprintf("len=%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				if !r.Allowed(ua, target) {
					b.Fatal("matched")
				}
			}
		})
	}
}

func BenchmarkRobotsCacheGetHit(b *testing.B) {
	c := &RobotsCache{Fetch: func(context.Context, string) (int, []byte, error) {
		return 200, benchRobots(), nil
	}}
	ctx := context.Background()
	c.Get(ctx, "https://example.com")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Get(ctx, "https://example.com")
		}
	})
}
