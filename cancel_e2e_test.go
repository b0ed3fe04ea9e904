package crawler_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"crawler"
	"crawler/canon"
	"crawler/fetch"
	"crawler/frontier"
	"crawler/internal/leak"
	"crawler/seen"
)

// holdSite is a loopback host of pages /p/0 … /p/n-1, where page i links to
// pages 2i+1 and 2i+2 of its host and to page i of its peer host. While the
// site holds (until release), pages from fastPages on do not finish: odd
// ones never answer, even ones send their header and half their body and
// stall; with holdRobots its robots.txt never answers either. A request cut
// short by the client is counted as a request but not as an answer.
type holdSite struct {
	*httptest.Server
	n, fastPages int
	holdRobots   bool
	release      chan struct{}

	mu       sync.Mutex
	peer     string         // base URL of the peer host
	requests map[string]int // page path -> requests received
	answers  map[string]int // page path -> complete answers sent
	held     map[string]int // path -> requests being held now
}

func newHoldSite(t *testing.T, n, fastPages int, holdRobots bool, release chan struct{}) *holdSite {
	s := &holdSite{n: n, fastPages: fastPages, holdRobots: holdRobots, release: release,
		requests: map[string]int{}, answers: map[string]int{}, held: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *holdSite) serve(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if path == "/robots.txt" {
		if s.holdRobots && !s.hold(r, path) {
			return
		}
		fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		return
	}
	i, err := strconv.Atoi(strings.TrimPrefix(path, "/p/"))
	if !strings.HasPrefix(path, "/p/") || err != nil || i < 0 || i >= s.n {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.requests[path]++
	peer := s.peer
	s.mu.Unlock()

	var b strings.Builder
	b.WriteString("<html><head><title>p</title></head><body>")
	for _, j := range []int{2*i + 1, 2*i + 2} {
		if j < s.n {
			fmt.Fprintf(&b, `<a href="/p/%d">child</a>`, j)
		}
	}
	fmt.Fprintf(&b, `<a href="%s/p/%d">peer</a></body></html>`, peer, i)
	body := b.String()

	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if i >= s.fastPages {
		if i%2 == 0 { // a slow body: half now, the rest after the hold
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, body[:len(body)/2])
			w.(http.Flusher).Flush()
			body = body[len(body)/2:]
		}
		if !s.hold(r, path) {
			return
		}
	}
	if _, err := fmt.Fprint(w, body); err != nil {
		return
	}
	s.mu.Lock()
	s.answers[path]++
	s.mu.Unlock()
}

// hold waits until the site releases or the client goes away, and reports
// whether it was released.
func (s *holdSite) hold(r *http.Request, path string) bool {
	s.mu.Lock()
	s.held[path]++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.held[path]--
		s.mu.Unlock()
	}()
	select {
	case <-s.release:
		return true
	case <-r.Context().Done():
		return false
	}
}

func (s *holdSite) setPeer(u string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.peer = u
}

// heldNow returns the paths whose requests are being held.
func (s *holdSite) heldNow() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ps []string
	for p, n := range s.held {
		if n > 0 {
			ps = append(ps, p)
		}
	}
	slices.Sort(ps)
	return ps
}

// watchFrontier wraps a Frontier and keeps, under its own lock, the URLs
// waiting in it and those handed out and not yet Done, so that a test can
// see where each URL is. It is an observer: every call goes through to
// the real frontier.
type watchFrontier struct {
	frontier.Frontier
	mu      sync.Mutex
	waiting map[string]bool
	out     map[string]bool
}

func newWatchFrontier(f frontier.Frontier) *watchFrontier {
	return &watchFrontier{Frontier: f, waiting: map[string]bool{}, out: map[string]bool{}}
}

func (w *watchFrontier) Push(e frontier.Entry) {
	w.mu.Lock()
	w.waiting[e.URL] = true
	w.mu.Unlock()
	w.Frontier.Push(e)
}

func (w *watchFrontier) Next(now time.Time) (frontier.Entry, bool, time.Time) {
	e, ok, wake := w.Frontier.Next(now)
	if ok {
		w.mu.Lock()
		delete(w.waiting, e.URL)
		w.out[e.URL] = true
		w.mu.Unlock()
	}
	return e, ok, wake
}

func (w *watchFrontier) Done(e frontier.Entry, r frontier.Result) {
	w.mu.Lock()
	delete(w.out, e.URL)
	if r.Retry {
		w.waiting[e.URL] = true
	}
	w.mu.Unlock()
	w.Frontier.Done(e, r)
}

// state returns copies of the waiting and handed-out sets.
func (w *watchFrontier) state() (waiting, out map[string]bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return clone(w.waiting), clone(w.out)
}

func clone(m map[string]bool) map[string]bool {
	c := make(map[string]bool, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// pageCount counts the Handler's calls per URL, across Runs.
type pageCount struct {
	mu    sync.Mutex
	calls map[string]int
	links map[string]bool // every link of every page handled
}

func (pc *pageCount) Handle(_ context.Context, p *crawler.Page) error {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.calls[p.URL]++
	for _, l := range p.Links {
		pc.links[l] = true
	}
	return nil
}

func (pc *pageCount) snapshot() (calls map[string]int, links map[string]bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	calls = make(map[string]int, len(pc.calls))
	for k, v := range pc.calls {
		calls[k] = v
	}
	return calls, clone(pc.links)
}

// TestCancelMidCrawlResumes cancels a crawl of two loopback hosts while
// every request in flight is stuck (headers never sent, a body stalled
// halfway, a robots.txt never answered) under a 30 s fetch timeout. Run
// must return within moments, with the stuck URLs back in the frontier and
// everything discovered in the seen-set; a second Run on the same Crawler
// finishes the crawl, and the server answers each page exactly once over
// the two Runs.
func TestCancelMidCrawlResumes(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func() frontier.Frontier
	}{
		{"fifo", func() frontier.Frontier { return &frontier.FIFO{PerHost: 4} }},
		{"aopic", func() frontier.Frontier { return &frontier.AOPIC{PerHost: 4} }},
	} {
		t.Run(tc.name, func(t *testing.T) { testCancelResume(t, tc.f()) })
	}
}

func testCancelResume(t *testing.T, f frontier.Frontier) {
	const n, fastPages, perHost = 40, 7, 4
	release := make(chan struct{})
	a := newHoldSite(t, n, fastPages, false, release) // pages 7 on stall
	b := newHoldSite(t, n, n, true, release)          // robots.txt stalls
	a.setPeer(b.URL)
	b.setPeer(a.URL)

	fetcher := &fetch.HTTPFetcher{Timeout: 30 * time.Second, Addresses: testLoopback}
	watch := newWatchFrontier(f)
	pages := &pageCount{calls: map[string]int{}, links: map[string]bool{}}
	set := seen.NewExact(0)
	c := &crawler.Crawler{
		Handler: pages, Fetcher: fetcher, Frontier: watch, Seen: set,
		Workers: 2 * perHost, Pacing: noPacing,
	}
	before := leak.Now()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		err error
		at  time.Time
	}
	done := make(chan result, 1)
	go func() {
		err := c.Run(ctx, a.URL+"/p/0")
		done <- result{err, time.Now()}
	}()

	// Wait until host a's perHost slots are all stuck on the server and
	// b's robots.txt is too: then every request in flight is one that
	// only the cancel can end.
	deadline := time.Now().Add(20 * time.Second)
	for len(a.heldNow()) < perHost || len(b.heldNow()) < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("crawl never got stuck: a holds %v, b holds %v", a.heldNow(), b.heldNow())
		}
		time.Sleep(5 * time.Millisecond)
	}
	heldA := a.heldNow()
	_, outAtCancel := watch.state()
	cancelAt := time.Now()
	cancel()

	var r result
	select {
	case r = <-done:
	case <-time.After(25 * time.Second):
		t.Fatal("Run did not return within 25 s of the cancel (the fetch timeout is 30 s)")
	}
	latency := r.at.Sub(cancelAt)
	t.Logf("Run returned %v after the cancel, with %d requests stuck in flight", latency, len(heldA)+1)
	if !errors.Is(r.err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", r.err)
	}
	if latency > 5*time.Second {
		t.Errorf("Run took %v to return after the cancel; the in-flight fetches were awaited, not aborted", latency)
	}
	fetcher.CloseIdleConnections()
	before.Back(t, "after the cancelled Run")

	// What remained: Stats, the frontier and the watcher agree.
	st := c.Stats()
	waiting, out := watch.state()
	if st.InFlight != 0 || len(out) != 0 {
		t.Errorf("after the cancelled Run: Stats.InFlight %d, handed out and not Done %v", st.InFlight, out)
	}
	if st.Frontier != c.Frontier.Len() || st.Frontier != len(waiting) || st.Frontier == 0 {
		t.Errorf("Stats.Frontier %d, Frontier.Len %d, URLs waiting %d: want equal and > 0", st.Frontier, c.Frontier.Len(), len(waiting))
	}
	var stopped *crawler.StoppedError
	if !errors.As(r.err, &stopped) || stopped.Frontier != st.Frontier || stopped.Cause != context.Canceled {
		t.Errorf("Run = %#v, want a StoppedError with Frontier %d and cause context.Canceled", r.err, st.Frontier)
	}
	if len(outAtCancel) < perHost+1 {
		t.Errorf("only %d URLs were in flight at the cancel, want at least %d", len(outAtCancel), perHost+1)
	}
	for u := range outAtCancel {
		if !waiting[u] {
			t.Errorf("%s was in flight at the cancel and is not back in the frontier", u)
		}
	}
	for _, p := range heldA {
		if !waiting[a.URL+p] {
			t.Errorf("%s was stuck on the server at the cancel and is not in the frontier", a.URL+p)
		}
	}
	if st.Errors[fetch.KindCanceled] != 0 || st.Errors[fetch.KindTimeout] != 0 {
		t.Errorf("fetches cut short by the cancel were counted as failures: %v", st.Errors)
	}

	// Nothing discovered is lost: every link of every page handled, and
	// the seed, is in the seen-set and either handled or waiting.
	calls, links := pages.snapshot()
	links[a.URL+"/p/0"] = true
	for u := range links {
		if !set.Contains(canon.Fingerprint(u)) {
			t.Errorf("%s was discovered but is not in the seen-set", u)
		}
		if calls[u] == 0 && !waiting[u] {
			t.Errorf("%s was discovered but is neither handled nor in the frontier", u)
		}
	}
	for u := range waiting {
		if calls[u] != 0 {
			t.Errorf("%s was handled and is still in the frontier", u)
		}
	}
	if st.Seen != len(calls)+len(waiting) {
		t.Errorf("seen-set holds %d URLs, want the %d handled + %d waiting", st.Seen, len(calls), len(waiting))
	}

	// The aborted requests' connections were closed: the server sees each
	// stuck request go away. (Until it does, a release would let it write
	// into a dead connection's buffer and count an answer never received.)
	deadline = time.Now().Add(5 * time.Second)
	for len(a.heldNow())+len(b.heldNow()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("requests still held on the server 5 s after the cancel: %v %v", a.heldNow(), b.heldNow())
		}
		time.Sleep(5 * time.Millisecond)
	}

	// A second Run on the same Crawler resumes and finishes the crawl.
	close(release)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel2()
	if err := c.Run(ctx2); err != nil {
		t.Fatalf("resumed Run = %v", err)
	}
	if st := c.Stats(); st.Frontier != 0 || st.Seen != 2*n {
		t.Errorf("after the resumed Run: frontier %d, seen %d; want 0 and %d", st.Frontier, st.Seen, 2*n)
	}
	calls, _ = pages.snapshot()
	stuck := map[string]bool{}
	for _, p := range heldA {
		stuck[p] = true
	}
	for _, s := range []*holdSite{a, b} {
		s.mu.Lock()
		for i := range n {
			p := fmt.Sprintf("/p/%d", i)
			if s.answers[p] != 1 || calls[s.URL+p] != 1 {
				t.Errorf("%s: answered %d times, handled %d times over both Runs; want 1 and 1", s.URL+p, s.answers[p], calls[s.URL+p])
			}
			// A page is requested twice only if the cancel cut its
			// first request short.
			want := 1
			if s == a && stuck[p] {
				want = 2
			}
			if s.requests[p] != want {
				t.Errorf("%s requested %d times, want %d", s.URL+p, s.requests[p], want)
			}
		}
		s.mu.Unlock()
	}
	fetcher.CloseIdleConnections()
	before.Back(t, "after the resumed Run")
}

// TestCancelWhilePacing cancels a crawl whose only host is waiting out a
// long politeness delay, with no request in flight: Run must not sit out
// the delay, and the waiting URLs stay in the frontier.
func TestCancelWhilePacing(t *testing.T) {
	leak.Check(t)
	s := newSite(t, map[string]response{
		"/":  html("/1", "/2"),
		"/1": html(),
		"/2": html(),
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := fast(nil)
	c.Pacing.Delay = time.Hour
	c.IgnoreRobots = true // else robots.txt takes the host's turn and "/" waits the hour
	handled := make(chan struct{})
	c.Handler = crawler.HandlerFunc(func(context.Context, *crawler.Page) error {
		close(handled) // only "/" is handled before the cancel
		return nil
	})
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, s.URL+"/") }()
	select {
	case <-handled:
	case <-time.After(10 * time.Second):
		t.Fatal("the seed was not handled")
	}
	// The scheduler takes the page's links back, then waits an hour.
	deadline := time.Now().Add(10 * time.Second)
	for c.Stats().Frontier != 2 || c.Stats().InFlight != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the crawl did not settle into its politeness wait: %v", c.Stats())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancelAt := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
		if d := time.Since(cancelAt); d > 5*time.Second {
			t.Errorf("Run took %v to return after the cancel", d)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run sat out the politeness delay after the cancel")
	}
	if st := c.Stats(); st.Frontier != 2 || st.Seen != 3 || s.count("/1")+s.count("/2") != 0 {
		t.Errorf("after the cancel: frontier %d, seen %d, /1 and /2 requested %d times; want 2, 3, 0",
			st.Frontier, st.Seen, s.count("/1")+s.count("/2"))
	}
}

func TestCancel(t *testing.T) {
	leak.Check(t)
	s := newSite(t, map[string]response{
		"/":  html("/1", "/2", "/3", "/4"),
		"/1": {delay: time.Minute},
		"/2": {delay: time.Minute},
		"/3": {delay: time.Minute},
		"/4": {delay: time.Minute},
	})
	ctx, cancel := context.WithCancel(context.Background())
	c := fast(nil)
	c.Frontier = &frontier.FIFO{PerHost: 4}
	var cancelled atomic.Int64 // when, in Unix nanoseconds
	c.Handler = crawler.HandlerFunc(func(_ context.Context, p *crawler.Page) error {
		if p.URL == s.URL+"/" {
			time.AfterFunc(200*time.Millisecond, func() {
				cancelled.Store(time.Now().UnixNano())
				cancel()
			})
		}
		return nil
	})
	err := c.Run(ctx, s.URL+"/")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if el := time.Since(time.Unix(0, cancelled.Load())); el > 3*time.Second {
		t.Errorf("Run took %v to return after cancel", el)
	}
	st := c.Stats()
	if st.Frontier != 4 || st.InFlight != 0 {
		t.Errorf("after cancel: frontier %d, in flight %d; want the 4 cut-short URLs back in the frontier", st.Frontier, st.InFlight)
	}
	if st.Errors[fetch.KindCanceled] != 0 {
		t.Errorf("a fetch cut short by cancel was counted as an error: %v", st.Errors)
	}
	// A second Run resumes: the 4 pages are fetched.
	for _, p := range []string{"/1", "/2", "/3", "/4"} {
		s.set(p, html())
	}
	c.Handler = nil
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := c.Stats().Fetched; n != 4 {
		t.Errorf("resumed Run fetched %d, want 4", n)
	}
}
