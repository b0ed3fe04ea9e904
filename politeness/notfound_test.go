package politeness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"crawler/internal/dnstest"
)

// dnsErrors returns the errors Go's resolver gives, from a DNS server on
// loopback, for a name that does not exist (NXDOMAIN) and for one whose
// server fails (SERVFAIL).
func dnsErrors(t *testing.T) (notFound, temporary error) {
	dns := dnstest.New(t, nil)
	dns.Fail("servfail.test")
	r := dns.Resolver()
	_, notFound = r.LookupNetIP(context.Background(), "ip", "nosuch.test")
	_, temporary = r.LookupNetIP(context.Background(), "ip", "servfail.test")
	if !HostNotFound(notFound) || HostNotFound(temporary) || temporary == nil {
		t.Fatalf("HostNotFound(%v) = false or HostNotFound(%v) = true", notFound, temporary)
	}
	return notFound, temporary
}

// HostNotFound tells a name that does not exist from a temporary DNS
// failure, through the errors that wrap them.
func TestHostNotFound(t *testing.T) {
	notFound, temporary := dnsErrors(t)
	wrapped := &UnavailableError{URL: "http://nosuch.test/robots.txt", Err: &net.OpError{Op: "dial", Net: "tcp", Err: notFound}}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{notFound, true},
		{wrapped, true},
		{fmt.Errorf("fetch: %w", wrapped), true},
		{temporary, false},
		{&net.DNSError{Err: "no such host", Name: "x.test", IsNotFound: true, IsTimeout: true}, false},
		{&net.DNSError{Err: "i/o timeout", Name: "x.test", IsTimeout: true}, false},
		{errors.New("no such host"), false},
		{nil, false},
	} {
		if got := HostNotFound(tc.err); got != tc.want {
			t.Errorf("HostNotFound(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// A name not found is retried NotFoundRetries times, a second then two
// apart by default, and retires the host; a temporary DNS failure is an
// ordinary one (Backoff, MaxFailures), and so is a name not found when
// NotFoundRetries is negative.
func TestPacingNotFound(t *testing.T) {
	notFound, temporary := dnsErrors(t)
	var p Pacing
	var h HostPace
	now := t0
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		next := p.Next(&h, now, Outcome{Err: notFound})
		if got := next.Sub(now); got != want || h.NotFound != i+1 || h.Failures != i+1 {
			t.Errorf("answer %d: wait %v, host %+v; want %v", i+1, got, h, want)
		}
		if retired := h.Retired != ""; retired != (i == DefaultNotFoundRetries) {
			t.Errorf("answer %d: retired %q", i+1, h.Retired)
		}
		now = next
	}
	if want := "name not found, 3 answers in a row: lookup nosuch.test"; !strings.HasPrefix(h.Retired, want) || !strings.HasSuffix(h.Retired, "no such host") {
		t.Errorf("Retired = %q, want %q...", h.Retired, want)
	}

	// Another failure between two answers starts their count again.
	h = HostPace{}
	p.Next(&h, now, Outcome{Err: notFound})
	p.Next(&h, now, Outcome{Err: notFound})
	if next := p.Next(&h, now, Outcome{Err: temporary}); next.Sub(now) != 4*DefaultBackoff || h.NotFound != 0 || h.Failures != 3 {
		t.Errorf("after a temporary failure: wait %v, host %+v", next.Sub(now), h)
	}
	p.Next(&h, now, Outcome{Err: notFound})
	p.Next(&h, now, Outcome{Status: 200})
	if h.NotFound != 0 || h.Failures != 0 || h.Retired != "" {
		t.Errorf("after a success: host %+v", h)
	}

	for _, tc := range []struct {
		name    string
		p       Pacing
		err     error
		retire  int // at the answer; 0: never in 10
		wait    time.Duration
		message string
	}{
		{"temporary: ordinary", Pacing{}, temporary, DefaultMaxFailures, DefaultBackoff, "5 failures in a row"},
		{"rule off: ordinary", Pacing{NotFoundRetries: -1}, notFound, DefaultMaxFailures, DefaultBackoff, "5 failures in a row"},
		{"one retry", Pacing{NotFoundRetries: 1}, notFound, 2, time.Second, "name not found, 2 answers"},
		{"MaxFailures first", Pacing{MaxFailures: 2, NotFoundRetries: 5}, notFound, 2, time.Second, "2 failures in a row"},
		{"never retired", Pacing{MaxFailures: -1}, notFound, 0, time.Second, ""},
		{"backoff", Pacing{Delay: -1, NotFoundBackoff: 3 * time.Second}, notFound, 3, 3 * time.Second, "name not found, 3 answers"},
		{"no backoff", Pacing{Delay: -1, NotFoundBackoff: -1}, notFound, 3, 0, "name not found, 3 answers"},
	} {
		var h HostPace
		for i := range 10 {
			next := tc.p.Next(&h, t0, Outcome{Err: tc.err})
			if i == 0 && next.Sub(t0) != tc.wait {
				t.Errorf("%s: first wait %v, want %v", tc.name, next.Sub(t0), tc.wait)
			}
			if retired := h.Retired != ""; retired != (tc.retire > 0 && i+1 >= tc.retire) {
				t.Fatalf("%s: answer %d: host %+v; want retired at answer %d", tc.name, i+1, h, tc.retire)
			}
		}
		if !strings.Contains(h.Retired, tc.message) {
			t.Errorf("%s: Retired = %q, want %q", tc.name, h.Retired, tc.message)
		}
	}
}

// A robots.txt whose host's name does not exist is unavailable, but not
// kept: the next Get fetches again. One whose lookup failed for a while
// (SERVFAIL) is an outage, kept for ErrorTTL.
func TestRobotsCacheHostNotFound(t *testing.T) {
	dns := dnstest.New(t, map[string][]netip.Addr{})
	dns.Fail("servfail.test")
	d := &net.Dialer{Resolver: dns.Resolver()}
	client := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	clock := &fakeClock{t: t0}
	c := &RobotsCache{Fetch: httpFetch(client), Now: clock.Now}
	for i := range 3 {
		r, fetched, err := c.Get(context.Background(), "http://nosuch.test")
		uerr, ok := errors.AsType[*UnavailableError](err)
		if !fetched || r != DisallowAll() || !ok || !HostNotFound(err) || uerr.Failures != i+1 || !uerr.RetryAt.Equal(clock.Now()) {
			t.Fatalf("Get %d of a name not found = %p, %v, %v (%+v); want DisallowAll, fetched, retry now", i+1, r, fetched, err, uerr)
		}
		clock.Advance(time.Millisecond)
	}
	if n := dns.Queries("nosuch.test"); n != 3 {
		t.Errorf("%d queries for the name, want 3", n)
	}

	_, fetched, err := c.Get(context.Background(), "http://servfail.test")
	uerr, ok := errors.AsType[*UnavailableError](err)
	if !fetched || !ok || HostNotFound(err) || !uerr.RetryAt.Equal(clock.Now().Add(DefaultErrorTTL)) {
		t.Fatalf("Get of a name whose server fails = %v, %v (%+v); want RetryAt in %v", fetched, err, uerr, DefaultErrorTTL)
	}
	if dnsErr, ok := errors.AsType[*net.DNSError](err); !ok || !dnsErr.IsTemporary {
		t.Errorf("error %v: want a temporary *net.DNSError", err)
	}
	clock.Advance(DefaultErrorTTL - time.Nanosecond)
	if _, fetched, _ := c.Get(context.Background(), "http://servfail.test"); fetched {
		t.Error("an outage's robots.txt fetched again before its RetryAt")
	}
}
