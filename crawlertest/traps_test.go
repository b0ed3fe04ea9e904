package crawlertest_test

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"crawler/crawlertest"
)

// trapKinds are the trap kinds, in order.
var trapKinds = []crawlertest.Trap{crawlertest.Calendar, crawlertest.SessionID, crawlertest.DeepPath, crawlertest.LinkFarm, crawlertest.Soft404}

// trapped is a web of 25 hosts of which 20% are traps, one of each kind:
// h4 Calendar, h9 SessionID, h14 DeepPath, h19 LinkFarm, h24 Soft404.
var trapped = crawlertest.Config{
	Seed: 9, Hosts: 25, PagesPerHost: 20, PageBytes: 1024, OutDegree: 8, MaxChain: 4, Popularity: 1,
	Traps: func(h int) crawlertest.Trap {
		if h%5 != 4 {
			return crawlertest.NoTrap
		}
		return trapKinds[h/5]
	},
}

// trapHost returns the index of trapped's host of kind k.
func trapHost(k crawlertest.Trap) int { return 5*slices.Index(trapKinds, k) + 4 }

// TestTrapsUnbounded crawls each trap host breadth first, from its home
// page, through the served HTML, and checks that it serves at least n
// distinct trap URLs, all with 200 and HTML, and that its links that leave
// the host point at good pages (and that the link farm's never leave).
func TestTrapsUnbounded(t *testing.T) {
	const n = 500
	w := newWeb(t, trapped)
	c := noFollow(w)
	for _, k := range trapKinds {
		t.Run(k.String(), func(t *testing.T) {
			h := trapHost(k)
			host := fmt.Sprintf("h%d.crawler.test", h)
			if got := w.HostTrap(host); got != k {
				t.Fatalf("HostTrap(%s) = %v, want %v", host, got, k)
			}
			seen := map[string]bool{hostURL(h, "/"): true}
			queue := []string{hostURL(h, "/")}
			fetched, offHost := 0, 0
			for ; fetched < n; fetched++ {
				if len(queue) == 0 {
					t.Fatalf("trap exhausted after %d URLs", fetched)
				}
				u := queue[0]
				queue = queue[1:]
				if !w.IsTrap(u) {
					t.Fatalf("IsTrap(%s) = false", u)
				}
				r := get(t, c, u)
				if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
					t.Fatalf("%s: %d %s", u, r.status, r.header.Get("Content-Type"))
				}
				base, _ := url.Parse(u)
				for _, l := range extract(r.body) {
					to, ok := canon(base, l.href)
					if !ok {
						t.Fatalf("%s: bad link %q", u, l.href)
					}
					if pu, _ := url.Parse(to); pu.Host != host {
						offHost++
						if w.IsTrap(to) || !strings.HasPrefix(pu.Path, "/") {
							t.Errorf("%s links to %s, a trap of another host", u, to)
						}
						if r := get(t, c, to); r.status != http.StatusOK {
							t.Errorf("%s links to %s, which answers %d", u, to, r.status)
						}
						continue
					}
					if !seen[to] {
						seen[to] = true
						queue = append(queue, to)
					}
				}
			}
			switch {
			case k == crawlertest.LinkFarm && offHost > 0:
				t.Errorf("the link farm links %d times out of the farm", offHost)
			case k != crawlertest.LinkFarm && offHost == 0:
				t.Errorf("no link back to a good page")
			}
			if got := w.RequestCounts(); len(onHost(got, h, "/")) < n {
				t.Errorf("RequestCounts has %d URLs of %s, want ≥ %d", len(onHost(got, h, "/")), host, n)
			}
		})
	}
	if got, want := w.TrapRequests(), n*len(trapKinds); got != want {
		t.Errorf("TrapRequests = %d, want %d", got, want)
	}
	w.ResetCounts()
	if got := w.TrapRequests(); got != 0 {
		t.Errorf("TrapRequests after ResetCounts = %d", got)
	}
}

var sidRE = regexp.MustCompile(`sid=[0-9a-f]{16}`)

func TestSessionIDContent(t *testing.T) {
	w := newWeb(t, trapped)
	c := noFollow(w)
	h := trapHost(crawlertest.SessionID)
	var bodies []string
	for _, p := range []string{"/p/3", "/p/3?sid=a", "/p/3?sid=0123456789abcdef", "/x/../p/3?sid=Z-_9"} {
		r := get(t, c, hostURL(h, p))
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d", p, r.status)
		}
		bodies = append(bodies, r.body)
	}
	norm := sidRE.ReplaceAllString(bodies[0], "sid=")
	if norm == bodies[0] {
		t.Fatal("no sid in the links of a session page")
	}
	for i, b := range bodies[1:] {
		if b == bodies[0] {
			t.Errorf("body %d has the same sids as body 0", i+1)
		}
		if sidRE.ReplaceAllString(b, "sid=") != norm {
			t.Errorf("body %d differs from body 0 beyond its sids", i+1)
		}
	}
	for _, l := range extract(bodies[0]) {
		if strings.HasPrefix(l.href, "/") && !sidRE.MatchString(l.href) {
			t.Errorf("link %q to the session host without a sid", l.href)
		}
	}
	for _, p := range []string{"/p/3?sid=", "/p/3?sid=a&b=1", "/p/3?sid=a.b", "/p/999", "/p/0", "/?x=1"} {
		if r := get(t, c, hostURL(h, p)); r.status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, r.status)
		}
	}
	if a, b := get(t, c, hostURL(h, "/p/5?sid=abc")), get(t, c, hostURL(h, "/p/6?sid=abc")); sidRE.ReplaceAllString(a.body, "") == sidRE.ReplaceAllString(b.body, "") {
		t.Error("pages 5 and 6 have the same text")
	}
}

func TestSoft404(t *testing.T) {
	w := newWeb(t, trapped)
	c := noFollow(w)
	h := trapHost(crawlertest.Soft404)
	var first string
	for i, p := range []string{"/", "/nope", "/a/b/c?x=1", "/more/extra/1", "/p/1", "/missing/1", "/%C3%BC"} {
		r := get(t, c, hostURL(h, p))
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("%s: %d %s", p, r.status, r.header.Get("Content-Type"))
		}
		if i == 0 {
			first = r.body
		} else if r.body != first {
			t.Errorf("%s: body differs from /'s", p)
		}
	}
	if title(first) != "Page not found" {
		t.Errorf("title %q", title(first))
	}
	if r := get(t, c, hostURL(h, "/robots.txt")); r.status != http.StatusOK || r.body != defaultRobots {
		t.Errorf("robots.txt: %d %q", r.status, r.body)
	}
}

func TestTrapPaths(t *testing.T) {
	w := newWeb(t, trapped)
	c := noFollow(w)
	tests := []struct {
		k      crawlertest.Trap
		path   string
		status int
		title  string
	}{
		{crawlertest.Calendar, "/", 200, "Calendar: January 2025"},
		{crawlertest.Calendar, "/calendar?month=2025-01", 200, "Calendar: January 2025"},
		{crawlertest.Calendar, "/calendar?month=0001-01", 200, "Calendar: January 1"},
		{crawlertest.Calendar, "/calendar?month=123456789-12", 200, "Calendar: December 123456789"},
		{crawlertest.Calendar, "/calendar?month=2025-1", 404, ""},
		{crawlertest.Calendar, "/calendar?month=02025-01", 404, ""},
		{crawlertest.Calendar, "/calendar?month=0000-01", 404, ""},
		{crawlertest.Calendar, "/calendar?month=2025-13", 404, ""},
		{crawlertest.Calendar, "/calendar", 404, ""},
		{crawlertest.Calendar, "/p/1", 404, ""},
		{crawlertest.DeepPath, "/d/cedar/", 200, "Deep page /d/cedar/ at depth 1"},
		{crawlertest.DeepPath, "/d/cedar/alpha/", 200, "Deep page /d/cedar/alpha/ at depth 2"},
		{crawlertest.DeepPath, "/d/cedar", 404, ""},
		{crawlertest.DeepPath, "/d/", 404, ""},
		{crawlertest.DeepPath, "/d/nope/", 404, ""},
		{crawlertest.DeepPath, "/d/cedar/?q", 404, ""},
		{crawlertest.LinkFarm, "/farm/999999999", 200, "Link farm page 999999999"},
		{crawlertest.LinkFarm, "/farm/1000000000", 404, ""},
		{crawlertest.LinkFarm, "/farm/01", 404, ""},
		{crawlertest.SessionID, "/", 200, fmt.Sprintf("Session site %d page 0", trapHost(crawlertest.SessionID))},
	}
	for _, tt := range tests {
		u := hostURL(trapHost(tt.k), tt.path)
		r := get(t, c, u)
		if r.status != tt.status || (tt.title != "" && title(r.body) != tt.title) {
			t.Errorf("%s (%v): %d %q, want %d %q", u, tt.k, r.status, title(r.body), tt.status, tt.title)
		}
	}
	// The calendar's pages link to the months before and after.
	r := get(t, c, hostURL(trapHost(crawlertest.Calendar), "/calendar?month=2025-01"))
	var hrefs []string
	for _, l := range extract(r.body) {
		hrefs = append(hrefs, l.href)
	}
	if !slices.Contains(hrefs, "/calendar?month=2024-12") || !slices.Contains(hrefs, "/calendar?month=2025-02") {
		t.Errorf("2025-01 links to %q", hrefs)
	}
	// The farm's pages have 2×OutDegree links and differ.
	a, b := get(t, c, hostURL(trapHost(crawlertest.LinkFarm), "/farm/1")), get(t, c, hostURL(trapHost(crawlertest.LinkFarm), "/farm/2"))
	if n := len(extract(a.body)); n != 2*trapped.OutDegree {
		t.Errorf("a farm page has %d links, want %d", n, 2*trapped.OutDegree)
	}
	if a.body == b.body {
		t.Error("two farm pages are equal")
	}
}

func TestIsTrap(t *testing.T) {
	w := newWeb(t, trapped)
	for u, want := range map[string]bool{
		"http://h4.crawler.test/":                               true,
		"HTTP://H4.Crawler.Test:80/x/../calendar?month=2025-02": true,
		"http://h24.crawler.test/anything/at/all":               true,
		"http://h9.crawler.test/robots.txt":                     true,
		"http://h3.crawler.test/":                               false,
		"http://h0.crawler.test/p/1":                            false,
		"http://h25.crawler.test/":                              false,
		"https://h4.crawler.test/":                              false,
		"http://h4.crawler.test:8080/":                          false,
		"http://example.com/":                                   false,
	} {
		if got := w.IsTrap(u); got != want {
			t.Errorf("IsTrap(%s) = %v", u, got)
		}
	}
	want := []string{"h4.crawler.test", "h9.crawler.test", "h14.crawler.test", "h19.crawler.test", "h24.crawler.test"}
	if got := w.TrapHosts(); !slices.Equal(got, want) {
		t.Errorf("TrapHosts = %v, want %v", got, want)
	}
	plain := newWeb(t, small)
	if plain.TrapHosts() != nil || plain.IsTrap("http://h4.crawler.test/") || plain.HostTrap("h4.crawler.test") != crawlertest.NoTrap {
		t.Error("a web without Traps has traps")
	}
}

func TestTrapsValidation(t *testing.T) {
	for name, f := range map[string]func(int) crawlertest.Trap{
		"host 0":  func(h int) crawlertest.Trap { return crawlertest.Trap(1 - min(h, 1)) },
		"invalid": func(h int) crawlertest.Trap { return crawlertest.Trap(h * 40) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: NewWeb did not panic", name)
				}
			}()
			cfg := small
			cfg.Traps = f
			crawlertest.NewWeb(cfg).Close()
		}()
	}
}

// TestTrapsGroundTruth checks that a crawl that skips the trap hosts fetches
// exactly Depths, which holds no trap URL, and that good pages link to the
// traps' entries.
func TestTrapsGroundTruth(t *testing.T) {
	w := newWeb(t, trapped)
	want := w.Depths()
	got, blocked, _ := referenceCrawl(t, w)
	if !maps.Equal(got, want) {
		t.Errorf("the crawl fetched %d URLs, Depths has %d", len(got), len(want))
	}
	if !slices.Equal(blocked, w.Disallowed()) {
		t.Errorf("the crawl met %d disallowed URLs, Disallowed has %d", len(blocked), len(w.Disallowed()))
	}
	for u := range want {
		if w.IsTrap(u) {
			t.Errorf("Depths has trap URL %s", u)
		}
	}
	for h := range trapped.Hosts {
		if trapped.Traps(h) != crawlertest.NoTrap {
			continue
		}
		for p := range trapped.PagesPerHost {
			if _, ok := want[w.URL(h, p)]; !ok {
				t.Errorf("good page %s not in Depths", w.URL(h, p))
			}
		}
	}
	// Links from good pages to each trap's entry.
	c := noFollow(w)
	entries := map[string]int{}
	for u := range want {
		r := get(t, c, u)
		if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
			continue
		}
		base, _ := url.Parse(u)
		for _, l := range extract(r.body) {
			if to, ok := canon(base, l.href); ok && w.IsTrap(to) {
				entries[to]++
			}
		}
	}
	for _, k := range trapKinds {
		if e := hostURL(trapHost(k), "/"); entries[e] < 2 {
			t.Errorf("%d links from good pages to %s (%v)", entries[e], e, k)
		}
	}
	if len(entries) != len(trapKinds) {
		t.Errorf("good pages link to trap URLs other than the entries: %v", entries)
	}
}

// TestNoTrapIsDefault checks that Traps returning NoTrap everywhere gives
// the web without Traps.
func TestNoTrapIsDefault(t *testing.T) {
	cfg := small
	cfg.Traps = func(int) crawlertest.Trap { return crawlertest.NoTrap }
	a, b := newWeb(t, small), newWeb(t, cfg)
	if !maps.Equal(a.Depths(), b.Depths()) {
		t.Error("NoTrap everywhere changes Depths")
	}
	ca, cb := noFollow(a), noFollow(b)
	for h := range small.Hosts {
		u := hostURL(h, "/")
		if get(t, ca, u).body != get(t, cb, u).body {
			t.Errorf("%s differs", u)
		}
	}
}
