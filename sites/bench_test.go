package sites_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"crawler/sites"
)

// benchRules returns rules of n entries: a quarter each *.domain, host,
// host:port and URL prefix, and URLs that hit each kind and miss.
func benchRules(b testing.TB, n int) (*sites.Rules, []*url.URL) {
	var src strings.Builder
	for i := range n {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&src, "[[site]]\nmatch = \"*.d%d.example\"\ndelay = \"1s\"\n", i)
		case 1:
			fmt.Fprintf(&src, "[[site]]\nmatch = \"www.d%d.example\"\nper_host = 2\n", i-1)
		case 2:
			fmt.Fprintf(&src, "[[site]]\nmatch = \"www.d%d.example:8080\"\nheaders = { X-A = \"b\" }\n", i-2)
		case 3:
			fmt.Fprintf(&src, "[[site]]\nmatch = \"https://www.d%d.example/docs/\"\nrender = true\n", i-3)
		}
	}
	r, err := sites.Load("bench.toml", []byte(src.String()), noEnv)
	if err != nil {
		b.Fatal(err)
	}
	var us []*url.URL
	for _, s := range []string{
		"https://www.d40.example/docs/a/b?c=d", // prefix
		"http://www.d40.example:8080/x",        // host:port
		"https://www.d40.example/",             // host
		"https://a.b.c.d40.example/x",          // *.domain, three levels up
		"https://www.unmatched.example/x",      // none
	} {
		u, _ := url.Parse(s)
		us = append(us, u)
	}
	return r, us
}

func BenchmarkFor(b *testing.B) {
	r, us := benchRules(b, 1000)
	for _, u := range us {
		b.Run("url="+u.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = r.For(u)
			}
		})
	}
}

func BenchmarkForHost(b *testing.B) {
	r, _ := benchRules(b, 1000)
	b.ReportAllocs()
	for b.Loop() {
		_ = r.ForHost("www.d40.example:8080")
	}
}

func BenchmarkLoad(b *testing.B) {
	var src strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&src, "[[site]]\nmatch = \"www.d%d.example\"\ndelay = \"1s\"\nheaders = { X-A = \"b\" }\n", i)
	}
	data := []byte(src.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sites.Load("bench.toml", data, noEnv); err != nil {
			b.Fatal(err)
		}
	}
}

// For does not allocate on canonical URLs (a benchmark may not run; this does).
func TestForAllocs(t *testing.T) {
	r, us := benchRules(t, 1000)
	for _, u := range us {
		if n := testing.AllocsPerRun(100, func() { _ = r.For(u) }); n != 0 {
			t.Errorf("For(%s): %v allocations", u, n)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = r.ForHost("www.d40.example:8080") }); n != 0 {
		t.Errorf("ForHost: %v allocations", n)
	}
}
