package crawlertest_test

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"crawler/crawlertest"
)

const defaultRobots = "User-agent: *\nDisallow: /private/\n"

// behaving returns a Config of small with Hosts hosts and the Behaviors of
// bs (by host index; hosts beyond bs behave).
func behaving(hosts int, bs map[int]crawlertest.Behavior) crawlertest.Config {
	cfg := small
	cfg.Hosts = hosts
	cfg.Behavior = func(h int) crawlertest.Behavior { return bs[h] }
	return cfg
}

func hostURL(h int, path string) string { return fmt.Sprintf("http://h%d.crawler.test%s", h, path) }

func TestZeroBehaviorIsDefault(t *testing.T) {
	plain := newWeb(t, small)
	cfg := small
	calls := 0
	cfg.Behavior = func(int) crawlertest.Behavior { calls++; return crawlertest.Behavior{} }
	zero := newWeb(t, cfg)
	if calls != small.Hosts {
		t.Errorf("Behavior called %d times, want once per host (%d)", calls, small.Hosts)
	}
	cp, cz := noFollow(plain), noFollow(zero)
	for h := range small.Hosts {
		for _, p := range []string{"/robots.txt", "/robots-hop/1", "/", "/p/3", "/private/1", "/img/2.png", "/r/3", "/to/1/2", "/chain/2/3", "/loop/a", "/missing/1", "/nope"} {
			u := hostURL(h, p)
			a, b := get(t, cp, u), get(t, cz, u)
			if a.status != b.status || a.body != b.body || a.location != b.location || a.header.Get("Retry-After") != b.header.Get("Retry-After") {
				t.Errorf("%s: zero Behavior answers %d %q, nil Behavior %d %q", u, b.status, b.location, a.status, a.location)
			}
		}
	}
	if !maps.Equal(plain.Depths(), zero.Depths()) || !slices.Equal(plain.Disallowed(), zero.Disallowed()) {
		t.Error("zero Behavior changes the ground truth")
	}
	if u := zero.Unreachable(); len(u) != 0 {
		t.Errorf("Unreachable = %v with zero Behaviors", u)
	}
	if plain.Log() != nil || zero.Log() != nil {
		t.Error("Log not nil with Config.Log false")
	}
}

func TestBehaviorValidation(t *testing.T) {
	for _, b := range []crawlertest.Behavior{
		{RobotsStatus: 200},
		{RobotsStatus: 302},
		{RobotsStatus: 600},
		{PageStatus: 200},
		{PageStatus: 301},
		{RobotsRedirects: -1},
		{RobotsRedirects: 1001},
		{RobotsPadding: -1},
		{ThrottleEvery: -2},
		{RetryAfter: "1\r\nX-Evil: 1"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewWeb accepted Behavior %+v", b)
				}
			}()
			w := crawlertest.NewWeb(crawlertest.Config{Hosts: 2, Behavior: func(h int) crawlertest.Behavior {
				if h == 1 {
					return b
				}
				return crawlertest.Behavior{}
			}})
			w.Close()
		}()
	}
}

func TestRobotsStatus(t *testing.T) {
	statuses := []int{401, 403, 404, 429, 500, 503}
	bs := map[int]crawlertest.Behavior{}
	for h, s := range statuses {
		bs[h] = crawlertest.Behavior{RobotsStatus: s}
	}
	w := newWeb(t, behaving(len(statuses), bs))
	c := noFollow(w)
	for h, s := range statuses {
		r := get(t, c, hostURL(h, "/robots.txt"))
		if r.status != s {
			t.Errorf("h%d robots.txt: status %d, want %d", h, r.status, s)
		}
		if r.body == "" || len(r.body) > 100 || strings.Contains(r.body, "Disallow") || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
			t.Errorf("h%d robots.txt: body %q, Content-Type %q", h, r.body, r.header.Get("Content-Type"))
		}
		if _, ok := r.header["Retry-After"]; ok {
			t.Errorf("h%d robots.txt: Retry-After %q", h, r.header.Get("Retry-After"))
		}
		if n := w.RobotsRequests(w.Hosts()[h]); n != 1 {
			t.Errorf("RobotsRequests(h%d) = %d, want 1", h, n)
		}
		// Pages are unaffected.
		if r := get(t, c, hostURL(h, "/p/1")); r.status != 200 {
			t.Errorf("h%d /p/1: status %d", h, r.status)
		}
	}
}

// hop is one response of a redirect chain.
type hop struct {
	url      string
	status   int
	location string // resolved
}

// chain follows the redirects from u by hand, at most max responses.
func chain(t *testing.T, c *http.Client, u string, max int) (hops []hop, last result) {
	t.Helper()
	for range max {
		last = get(t, c, u)
		h := hop{url: u, status: last.status}
		if last.status >= 300 && last.status < 400 {
			base, _ := url.Parse(u)
			to, err := base.Parse(last.location)
			if err != nil {
				t.Fatalf("%s: Location %q: %v", u, last.location, err)
			}
			h.location = to.String()
		}
		hops = append(hops, h)
		if h.location == "" {
			return hops, last
		}
		u = h.location
	}
	return hops, last
}

func TestRobotsRedirects(t *testing.T) {
	w := newWeb(t, behaving(6, map[int]crawlertest.Behavior{
		1: {RobotsRedirects: 3},
		2: {RobotsRedirects: 7},
		3: {RobotsRedirects: 2}, // no robots.txt on h3: the chain ends in 404
		4: {RobotsLoop: true, RobotsRedirects: 2},
		5: {RobotsRedirects: 1, RobotsStatus: 503},
	}))
	c := noFollow(w)
	for _, tt := range []struct {
		host     int
		statuses []int
		final    int
		body     string
	}{
		{0, nil, 200, defaultRobots},
		{1, []int{301, 302, 307}, 200, defaultRobots},
		{2, []int{301, 302, 307, 308, 301, 302, 307}, 200, defaultRobots},
		{3, []int{301, 302}, 404, ""},
		{5, []int{301}, 503, ""},
	} {
		hops, last := chain(t, c, hostURL(tt.host, "/robots.txt"), 20)
		var got []int
		for i, h := range hops[:len(hops)-1] {
			got = append(got, h.status)
			if want := hostURL(tt.host, fmt.Sprintf("/robots-hop/%d", i+1)); h.location != want {
				t.Errorf("h%d: hop %d from %s to %s, want %s", tt.host, i, h.url, h.location, want)
			}
		}
		if !slices.Equal(got, tt.statuses) || last.status != tt.final || (tt.body != "" && last.body != tt.body) {
			t.Errorf("h%d: redirects %v then %d %q; want %v then %d %q", tt.host, got, last.status, last.body, tt.statuses, tt.final, tt.body)
		}
		if n := w.RobotsRequests(w.Hosts()[tt.host]); n != len(tt.statuses)+1 {
			t.Errorf("RobotsRequests(h%d) = %d, want %d", tt.host, n, len(tt.statuses)+1)
		}
	}
	// Locations alternate between absolute URLs and absolute paths.
	if r := get(t, c, hostURL(1, "/robots.txt")); r.location != "http://h1.crawler.test/robots-hop/1" {
		t.Errorf("h1 robots.txt: Location %q", r.location)
	}
	if r := get(t, c, hostURL(1, "/robots-hop/1")); r.location != "/robots-hop/2" {
		t.Errorf("h1 /robots-hop/1: Location %q", r.location)
	}
	// The loop: /robots.txt -> /robots-hop/1 -> /robots.txt.
	hops, _ := chain(t, c, hostURL(4, "/robots.txt"), 4)
	wantLoop := []hop{
		{hostURL(4, "/robots.txt"), 302, hostURL(4, "/robots-hop/1")},
		{hostURL(4, "/robots-hop/1"), 301, hostURL(4, "/robots.txt")},
		{hostURL(4, "/robots.txt"), 302, hostURL(4, "/robots-hop/1")},
		{hostURL(4, "/robots-hop/1"), 301, hostURL(4, "/robots.txt")},
	}
	if !slices.Equal(hops, wantLoop) {
		t.Errorf("h4 loop: %v, want %v", hops, wantLoop)
	}
	if n := w.RobotsRequests("h4.crawler.test"); n != 4 {
		t.Errorf("RobotsRequests(h4) = %d, want 4", n)
	}
	// An ordinary client gives up on the loop, and follows the chains.
	if _, err := w.Client().Get(hostURL(4, "/robots.txt")); err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Errorf("GET h4 robots.txt with redirects followed: err %v", err)
	}
	if r := get(t, w.Client(), hostURL(2, "/robots.txt")); r.status != 200 || r.body != defaultRobots {
		t.Errorf("h2 robots.txt with redirects followed: %d %q", r.status, r.body)
	}
	// Hops are robots requests, not page requests.
	if n := w.TotalRequests(); n != 0 {
		t.Errorf("TotalRequests = %d after robots.txt only", n)
	}
	// Hops beyond the chain, hops with a query and hops of other hosts are
	// ordinary 404s.
	for _, u := range []string{hostURL(1, "/robots-hop/4"), hostURL(1, "/robots-hop/0"), hostURL(1, "/robots-hop/1?x"), hostURL(4, "/robots-hop/2"), hostURL(0, "/robots-hop/1")} {
		if r := get(t, c, u); r.status != 404 {
			t.Errorf("%s: status %d, want 404", u, r.status)
		}
		if n := w.Requests(u); n != 1 {
			t.Errorf("Requests(%s) = %d, want 1", u, n)
		}
	}
}

func TestRobotsPadding(t *testing.T) {
	const size = 600 << 10
	w := newWeb(t, behaving(4, map[int]crawlertest.Behavior{
		1: {RobotsPadding: size},
		2: {RobotsPadding: 10}, // smaller than the rules: no padding
		3: {RobotsPadding: size},
	}))
	c := w.Client()
	r := get(t, c, hostURL(1, "/robots.txt"))
	if r.status != 200 || len(r.body) < size || !strings.HasPrefix(r.body, defaultRobots) {
		t.Fatalf("h1 robots.txt: status %d, %d bytes, starting %.60q", r.status, len(r.body), r.body)
	}
	for i, line := range strings.Split(strings.TrimPrefix(r.body, defaultRobots), "\n") {
		if line != "" && (line[0] != '#' || len(line) > 80) {
			t.Fatalf("padding line %d is %q, not a comment", i, line)
		}
	}
	if !strings.HasSuffix(r.body, "\n") {
		t.Error("padded robots.txt does not end with a newline")
	}
	if r := get(t, c, hostURL(2, "/robots.txt")); r.body != defaultRobots {
		t.Errorf("h2 robots.txt: %q", r.body)
	}
	if r := get(t, c, hostURL(3, "/robots.txt")); r.status != 404 {
		t.Errorf("h3 robots.txt (none): status %d", r.status)
	}
	// Every size pads exactly.
	for _, n := range []int{len(defaultRobots) + 1, len(defaultRobots) + 2, 200, 1000} {
		w := newWeb(t, behaving(1, map[int]crawlertest.Behavior{0: {RobotsPadding: n}}))
		r := get(t, w.Client(), hostURL(0, "/robots.txt"))
		if len(r.body) != n || !strings.HasPrefix(r.body, defaultRobots) || !strings.HasSuffix(r.body, "\n") {
			t.Errorf("RobotsPadding %d: %d bytes %q", n, len(r.body), r.body)
		}
	}
}

func TestRobotsLatency(t *testing.T) {
	const lat = 30 * time.Millisecond
	w := newWeb(t, behaving(2, map[int]crawlertest.Behavior{1: {RobotsLatency: lat, RobotsRedirects: 1}}))
	c := noFollow(w)
	for _, p := range []string{"/robots.txt", "/robots-hop/1"} {
		start := time.Now()
		get(t, c, hostURL(1, p))
		if d := time.Since(start); d < lat {
			t.Errorf("h1 %s answered in %v, want >= %v", p, d, lat)
		}
	}
}

func TestThrottle(t *testing.T) {
	const date = "Wed, 21 Oct 2015 07:28:00 GMT"
	w := newWeb(t, behaving(4, map[int]crawlertest.Behavior{
		1: {ThrottleEvery: 3, RetryAfter: "1"},
		2: {ThrottleEvery: 2},
		3: {ThrottleEvery: 1, RetryAfter: date, PageStatus: 500},
	}))
	c := noFollow(w)
	paths := []string{"/", "/p/1", "/img/1.png", "/r/2", "/missing/1", "/nope", "/p/1", "/private/2", "/p/1", "/chain/1/2"}
	for _, tt := range []struct {
		host  int
		every int
		retry string
	}{{1, 3, "1"}, {2, 2, ""}, {3, 1, date}} {
		for i, p := range paths {
			k := i + 1
			if k%2 == 0 {
				get(t, c, hostURL(tt.host, "/robots.txt")) // not counted
			}
			r := get(t, c, hostURL(tt.host, p))
			ra, has := r.header["Retry-After"]
			if k%tt.every == 0 {
				if r.status != 429 || (tt.retry != "" && (len(ra) != 1 || ra[0] != tt.retry)) || (tt.retry == "" && has) {
					t.Errorf("h%d request %d (%s): %d, Retry-After %q; want 429, %q", tt.host, k, p, r.status, ra, tt.retry)
				}
				continue
			}
			if r.status == 429 || has {
				t.Errorf("h%d request %d (%s): %d, Retry-After %q; want no throttling", tt.host, k, p, r.status, ra)
			}
		}
		if r := get(t, c, hostURL(tt.host, "/robots.txt")); r.status != 200 && (tt.host%4 != 3 || r.status != 404) {
			t.Errorf("h%d robots.txt: %d, not throttled", tt.host, r.status)
		}
	}
	// Throttled requests are requests.
	if n := w.Requests(hostURL(1, "/p/1")); n != 3 {
		t.Errorf("Requests(h1 /p/1) = %d, want 3", n)
	}
	// ResetCounts does not restart the throttling count: h1 is at 10.
	w.ResetCounts()
	for k := 11; k <= 13; k++ {
		if r := get(t, c, hostURL(1, "/")); (r.status == 429) != (k%3 == 0) {
			t.Errorf("h1 request %d after ResetCounts: %d", k, r.status)
		}
	}
}

func TestPageStatus(t *testing.T) {
	w := newWeb(t, behaving(3, map[int]crawlertest.Behavior{1: {PageStatus: 503}, 2: {PageStatus: 500}}))
	c := noFollow(w)
	for _, h := range []int{1, 2} {
		want := []int{0, 503, 500}[h]
		for _, p := range []string{"/", "/p/1", "/private/1", "/nofollow/1", "/img/1.png", "/r/1", "/to/0/1", "/chain/1/2", "/loop/a", "/missing/1", "/nope"} {
			r := get(t, c, hostURL(h, p))
			if r.status != want || r.location != "" || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") || !strings.Contains(r.body, "<html") {
				t.Errorf("h%d %s: %d, Location %q, body %q; want %d, an HTML page", h, p, r.status, r.location, r.body, want)
			}
			if ls := extract(r.body); len(ls) != 0 {
				t.Errorf("h%d %s: error page has links %v", h, p, ls)
			}
		}
		if r := get(t, c, hostURL(h, "/robots.txt")); r.status != 200 || r.body != defaultRobots {
			t.Errorf("h%d robots.txt: %d %q", h, r.status, r.body)
		}
	}
	if r := get(t, c, hostURL(0, "/p/1")); r.status != 200 {
		t.Errorf("h0 /p/1: %d", r.status)
	}
}

func TestSlowDown(t *testing.T) {
	const step = 15 * time.Millisecond
	w := newWeb(t, behaving(2, map[int]crawlertest.Behavior{1: {SlowDown: step}}))
	c := w.Client()
	for k := range 4 {
		get(t, c, hostURL(1, "/robots.txt")) // not counted
		start := time.Now()
		get(t, c, hostURL(1, fmt.Sprintf("/p/%d", k)))
		if d := time.Since(start); d < time.Duration(k)*step {
			t.Errorf("h1 page request %d answered in %v, want >= %v", k, d, time.Duration(k)*step)
		}
	}
}

// compliantCrawl crawls w from its seeds over HTTP as a compliant crawler
// does with misbehaving hosts: robots.txt redirects are followed up to 5
// times (more, or a loop, means no restrictions), a 2xx robots.txt is
// parsed, a 4xx other than 429 means no restrictions, a 429 or 5xx makes the
// host unreachable; a 429 page is requested again; only 200 HTML pages are
// parsed for links. It returns the depth of every URL requested, the
// robots-disallowed URLs met and the URLs met on unreachable hosts.
func compliantCrawl(t *testing.T, w *crawlertest.Web) (depth map[string]int, blocked, unreachable []string) {
	c := noFollow(w)
	type rules struct {
		unavailable bool
		disallow    []string
	}
	hosts := map[string]rules{}
	fetchRobots := func(host string) rules {
		u := "http://" + host + "/robots.txt"
		for redirects := 0; ; redirects++ {
			r := get(t, c, u)
			switch {
			case r.status >= 300 && r.status < 400:
				if redirects == 5 {
					return rules{} // gave up: no restrictions
				}
				base, _ := url.Parse(u)
				to, _ := base.Parse(r.location)
				u = to.String()
				continue
			case r.status >= 200 && r.status < 300:
				var dis []string
				for line := range strings.Lines(r.body) {
					if v, ok := strings.CutPrefix(line, "Disallow:"); ok {
						dis = append(dis, strings.TrimSpace(v))
					}
				}
				return rules{disallow: dis}
			case r.status == 429 || r.status >= 500:
				return rules{unavailable: true}
			default:
				return rules{}
			}
		}
	}
	depth = map[string]int{}
	bl, un := map[string]bool{}, map[string]bool{}
	type item struct {
		u string
		d int
	}
	var front, back []item
	push := func(u string, d int, zero bool) {
		pu, _ := url.Parse(u)
		rs, ok := hosts[pu.Host]
		if !ok {
			rs = fetchRobots(pu.Host)
			hosts[pu.Host] = rs
		}
		if rs.unavailable {
			un[u] = true
			return
		}
		for _, p := range rs.disallow {
			if strings.HasPrefix(pu.Path, p) {
				bl[u] = true
				return
			}
		}
		if old, ok := depth[u]; ok && old <= d {
			return
		}
		depth[u] = d
		if zero {
			front = append(front, item{u, d})
		} else {
			back = append(back, item{u, d})
		}
	}
	for _, s := range w.Seeds() {
		push(s, 0, true)
	}
	for len(front)+len(back) > 0 {
		var it item
		if len(front) > 0 {
			it, front = front[len(front)-1], front[:len(front)-1]
		} else {
			it, back = back[0], back[1:]
		}
		if depth[it.u] < it.d {
			continue
		}
		base, _ := url.Parse(it.u)
		r := get(t, c, it.u)
		for tries := 0; r.status == 429; tries++ {
			if tries == 10 {
				t.Fatalf("%s: throttled 10 times in a row", it.u)
			}
			r = get(t, c, it.u) // Retry-After is honoured by the server's count, not by time
		}
		switch {
		case r.status >= 300 && r.status < 400:
			if to, ok := canon(base, r.location); ok {
				push(to, it.d, true)
			}
		case r.status == 200 && strings.HasPrefix(r.header.Get("Content-Type"), "text/html"):
			for _, l := range extract(r.body) {
				if to, ok := canon(base, l.href); ok && !l.nofollow {
					push(to, it.d+1, false)
				}
			}
		}
	}
	return depth, slices.Sorted(maps.Keys(bl)), slices.Sorted(maps.Keys(un))
}

// onHost returns the URLs of us on host h.
func onHost[S ~[]string | map[string]int](us S, h int, path string) []string {
	prefix := hostURL(h, path)
	var out []string
	switch us := any(us).(type) {
	case []string:
		for _, u := range us {
			if strings.HasPrefix(u, prefix) {
				out = append(out, u)
			}
		}
	case map[string]int:
		for u := range us {
			if strings.HasPrefix(u, prefix) {
				out = append(out, u)
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestGroundTruthFollowsBehaviors(t *testing.T) {
	bs := []map[int]crawlertest.Behavior{
		{
			1: {RobotsStatus: 403},
			2: {RobotsStatus: 503},
			3: {PageStatus: 500},
			4: {RobotsRedirects: 6},
			5: {RobotsRedirects: 5, RobotsPadding: 600 << 10, ThrottleEvery: 3, RetryAfter: "1", SlowDown: 20 * time.Microsecond},
		},
		{
			1: {RobotsLoop: true, RobotsLatency: time.Millisecond},
			2: {RobotsStatus: 429},
			3: {RobotsRedirects: 2, RobotsStatus: 500},
			4: {RobotsStatus: 404, PageStatus: 503, ThrottleEvery: 2},
			5: {RobotsRedirects: 9, RobotsStatus: 500}, // gives up before seeing the 500
		},
	}
	for i, b := range bs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			cfg := behaving(6, b)
			w := newWeb(t, cfg)
			plainCfg := cfg
			plainCfg.Behavior = nil
			plain := newWeb(t, plainCfg)

			want, wantB, wantU := w.Depths(), w.Disallowed(), w.Unreachable()
			got, gotB, gotU := compliantCrawl(t, w)
			for u, d := range got {
				if wd, ok := want[u]; !ok || wd != d {
					t.Errorf("crawl: %s at depth %d; Depths: %d (present %v)", u, d, wd, ok)
				}
			}
			for u, d := range want {
				if _, ok := got[u]; !ok {
					t.Errorf("Depths: %s at depth %d; not crawled", u, d)
				}
			}
			if !slices.Equal(gotB, wantB) {
				t.Errorf("crawl met disallowed %v\nDisallowed: %v", gotB, wantB)
			}
			if !slices.Equal(gotU, wantU) {
				t.Errorf("crawl met unreachable %v\nUnreachable: %v", gotU, wantU)
			}
			// Only the URLs of Depths were requested (throttled ones more than once).
			if counts := w.RequestCounts(); !slices.Equal(slices.Sorted(maps.Keys(counts)), slices.Sorted(maps.Keys(want))) {
				t.Errorf("RequestCounts has %d URLs, Depths %d", len(counts), len(want))
			}

			pd := plain.Depths()
			for h := 1; h < 6; h++ {
				bh := b[h]
				private, privateB := onHost(want, h, "/private/"), onHost(wantB, h, "/private/")
				all, unreach := onHost(want, h, "/"), onHost(wantU, h, "/")
				prev := b[h-1]
				prevUp := prev.PageStatus == 0 && prev.RobotsStatus != 429 && (prev.RobotsStatus < 500 || prev.RobotsRedirects > 5 || prev.RobotsLoop)
				switch {
				case bh.RobotsStatus == 429 || bh.RobotsStatus >= 500 && bh.RobotsRedirects <= 5 && !bh.RobotsLoop:
					if len(all) != 0 || len(unreach) == 0 || len(onHost(wantB, h, "/")) != 0 {
						t.Errorf("h%d (robots.txt %d): %d URLs in Depths, %d Unreachable, want none and some", h, bh.RobotsStatus, len(all), len(unreach))
					}
					if prevUp && !slices.Contains(unreach, hostURL(h, "/")) {
						t.Errorf("h%d home page, linked from h%d, not in Unreachable %v", h, h-1, unreach)
					}
					continue
				case bh.PageStatus != 0:
					// Private pages are linked from their own host only,
					// whose pages are error pages.
					if len(private) != 0 || len(privateB) != 0 {
						t.Errorf("h%d (failing): %d private URLs in Depths, %d disallowed; want none", h, len(private), len(privateB))
					}
				case bh.RobotsStatus != 0 || bh.RobotsLoop || bh.RobotsRedirects > 5 || h%4 == 3:
					if len(private) == 0 || len(privateB) != 0 {
						t.Errorf("h%d (no restrictions): %d private URLs in Depths, %d disallowed; want some and none", h, len(private), len(privateB))
					}
				default:
					if len(private) != 0 || len(privateB) == 0 {
						t.Errorf("h%d (rules apply): %d private URLs in Depths, %d disallowed; want none and some", h, len(private), len(privateB))
					}
				}
				if len(unreach) != 0 {
					t.Errorf("h%d: Unreachable %v", h, unreach)
				}
				if bh.PageStatus != 0 {
					// Pages are requested but not expanded: the chain of
					// pages n -> n+1 breaks, so fewer pages are reached.
					if pages, plainPages := onHost(want, h, "/p/"), onHost(pd, h, "/p/"); len(pages) == 0 || len(pages) >= len(plainPages) {
						t.Errorf("h%d (failing): %d pages in Depths, %d without Behaviors", h, len(pages), len(plainPages))
					}
				}
			}
		})
	}
}

func TestGroundTruthIgnoresPacing(t *testing.T) {
	cfg := behaving(6, nil)
	cfg.Behavior = func(h int) crawlertest.Behavior {
		return crawlertest.Behavior{ThrottleEvery: 1 + h, RetryAfter: "2", SlowDown: time.Second, RobotsLatency: time.Hour}
	}
	w := newWeb(t, cfg)
	cfg.Behavior = nil
	plain := newWeb(t, cfg)
	if !maps.Equal(w.Depths(), plain.Depths()) || !slices.Equal(w.Disallowed(), plain.Disallowed()) || len(w.Unreachable()) != 0 {
		t.Error("throttling, SlowDown or RobotsLatency changes the ground truth")
	}
}

func TestUnreachableSeeds(t *testing.T) {
	w := newWeb(t, behaving(4, map[int]crawlertest.Behavior{2: {RobotsStatus: 500}}))
	seeds := []string{"http://H2.crawler.test:80/p/%35", "http://h2.crawler.test/nope", "http://h1.crawler.test/p/3"}
	d, u := w.Depths(seeds...), w.Unreachable(seeds...)
	if len(onHost(u, 2, "/")) != len(u) || !slices.Contains(u, "http://h2.crawler.test/nope") || !slices.Contains(u, "http://h2.crawler.test/p/5") {
		t.Errorf("Unreachable = %v, want the h2 seeds and only h2 URLs", u)
	}
	if len(onHost(d, 2, "/")) != 0 || d["http://h1.crawler.test/p/3"] != 0 || d["http://h1.crawler.test/p/4"] != 1 {
		t.Errorf("Depths from %v: %v", seeds, d)
	}
}

func TestRobotsDisallows(t *testing.T) {
	// h0, h1: the default rules; h2: robots.txt answers 404; h3: none
	// (index ≡ 3 mod 4); h4: 500 (unreachable: nothing may be requested,
	// but the rules it would impose are unknown, so none are counted).
	w := newWeb(t, behaving(5, map[int]crawlertest.Behavior{2: {RobotsStatus: 404}, 4: {RobotsStatus: 500}}))
	c := noFollow(w)
	for h := range 5 {
		r := get(t, c, hostURL(h, "/robots.txt"))
		rules := r.status == 200 && r.body == defaultRobots
		for _, u := range []string{
			hostURL(h, "/private/3"),
			hostURL(h, "/x/../%70rivate/3"),
			fmt.Sprintf("HTTP://H%d.Crawler.Test:80/private/999999", h),
			hostURL(h, "/private/3?q=1"),
		} {
			if got := w.RobotsDisallows(u); got != rules {
				t.Errorf("RobotsDisallows(%s) = %v; robots.txt %d %q", u, got, r.status, r.body)
			}
		}
		for _, u := range []string{hostURL(h, "/p/3"), hostURL(h, "/privatex/3"), hostURL(h, "/"), hostURL(h, "/nofollow/1")} {
			if w.RobotsDisallows(u) {
				t.Errorf("RobotsDisallows(%s) = true", u)
			}
		}
	}
	for _, u := range []string{"http://example.com/private/1", "ftp://h0.crawler.test/private/1", "::"} {
		if w.RobotsDisallows(u) {
			t.Errorf("RobotsDisallows(%q) = true outside the web", u)
		}
	}
	disallowed := w.Disallowed()
	if len(disallowed) == 0 {
		t.Fatal("Disallowed is empty")
	}
	for _, u := range disallowed {
		if !w.RobotsDisallows(u) {
			t.Errorf("%s is in Disallowed but RobotsDisallows is false", u)
		}
	}
}
