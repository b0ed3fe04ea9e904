package politeness

import (
	"errors"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func TestPacingDelay(t *testing.T) {
	p := Pacing{Delay: time.Second, MaxCrawlDelay: 10 * time.Second, DelayFactor: 5, MaxAdaptiveDelay: 30 * time.Second}
	tests := []struct {
		name string
		o    Outcome
		want time.Duration
	}{
		{"fast response: min delay", Outcome{Status: 200, Duration: 10 * time.Millisecond}, time.Second},
		{"slow response: factor", Outcome{Status: 200, Duration: 400 * time.Millisecond}, 2 * time.Second},
		{"very slow response: clamped", Outcome{Status: 200, Duration: time.Minute}, 30 * time.Second},
		{"crawl-delay above min", Outcome{Status: 200, CrawlDelay: 3 * time.Second}, 3 * time.Second},
		{"crawl-delay capped", Outcome{Status: 200, CrawlDelay: time.Hour}, 10 * time.Second},
		{"crawl-delay below adaptive", Outcome{Status: 200, CrawlDelay: 2 * time.Second, Duration: time.Second}, 5 * time.Second},
		{"404 is no failure", Outcome{Status: 404, Duration: 200 * time.Millisecond}, time.Second},
		{"redirect is no failure", Outcome{Status: 301}, time.Second},
		{"retry-after ignored on success", Outcome{Status: 200, RetryAfter: "120"}, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h HostPace
			next := p.Next(&h, t0, tt.o)
			if got := next.Sub(t0); got != tt.want {
				t.Errorf("wait %v, want %v", got, tt.want)
			}
			if h.Delay != tt.want || h.Failures != 0 || h.Retired != "" {
				t.Errorf("host %+v, want Delay %v and no failure", h, tt.want)
			}
		})
	}
}

// The zero Pacing is the defaults; a negative field is zero itself, which
// turns its rule off.
func TestPacingZeroAndNegative(t *testing.T) {
	tests := []struct {
		name string
		p    Pacing
		o    Outcome
		want time.Duration
	}{
		{"zero: default delay", Pacing{}, Outcome{Status: 200}, DefaultDelay},
		{"zero: default factor and cap", Pacing{}, Outcome{Status: 200, Duration: time.Hour}, DefaultMaxAdaptiveDelay},
		{"zero: default crawl-delay cap", Pacing{}, Outcome{Status: 200, CrawlDelay: time.Hour}, DefaultMaxCrawlDelay},
		{"zero: default backoff", Pacing{}, Outcome{Status: 503}, DefaultBackoff},
		{"zero: default Retry-After cap", Pacing{}, Outcome{Status: 429, RetryAfter: "86400"}, DefaultMaxRetryAfter},
		{"no delay, no factor", Pacing{Delay: -1, DelayFactor: -1}, Outcome{Status: 200, Duration: time.Hour}, 0},
		{"no adaptive delay", Pacing{Delay: -1, MaxAdaptiveDelay: -1}, Outcome{Status: 200, Duration: time.Hour}, 0},
		{"crawl-delay ignored", Pacing{Delay: -1, MaxCrawlDelay: -1}, Outcome{Status: 200, CrawlDelay: time.Hour}, 0},
		{"no backoff", Pacing{Delay: -1, Backoff: -1}, Outcome{Status: 503}, 0},
		{"backoff capped at zero", Pacing{Delay: -1, MaxBackoff: -1}, Outcome{Status: 503}, 0},
		{"Retry-After ignored", Pacing{Delay: -1, Backoff: -1, MaxRetryAfter: -1}, Outcome{Status: 429, RetryAfter: "60"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h HostPace
			if got := tt.p.Next(&h, t0, tt.o).Sub(t0); got != tt.want {
				t.Errorf("wait %v, want %v", got, tt.want)
			}
		})
	}
	for p, want := range map[Pacing]time.Duration{{}: DefaultDelay, {Delay: 3 * time.Second}: 3 * time.Second, {Delay: -1}: 0, {Delay: -1, DelayFactor: 10}: 0} {
		if got := p.MinDelay(); got != want {
			t.Errorf("%+v.MinDelay() = %v, want %v", p, got, want)
		}
	}
	var h HostPace
	for range DefaultMaxFailures {
		(&Pacing{}).Next(&h, t0, Outcome{Status: 503})
	}
	if h.Retired == "" {
		t.Errorf("the zero Pacing did not retire a host after %d failures", DefaultMaxFailures)
	}
}

func TestPacingBackoff(t *testing.T) {
	p := Pacing{Delay: time.Second, Backoff: 5 * time.Second, MaxBackoff: time.Minute, MaxFailures: 6, MaxRetryAfter: time.Hour}
	var h HostPace
	now := t0
	want := []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute}
	for i, w := range want {
		next := p.Next(&h, now, Outcome{Status: 503})
		if got := next.Sub(now); got != w {
			t.Errorf("failure %d: wait %v, want %v", i+1, got, w)
		}
		if h.Failures != i+1 || h.Retired != "" {
			t.Fatalf("failure %d: host %+v", i+1, h)
		}
		now = next
	}
	// A success resets the count and the delay.
	next := p.Next(&h, now, Outcome{Status: 200})
	if next.Sub(now) != time.Second || h.Failures != 0 {
		t.Errorf("after success: wait %v, host %+v", next.Sub(now), h)
	}
	// A network error is a failure too.
	next = p.Next(&h, now, Outcome{Err: errors.New("connection reset")})
	if next.Sub(now) != 5*time.Second || h.Failures != 1 {
		t.Errorf("after network error: wait %v, host %+v", next.Sub(now), h)
	}
}

func TestPacingRetire(t *testing.T) {
	p := Pacing{Backoff: time.Second, MaxFailures: 3}
	var h HostPace
	for i := range 3 {
		p.Next(&h, t0, Outcome{Status: 500 + i})
	}
	if h.Failures != 3 || !strings.Contains(h.Retired, "3 failures in a row") || !strings.Contains(h.Retired, "status 502") {
		t.Fatalf("after 3 failures: %+v", h)
	}
	// Retired stays, even after a success; the reason is the first one.
	reason := h.Retired
	p.Next(&h, t0, Outcome{Status: 200})
	p.Next(&h, t0, Outcome{Err: errors.New("boom")})
	if h.Retired != reason {
		t.Errorf("Retired changed to %q", h.Retired)
	}

	never := Pacing{Backoff: time.Second, MaxFailures: -1}
	var g HostPace
	for range 100 {
		never.Next(&g, t0, Outcome{Status: 503})
	}
	if g.Retired != "" {
		t.Errorf("MaxFailures -1 retired the host: %q", g.Retired)
	}
}

func TestPacingRetryAfter(t *testing.T) {
	p := Pacing{Delay: time.Second, Backoff: 2 * time.Second, MaxRetryAfter: 10 * time.Minute}
	tests := []struct {
		name   string
		status int
		header string
		want   time.Duration
	}{
		{"seconds", 429, "120", 2 * time.Minute},
		{"seconds below backoff", 429, "1", 2 * time.Second},
		{"zero", 503, "0", 2 * time.Second},
		{"date", 503, t0.Add(5 * time.Minute).Format(http.TimeFormat), 5 * time.Minute},
		{"date in the past", 503, t0.Add(-time.Hour).Format(http.TimeFormat), 2 * time.Second},
		{"capped", 429, "86400", 10 * time.Minute},
		{"huge", 429, "99999999999999999999999", 10 * time.Minute},
		{"invalid", 429, "soon", 2 * time.Second},
		{"negative", 429, "-5", 2 * time.Second},
		{"none", 429, "", 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h HostPace
			next := p.Next(&h, t0, Outcome{Status: tt.status, RetryAfter: tt.header})
			if got := next.Sub(t0); got != tt.want {
				t.Errorf("wait %v, want %v", got, tt.want)
			}
		})
	}
	ignore := Pacing{Delay: time.Second, Backoff: -1, MaxRetryAfter: -1}
	var h HostPace
	if next := ignore.Next(&h, t0, Outcome{Status: 429, RetryAfter: "60"}); next.Sub(t0) != time.Second {
		t.Errorf("MaxRetryAfter -1 must ignore Retry-After: wait %v", next.Sub(t0))
	}
}

func TestParseRetryAfter(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"  30 ", 30 * time.Second, true},
		{"3600", time.Hour, true},
		{"1.5", 0, false},
		{"+5", 0, false},
		{"", 0, false},
		{"Sun, 22 Nov 2026 12:01:00 GMT", time.Minute, true},
		{"Sunday, 22-Nov-26 12:00:30 GMT", 30 * time.Second, true}, // RFC 850
		{"Sun Nov 22 12:00:10 2026", 10 * time.Second, true},       // asctime
		{"Sun, 22 Nov 2026 11:00:00 GMT", 0, true},
		{"tomorrow", 0, false},
		{"18446744073709551616", time.Duration(math.MaxInt64), true},
	}
	for _, tt := range tests {
		got, ok := ParseRetryAfter(tt.in, t0)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPacingOverflow(t *testing.T) {
	p := Pacing{DelayFactor: 1e12, MaxAdaptiveDelay: math.MaxInt64, Backoff: time.Hour, MaxBackoff: math.MaxInt64}
	var h HostPace
	next := p.Next(&h, t0, Outcome{Status: 200, Duration: time.Hour})
	if next.Before(t0) {
		t.Errorf("adaptive delay overflowed: %v", next.Sub(t0))
	}
	for range 200 {
		p.Next(&h, t0, Outcome{Status: 500})
	}
	if h.Delay < time.Hour {
		t.Errorf("backoff overflowed to %v", h.Delay)
	}
}

// A replayed response waits nothing, whatever the delays, Crawl-delay,
// backoff or Retry-After; its failures still retire the host, and a live
// response after it waits as ever.
func TestPacingReplayed(t *testing.T) {
	p := Pacing{Delay: time.Second, MaxFailures: 3}
	var h HostPace
	if next := p.Next(&h, t0, Outcome{Status: 200, Duration: time.Second, CrawlDelay: 5 * time.Second, Replayed: true}); !next.Equal(t0) || h.Delay != 0 {
		t.Errorf("after a replayed 200: next %v, delay %v; want now, 0", next.Sub(t0), h.Delay)
	}
	for i := range 3 {
		next := p.Next(&h, t0, Outcome{Status: 503, RetryAfter: "60", Replayed: true})
		if !next.Equal(t0) || h.Failures != i+1 {
			t.Errorf("replayed 503 #%d: next %v, failures %d", i+1, next.Sub(t0), h.Failures)
		}
	}
	if h.Retired == "" {
		t.Error("3 replayed 503s in a row did not retire the host")
	}
	var live HostPace
	if next := p.Next(&live, t0, Outcome{Status: 200}); next.Sub(t0) != time.Second {
		t.Errorf("a live 200: wait %v, want 1s", next.Sub(t0))
	}
	hosts := NewHosts(p)
	if next, _ := hosts.Record("a.example", false, 10, t0, Outcome{Status: 200, Replayed: true}, nil); !next.Equal(t0) {
		t.Errorf("Hosts.Record of a replayed response: next %v, want now", next.Sub(t0))
	}
}
