package crawler_test

import (
	"context"
	"strings"
	"testing"
)

// MaxDepth d fetches the pages within d links of the seed; 0 or negative
// is no limit.
func TestMaxDepth(t *testing.T) {
	const n = 20
	s := chainSite(t, n)
	for _, depth := range []int{-1, 0, 1, 4} {
		s.reset()
		var got collect
		c := fast(&got)
		c.Scope.MaxDepth = depth
		if err := c.Run(context.Background(), s.URL+"/0"); err != nil {
			t.Fatal(err)
		}
		maxd := depth
		if depth <= 0 {
			maxd = n + 1
		}
		// Pages /0../n are at depth i; leaves /i/x and /i/y at i+1.
		want := 1 + 3*min(maxd, n)
		if len(got.pages) != want {
			t.Errorf("MaxDepth=%d: %d pages, want %d: %v", depth, len(got.pages), want, got.urls())
		}
		for _, p := range got.pages {
			if p.Depth > maxd {
				t.Errorf("MaxDepth=%d: %s fetched at depth %d", depth, p.URL, p.Depth)
			}
		}
	}
}

func TestScope(t *testing.T) {
	other := newSite(t, map[string]response{"/": html("/o")})
	s := newSite(t, map[string]response{
		"/":     html("/in", other.URL+"/", "/skip-me"),
		"/in":   html(),
		"/skip": html(),
	})
	c := fast(nil)
	c.Scope.SameHost = true
	c.Scope.Allow = func(u string, depth int) bool { return !strings.Contains(u, "skip") }
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if other.count("/") != 0 || s.count("/in") != 1 || s.count("/skip-me") != 0 {
		t.Errorf("requests: other %v, site %v", other.requests(), s.requests())
	}
	if st := c.Stats(); st.OutOfScope != 2 {
		t.Errorf("OutOfScope = %d, want 2", st.OutOfScope)
	}

	c = fast(nil)
	c.Scope.Domains = []string{"127.0.0.1"}
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if other.count("/") != 1 {
		t.Errorf("Domains=127.0.0.1 did not follow the link to the other port")
	}
}
