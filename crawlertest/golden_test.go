package crawlertest_test

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"testing"
)

// TestGolden pins the bytes of a web of the zero Popularity and no traps:
// features added later (Config.Popularity, Config.Traps) must leave such a
// web unchanged. The hash covers every HTML page, redirect and 404 of the
// small web, and its ground truth.
func TestGolden(t *testing.T) {
	const want = uint64(0x680fdc8778c76a8)
	w := newWeb(t, small)
	c := noFollow(w)
	h := fnv.New64a()
	for host := range small.Hosts {
		for n := range small.PagesPerHost {
			for _, p := range []string{"/p/%d", "/private/%d", "/nofollow/%d", "/r/%d", "/missing/%d"} {
				u := hostURL(host, fmt.Sprintf(p, n))
				if p == "/p/%d" && n == 0 {
					u = hostURL(host, "/")
				}
				r := get(t, c, u)
				fmt.Fprintf(h, "%s %d %s %s\n", u, r.status, r.location, r.body)
			}
		}
	}
	d := w.Depths()
	for _, u := range slices.Sorted(maps.Keys(d)) {
		fmt.Fprintf(h, "%s %d\n", u, d[u])
	}
	if got := h.Sum64(); got != want {
		t.Errorf("hash of the web = %#x, want %#x", got, want)
	}
}
