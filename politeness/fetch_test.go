package politeness_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"crawler/canon"
	"crawler/fetch"
	"crawler/politeness"
)

// robotsServer is a loopback server whose paths redirect to Location
// targets given in redirects (each answered 301), and serve a robots.txt
// at /final, counting the requests of each path and the User-Agents sent.
type robotsServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests map[string]int
	agents   map[string]bool
}

func newRobotsServer(t *testing.T, redirects map[string]string) *robotsServer {
	s := &robotsServer{requests: map[string]int{}, agents: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[r.URL.RequestURI()]++
		s.agents[r.UserAgent()] = true
		s.mu.Unlock()
		switch loc, ok := redirects[r.URL.Path]; {
		case ok:
			if loc != "" {
				w.Header().Set("Location", loc)
			}
			w.WriteHeader(http.StatusMovedPermanently)
		case r.URL.Path == "/big":
			w.Write([]byte(strings.Repeat("Disallow: /x\n", 2*politeness.MaxRobotsSize/13)))
		case r.URL.Path == "/final":
			w.Write([]byte("User-agent: *\nDisallow: /private\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *robotsServer) count(requestURI string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[requestURI]
}

// fetcherFor is an HTTPFetcher allowed to connect to s's address alone.
func fetcherFor(t *testing.T, s *robotsServer) *fetch.HTTPFetcher {
	ap, err := netip.ParseAddrPort(s.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return &fetch.HTTPFetcher{Addresses: fetch.AddressPolicy{AllowAddrPorts: []netip.AddrPort{ap}}}
}

// FetchThrough follows up to 5 redirects, resolving each Location with
// its Canonicalizer; a longer chain, a loop, a redirect to nowhere or to
// an address the Fetcher refuses is the last 3xx status, no error.
func TestFetchThrough(t *testing.T) {
	s := newRobotsServer(t, map[string]string{
		"/robots.txt": "/r1", "/r1": "r2?sid=1", "/r2": "/final", // two hops, and a session ID to strip
		"/five1": "/five2", "/five2": "/five3", "/five3": "/five4", "/five4": "/five5", "/five5": "/final",
		"/six1": "/six2", "/six2": "/six3", "/six3": "/six4", "/six4": "/six5", "/six5": "/six6", "/six6": "/final",
		"/loop1": "/loop2", "/loop2": "/loop1",
		"/none": "", "/bad": "http://[::1", "/blocked": "http://localhost:1/robots.txt",
		"/tobig": "/big",
	})
	f := politeness.FetchThrough(fetcherFor(t, s), "testbot/1.0", &canon.Canonicalizer{StripSessionIDs: true})
	for _, tt := range []struct {
		path   string
		status int
		body   string // its prefix
	}{
		{"/robots.txt", 200, "User-agent: *"},
		{"/five1", 200, "User-agent: *"},
		{"/six1", 301, ""},
		{"/loop1", 301, ""},
		{"/none", 301, ""},
		{"/bad", 301, ""},
		{"/blocked", 301, ""},
		{"/missing", 404, "404"},
	} {
		status, body, err := f(t.Context(), s.URL+tt.path)
		if err != nil || status != tt.status || !strings.HasPrefix(string(body), tt.body) || tt.body == "" && body != nil {
			t.Errorf("%s: %d, %.20q, %v; want %d, %.20q, no error", tt.path, status, body, err, tt.status, tt.body)
		}
	}
	if n := s.count("/r2"); n != 1 {
		t.Errorf("/r2 requested %d times, want once (its ?sid=1 stripped)", n)
	}
	if n := s.count("/loop1") + s.count("/loop2"); n != 6 {
		t.Errorf("a redirect loop: %d requests, want 6 (the first and 5 redirects)", n)
	}
	if n := s.count("/final"); n != 2 {
		t.Errorf("/final requested %d times, want 2 (after 2 and 5 redirects, not after 6)", n)
	}
	s.mu.Lock()
	if !s.agents["testbot/1.0"] || len(s.agents) != 1 {
		t.Errorf("User-Agents sent: %v, want testbot/1.0", s.agents)
	}
	s.mu.Unlock()

	status, body, err := f(t.Context(), s.URL+"/tobig")
	if err != nil || status != 200 || len(body) > politeness.MaxRobotsSize {
		t.Errorf("a big robots.txt: %d, %d bytes, %v; want 200 and at most MaxRobotsSize bytes", status, len(body), err)
	}

	// A first request the Fetcher refuses is its error.
	status, _, err = f(t.Context(), "http://localhost:1/robots.txt")
	if status != 0 || !errors.Is(err, fetch.ErrBlockedAddress) {
		t.Errorf("a refused robots.txt: %d, %v; want 0 and fetch.ErrBlockedAddress", status, err)
	}
}
