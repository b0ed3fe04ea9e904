package crawler_test

import (
	"context"
	"flag"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/revisit"
)

var recrawlSeconds = flag.Int("recrawl.seconds", 40, "length of the real-time recrawl runs of TestRecrawlFreshness")

// changingWeb is a web of 500 pages (20 hosts of 25) whose mean change
// intervals spread log-uniformly from 1 s to 2 min.
func changingWeb() *crawlertest.Web {
	return crawlertest.NewWeb(crawlertest.Config{Seed: 23, Hosts: 20, PagesPerHost: 25,
		ChangeInterval: changeInterval})
}

func changeInterval(host, page int) time.Duration {
	u := float64((host*25+page)*7919%500) / 499 // spread, not in crawl order
	return time.Duration(math.Exp(math.Log(1)+u*(math.Log(120)-math.Log(1))) * float64(time.Second))
}

// htmlPagesOnly keeps a crawl of a crawlertest web on its HTML pages: "/"
// and /p/<n>.
var htmlPagesOnly = crawler.Scope{Allow: func(u string, _ int) bool {
	i := strings.Index(u[len("http://"):], "/")
	path := u[len("http://")+i:]
	return path == "/" || strings.HasPrefix(path, "/p/")
}}

var versionRE = regexp.MustCompile(`<p class="version">version (\d+)`)

// copies are the versions of a crawl's copies of the pages, as its
// Handler saw them.
type copies struct {
	mu       sync.Mutex
	version  map[string]int
	revisits int
	at       []time.Time // of the revisits
}

func (c *copies) Handle(_ context.Context, p *crawler.Page) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.Revisit {
		c.revisits++
		c.at = append(c.at, p.FetchedAt)
	}
	if p.Status != 200 {
		return nil
	}
	m := versionRE.FindSubmatch(p.Body)
	if m == nil {
		return nil
	}
	v, _ := strconv.Atoi(string(m[1]))
	if old, ok := c.version[p.URL]; ok && p.Unchanged && old != v {
		panic("an Unchanged page changed: " + p.URL)
	}
	c.version[p.URL] = v
	return nil
}

// freshness samples, every 100 ms from start+from to start+to, the
// fraction of the web's pages whose copy is current.
func (c *copies) freshness(w *crawlertest.Web, pages []string, start time.Time, from, to time.Duration) float64 {
	time.Sleep(time.Until(start.Add(from)))
	fresh, samples := 0, 0
	for now := time.Now(); now.Before(start.Add(to)); now = time.Now() {
		c.mu.Lock()
		for _, u := range pages {
			v, ok := c.version[u]
			if cur, _ := w.Version(u, now); ok && v == cur {
				fresh++
			}
		}
		c.mu.Unlock()
		samples += len(pages)
		time.Sleep(100 * time.Millisecond)
	}
	return float64(fresh) / float64(samples)
}

// recrawl runs a crawl of w that revisits under rc at rate pages/s for
// dur, and returns its freshness over the second half, and its revisits
// per second then.
func recrawl(t *testing.T, w *crawlertest.Web, pages []string, rc revisit.Config, rate float64, dur time.Duration) (fresh, revisitRate float64, st crawler.Stats) {
	cp := &copies{version: map[string]int{}}
	c := &crawler.Crawler{Handler: cp, Scope: htmlPagesOnly, Recrawl: &rc, MaxRate: rate, Workers: 8,
		Pacing:  politeness.Pacing{Delay: 10 * time.Millisecond, DelayFactor: -1},
		Fetcher: &fetch.HTTPFetcher{Client: w.Client()}}
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, w.Seeds()...) }()
	fresh = cp.freshness(w, pages, start, dur/2, dur)
	if err := <-done; err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("Run: %v, want stopped by its deadline", err)
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	n := 0
	for _, at := range cp.at {
		if at.After(start.Add(dur / 2)) {
			n++
		}
	}
	return fresh, float64(n) / (dur / 2).Seconds(), c.Stats()
}

// On a web of 500 pages whose mean change intervals spread from a second
// to two minutes, a crawl that revisits by estimated rates of change keeps
// its copies at least as fresh as one that revisits uniformly at the same
// rate, and at least 90% as fresh as the optimal policy that knows the
// true rates would at the rate it spent. The two crawls run at once, in
// real time, on two copies of the web; the optimum is computed.
func TestRecrawlFreshness(t *testing.T) {
	if testing.Short() {
		t.Skip("runs in real time")
	}
	t.Parallel()
	dur := time.Duration(*recrawlSeconds) * time.Second
	const rate = 150.0 // requests a second: every page about every 3.3 s
	webs := []*crawlertest.Web{changingWeb(), changingWeb()}
	var pages []string
	var lambdas []float64
	for h := range 20 {
		for n := range 25 {
			u := webs[0].URL(h, n)
			pages = append(pages, u)
			lambdas = append(lambdas, 1/changeInterval(h, n).Seconds())
		}
	}
	type result struct {
		fresh, rate float64
		st          crawler.Stats
	}
	results := make([]result, 2)
	var wg sync.WaitGroup
	for i, uniform := range []bool{false, true} {
		wg.Go(func() {
			defer webs[i].Close()
			f, r, st := recrawl(t, webs[i], pages, revisit.Config{Uniform: uniform}, rate, dur)
			results[i] = result{f, r, st}
		})
	}
	wg.Wait()
	est, uni := results[0], results[1]
	optimal := meanFreshness(lambdas, revisit.Allocate(lambdas, est.rate, revisit.Bounds{Max: revisit.DefaultMaxInterval}))
	uniformModel := meanFreshness(lambdas, revisit.Uniform(len(lambdas), uni.rate, revisit.Bounds{}))
	t.Logf("freshness over the second half of %v: estimated %.3f (%.1f revisits/s), uniform %.3f (%.1f/s; model %.3f), optimal %.3f at the estimated policy's rate: %.0f%% of it",
		dur, est.fresh, est.rate, uni.fresh, uni.rate, uniformModel, optimal, 100*est.fresh/optimal)
	for i, r := range results {
		t.Logf("policy %d: %d requests, %d revisits, %d answered 304, %d unchanged, %d pages revisited", i, r.st.Requests, r.st.Revisits, r.st.NotModified, r.st.Unchanged, r.st.Revisiting)
		if r.st.Revisiting != len(pages) {
			t.Errorf("policy %d revisits %d pages, want %d", i, r.st.Revisiting, len(pages))
		}
		// The server answers 304 for every page unchanged since the
		// validators sent: at least 99% of the unchanged revisits must
		// have cost no body.
		if r.st.Unchanged == 0 || float64(r.st.NotModified) < 0.99*float64(r.st.Unchanged) {
			t.Errorf("policy %d: %d revisits found pages unchanged, %d of them answered 304; want at least 99%%", i, r.st.Unchanged, r.st.NotModified)
		}
	}
	// The two crawls spend about the same rate, not exactly (they share
	// the test's CPU): uniform's freshness is compared at the estimated
	// policy's rate, moved by what the model says the difference is worth.
	uniAtRate := uni.fresh + meanFreshness(lambdas, revisit.Uniform(len(lambdas), est.rate, revisit.Bounds{})) - uniformModel
	if est.fresh < uniAtRate {
		t.Errorf("estimated policy %.3f fresh, below uniform's %.3f at its rate (%.3f measured at %.1f/s)", est.fresh, uniAtRate, uni.fresh, uni.rate)
	}
	if est.fresh < 0.9*optimal {
		t.Errorf("estimated policy %.3f fresh, below 90%% of the optimal %.3f", est.fresh, optimal)
	}
}

func meanFreshness(lambdas, f []float64) float64 {
	s := 0.0
	for i, l := range lambdas {
		s += revisit.Freshness(l, f[i])
	}
	return s / float64(len(lambdas))
}

// Revisits through a real server: a page that changed once is seen
// changed once and unchanged after (no validators: by its content); one
// that is gone (404) is not asked for again; one that fails (503) keeps
// being tried; each unchanged revisit is a Page with Unchanged set.
func TestRecrawlRules(t *testing.T) {
	s := newSite(t, map[string]response{
		"/":      html("/a", "/gone", "/fails"),
		"/a":     {body: "<p>one", then: &response{body: "<p>two"}},
		"/gone":  {body: "<p>here", then: &response{status: 404}},
		"/fails": {body: "<p>up", then: &response{status: 503}},
	})
	var mu sync.Mutex
	revisits := map[string][]bool{} // Unchanged of each revisit, by path
	c := fast(crawler.HandlerFunc(func(_ context.Context, p *crawler.Page) error {
		if p.Revisit {
			mu.Lock()
			path := strings.TrimPrefix(p.URL, s.URL)
			revisits[path] = append(revisits[path], p.Unchanged)
			mu.Unlock()
		}
		return nil
	}))
	c.MaxRetries = -1
	c.Recrawl = &revisit.Config{Rate: 40, MinInterval: 50 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	if err := c.Run(ctx, s.URL+"/"); err == nil {
		t.Fatal("a recrawl ended before its context")
	}
	mu.Lock()
	defer mu.Unlock()
	a := revisits["/a"]
	if len(a) < 3 || a[0] || !a[1] || !a[len(a)-1] {
		t.Errorf("/a revisits found it unchanged: %v; want changed, then unchanged", a)
	}
	if n := s.count("/gone"); n != 2 {
		t.Errorf("/gone requested %d times, want 2: the 404 ends its revisits", n)
	}
	if n := s.count("/fails"); n < 3 {
		t.Errorf("/fails requested %d times, want 3 or more: a failure does not end its revisits", n)
	}
	st := c.Stats()
	if st.Revisiting != 3 { // "/", "/a", "/fails"
		t.Errorf("Revisiting = %d, want 3", st.Revisiting)
	}
	if st.NotModified != 0 || st.Unchanged == 0 || st.Revisits < st.Unchanged {
		t.Errorf("Revisits %d, NotModified %d, Unchanged %d: want unchanged ones by content alone", st.Revisits, st.NotModified, st.Unchanged)
	}
	t.Logf("requests %v; revisits %d, unchanged %d", s.requests(), st.Revisits, st.Unchanged)
}

var changeWebScale = flag.Float64("recrawl.scale", 3, "TestRecrawlChangeWeb runs issue 46's 90 s measurement this many times faster (1: as measured there)")

// The change web of issue 46, whole: 500 pages (20 hosts of 25) whose
// mean change intervals spread log-uniformly from 2 s to 2 min, with their
// images, redirects and broken links, crawled at 40 requests a second
// (10 ms between two requests to a host) for 90 s, all scaled by
// -recrawl.scale (intervals, pacing and duration divided, rate
// multiplied: the same crawl, faster).
func changeWeb(scale float64) *crawlertest.Web {
	return crawlertest.NewWeb(crawlertest.Config{Seed: 46, Hosts: 20, PagesPerHost: 25,
		ChangeInterval: func(host, page int) time.Duration { return changeWebInterval(host, page, scale) }})
}

func changeWebInterval(host, page int, scale float64) time.Duration {
	u := float64((host*25+page)*7919%500) / 499 // spread, not in crawl order
	return time.Duration(2 * math.Pow(60, u) * float64(time.Second) / scale)
}

// changeCopies is what a crawl of the change web kept and did, as its
// Handler saw it.
type changeCopies struct {
	copies
	all, resources []time.Time // when each page was fetched; each revisit of a resource (not /p/<n> or /)
	images         []time.Time // each revisit of an image (/img/<n>.png): the web's resources that are not HTML
}

func (c *changeCopies) Handle(ctx context.Context, p *crawler.Page) error {
	c.mu.Lock()
	c.all = append(c.all, p.FetchedAt)
	if path := strings.TrimPrefix(p.URL[len("http://"):], strings.SplitN(p.URL[len("http://"):], "/", 2)[0]); p.Revisit && path != "/" && !strings.HasPrefix(path, "/p/") {
		c.resources = append(c.resources, p.FetchedAt)
		if strings.HasPrefix(path, "/img/") {
			c.images = append(c.images, p.FetchedAt)
		}
	}
	c.mu.Unlock()
	return c.copies.Handle(ctx, p)
}

// changeRun is what one crawl of the change web measured over its
// second half.
type changeRun struct {
	fresh              float64 // time-averaged fraction of fresh copies
	requests, revisits float64 // pages fetched, and revisited, a second
	resourceShare      float64 // of the revisits, those of resources: not of the changing pages
	imageShare         float64 // of the revisits, those of images: not HTML
	st                 crawler.Stats
}

func runChangeWeb(t *testing.T, w *crawlertest.Web, pages []string, rc revisit.Config, scale float64) changeRun {
	dur := time.Duration(90 / scale * float64(time.Second))
	cp := &changeCopies{copies: copies{version: map[string]int{}}}
	c := &crawler.Crawler{Handler: cp, Recrawl: &rc, MaxRate: 40 * scale, Workers: 8,
		Pacing:  politeness.Pacing{Delay: time.Duration(float64(10*time.Millisecond) / scale), DelayFactor: -1},
		Fetcher: &fetch.HTTPFetcher{Client: w.Client()}}
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, w.Seeds()...) }()
	fresh := cp.freshness(w, pages, start, dur/2, dur)
	if err := <-done; err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("Run: %v, want stopped by its deadline", err)
	}
	cp.mu.Lock()
	defer cp.mu.Unlock()
	half := start.Add(dur / 2)
	count := func(ts []time.Time) float64 {
		n := 0
		for _, at := range ts {
			if at.After(half) {
				n++
			}
		}
		return float64(n)
	}
	secs := (dur / 2).Seconds()
	r := changeRun{fresh: fresh, requests: count(cp.all) / secs, revisits: count(cp.at) / secs, st: c.Stats()}
	if n := count(cp.at); n > 0 {
		r.resourceShare, r.imageShare = count(cp.resources)/n, count(cp.images)/n
	}
	return r
}

// Issue 46's acceptance, end to end: on the change web, a crawl that
// revisits by estimated rates keeps its copies at least as fresh over the
// second half as one that revisits uniformly at the same request rate,
// and at least 90% as fresh as the optimal policy that knows the true
// rates would at that rate (computed); revisits of resources (the web's
// images: not HTML) take at most 5% of the revisits. The two crawls run at once,
// in real time, each on its own copy of the web; if either fetches below
// 70% of its MaxRate, the machine is too loaded to measure and the test
// is skipped. Run with -recrawl.scale 1 for the 90 s measurement of the
// issue.
func TestRecrawlChangeWeb(t *testing.T) {
	if testing.Short() {
		t.Skip("runs in real time")
	}
	if raceEnabled {
		t.Skip("measures freshness in real time: under the race detector the crawls fall behind their rate")
	}
	t.Parallel()
	scale := *changeWebScale
	webs := []*crawlertest.Web{changeWeb(scale), changeWeb(scale)}
	var pages []string
	var lambdas []float64
	for h := range 20 {
		for n := range 25 {
			pages = append(pages, webs[0].URL(h, n))
			lambdas = append(lambdas, 1/changeWebInterval(h, n, scale).Seconds())
		}
	}
	runs := make([]changeRun, 2)
	var wg sync.WaitGroup
	for i, uniform := range []bool{false, true} {
		wg.Go(func() {
			defer webs[i].Close()
			runs[i] = runChangeWeb(t, webs[i], pages, revisit.Config{Uniform: uniform}, scale)
		})
	}
	wg.Wait()
	est, uni := runs[0], runs[1]
	bounds := revisit.Bounds{Max: revisit.DefaultMaxInterval}
	for i, r := range runs {
		t.Logf("policy %d: %v", i, r.st)
	}
	pageRate := est.revisits * (1 - est.resourceShare)
	optimal := meanFreshness(lambdas, revisit.Allocate(lambdas, pageRate, bounds))
	t.Logf("change web at scale %v, second half: policy, freshness, requests/s, revisits/s, share of revisits not of the changing pages, of images", scale)
	t.Logf("estimated  %.3f  %5.1f  %5.1f  %4.1f%%  %4.1f%%", est.fresh, est.requests, est.revisits, 100*est.resourceShare, 100*est.imageShare)
	t.Logf("uniform    %.3f  %5.1f  %5.1f  %4.1f%%  %4.1f%%  (model at its rate of page revisits: %.3f)", uni.fresh, uni.requests, uni.revisits, 100*uni.resourceShare, 100*uni.imageShare,
		meanFreshness(lambdas, revisit.Uniform(len(lambdas), uni.revisits*(1-uni.resourceShare), bounds)))
	t.Logf("optimal    %.3f  computed at the estimated crawl's rate of page revisits (%.1f/s): estimated is %.0f%% of it", optimal, pageRate, 100*est.fresh/optimal)
	// A machine too loaded for the crawls to come near their MaxRate
	// fetches late, and measures the load, not the policies.
	for i, r := range runs {
		if planned := 40 * scale; r.requests < 0.7*planned {
			t.Skipf("policy %d fetched %.1f pages a second of the %.0f planned: the machine is too loaded to measure freshness", i, r.requests, planned)
		}
	}
	// The two crawls spend about the same rate, not exactly (they share
	// the test's CPU): uniform's freshness is compared at the estimated
	// crawl's rate, moved by what the model says the difference is worth.
	uniRate := uni.revisits * (1 - uni.resourceShare)
	uniModel := meanFreshness(lambdas, revisit.Uniform(len(lambdas), uniRate, bounds))
	uniAt := uni.fresh + meanFreshness(lambdas, revisit.Uniform(len(lambdas), pageRate, bounds)) - uniModel
	// Simulated, the estimates from Last-Modified keep 0.014 more fresh
	// than uniform at this rate (TestPoliciesSimulatedChangeWeb); end to
	// end, two runs of 90 s on a quiet machine gained 0.021 and 0.024,
	// three at load 8-14 0.006, -0.001 and 0.009, where two real-time
	// crawls of one policy differ by up to 0.01: that noise is allowed for.
	const noise = 0.01
	if est.fresh < uniAt-noise {
		t.Errorf("estimated policy %.3f fresh, below uniform's %.3f at its rate (%.3f measured at %.1f page revisits/s)", est.fresh, uniAt, uni.fresh, uniRate)
	}
	if est.fresh < 0.9*optimal {
		t.Errorf("estimated policy %.3f fresh, below 90%% of the optimal %.3f at its rate of page revisits", est.fresh, optimal)
	}
	for i, r := range runs {
		if r.imageShare > 0.05 {
			t.Errorf("policy %d: images took %.1f%% of the revisits, want at most 5%%", i, 100*r.imageShare)
		}
	}
}
