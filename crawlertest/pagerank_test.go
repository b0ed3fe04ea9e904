package crawlertest_test

import (
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"

	"crawler/crawlertest"
)

// servedPageRank computes the PageRank of the pages of a reference crawl of
// w from the served HTML, as PageRank defines it: the followed links of
// each page, redirects resolved over HTTP, links that lead to no crawled
// page ignored, several links to one page one edge.
func servedPageRank(t *testing.T, w *crawlertest.Web, pages []string) map[string]float64 {
	c := noFollow(w)
	node := map[string]int{}
	for i, u := range pages {
		node[u] = i
	}
	final := map[string]int{} // URL -> node it leads to, -1 for none
	var resolve func(u string, hops int) int
	resolve = func(u string, hops int) int {
		if i, ok := node[u]; ok {
			return i
		}
		if i, ok := final[u]; ok {
			return i
		}
		final[u] = -1
		if w.IsTrap(u) || hops > 20 {
			return -1
		}
		r := get(t, c, u)
		if r.status >= 300 && r.status < 400 {
			base, _ := url.Parse(u)
			if to, ok := canon(base, r.location); ok {
				final[u] = resolve(to, hops+1)
			}
		}
		return final[u]
	}
	out := make([][]int, len(pages))
	for i, u := range pages {
		base, _ := url.Parse(u)
		set := map[int]bool{}
		for _, l := range extract(get(t, c, u).body) {
			if to, ok := canon(base, l.href); ok && !l.nofollow {
				if j := resolve(to, 0); j >= 0 {
					set[j] = true
				}
			}
		}
		out[i] = slices.Sorted(maps.Keys(set))
	}
	n := float64(len(pages))
	pr := make([]float64, len(pages))
	for i := range pr {
		pr[i] = 1 / n
	}
	for range 1000 {
		next := make([]float64, len(pages))
		dangling := 0.0
		for i, js := range out {
			if len(js) == 0 {
				dangling += pr[i]
			}
			for _, j := range js {
				next[j] += 0.85 * pr[i] / float64(len(js))
			}
		}
		for j := range next {
			next[j] += 0.15/n + 0.85*dangling/n
		}
		pr = next
	}
	m := map[string]float64{}
	for i, u := range pages {
		m[u] = pr[i]
	}
	return m
}

// TestPageRankMatchesServedWeb checks GoodPages and PageRank against a
// reference crawl of the served HTML, with and without traps.
func TestPageRankMatchesServedWeb(t *testing.T) {
	for name, cfg := range map[string]crawlertest.Config{"small": small, "popular": popular, "trapped": trapped} {
		t.Run(name, func(t *testing.T) {
			w := newWeb(t, cfg)
			_, _, pages := referenceCrawl(t, w)
			good := w.GoodPages()
			if !slices.Equal(pages, good) {
				t.Fatalf("the crawl fetched %d HTML pages, GoodPages has %d", len(pages), len(good))
			}
			for _, u := range good {
				if w.IsTrap(u) {
					t.Errorf("GoodPages has %s", u)
				}
			}
			want := servedPageRank(t, w, pages)
			got := w.PageRank()
			if len(got) != len(want) {
				t.Fatalf("PageRank has %d pages, want %d", len(got), len(want))
			}
			for u, p := range want {
				if math.Abs(got[u]-p) > 1e-9 {
					t.Errorf("PageRank[%s] = %g, the served web's is %g", u, got[u], p)
				}
			}
		})
	}
}

func TestPageRank(t *testing.T) {
	sum := func(m map[string]float64) float64 {
		s := 0.0
		for _, u := range slices.Sorted(maps.Keys(m)) {
			s += m[u]
		}
		return s
	}
	// deciles returns the mass of the top and bottom tenth of the pages.
	deciles := func(m map[string]float64) (top, bottom float64) {
		v := slices.Sorted(maps.Values(m))
		k := len(v) / 10
		for i := range k {
			bottom += v[i]
			top += v[len(v)-1-i]
		}
		return top, bottom
	}
	cfg := crawlertest.Config{Seed: 2, Hosts: 20, PagesPerHost: 50, Popularity: 1, Traps: trapped.Traps}
	w := newWeb(t, cfg)
	pr := w.PageRank()
	if s := sum(pr); math.Abs(s-1) > 1e-9 {
		t.Errorf("PageRank sums to %v", s)
	}
	if again := w.PageRank(); !maps.Equal(pr, again) {
		t.Error("PageRank differs between two calls")
	}
	if other := newWeb(t, cfg).PageRank(); !maps.Equal(pr, other) {
		t.Error("PageRank differs between two webs of the same Config")
	}
	if !slices.Equal(slices.Sorted(maps.Keys(pr)), w.GoodPages()) {
		t.Error("PageRank's pages are not GoodPages")
	}
	top, bottom := deciles(pr)
	if top < 8*bottom {
		t.Errorf("Popularity 1: the top decile holds %.3f, the bottom %.3f: want a skew", top, bottom)
	}
	// The home page of h0, the most popular page, ranks first.
	best := slices.MaxFunc(slices.Collect(maps.Keys(pr)), func(a, b string) int {
		if pr[a] < pr[b] {
			return -1
		}
		if pr[a] > pr[b] {
			return 1
		}
		return strings.Compare(b, a)
	})
	if best != "http://h0.crawler.test/" {
		t.Errorf("top page %s (%g), want h0's home (%g)", best, pr[best], pr["http://h0.crawler.test/"])
	}
	cfg.Popularity = 0
	flatTop, flatBottom := deciles(newWeb(t, cfg).PageRank())
	if flatTop/flatBottom >= top/bottom/2 {
		t.Errorf("uniform web: deciles %.3f/%.3f, not flatter than Popularity 1's %.3f/%.3f", flatTop, flatBottom, top, bottom)
	}
	t.Logf("top/bottom decile mass: Popularity 1: %.3f/%.3f; uniform: %.3f/%.3f", top, bottom, flatTop, flatBottom)
	if len(newWeb(t, cfg).PageRank("http://h1.crawler.test/nope")) != 0 {
		t.Error("PageRank from a 404 seed is not empty")
	}
}

func BenchmarkPageRank(b *testing.B) {
	w := newWeb(b, crawlertest.Config{Hosts: 100, PagesPerHost: 100, Popularity: 1})
	b.ReportAllocs()
	for b.Loop() {
		w.PageRank()
	}
	b.ReportMetric(float64(len(w.GoodPages())), "pages")
}
