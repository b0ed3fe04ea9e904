package graph_test

import (
	"math"
	"testing"

	"crawler/graph"
)

func TestDefaultURLScore(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want float64
	}{
		{"http://example.com/", 1},
		{"http://example.com", 1},
		{"http://example.com/index.html", 1},
		{"https://example.com/Home#top", 1},
		{"http://example.com/docs/", 1.0 / 2},
		{"http://example.com/docs/index.php", 1.0 / 2},
		{"http://example.com/?q=1", 1.0 / 2},
		{"http://example.com/docs/a.html", 1.0 / 3},
		{"http://example.com/a//b/c?x", 1.0 / 5},
		{"http://h3.crawler.test/p/7", 1.0 / 3},
		{"/relative/path", 1.0 / 3},
	} {
		if got := graph.DefaultURLScore(tc.url); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("DefaultURLScore(%q) = %v, want %v", tc.url, got, tc.want)
		}
	}
}

func TestImportance(t *testing.T) {
	var zero graph.Importance
	if got := zero.Score("http://a/", 3); got != 4 {
		t.Errorf("zero Importance: Score = %v, want 3 backlinks + 1", got)
	}
	urlOnly := graph.Importance{B: 2, URLScore: func(string) float64 { return 0.25 }}
	if got := urlOnly.Score("http://a/", 3); got != 0.5 {
		t.Errorf("A=0, B=2: Score = %v, want 0.5", got)
	}

	// a/ and a/x/y link to a/x/y/z, which nobody fetched: with
	// KeepUnfetched it is the frontier page to fetch first.
	data := write(t,
		page{url: "http://a/", links: []string{"http://a/x/y", "http://a/x/y/z", "http://a/b"}},
		page{url: "http://a/x/y", links: []string{"http://a/x/y/z", "http://a/"}},
	)
	g := read(t, data, graph.ReadOptions{KeepUnfetched: true})
	s := zero.Scores(g)
	want := map[string]float64{
		"http://a/":      1 + 1,
		"http://a/x/y":   1 + 1.0/3,
		"http://a/x/y/z": 2 + 1.0/4,
		"http://a/b":     1 + 1.0/2,
	}
	for k := range g.Len() {
		if w := want[g.URL(k)]; math.Abs(s[k]-w) > 1e-15 {
			t.Errorf("Scores: %s = %v, want %v", g.URL(k), s[k], w)
		}
	}
}
