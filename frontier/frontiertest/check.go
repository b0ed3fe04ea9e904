package frontiertest

import (
	"fmt"
	"math"
	"testing"
	"time"

	"crawler/frontier"
)

// start is the time at which Check's clock starts.
var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Check decodes ops as a sequence of operations on f (push, next, done with
// a delay or a retry, time passing), checks f against a model of the
// contract after each one, and finally drains f, checking that every
// pushed entry was handed out. It suits a fuzz target:
//
//	func FuzzMyFrontier(f *testing.F) {
//		f.Fuzz(func(t *testing.T, ops []byte) {
//			frontiertest.Check(t, NewMyFrontier(), ops)
//		})
//	}
//
// f must be empty and allow one entry in flight per host. Check reads at
// most the first 4096 bytes of ops.
func Check(t testing.TB, f frontier.Frontier, ops []byte) {
	t.Helper()
	c := newChecker(t, f)
	for _, op := range ops[:min(len(ops), 4096)] {
		arg := int(op >> 3)
		switch op & 7 {
		case 0, 1, 2:
			c.push(arg)
		case 3, 4:
			c.next()
		case 5, 6:
			c.done(arg)
		case 7:
			c.now = c.now.Add(time.Duration(arg) * time.Second / 4)
		}
		c.checkLen()
	}
	c.drain()
}

// checker is a model of the contract every frontier keeps, whatever the
// order in which it hands entries out.
type checker struct {
	t       testing.TB
	f       frontier.Frontier
	now     time.Time
	waiting map[uint64]frontier.Entry // by FP
	out     []frontier.Entry          // handed out, not yet done
	busy    map[string]bool           // hosts with an entry in flight
	readyAt map[string]time.Time
	fetched map[uint64]bool
	pushed  int
}

func newChecker(t testing.TB, f frontier.Frontier) *checker {
	return &checker{
		t:       t,
		f:       f,
		now:     start,
		waiting: map[uint64]frontier.Entry{},
		busy:    map[string]bool{},
		readyAt: map[string]time.Time{},
		fetched: map[uint64]bool{},
	}
}

// push adds a new entry on one of 5 hosts: a seed, or a link from an entry
// handed out if arg says so and there is one.
func (c *checker) push(arg int) {
	c.pushed++
	host := fmt.Sprintf("h%d.example", arg%5)
	e := frontier.Entry{URL: fmt.Sprintf("http://%s/%d", host, c.pushed), FP: uint64(c.pushed), Host: host}
	if arg >= 16 && len(c.out) > 0 {
		from := c.out[arg%len(c.out)]
		e.Depth, e.Referrer = from.Depth+1, from.URL
		if arg%3 == 0 {
			e.Hops = 1
		}
	}
	c.f.Push(e)
	c.waiting[e.FP] = e
}

// next calls Next and checks its answer against the model.
func (c *checker) next() (frontier.Entry, bool, time.Time) {
	c.t.Helper()
	e, ok, wake := c.f.Next(c.now)
	if !ok {
		c.checkNone(wake)
		return e, ok, wake
	}
	want, known := c.waiting[e.FP]
	switch {
	case !known && c.fetched[e.FP]:
		c.t.Fatalf("Next handed out %s again", e.URL)
	case !known:
		c.t.Fatalf("Next handed out %s, which is not waiting", e.URL)
	case !same(e, want):
		c.t.Fatalf("Next handed out %+v, pushed as %+v", e, want)
	case math.IsNaN(e.Importance):
		c.t.Fatalf("Next handed out %s with importance NaN", e.URL)
	case c.busy[e.Host]:
		c.t.Fatalf("Next handed out %s while its host has an entry in flight", e.URL)
	case c.readyAt[e.Host].After(c.now):
		c.t.Fatalf("Next handed out %s at %v, before its host is ready at %v", e.URL, c.now, c.readyAt[e.Host])
	}
	delete(c.waiting, e.FP)
	c.out = append(c.out, e)
	c.busy[e.Host] = true
	return e, ok, wake
}

// checkNone checks that no entry could have been handed out, and that wake
// is the earliest time one can be.
func (c *checker) checkNone(wake time.Time) {
	c.t.Helper()
	var want time.Time
	for _, e := range c.waiting {
		if c.busy[e.Host] {
			continue
		}
		r := c.readyAt[e.Host]
		if !r.After(c.now) {
			c.t.Fatalf("Next at %v handed out nothing, but %s is waiting and its host is ready", c.now, e.URL)
		}
		if want.IsZero() || r.Before(want) {
			want = r
		}
	}
	if !wake.Equal(want) {
		c.t.Fatalf("Next at %v handed out nothing with wake %v, want %v (zero: nothing is ready before the next Push or Done)", c.now, wake, want)
	}
}

// done reports one of the entries handed out, picked by arg, with a delay
// of 0-3 seconds; it is retried if arg%5 is 1. Its links are a few
// fingerprints, some known and some not.
func (c *checker) done(arg int) {
	if len(c.out) == 0 {
		return
	}
	i := arg % len(c.out)
	e := c.out[i]
	c.out = append(c.out[:i], c.out[i+1:]...)
	r := frontier.Result{Next: c.now.Add(time.Duration(arg%4) * time.Second)}
	if arg%5 == 1 {
		r.Retry = true
		e.Tries++
	}
	for k := range arg % 6 {
		r.Links = append(r.Links, uint64(max(c.pushed-2*k, 0)))
	}
	if arg%7 == 0 {
		r.Links = append(r.Links, 1<<40+uint64(arg)) // never pushed
	}
	c.complete(e, r)
}

func (c *checker) complete(e frontier.Entry, r frontier.Result) {
	c.f.Done(e, r)
	c.busy[e.Host] = false
	if r.Next.After(c.readyAt[e.Host]) {
		c.readyAt[e.Host] = r.Next
	}
	e.Importance = 0
	if r.Retry {
		c.waiting[e.FP] = e
	} else {
		c.fetched[e.FP] = true
	}
}

func (c *checker) checkLen() {
	c.t.Helper()
	if n := c.f.Len(); n != len(c.waiting) {
		c.t.Fatalf("Len = %d, want %d waiting", n, len(c.waiting))
	}
}

// drain completes every entry handed out, then hands out and completes
// all that wait, sleeping until wake when told to, and checks that every
// pushed entry was fetched exactly once.
func (c *checker) drain() {
	c.t.Helper()
	for len(c.out) > 0 {
		c.complete(c.out[0], frontier.Result{Next: c.now.Add(time.Second)})
		c.out = c.out[1:]
	}
	for range 4 * (c.pushed + 1) {
		e, ok, wake := c.next()
		c.checkLen()
		if !ok {
			if wake.IsZero() {
				break
			}
			c.now = wake
			continue
		}
		c.out = c.out[:0]
		c.complete(e, frontier.Result{Next: c.now.Add(time.Second)})
	}
	if len(c.waiting) > 0 || len(c.fetched) != c.pushed {
		c.t.Fatalf("after draining: %d entries waiting, %d of %d pushed fetched", len(c.waiting), len(c.fetched), c.pushed)
	}
}

// same reports whether a frontier handed e out as it was pushed (or given
// to Done for a retry): every field but Importance is equal.
func same(e, want frontier.Entry) bool {
	return e.URL == want.URL && e.FP == want.FP && e.Host == want.Host && e.Depth == want.Depth &&
		e.Hops == want.Hops && e.Referrer == want.Referrer && e.Tries == want.Tries
}
