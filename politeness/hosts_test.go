package politeness

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSummarizeHosts(t *testing.T) {
	now := time.Now()
	hs := []HostStats{
		{Host: "retired", Retired: "x", InFlight: 1},
		{Host: "active", InFlight: 1, Failures: 2},
		{Host: "backoff", Failures: 1, Next: now.Add(time.Minute)},
		{Host: "waiting", Next: now.Add(time.Second)},
		{Host: "idle", Next: now.Add(-time.Second)},
		{Host: "new"},
	}
	got := SummarizeHosts(hs, now)
	want := HostSummary{Retired: 1, Active: 1, BackingOff: 1, Waiting: 1, Idle: 2}
	if got != want {
		t.Errorf("SummarizeHosts = %+v, want %+v", got, want)
	}
}

// A Hosts accounts each host's requests, robots.txt fetches, bytes,
// failures and response times, paces it as its Pacing says, and lists
// only the hosts contacted, sorted. The zero Hosts is the default Pacing.
func TestHostsAccounting(t *testing.T) {
	var zero Hosts
	if next, retired := zero.Record("a.test", false, 10, t0, Outcome{Status: 200}, nil); !next.Equal(t0.Add(DefaultDelay)) || retired != nil {
		t.Errorf("zero Hosts: Record = %v, %v; want %v, nil", next, retired, t0.Add(DefaultDelay))
	}

	h := NewHosts(Pacing{Delay: 2 * time.Second, DelayFactor: -1, Backoff: time.Minute})
	if h.Snapshot() == nil || len(h.Snapshot()) != 0 || h.Summary(t0) != (HostSummary{}) {
		t.Errorf("empty table: Snapshot %v, Summary %+v", h.Snapshot(), h.Summary(t0))
	}
	// b.test: a URL begun and ended without a request is only met.
	if err := h.Begin("b.test"); err != nil {
		t.Fatal(err)
	}
	h.End("b.test")

	if err := h.Begin("c.test"); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		robots bool
		bytes  int64
		o      Outcome
		next   time.Duration
	}{
		{true, 0, Outcome{Status: 200, Duration: 10 * time.Millisecond}, 2 * time.Second},
		{false, 100, Outcome{Status: 200, Duration: 30 * time.Millisecond}, 2 * time.Second},
		{false, 7, Outcome{Status: 503, Duration: 20 * time.Millisecond}, time.Minute},
		{false, 0, Outcome{Err: errors.New("connection reset"), Duration: 40 * time.Millisecond}, 2 * time.Minute},
	}
	now := t0
	for i, s := range steps {
		next, retired := h.Record("c.test", s.robots, s.bytes, now, s.o, s.o.Err)
		if !next.Equal(now.Add(s.next)) || retired != nil {
			t.Fatalf("step %d: Record = %v, %v; want %v later, nil", i, next, retired, s.next)
		}
		now = next
	}
	want := HostStats{
		Host: "c.test", Requests: 3, RobotsRequests: 1, Bytes: 107, Errors: 2,
		Delay: 2 * time.Minute, Failures: 2, InFlight: 1, Next: now,
		FetchTime: 100 * time.Millisecond, LastError: "connection reset",
	}
	got := h.Snapshot()
	if len(got) != 1 || got[0] != want {
		t.Fatalf("Snapshot = %+v, want [%+v]", got, want)
	}
	if m := got[0].MeanFetchTime(); m != 25*time.Millisecond {
		t.Errorf("MeanFetchTime = %v, want 25ms", m)
	}
	if m := (HostStats{}).MeanFetchTime(); m != 0 {
		t.Errorf("MeanFetchTime of no request = %v", m)
	}
	if s := h.Summary(now); s != (HostSummary{Active: 1}) {
		t.Errorf("Summary with c.test in flight = %+v", s)
	}
	h.End("c.test")

	h.Record("a.test", false, 0, t0, Outcome{Status: 503}, nil)
	h.Record("a.test", false, 0, t0, Outcome{Status: 200}, nil)
	got = h.Snapshot()
	if len(got) != 2 || got[0].Host != "a.test" || got[1].Host != "c.test" || got[0].LastError != "status 503" || got[0].Failures != 0 {
		t.Errorf("Snapshot = %+v; want a.test (last error status 503, no failure in a row), then c.test", got)
	}
	for _, at := range []time.Time{t0, now.Add(-time.Second), now} {
		if s, w := h.Summary(at), SummarizeHosts(h.Snapshot(), at); s != w {
			t.Errorf("Summary(%v) = %+v, SummarizeHosts of Snapshot = %+v", at, s, w)
		}
	}
}

// Retire gives up on a host once: Begin then returns its error, which
// names the host and reason, and requests in flight are still recorded.
func TestHostsRetire(t *testing.T) {
	h := NewHosts(Pacing{})
	if !h.Retire("a.test:8080", "by hand") || h.Retire("a.test:8080", "again") {
		t.Fatal("Retire: want true, then false")
	}
	err := h.Begin("a.test:8080")
	if !errors.Is(err, ErrHostRetired) || err.Error() != "crawler: host retired: a.test:8080: by hand" {
		t.Errorf("Begin of a retired host = %v", err)
	}
	if _, retired := h.Record("a.test:8080", false, 0, t0, Outcome{Status: 503}, nil); retired != nil {
		t.Errorf("Record after Retire: %v, want nil (retired already)", retired)
	}
	got := h.Snapshot()
	if len(got) != 1 || got[0].Retired != "by hand" || got[0].Requests != 1 {
		t.Errorf("Snapshot = %+v", got)
	}
	if s := h.Summary(t0); s != (HostSummary{Retired: 1}) {
		t.Errorf("Summary = %+v", s)
	}
	if err := h.Begin("b.test"); err != nil {
		t.Errorf("Begin of another host: %v", err)
	}
}

// Retiring receives once hosts are retired by Retire, and TakeRetiring
// returns them once each, in order; a host that pacing retired is not
// among them (its URLs end at once already).
func TestHostsRetiring(t *testing.T) {
	var h Hosts // the zero Hosts
	select {
	case <-h.Retiring():
		t.Fatal("Retiring received with no host retired")
	default:
	}
	p := NewHosts(Pacing{MaxFailures: 1})
	if _, retired := p.Record("paced.test", false, 0, t0, Outcome{Status: 503}, errors.New("x")); retired == nil {
		t.Fatal("a failure under MaxFailures 1 did not retire its host")
	}
	if got := p.TakeRetiring(); got != nil {
		t.Errorf("TakeRetiring after pacing retired a host = %q, want none", got)
	}
	h.Retire("a.test", "by hand")
	h.Retire("b.test", "by hand")
	h.Retire("a.test", "again")
	select {
	case <-h.Retiring():
	default:
		t.Fatal("Retiring did not receive once hosts were retired")
	}
	if got := h.TakeRetiring(); !slices.Equal(got, []string{"a.test", "b.test"}) {
		t.Errorf("TakeRetiring = %q, want a.test, b.test", got)
	}
	if got := h.TakeRetiring(); got != nil {
		t.Errorf("TakeRetiring again = %q, want none", got)
	}
}

// The request that retires a host returns the error its pages get from
// then on, once: it says why and wraps the request's error.
func TestHostsRecordRetires(t *testing.T) {
	notFound, temporary := dnsErrors(t)
	refused := fmt.Errorf("fetch: %w", errors.New("connection refused"))
	for _, tc := range []struct {
		name   string
		p      Pacing
		o      Outcome
		cause  error
		after  int // requests that retire the host
		prefix string
	}{
		{"status", Pacing{MaxFailures: 2}, Outcome{Status: 503}, nil, 2, "crawler: host retired: h.test: 2 failures in a row, the last: status 503"},
		{"error", Pacing{MaxFailures: 3}, Outcome{Err: refused}, refused, 3, "crawler: host retired: h.test: 3 failures in a row, the last: fetch: connection refused"},
		{"temporary DNS", Pacing{MaxFailures: 2}, Outcome{Err: temporary}, temporary, 2, "crawler: host retired: h.test: 2 failures in a row, the last: lookup servfail.test"},
		{"name not found", Pacing{}, Outcome{Err: notFound}, notFound, DefaultNotFoundRetries + 1, "crawler: host retired: h.test: name not found, 3 answers in a row: lookup nosuch.test"},
		{"name not found, wrapped", Pacing{NotFoundRetries: 1}, Outcome{Err: notFound}, &UnavailableError{URL: "http://h.test/robots.txt", Err: notFound}, 2, "crawler: host retired: h.test: name not found, 2 answers in a row: lookup nosuch.test"},
	} {
		h := NewHosts(tc.p)
		var err error
		for i := range tc.after + 2 {
			_, retired := h.Record("h.test", false, 0, t0, tc.o, tc.cause)
			if (retired != nil) != (i+1 == tc.after) {
				t.Fatalf("%s: request %d: retired = %v; want it at request %d only", tc.name, i+1, retired, tc.after)
			}
			if retired != nil {
				err = retired
			}
		}
		if !errors.Is(err, ErrHostRetired) || !strings.HasPrefix(err.Error(), tc.prefix) {
			t.Errorf("%s: %v; want %q...", tc.name, err, tc.prefix)
		}
		if tc.cause != nil && !errors.Is(err, tc.o.Err) {
			t.Errorf("%s: %v does not wrap %v", tc.name, err, tc.o.Err)
		}
		if HostNotFound(err) != (tc.o.Err == notFound) {
			t.Errorf("%s: HostNotFound(%v) = %v", tc.name, err, HostNotFound(err))
		}
		if _, ok := errors.AsType[*net.DNSError](err); ok != (tc.o.Err == notFound || tc.o.Err == temporary) {
			t.Errorf("%s: %v: *net.DNSError found: %v", tc.name, err, ok)
		}
		if begin := h.Begin("h.test"); begin != err {
			t.Errorf("%s: Begin = %v, want the error Record returned", tc.name, begin)
		}
	}
}

// Workers share a Hosts: concurrent Begin, Record and End on a few hosts,
// with Snapshot and Summary read alongside, lose no count (and -race
// finds no race).
func TestHostsConcurrent(t *testing.T) {
	const workers, each = 8, 200
	h := NewHosts(Pacing{MaxFailures: -1})
	hosts := []string{"a.test", "b.test", "c.test"}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				host := hosts[(w+i)%len(hosts)]
				if err := h.Begin(host); err != nil {
					t.Error(err)
					return
				}
				h.Record(host, i%10 == 0, 1, t0, Outcome{Status: 200 + 300*(i%2), Duration: time.Millisecond}, nil)
				h.End(host)
			}
		})
	}
	wg.Go(func() {
		for range each {
			if s := h.Summary(t0); s.Retired != 0 {
				t.Errorf("Summary = %+v", s)
			}
			h.Snapshot()
		}
	})
	wg.Wait()
	var requests, robots, bytes, errs int64
	for _, s := range h.Snapshot() {
		requests += s.Requests
		robots += s.RobotsRequests
		bytes += s.Bytes
		errs += s.Errors
		if s.InFlight != 0 {
			t.Errorf("%s: InFlight %d after every End", s.Host, s.InFlight)
		}
	}
	if total := int64(workers * each); requests+robots != total || bytes != total || errs != total/2 || robots != total/10 {
		t.Errorf("requests %d, robots.txt %d, bytes %d, errors %d; want %d in all, %d bytes, %d errors, %d robots.txt", requests, robots, bytes, errs, total, total, total/2, total/10)
	}
}

// A host's own delay, from DelayHosts, replaces Pacing.Delay in the
// wait after a request that did not fail: a robots.txt Crawl-delay or an
// adaptive delay above it still holds, an own delay of 0 is no gap of its
// own, and backoff is unchanged. Time is passed in: no clock is read.
func TestHostsDelayHosts(t *testing.T) {
	p := Pacing{Delay: time.Second, MaxCrawlDelay: 10 * time.Second, DelayFactor: 5, MaxAdaptiveDelay: 30 * time.Second, Backoff: time.Minute}
	own := map[string]time.Duration{"slow.test": 3 * time.Second, "free.test": 0, "negative.test": -time.Second}
	var (
		fast       = Outcome{Status: 200, Duration: time.Millisecond}
		crawlDelay = Outcome{Status: 200, Duration: time.Millisecond, CrawlDelay: 5 * time.Second}
		lowCD      = Outcome{Status: 200, Duration: time.Millisecond, CrawlDelay: 2 * time.Second}
		adaptive   = Outcome{Status: 200, Duration: time.Second} // 5 s
		failed     = Outcome{Status: 503, Duration: time.Millisecond}
	)
	for _, tc := range []struct {
		host string
		o    Outcome
		want time.Duration
	}{
		{"slow.test", fast, 3 * time.Second},
		{"slow.test", crawlDelay, 5 * time.Second},
		{"slow.test", lowCD, 3 * time.Second},
		{"slow.test", adaptive, 5 * time.Second},
		{"slow.test", failed, time.Minute},
		{"free.test", fast, 5 * time.Millisecond}, // the adaptive delay alone
		{"free.test", lowCD, 2 * time.Second},
		{"free.test", adaptive, 5 * time.Second},
		{"free.test", failed, time.Minute},
		{"negative.test", fast, 5 * time.Millisecond},
		{"other.test", fast, time.Second}, // none of its own: Pacing.Delay
		{"other.test", lowCD, 2 * time.Second},
	} {
		h := NewHosts(p)
		h.DelayHosts(func(host string) (time.Duration, bool) { d, ok := own[host]; return d, ok })
		next, retired := h.Record(tc.host, false, 0, t0, tc.o, nil)
		if got := next.Sub(t0); got != tc.want || retired != nil {
			t.Errorf("%s after %+v: wait %v (retired: %v), want %v", tc.host, tc.o, got, retired, tc.want)
		}
	}
}

// DelayHosts asks once per host, and the hosts met before it take their
// delay at once; a nil delay gives every host Pacing.Delay again.
func TestHostsDelayHostsOncePerHost(t *testing.T) {
	h := NewHosts(Pacing{Delay: time.Second, DelayFactor: -1})
	wait := func(host string) time.Duration {
		t.Helper()
		next, _ := h.Record(host, false, 0, t0, Outcome{Status: 200}, nil)
		return next.Sub(t0)
	}
	if w := wait("early.test"); w != time.Second {
		t.Fatalf("early.test before DelayHosts: wait %v, want 1s", w)
	}
	asked := map[string]int{}
	h.DelayHosts(func(host string) (time.Duration, bool) {
		asked[host]++
		return 4 * time.Second, host != "other.test"
	})
	for range 3 {
		if err := h.Begin("late.test"); err != nil {
			t.Fatal(err)
		}
		h.End("late.test")
		if w := wait("late.test"); w != 4*time.Second {
			t.Errorf("late.test: wait %v, want its own 4s", w)
		}
		if w := wait("early.test"); w != 4*time.Second {
			t.Errorf("early.test, met before DelayHosts: wait %v, want its own 4s", w)
		}
		if w := wait("other.test"); w != time.Second {
			t.Errorf("other.test, with no delay of its own: wait %v, want Pacing.Delay, 1s", w)
		}
	}
	for host, n := range asked {
		if n != 1 {
			t.Errorf("delay asked %d times for %s, want once", n, host)
		}
	}
	if len(asked) != 3 {
		t.Errorf("delay asked for %v, want early.test, late.test and other.test", asked)
	}
	if s := h.Snapshot(); len(s) != 3 || s[0].Delay != 4*time.Second {
		t.Errorf("Snapshot = %+v, want early.test's Delay 4s first", s)
	}
	h.DelayHosts(nil)
	if w := wait("late.test"); w != time.Second {
		t.Errorf("late.test after DelayHosts(nil): wait %v, want Pacing.Delay, 1s", w)
	}
}

// retiringError is an error that says whether it retires its host.
type retiringError struct{ retire bool }

func (e *retiringError) Error() string     { return fmt.Sprintf("site rule (retire: %v)", e.retire) }
func (e *retiringError) RetiresHost() bool { return e.retire }

// A cause whose RetiresHost says so retires its host at the first Record,
// whatever MaxFailures (here: never) and whether or not the request
// failed; its pages then get the error, which wraps ErrHostRetired and
// the cause, and the host counts as retired. One whose RetiresHost says
// not is an ordinary error.
func TestHostsRecordRetiresAtOnce(t *testing.T) {
	for _, o := range []Outcome{{Status: 200}, {Status: 403}, {Status: 503}, {Err: errors.New("reset")}} {
		h := NewHosts(Pacing{MaxFailures: -1})
		if _, retired := h.Record("h.test", false, 0, t0, o, fmt.Errorf("fetch: %w", &retiringError{false})); retired != nil {
			t.Fatalf("%+v: an error whose RetiresHost is false retired the host: %v", o, retired)
		}
		cause := fmt.Errorf("fetch: %w", &retiringError{true})
		_, retired := h.Record("h.test", false, 0, t0, o, cause)
		if retired == nil {
			t.Fatalf("%+v: an error whose RetiresHost is true did not retire the host", o)
		}
		if want := "crawler: host retired: h.test: fetch: site rule (retire: true)"; retired.Error() != want {
			t.Errorf("%+v: justRetired %q, want %q", o, retired, want)
		}
		if r, ok := errors.AsType[*retiringError](retired); !errors.Is(retired, ErrHostRetired) || !errors.Is(retired, cause) || !ok || !r.retire {
			t.Errorf("%+v: %v does not wrap ErrHostRetired and the cause", o, retired)
		}
		if err := h.Begin("h.test"); err != retired {
			t.Errorf("%+v: Begin = %v, want the error Record returned", o, err)
		}
		if _, again := h.Record("h.test", false, 0, t0, o, cause); again != nil {
			t.Errorf("%+v: Record again: %v, want nil (retired already)", o, again)
		}
		if s := h.Summary(t0); s != (HostSummary{Retired: 1}) {
			t.Errorf("%+v: Summary = %+v, want one host retired", o, s)
		}
		if s := h.Snapshot(); len(s) != 1 || s[0].Retired != cause.Error() {
			t.Errorf("%+v: Snapshot = %+v, want Retired %q", o, s, cause)
		}
	}
	// A host retired already (by hand) stays retired as it was.
	h := NewHosts(Pacing{})
	h.Retire("h.test", "by hand")
	if _, retired := h.Record("h.test", false, 0, t0, Outcome{Status: 200}, &retiringError{true}); retired != nil {
		t.Errorf("Record of a host retired by hand: %v, want nil", retired)
	}
	if err := h.Begin("h.test"); err == nil || !strings.HasSuffix(err.Error(), ": by hand") {
		t.Errorf("Begin = %v, want the retirement by hand", err)
	}
}
