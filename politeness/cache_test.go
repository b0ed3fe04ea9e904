package politeness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// httpFetch is a FetchFunc over net/http: it follows up to 5 redirects and
// reads at most MaxRobotsSize bytes of the body.
func httpFetch(client *http.Client) FetchFunc {
	c := *client
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 5 {
			return http.ErrUseLastResponse
		}
		return nil
	}
	return func(ctx context.Context, robotsURL string) (int, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, robotsURL, nil)
		if err != nil {
			return 0, nil, err
		}
		resp, err := c.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, MaxRobotsSize))
		return resp.StatusCode, body, err
	}
}

// robotsServer serves handler at /robots.txt (and whatever else handler does)
// and counts the requests for /robots.txt.
type robotsServer struct {
	*httptest.Server
	requests atomic.Int64
}

func newRobotsServer(t *testing.T, handler http.HandlerFunc) *robotsServer {
	t.Helper()
	s := &robotsServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			s.requests.Add(1)
		}
		handler(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func serve(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// switchableServer serves disallowPrivate with the status it holds, which
// the test may change at any time.
func switchableServer(t *testing.T, initial int64) (*robotsServer, *atomic.Int64) {
	status := new(atomic.Int64)
	status.Store(initial)
	return newRobotsServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(int(status.Load()))
		io.WriteString(w, disallowPrivate)
	}), status
}

const disallowPrivate = "User-agent: *\nDisallow: /private/\n"

func TestRobotsCacheStatus(t *testing.T) {
	redirectTo := func(path string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/real.txt" {
				io.WriteString(w, disallowPrivate)
				return
			}
			http.Redirect(w, r, path, http.StatusMovedPermanently)
		}
	}
	hops := func(n int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var i int
			fmt.Sscanf(r.URL.Query().Get("i"), "%d", &i)
			if i == n {
				io.WriteString(w, disallowPrivate)
				return
			}
			http.Redirect(w, r, fmt.Sprintf("/robots.txt?i=%d", i+1), http.StatusFound)
		}
	}
	tests := []struct {
		name        string
		handler     http.HandlerFunc
		private     bool // want Allowed("/private/x")
		public      bool // want Allowed("/public")
		unavailable bool // want an error wrapping ErrRobotsUnavailable
	}{
		{"200", serve(200, disallowPrivate), false, true, false},
		{"200 empty", serve(200, ""), true, true, false},
		{"200 html", serve(200, "<!doctype html><title>hi</title><p>Disallow: /</p>"), true, true, false},
		{"204", serve(204, ""), true, true, false},
		{"404", serve(404, "User-agent: *\nDisallow: /\n"), true, true, false},
		{"401", serve(401, ""), true, true, false},
		{"403", serve(403, ""), true, true, false},
		{"410", serve(410, ""), true, true, false},
		{"429", serve(429, ""), false, false, true},
		{"500", serve(500, "User-agent: *\nAllow: /\n"), false, false, true},
		{"503", serve(503, ""), false, false, true},
		{"redirect", redirectTo("/real.txt"), false, true, false},
		{"5 redirects", hops(5), false, true, false},
		{"6 redirects is unavailable", hops(6), true, true, false},
		{"redirect loop", redirectTo("/robots.txt"), true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRobotsServer(t, tt.handler)
			c := &RobotsCache{Fetch: httpFetch(srv.Client())}
			r, fetched, err := c.Get(context.Background(), srv.URL)
			if !fetched {
				t.Error("fetched = false on first Get")
			}
			if got := errors.Is(err, ErrRobotsUnavailable); got != tt.unavailable {
				t.Errorf("err = %v, want unavailable %v", err, tt.unavailable)
			}
			if got := r.Allowed(ua, "/private/x"); got != tt.private {
				t.Errorf("Allowed(/private/x) = %v, want %v", got, tt.private)
			}
			if got := r.Allowed(ua, "/public"); got != tt.public {
				t.Errorf("Allowed(/public) = %v, want %v", got, tt.public)
			}
			// Cached: no second request, same answer.
			r2, fetched, err2 := c.Get(context.Background(), srv.URL+"/")
			if fetched || r2 != r || errors.Is(err2, ErrRobotsUnavailable) != tt.unavailable {
				t.Errorf("second Get = %p, %v, %v; want %p, false, %v", r2, fetched, err2, r, err)
			}
			if n := srv.requests.Load(); n < 1 {
				t.Errorf("server saw %d requests", n)
			}
		})
	}
}

func TestRobotsCacheNetworkError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	origin := srv.URL
	srv.Close() // connection refused from now on
	c := &RobotsCache{Fetch: httpFetch(http.DefaultClient)}
	r, fetched, err := c.Get(context.Background(), origin)
	if !fetched || !errors.Is(err, ErrRobotsUnavailable) || r != DisallowAll() {
		t.Fatalf("Get = %p, %v, %v; want DisallowAll, true, ErrRobotsUnavailable", r, fetched, err)
	}
	if !strings.Contains(err.Error(), origin+"/robots.txt") {
		t.Errorf("error %q does not name the robots.txt URL", err)
	}
	if r.Allowed(ua, "/") {
		t.Error("Allowed(/) after a network error")
	}
}

// fakeClock is a settable clock safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestRobotsCacheTTL(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		ttl      time.Duration // RobotsCache.TTL
		errorTTL time.Duration // RobotsCache.ErrorTTL
		keep     time.Duration // how long the result should be kept
	}{
		{"default TTL", 200, 0, 0, DefaultRobotsTTL},
		{"TTL", 200, time.Hour, 0, time.Hour},
		{"default TTL for 404", 404, 0, 0, DefaultRobotsTTL},
		{"TTL for 403", 403, 2 * time.Hour, time.Second, 2 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRobotsServer(t, serve(tt.status, disallowPrivate))
			clock := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
			c := &RobotsCache{Fetch: httpFetch(srv.Client()), TTL: tt.ttl, ErrorTTL: tt.errorTTL, Now: clock.Now}
			steps := []struct {
				advance time.Duration
				fetched bool
			}{
				{0, true},
				{tt.keep - time.Nanosecond, false},
				{time.Nanosecond, true}, // expired exactly at keep
				{tt.keep / 2, false},
				{tt.keep, true},
			}
			for i, s := range steps {
				clock.Advance(s.advance)
				_, fetched, _ := c.Get(context.Background(), srv.URL)
				if fetched != s.fetched {
					t.Errorf("step %d: fetched = %v, want %v", i, fetched, s.fetched)
				}
			}
			if n := srv.requests.Load(); n != 3 {
				t.Errorf("server saw %d requests, want 3", n)
			}
			if n := c.Len(); n != 1 {
				t.Errorf("Len = %d, want 1 (expired entries replaced)", n)
			}
		})
	}
}

// TestRobotsCacheBackoff: an unavailable robots.txt is asked for again
// after ErrorTTL, doubled after each failure in a row up to MaxErrorTTL, and
// a success ends the outage.
func TestRobotsCacheBackoff(t *testing.T) {
	srv, status := switchableServer(t, 503)
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &fakeClock{t: start}
	c := &RobotsCache{Fetch: httpFetch(srv.Client()), ErrorTTL: 10 * time.Second, MaxErrorTTL: time.Minute, Now: clock.Now}
	wantWaits := []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute, time.Minute}
	for i, wait := range wantWaits {
		r, fetched, err := c.Get(context.Background(), srv.URL)
		var uerr *UnavailableError
		if !fetched || r != DisallowAll() || !errors.As(err, &uerr) {
			t.Fatalf("failure %d: Get = %p, %v, %v", i+1, r, fetched, err)
		}
		if uerr.Failures != i+1 || !uerr.Since.Equal(start) || uerr.Status != 503 || !uerr.RetryAt.Equal(clock.Now().Add(wait)) {
			t.Errorf("failure %d: %+v, want RetryAt now+%v", i+1, uerr, wait)
		}
		clock.Advance(wait - time.Nanosecond)
		if _, fetched, err := c.Get(context.Background(), srv.URL); fetched || !errors.Is(err, ErrRobotsUnavailable) {
			t.Errorf("failure %d: fetched again before RetryAt (err %v)", i+1, err)
		}
		clock.Advance(time.Nanosecond)
	}
	status.Store(200)
	r, fetched, err := c.Get(context.Background(), srv.URL)
	if !fetched || err != nil || r.Allowed(ua, "/private/x") || !r.Allowed(ua, "/x") {
		t.Fatalf("after recovery: fetched %v, err %v", fetched, err)
	}
	// A new outage starts counting from one again.
	status.Store(500)
	clock.Advance(DefaultRobotsTTL)
	_, _, err = c.Get(context.Background(), srv.URL)
	var uerr *UnavailableError
	if !errors.As(err, &uerr) || uerr.Failures != 1 || !uerr.RetryAt.Equal(clock.Now().Add(10*time.Second)) {
		t.Errorf("new outage: %v", err)
	}
	if n := srv.requests.Load(); n != int64(len(wantWaits)+2) {
		t.Errorf("server saw %d robots.txt requests, want %d", n, len(wantWaits)+2)
	}
}

// TestRobotsCacheOutageFallback: after MaxOutage of unavailability the last
// good copy is used again; without one, everything stays disallowed.
func TestRobotsCacheOutageFallback(t *testing.T) {
	srv, status := switchableServer(t, 200)
	clock := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	c := &RobotsCache{Fetch: httpFetch(srv.Client()), TTL: time.Hour, ErrorTTL: time.Hour, MaxErrorTTL: 6 * time.Hour,
		MaxOutage: 48 * time.Hour, Now: clock.Now}
	if _, _, err := c.Get(context.Background(), srv.URL); err != nil {
		t.Fatal(err)
	}
	status.Store(503)
	clock.Advance(time.Hour)
	outageStart := clock.Now()
	for clock.Now().Sub(outageStart) < 48*time.Hour {
		r, fetched, err := c.Get(context.Background(), srv.URL)
		if !fetched || r != DisallowAll() || !errors.Is(err, ErrRobotsUnavailable) {
			t.Fatalf("%v into the outage: Get = %p, %v, %v; want DisallowAll", clock.Now().Sub(outageStart), r, fetched, err)
		}
		var uerr *UnavailableError
		errors.As(err, &uerr)
		clock.t = uerr.RetryAt
	}
	r, fetched, err := c.Get(context.Background(), srv.URL)
	if !fetched || err != nil || r == DisallowAll() || r.Allowed(ua, "/private/x") || !r.Allowed(ua, "/x") {
		t.Fatalf("after MaxOutage: Get = %p, %v, %v; want the last good copy", r, fetched, err)
	}

	// Never had a copy: still disallowed after the outage.
	c2 := &RobotsCache{Fetch: httpFetch(srv.Client()), ErrorTTL: time.Hour, MaxOutage: 2 * time.Hour, Now: clock.Now}
	for range 5 {
		r, _, err := c2.Get(context.Background(), srv.URL)
		if r != DisallowAll() || err == nil {
			t.Fatalf("no good copy: Get = %p, %v", r, err)
		}
		clock.Advance(24 * time.Hour)
	}
}

// Negative settings turn their rule off: TTL and ErrorTTL keep nothing,
// MaxErrorTTL doubles nothing, MaxOutage never falls back.
func TestRobotsCacheNegative(t *testing.T) {
	srv, status := switchableServer(t, 200)
	clock := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	c := &RobotsCache{Fetch: httpFetch(srv.Client()), TTL: -1, ErrorTTL: -1, Now: clock.Now}
	for i := range 3 {
		if _, fetched, _ := c.Get(context.Background(), srv.URL); !fetched {
			t.Errorf("TTL -1, Get %d: served from the cache", i)
		}
	}
	status.Store(503)
	for i := range 3 {
		if _, fetched, _ := c.Get(context.Background(), srv.URL); !fetched {
			t.Errorf("ErrorTTL -1, Get %d of an unavailable file: served from the cache", i)
		}
	}

	status.Store(200)
	c = &RobotsCache{Fetch: httpFetch(srv.Client()), TTL: time.Minute, ErrorTTL: time.Minute, MaxErrorTTL: -1, MaxOutage: -1, Now: clock.Now}
	if _, _, err := c.Get(context.Background(), srv.URL); err != nil {
		t.Fatal(err)
	}
	status.Store(503)
	clock.Advance(time.Minute)
	for i := range 50 {
		r, _, err := c.Get(context.Background(), srv.URL)
		var uerr *UnavailableError
		if r != DisallowAll() || !errors.As(err, &uerr) {
			t.Fatalf("MaxOutage -1, failure %d, %v into the outage: Get = %p, %v; want DisallowAll", i+1, uerr.RetryAt.Sub(uerr.Since), r, err)
		}
		if wait := uerr.RetryAt.Sub(clock.Now()); wait != time.Minute {
			t.Fatalf("MaxErrorTTL -1, failure %d: retry in %v, want ErrorTTL (1m) undoubled", i+1, wait)
		}
		clock.t = uerr.RetryAt.Add(DefaultMaxOutage / 10)
	}
}

func TestRobotsCacheConcurrentGets(t *testing.T) {
	const n = 50
	gate := make(chan struct{})
	srv := newRobotsServer(t, func(w http.ResponseWriter, r *http.Request) {
		<-gate
		io.WriteString(w, disallowPrivate)
	})
	c := &RobotsCache{Fetch: httpFetch(srv.Client())}
	var (
		wg      sync.WaitGroup
		started sync.WaitGroup
		fetches atomic.Int64
		results [n]*Robots
	)
	started.Add(n)
	for i := range n {
		wg.Go(func() {
			started.Done()
			r, fetched, err := c.Get(context.Background(), srv.URL)
			if err != nil {
				t.Errorf("Get: %v", err)
			}
			if fetched {
				fetches.Add(1)
			}
			results[i] = r
		})
	}
	started.Wait()
	close(gate)
	wg.Wait()
	if got := srv.requests.Load(); got != 1 {
		t.Errorf("server saw %d requests, want 1", got)
	}
	if got := fetches.Load(); got != 1 {
		t.Errorf("%d Gets reported fetched, want 1", got)
	}
	for i, r := range results {
		if r != results[0] {
			t.Fatalf("Get %d returned a different *Robots", i)
		}
	}
	if results[0].Allowed(ua, "/private/x") {
		t.Error("rules not applied")
	}
}

func TestRobotsCacheCancelWaiter(t *testing.T) {
	arrived := make(chan struct{})
	release := make(chan struct{})
	srv := newRobotsServer(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
		io.WriteString(w, disallowPrivate)
	})
	c := &RobotsCache{Fetch: httpFetch(srv.Client())}
	first := make(chan error, 1)
	go func() {
		_, _, err := c.Get(context.Background(), srv.URL)
		first <- err
	}()
	<-arrived // the first Get is fetching

	cause := errors.New("shutting down")
	ctx, cancel := context.WithCancelCause(context.Background())
	waiter := make(chan error, 1)
	go func() {
		r, fetched, err := c.Get(ctx, srv.URL)
		if fetched || r != DisallowAll() {
			t.Errorf("cancelled waiter got %p, fetched %v", r, fetched)
		}
		waiter <- err
	}()
	cancel(cause)
	select {
	case err := <-waiter:
		if !errors.Is(err, cause) {
			t.Errorf("waiter err = %v, want %v", err, cause)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelled waiter did not return")
	}
	close(release)
	if err := <-first; err != nil {
		t.Errorf("first Get: %v", err)
	}
	if _, fetched, _ := c.Get(context.Background(), srv.URL); fetched {
		t.Error("fetched again after the first fetch finished")
	}
}

func TestRobotsCacheCancelFetcher(t *testing.T) {
	// The Get that fetches is cancelled: nothing is cached, a waiter takes
	// over and fetches itself.
	var calls atomic.Int64
	started := make(chan struct{})
	fetch := func(ctx context.Context, robotsURL string) (int, []byte, error) {
		if calls.Add(1) == 1 {
			close(started)
			<-ctx.Done()
			return 0, nil, ctx.Err()
		}
		return 200, []byte(disallowPrivate), nil
	}
	c := &RobotsCache{Fetch: fetch}
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, fetched, err := c.Get(ctx, "http://a.test")
		if !fetched {
			t.Error("cancelled fetcher: fetched = false")
		}
		first <- err
	}()
	<-started
	second := make(chan bool, 1)
	go func() {
		r, fetched, err := c.Get(context.Background(), "http://a.test")
		if err != nil || r.Allowed(ua, "/private/") {
			t.Errorf("waiter: %v, %v", r, err)
		}
		second <- fetched
	}()
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled fetcher err = %v", err)
	}
	if !<-second {
		t.Error("the waiter did not fetch after the first fetch was abandoned")
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("Fetch called %d times, want 2", n)
	}
}

func TestRobotsCacheFetchPanics(t *testing.T) {
	var calls atomic.Int64
	c := &RobotsCache{Fetch: func(context.Context, string) (int, []byte, error) {
		if calls.Add(1) == 1 {
			panic("boom")
		}
		return 404, nil, nil
	}}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic not propagated")
			}
		}()
		c.Get(context.Background(), "http://a.test")
	}()
	if n := c.Len(); n != 0 {
		t.Errorf("Len = %d after a panicking Fetch, want 0", n)
	}
	if r, fetched, err := c.Get(context.Background(), "http://a.test"); r != AllowAll() || !fetched || err != nil {
		t.Errorf("Get after panic = %p, %v, %v", r, fetched, err)
	}
}

func TestRobotsCachePerOrigin(t *testing.T) {
	a := newRobotsServer(t, serve(200, "User-agent: *\nDisallow: /a\n"))
	b := newRobotsServer(t, serve(200, "User-agent: *\nDisallow: /b\n"))
	c := &RobotsCache{Fetch: httpFetch(a.Client())}
	for range 3 {
		for _, tt := range []struct {
			srv            *robotsServer
			origin         string
			allowA, allowB bool
		}{
			{a, a.URL, false, true},
			{b, b.URL, true, false},
			{a, strings.ToUpper(a.URL) + "/", false, true},
		} {
			r, _, err := c.Get(context.Background(), tt.origin)
			if err != nil {
				t.Fatal(err)
			}
			if r.Allowed(ua, "/a") != tt.allowA || r.Allowed(ua, "/b") != tt.allowB {
				t.Errorf("%s: wrong rules", tt.origin)
			}
		}
	}
	if na, nb := a.requests.Load(), b.requests.Load(); na != 1 || nb != 1 {
		t.Errorf("requests = %d, %d; want 1, 1", na, nb)
	}
	if n := c.Len(); n != 2 {
		t.Errorf("Len = %d, want 2", n)
	}
}

func TestOriginKey(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"http://example.com", "http://example.com"},
		{"https://Example.COM/", "https://example.com"},
		{"HTTP://example.com:80", "http://example.com"},
		{"https://example.com:443", "https://example.com"},
		{"http://example.com:443", "http://example.com:443"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"http://[::1]:80", "http://[::1]"},
		{"http://example.com:", "http://example.com"},
		{"ftp://example.com", ""},
		{"example.com", ""},
		{"http://", ""},
		{"http://example.com/a", ""},
		{"http://example.com/?q", ""},
		{"http://example.com#f", ""},
		{"http://u:p@example.com", ""},
		{"http://[::1", ""},
	} {
		got, err := originKey(tt.in)
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("originKey(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	c := &RobotsCache{Fetch: func(context.Context, string) (int, []byte, error) {
		t.Error("Fetch called for an invalid origin")
		return 0, nil, nil
	}}
	r, fetched, err := c.Get(context.Background(), "ftp://x")
	if err == nil || errors.Is(err, ErrRobotsUnavailable) || fetched || r != DisallowAll() {
		t.Errorf("Get(invalid) = %p, %v, %v", r, fetched, err)
	}
}

// WithFetch makes a cache of the same settings, empty, fetching anew.
func TestRobotsCacheWithFetch(t *testing.T) {
	srv := newRobotsServer(t, serve(200, disallowPrivate))
	clock := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	settings := &RobotsCache{TTL: time.Hour, ErrorTTL: 2 * time.Minute, MaxErrorTTL: 3 * time.Hour, MaxOutage: -1, Now: clock.Now, Store: &mapStore{}}
	c := settings.WithFetch(httpFetch(srv.Client()))
	if c.TTL != settings.TTL || c.ErrorTTL != settings.ErrorTTL || c.MaxErrorTTL != settings.MaxErrorTTL || c.MaxOutage != settings.MaxOutage || c.Now == nil || c.Store != settings.Store {
		t.Errorf("WithFetch: %+v, want the settings of %+v", c, settings)
	}
	if _, fetched, err := c.Get(context.Background(), srv.URL); !fetched || err != nil || settings.Len() != 0 {
		t.Errorf("Get: fetched %v, %v; the settings' cache holds %d", fetched, err, settings.Len())
	}
	clock.Advance(time.Hour) // the TTL taken from settings
	if _, fetched, _ := c.Get(context.Background(), srv.URL); !fetched {
		t.Error("an hour on, the robots.txt kept for the settings' TTL was not fetched again")
	}
	if d := (*RobotsCache)(nil).WithFetch(httpFetch(srv.Client())); d.TTL != 0 || d.Fetch == nil {
		t.Errorf("nil.WithFetch: %+v, want the defaults and the fetch", d)
	}
}

// mapStore is a RobotsStore in a map, as a durable one would be on disk.
type mapStore struct {
	mu    sync.Mutex
	kept  map[string]KeptRobots
	saves int
}

func (s *mapStore) LoadRobots(origin string) (KeptRobots, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.kept[origin]
	return r, ok
}

func (s *mapStore) SaveRobots(origin string, r KeptRobots) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kept == nil {
		s.kept = map[string]KeptRobots{}
	}
	s.kept[origin] = r
	s.saves++
}

// A cache with a Store keeps what it fetched there, and a new cache on the
// same store (a crawl resumed by another process) uses it until it is TTL
// old, without fetching; unavailable answers are not kept, nor anything
// with a negative TTL.
func TestRobotsCacheStore(t *testing.T) {
	srv, status := switchableServer(t, 200)
	clock := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	store := &mapStore{}
	newCache := func(ttl time.Duration) *RobotsCache {
		return &RobotsCache{Fetch: httpFetch(srv.Client()), TTL: ttl, Now: clock.Now, Store: store}
	}
	get := func(c *RobotsCache) (*Robots, bool) {
		t.Helper()
		r, fetched, err := c.Get(context.Background(), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		return r, fetched
	}
	if _, fetched := get(newCache(time.Hour)); !fetched || store.saves != 1 {
		t.Fatalf("first cache: fetched %v, %d saves; want a fetch, saved", fetched, store.saves)
	}
	clock.Advance(time.Hour - time.Second)
	r, fetched := get(newCache(time.Hour))
	if fetched || r.Allowed("bot", "/private/x") || !r.Allowed("bot", "/public") || srv.requests.Load() != 1 {
		t.Fatalf("a new cache on the store: fetched %v, %d requests, /private allowed %v; want the kept rules, no fetch",
			fetched, srv.requests.Load(), r.Allowed("bot", "/private/x"))
	}
	clock.Advance(time.Second) // the kept copy is TTL old
	if _, fetched := get(newCache(time.Hour)); !fetched || srv.requests.Load() != 2 {
		t.Fatalf("a kept copy TTL old: fetched %v, want a fetch", fetched)
	}

	status.Store(404)
	clock.Advance(2 * time.Hour)
	if r, fetched := get(newCache(time.Hour)); !fetched || !r.Allowed("bot", "/private/x") || store.kept[srv.URL].Body != nil {
		t.Fatalf("a 404: fetched %v, kept %+v; want allow-all kept without a body", fetched, store.kept[srv.URL])
	}
	status.Store(503)
	clock.Advance(2 * time.Hour)
	saves := store.saves
	if _, _, err := newCache(time.Hour).Get(context.Background(), srv.URL); err == nil || store.saves != saves {
		t.Fatalf("a 503: err %v, %d saves; want an error, nothing kept", err, store.saves-saves)
	}
	status.Store(200)
	requests := srv.requests.Load()
	for range 2 {
		if _, fetched := get(newCache(-1)); !fetched {
			t.Fatal("with a negative TTL, a kept copy was used")
		}
	}
	if store.saves != saves || srv.requests.Load() != requests+2 {
		t.Fatalf("with a negative TTL: %d saves, %d requests; want none kept, each Get fetching", store.saves-saves, srv.requests.Load()-requests)
	}
}
