// Package frontiertest checks that a [frontier.Frontier] keeps the contract
// every frontier shares, whatever order it hands URLs out in:
//
//	func TestMyFrontier(t *testing.T) {
//		frontiertest.Run(t, func() frontier.Frontier { return NewMyFrontier() })
//	}
//
// The contract: Len counts the entries waiting; every entry pushed is
// handed out once, as it was pushed (Importance aside), unless it is
// retried, when it comes back as given to Done, or pushed again once Done,
// when it is handed out again as pushed the second time; a host with an entry in
// flight, or whose Done set a ready time still to come, is not handed out,
// and then wake reports the earliest ready time (zero if none); and a busy
// or waiting host never keeps a ready host's entries from being handed
// out. The frontiers under test must allow one entry in flight per host.
// The order among ready hosts is the frontier's own, and is not checked.
// A [frontier.HostLimiter] must also give each host its own limit, and a
// [frontier.Waker] make a host ready sooner, never later.
package frontiertest

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"crawler/frontier"
)

// Run checks frontiers made by newFrontier, one per subtest. Each must be
// empty and allow one entry in flight per host.
func Run(t *testing.T, newFrontier func() frontier.Frontier) {
	t.Run("Empty", func(t *testing.T) { testEmpty(t, newFrontier()) })
	t.Run("EachEntryOnce", func(t *testing.T) { testEachEntryOnce(t, newFrontier()) })
	t.Run("Retry", func(t *testing.T) { testRetry(t, newFrontier()) })
	t.Run("FetchAgain", func(t *testing.T) { testFetchAgain(t, newFrontier()) })
	t.Run("OneInFlightPerHost", func(t *testing.T) { testOneInFlight(t, newFrontier()) })
	t.Run("ReadyAt", func(t *testing.T) { testReadyAt(t, newFrontier()) })
	t.Run("NoHeadOfLineBlocking", func(t *testing.T) { testNoHeadOfLineBlocking(t, newFrontier()) })
	t.Run("LimitHosts", func(t *testing.T) { testLimitHosts(t, newFrontier()) })
	t.Run("Wake", func(t *testing.T) { testWake(t, newFrontier()) })
	t.Run("Random", func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for range 50 {
			ops := make([]byte, r.IntN(400))
			for i := range ops {
				ops[i] = byte(r.UintN(256))
			}
			Check(t, newFrontier(), ops)
			if t.Failed() {
				t.Logf("ops: %x", ops)
				return
			}
		}
	})
}

func testEmpty(t *testing.T, f frontier.Frontier) {
	if n := f.Len(); n != 0 {
		t.Fatalf("Len = %d, want 0", n)
	}
	if e, ok, wake := f.Next(start); ok || !wake.IsZero() {
		t.Fatalf("Next = %+v %v %v, want nothing and a zero wake", e, ok, wake)
	}
}

func testEachEntryOnce(t *testing.T, f frontier.Frontier) {
	c := newChecker(t, f)
	for i := range 40 {
		c.push(i)
		c.checkLen()
		if i%3 == 0 {
			c.next()
			c.checkLen()
		}
	}
	c.drain()
}

func testRetry(t *testing.T, f frontier.Frontier) {
	c := newChecker(t, f)
	c.push(0)
	c.push(1)
	e, _, _ := c.next()
	e.Tries++
	c.out = c.out[:0]
	c.complete(e, frontier.Result{Retry: true})
	c.checkLen()
	for {
		got, ok, _ := c.next()
		if !ok {
			t.Fatalf("the retried entry %s never came back", e.URL)
		}
		c.out = c.out[:0]
		c.complete(got, frontier.Result{})
		if got.FP == e.FP {
			break
		}
	}
	c.drain()
}

// testFetchAgain pushes an entry that was handed out and Done: it is
// handed out again, as pushed the second time.
func testFetchAgain(t *testing.T, f frontier.Frontier) {
	e := frontier.Entry{URL: "http://h0.test/again", FP: 7, Host: "h0.test", Depth: 3, Referrer: "http://h1.test/"}
	f.Push(e)
	got, ok, _ := f.Next(start)
	if !ok {
		t.Fatal("Next handed out nothing")
	}
	f.Done(got, frontier.Result{})
	again := e
	again.Depth, again.Referrer = 1, "http://h2.test/"
	f.Push(again)
	if n := f.Len(); n != 1 {
		t.Fatalf("Len = %d after pushing a fetched entry again, want 1", n)
	}
	got, ok, _ = f.Next(start)
	if !ok || !same(got, again) {
		t.Fatalf("Next = %+v %v, want the entry pushed again, %+v", got, ok, again)
	}
	f.Done(got, frontier.Result{})
	if n := f.Len(); n != 0 {
		t.Fatalf("Len = %d at the end, want 0", n)
	}
}

func testOneInFlight(t *testing.T, f frontier.Frontier) {
	c := newChecker(t, f)
	c.push(0) // h0
	c.push(5) // h0
	c.push(1) // h1
	c.next()
	c.next()
	if _, ok, _ := c.next(); ok {
		t.Fatal("a third entry was handed out while both hosts have one in flight")
	}
	c.drain()
}

func testReadyAt(t *testing.T, f frontier.Frontier) {
	c := newChecker(t, f)
	c.push(0)
	c.push(5)
	e, ok, _ := c.next()
	if !ok {
		t.Fatal("Next handed out nothing")
	}
	c.out = c.out[:0]
	later := c.now.Add(time.Minute)
	c.complete(e, frontier.Result{Next: later})
	if _, ok, wake := c.next(); ok || !wake.Equal(later) {
		t.Fatalf("Next before the host is ready = ok %v wake %v, want wake %v", ok, wake, later)
	}
	c.now = later.Add(-time.Nanosecond)
	c.next()
	c.now = later
	if _, ok, _ := c.next(); !ok {
		t.Fatal("Next when the host is ready handed out nothing")
	}
	c.drain()
}

func testWake(t *testing.T, f frontier.Frontier) {
	w, ok := f.(frontier.Waker)
	if !ok {
		t.Skip("not a frontier.Waker")
	}
	c := newChecker(t, f)
	for _, arg := range []int{0, 5, 1, 6} { // two entries on h0, two on h1
		c.push(arg)
	}
	// One entry of each host out, then h0 waits an hour, h1 two.
	for range 2 {
		if _, ok, _ := c.next(); !ok {
			t.Fatal("Next handed out nothing")
		}
	}
	for _, e := range c.out {
		wait := time.Hour
		if e.Host == "h1.example" {
			wait = 2 * time.Hour
		}
		c.complete(e, frontier.Result{Next: c.now.Add(wait)})
	}
	c.out = c.out[:0]
	wake := func(host string, at time.Time) {
		w.Wake(host, at)
		if c.readyAt[host].After(at) {
			c.readyAt[host] = at
		}
	}
	wake("h2.example", c.now)                  // a host it has not met
	wake("h1.example", c.now.Add(3*time.Hour)) // later than its ready time
	c.next()                                   // checks the wake time: h0's, an hour on
	wake("h1.example", c.now.Add(time.Minute))
	c.next() // checks the wake time: h1's now, a minute on
	wake("h1.example", c.now)
	if e, ok, _ := c.next(); !ok || e.Host != "h1.example" {
		t.Fatalf("Next after Wake(h1, now) = %s, %v; want an entry of h1", e.URL, ok)
	}
	c.drain()
}

func testNoHeadOfLineBlocking(t *testing.T, f frontier.Frontier) {
	c := newChecker(t, f)
	for i := range 6 {
		c.push(i % 2) // h0, h1, h0, ...
	}
	e, _, _ := c.next()
	c.out = c.out[:0]
	c.complete(e, frontier.Result{Next: c.now.Add(time.Hour)})
	for range 3 {
		e, ok, _ := c.next() // checks that the other host is handed out
		if !ok {
			break
		}
		c.out = c.out[:0]
		c.complete(e, frontier.Result{})
	}
	if len(c.waiting) != 2 {
		t.Fatalf("%d entries waiting, want the delayed host's 2", len(c.waiting))
	}
	// A host busy with an entry in flight does not block the other either.
	c.push(2)
	c.push(3)
	c.push(2)
	c.next()
	c.next()
	c.drain()
}

// testLimitHosts checks a HostLimiter: a host whose limit is 3 has 3
// entries out at once, one met before LimitHosts too, and the others the
// frontier's PerHost (1), those whose limit is 0 or negative too; a Done
// frees one slot; and LimitHosts called again changes the limits of the
// hosts met at once, a host out beyond its new limit getting no more.
func testLimitHosts(t *testing.T, f frontier.Frontier) {
	l, ok := f.(frontier.HostLimiter)
	if !ok {
		t.Skip("not a frontier.HostLimiter")
	}
	pushed := 0
	push := func(host string, n int) {
		for range n {
			pushed++
			f.Push(frontier.Entry{URL: fmt.Sprintf("http://%s/%d", host, pushed), FP: uint64(pushed), Host: host})
		}
	}
	out := map[string][]frontier.Entry{} // handed out, not yet Done
	handedOut := 0
	next := func() (frontier.Entry, bool) {
		e, ok, _ := f.Next(start)
		if ok {
			out[e.Host] = append(out[e.Host], e)
			handedOut++
		}
		return e, ok
	}
	done := func(host string) {
		f.Done(out[host][0], frontier.Result{})
		out[host] = out[host][1:]
	}

	push("early.test", 4) // met before LimitHosts
	l.LimitHosts(func(host string) int {
		switch host {
		case "wide.test", "early.test":
			return 3
		case "negative.test":
			return -2
		}
		return 0
	})
	push("wide.test", 5)
	push("narrow.test", 3)
	push("negative.test", 2)
	for _, ok := next(); ok; _, ok = next() {
	}
	for host, want := range map[string]int{"early.test": 3, "wide.test": 3, "narrow.test": 1, "negative.test": 1} {
		if n := len(out[host]); n != want {
			t.Errorf("%s: %d entries out at once, want %d", host, n, want)
		}
	}
	if t.Failed() {
		return
	}

	done("wide.test")
	if e, ok := next(); !ok || e.Host != "wide.test" {
		t.Fatalf("Next after a Done of wide.test (limit 3) = %q %v, want an entry of wide.test", e.Host, ok)
	}
	if e, ok := next(); ok {
		t.Fatalf("Next handed out %s with every host at its limit", e.URL)
	}

	// Called again: narrow.test may have 2 out; wide.test, 3 out, 1.
	l.LimitHosts(func(host string) int {
		if host == "narrow.test" {
			return 2
		}
		return 0
	})
	if e, ok := next(); !ok || e.Host != "narrow.test" {
		t.Fatalf("Next after narrow.test's limit rose to 2 = %q %v, want an entry of narrow.test", e.Host, ok)
	}
	done("wide.test")
	if e, ok := next(); ok {
		t.Fatalf("Next handed out %s with wide.test 2 out, over its new limit 1, and the others at theirs", e.URL)
	}

	// Every entry is handed out once in the end.
	for host := range out {
		for len(out[host]) > 0 {
			done(host)
		}
	}
	for range pushed {
		e, ok := next()
		if !ok {
			break
		}
		done(e.Host)
	}
	if n := f.Len(); n != 0 || handedOut != pushed {
		t.Fatalf("after draining: Len = %d, %d of %d entries handed out", n, handedOut, pushed)
	}
}
