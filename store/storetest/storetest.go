// Package storetest checks that a durable crawl store keeps the contract
// the crawler relies on to resume a crawl. Any store (Pebble, Redis, SQL)
// runs it from its own tests:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T, dir string) storetest.State {
//			st, err := mystore.Open(dir)
//			if err != nil {
//				t.Fatal(err)
//			}
//			return storetest.State{Seen: st.Seen(), Frontier: st.Frontier(), Close: st.Close}
//		})
//	}
//
// A store is a [seen.Set] and a [frontier.Frontier] that is a
// [frontier.Committer], opened on a directory: each check gets a fresh
// one, and reopens the store by calling the opener again with it. A store
// that lives elsewhere (a Redis or SQL server) keys its state by dir, as a
// key prefix or a schema name. The Frontier must allow one entry of a
// host in flight at a time.
//
// The contract, beyond frontiertest's (which the Frontier must pass):
//
//   - The crawler writes in steps, and calls only the Frontier's Commit
//     (at the end of a step) and Flush: the Seen's Adds belong to the
//     Frontier's steps. Every step committed is durable after Flush, and
//     after Close, which flushes.
//   - The Frontier hands out each host's entries in the order they were
//     pushed, and a retried entry in its place among them; the order
//     among hosts is its own.
//   - Reopened, it holds every entry that was waiting at the close, or
//     handed out and not yet Done (at-least-once), exactly once, with
//     every field as pushed (or as given to Done for a retry: its Tries),
//     in that order; none that was Done; and Len counts them.
//   - Each host's ready time (the latest Result.Next given to Done)
//     survives, to the millisecond at least: its entries are not handed
//     out before it, and Next's wake reports it.
//   - The Seen keeps every fingerprint added, over the whole uint64
//     range, and its Len. Like any [seen.Set] it may report a fingerprint
//     never added as present, but here fewer than 1 in 20.
//   - If the Frontier is a [frontier.Keeper], each commit of a group of
//     steps writes what each value registered with Keep returns, unless it
//     returns nil; Kept returns the value last committed, after a reopen
//     too (before Keep is called again), and nil for a name never kept.
package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"crawler/frontier"
	"crawler/frontier/frontiertest"
	"crawler/seen"
)

// State is a durable store opened on a directory.
type State struct {
	// Seen is the store's URL-seen set. Its Adds are written with the
	// Frontier's steps.
	Seen seen.Set
	// Frontier is the store's frontier. It must be a [frontier.Committer],
	// and may be a [frontier.Keeper].
	Frontier frontier.Frontier
	// Close flushes the steps committed and releases the directory, so
	// that the store can be opened on it again.
	Close func() error
	// OwnOrder says that the Frontier orders each host's entries its own
	// way (by importance, say), not in the order they were pushed: the
	// checks then take any entry of a ready host with none out.
	OwnOrder bool
}

// Opener opens the store in dir, making it if there is none. It may fail
// t (with t.Fatal) if it cannot.
type Opener func(t *testing.T, dir string) State

// Run checks the store that open opens, each check in its own subtest and
// its own directory (t.TempDir). Run closes every State it opens: each
// before it opens the directory again, and the last when the subtest ends.
//
// The subtests: Open (a new store is empty, also when reopened, and its
// Frontier is a Committer; if not, Run stops there), Frontier
// (frontiertest.Run, a new store for each frontier, some 60 open at
// once: keep a store's caches small in tests), Seen, Reopen, ReadyTime,
// CloseFlushes, Keep (skipped unless the Frontier is a Keeper) and
// ManyHosts (50 hosts of 100 entries, reopened twice).
func Run(t *testing.T, open Opener) {
	if !t.Run("Open", func(t *testing.T) { checkOpen(newHarness(t, open)) }) {
		return // every other check would fail the same way
	}
	t.Run("Frontier", func(t *testing.T) {
		// frontiertest calls newFrontier in its own subtests, whose t it
		// does not pass on, so open gets this one. Should open fail it
		// (Open has shown it can open a store), its message is this
		// test's, and frontiertest's subtest reports a FailNow on a
		// parent test.
		frontiertest.Run(t, func() frontier.Frontier {
			st := open(t, t.TempDir())
			t.Cleanup(func() {
				if err := st.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			return st.Frontier
		})
	})
	for _, c := range checks() {
		t.Run(c.name, func(t *testing.T) { c.run(newHarness(t, open)) })
	}
}

// check is one of Run's checks of a store, other than frontiertest's.
type check struct {
	name string
	run  func(*harness)
}

// checks returns Run's checks, in order.
func checks() []check {
	return []check{
		{"Seen", checkSeen},
		{"Reopen", checkReopen},
		{"ReadyTime", checkReadyTime},
		{"CloseFlushes", checkCloseFlushes},
		{"Keep", checkKeep},
		{"ManyHosts", checkManyHosts},
	}
}

// harness runs a check: it holds the store open on one directory, and a
// model of what its frontier holds.
type harness struct {
	t    testing.TB
	open func(dir string) State
	dir  string

	st     State
	c      frontier.Committer
	closed bool
	m      model
}

// newHarness opens the store in a fresh directory of t's.
func newHarness(t *testing.T, open Opener) *harness {
	return startHarness(t, func(dir string) State { return open(t, dir) })
}

// startHarness opens the store in a fresh directory of t's with open. t
// may be a testing.TB that records failures, for the self-tests.
func startHarness(t testing.TB, open func(dir string) State) *harness {
	t.Helper()
	h := &harness{t: t, open: open, dir: t.TempDir(), closed: true, m: newModel()}
	t.Cleanup(func() {
		if !h.closed {
			h.closed = true
			if err := h.st.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}
	})
	h.openState()
	return h
}

// openState opens the store in h's directory, and checks that it is one.
func (h *harness) openState() {
	h.t.Helper()
	st := h.open(h.dir)
	if st.Seen == nil || st.Frontier == nil || st.Close == nil {
		h.t.Fatalf("storetest: the opener returned a State without a Seen, Frontier or Close: %+v", st)
	}
	c, ok := st.Frontier.(frontier.Committer)
	if !ok {
		st.Close()
		h.t.Fatalf("storetest: the Frontier, a %T, is not a frontier.Committer: a durable frontier must let the crawler commit its steps and flush them", st.Frontier)
	}
	h.st, h.c, h.closed = st, c, false
}

// commit ends a step.
func (h *harness) commit() {
	h.t.Helper()
	if err := h.c.Commit(); err != nil {
		h.t.Fatalf("Commit: %v", err)
	}
}

// flush makes the steps ended durable.
func (h *harness) flush() {
	h.t.Helper()
	if err := h.c.Flush(); err != nil {
		h.t.Fatalf("Flush: %v", err)
	}
}

// reopen closes the store and opens it again on the same directory: what
// was handed out and not Done waits again.
func (h *harness) reopen() {
	h.t.Helper()
	h.closed = true
	if err := h.st.Close(); err != nil {
		h.t.Fatalf("Close: %v", err)
	}
	h.openState()
	h.m.reopened()
}

// model is what a durable frontier holds: each host's entries, waiting or
// handed out, in push order (a retried one in its place), and its ready
// time.
type model struct {
	seq     uint64
	hosts   map[string][]slot
	readyAt map[string]time.Time
}

// slot is an entry of a host's queue.
type slot struct {
	seq uint64
	e   frontier.Entry
	out bool // handed out, not yet Done
}

func newModel() model {
	return model{hosts: map[string][]slot{}, readyAt: map[string]time.Time{}}
}

// waiting counts the entries waiting: what Len reports.
func (m *model) waiting() int {
	n := 0
	for _, q := range m.hosts {
		for _, s := range q {
			if !s.out {
				n++
			}
		}
	}
	return n
}

// reopened makes every entry handed out wait again, in its place.
func (m *model) reopened() {
	for _, q := range m.hosts {
		for i := range q {
			q[i].out = false
		}
	}
}

// push pushes e, as one step.
func (h *harness) push(e frontier.Entry) {
	h.st.Frontier.Push(e)
	h.m.hosts[e.Host] = append(h.m.hosts[e.Host], slot{seq: h.m.seq, e: e})
	h.m.seq++
}

// next calls Next at now and checks that what it hands out is its host's
// first entry, if the host is ready and has none out, or, if it hands out
// nothing, that no host could have handed one out and that wake is the
// earliest ready time of a host with entries waiting.
func (h *harness) next(now time.Time) (frontier.Entry, bool) {
	h.t.Helper()
	e, ok, wake := h.st.Frontier.Next(now)
	if !ok {
		var want time.Time
		for host, q := range h.m.hosts {
			if len(q) == 0 || q[0].out {
				continue
			}
			r := h.m.readyAt[host]
			if !r.After(now) {
				h.t.Fatalf("Next at %v handed out nothing; %s waits, and its host %s is ready (at %v)", now, q[0].e.URL, host, r)
			}
			if want.IsZero() || r.Before(want) {
				want = r
			}
		}
		if !wake.Equal(want) {
			h.t.Fatalf("Next at %v handed out nothing with wake %v, want %v, the earliest ready time of a host with entries waiting (zero: none)", now, wake, want)
		}
		return e, false
	}
	q := h.m.hosts[e.Host]
	first := 0 // the entry to hand out: the host's first, or with OwnOrder, e's
	if h.st.OwnOrder {
		for i, s := range q {
			if s.out {
				first = i // one out: the checks below fail on it
				break
			}
			if same(e, s.e) {
				first = i
			}
		}
	}
	switch {
	case len(q) == 0:
		h.t.Fatalf("Next handed out %s, of host %q, which has no entry waiting (Done before the close, or never pushed)", e.URL, e.Host)
	case q[first].out:
		h.t.Fatalf("Next handed out %s while %s, of the same host, is out", e.URL, q[first].e.URL)
	case h.m.readyAt[e.Host].After(now):
		h.t.Fatalf("Next at %v handed out %s, whose host is ready only at %v", now, e.URL, h.m.readyAt[e.Host])
	case !same(e, q[first].e):
		for _, s := range q[1:] {
			if same(e, s.e) {
				h.t.Fatalf("Next handed out %s before %s, pushed (or retried) before it on the same host", e.URL, q[0].e.URL)
			}
		}
		for _, s := range q {
			if e.URL == s.e.URL {
				h.t.Fatalf("Next handed out %s changed: %s", e.URL, differences(e, s.e))
			}
		}
		h.t.Fatalf("Next handed out %s, which is not waiting (Done before the close, or never pushed); want %s, its host's first", e.URL, q[0].e.URL)
	}
	q[first].out = true
	return e, true
}

// done reports e's outcome and ends the step.
func (h *harness) done(e frontier.Entry, r frontier.Result) {
	h.t.Helper()
	h.st.Frontier.Done(e, r)
	q := h.m.hosts[e.Host]
	i := 0
	for i < len(q) && !(q[i].out && q[i].e.FP == e.FP) {
		i++
	}
	if i == len(q) {
		h.t.Fatalf("storetest: Done for %s, not out", e.URL) // a bug of the check
	}
	if r.Retry {
		e.Importance = 0
		q[i].e, q[i].out = e, false
	} else {
		h.m.hosts[e.Host] = append(q[:i], q[i+1:]...)
	}
	if r.Next.After(h.m.readyAt[e.Host]) {
		h.m.readyAt[e.Host] = r.Next
	}
	h.commit()
}

// drain hands out at now and completes every entry it can, checking each
// against the model, then checks that Next hands out nothing more. It
// returns the number handed out.
func (h *harness) drain(now time.Time) int {
	h.t.Helper()
	n := 0
	for ; ; n++ {
		e, ok := h.next(now)
		if !ok {
			return n
		}
		h.done(e, frontier.Result{})
	}
}

// checkLen checks that the frontier's Len counts the entries waiting.
func (h *harness) checkLen(when string) {
	h.t.Helper()
	if n, want := h.st.Frontier.Len(), h.m.waiting(); n != want {
		h.t.Fatalf("%s: Len = %d, want %d waiting", when, n, want)
	}
}

// same reports whether e is want handed out: every field but Importance
// is equal.
func same(e, want frontier.Entry) bool {
	return e.URL == want.URL && e.FP == want.FP && e.Host == want.Host && e.Depth == want.Depth &&
		e.Hops == want.Hops && e.Referrer == want.Referrer && e.Tries == want.Tries
}

// differences lists the fields of e that differ from want's, but
// Importance.
func differences(e, want frontier.Entry) string {
	var d []string
	field := func(name string, got, want any) {
		if got != want {
			d = append(d, fmt.Sprintf("%s %#v, want %#v", name, got, want))
		}
	}
	field("URL", e.URL, want.URL)
	field("FP", e.FP, want.FP)
	field("Host", e.Host, want.Host)
	field("Depth", e.Depth, want.Depth)
	field("Hops", e.Hops, want.Hops)
	field("Referrer", e.Referrer, want.Referrer)
	field("Tries", e.Tries, want.Tries)
	return strings.Join(d, "; ")
}

// t0 is the start of the checks' clock, which never reads the wall.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// host is the name of the checks' host i; every tenth has a port.
func host(i int) string {
	if i%10 == 9 {
		return fmt.Sprintf("h%d.test:8080", i)
	}
	return fmt.Sprintf("h%d.test", i)
}

// entry is the checks' entry i of host h: every field set (some zero), its
// fingerprint spread over 64 bits, as real ones are.
func entry(h, i int) frontier.Entry {
	e := frontier.Entry{
		URL:   fmt.Sprintf("http://%s/p/%d?q=%d", host(h), i, h),
		FP:    fingerprint(h*100_000 + i),
		Host:  host(h),
		Depth: 1 + i%5,
		Hops:  i % 3,
		Tries: i % 4,
	}
	if i%4 != 0 {
		e.Referrer = fmt.Sprintf("http://%s/p/%d", host(h+1), i-1)
	}
	return e
}

// fingerprint spreads n over 64 bits, one to one (the multiplier is odd).
func fingerprint(n int) uint64 { return uint64(n+1) * 0x9E3779B97F4A7C15 }
