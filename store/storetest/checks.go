package storetest

import (
	"bytes"
	"math"
	"time"

	"crawler/frontier"
)

// checkOpen checks that a store opened in an empty directory is empty,
// and still is when opened again.
func checkOpen(h *harness) {
	for _, when := range []string{"new", "reopened"} {
		if when == "reopened" {
			h.reopen()
		}
		if n := h.st.Seen.Len(); n != 0 {
			h.t.Fatalf("%s: Seen.Len = %d, want 0", when, n)
		}
		h.checkLen(when)
		h.next(t0)
	}
}

// checkSeen checks the seen-set's Add, Contains and Len, and that what
// was added in steps committed and flushed is there after a reopen.
func checkSeen(h *harness) {
	added := []uint64{0, 1, 1 << 63, math.MaxUint64}
	var probes []uint64 // never added
	for i := range 400 {
		added = append(added, fingerprint(i))
		probes = append(probes, fingerprint(1_000_000+i))
	}
	s := h.st.Seen
	n, present := 0, 0
	for i, fp := range added {
		if s.Add(fp) {
			n++
		} else {
			present++
		}
		if s.Add(fp) {
			h.t.Fatalf("Add(%#x) a second time reported it new", fp)
		}
		if !s.Contains(fp) {
			h.t.Fatalf("Contains(%#x) = false after Add", fp)
		}
		if i%50 == 49 {
			h.commit()
		}
	}
	h.commit()
	if present > len(added)/20 {
		h.t.Errorf("Add reported %d of %d new fingerprints present, want fewer than 1 in 20", present, len(added))
	}
	checkSeenSet := func(when string) {
		h.t.Helper()
		if l := s.Len(); l != n {
			h.t.Fatalf("%s: Len = %d, want the %d successful Adds", when, l, n)
		}
		for _, fp := range added {
			if !s.Contains(fp) {
				h.t.Fatalf("%s: Contains(%#x) = false; it was added", when, fp)
			}
		}
		fps := 0
		for _, fp := range probes {
			if s.Contains(fp) {
				fps++
			}
		}
		if fps > len(probes)/20 {
			h.t.Errorf("%s: Contains reports %d of %d fingerprints never added present, want fewer than 1 in 20", when, fps, len(probes))
		}
	}
	checkSeenSet("before the close")
	h.flush()
	h.reopen()
	s = h.st.Seen
	checkSeenSet("reopened")
	for _, fp := range added {
		if s.Add(fp) {
			h.t.Fatalf("reopened: Add(%#x) reported it new; it was added before the close", fp)
		}
	}
	checkSeenSet("reopened, after adding it all again")
}

// checkReopen checks that a store flushed, closed and reopened holds the
// entries waiting and those out at the close, and only those, with every
// field, in push order within each host.
func checkReopen(h *harness) {
	const hosts, perHost = 6, 8
	for i := range perHost {
		for j := range hosts {
			h.push(entry(j, i))
		}
		h.commit()
	}
	h.checkLen("after the pushes")
	out := h.nextEach(t0, hosts)
	h.done(out[host(0)], frontier.Result{Requested: true}) // done: gone
	h.retry(out[host(1)], 1)
	// host 2's stays out until the close.
	h.push(entry(3, perHost)) // the links of host 3's page, in its step
	h.push(entry(3, perHost+1))
	h.done(out[host(3)], frontier.Result{Requested: true})
	h.done(out[host(4)], frontier.Result{})
	h.retry(out[host(5)], 2)
	h.checkLen("after the first round")

	out = h.nextEach(t0, hosts-1) // all but host 2
	h.done(out[host(0)], frontier.Result{})
	h.retry(out[host(1)], 1) // the same entry, its second retry
	h.done(out[host(3)], frontier.Result{})
	// host 4's second stays out until the close.
	h.done(out[host(5)], frontier.Result{}) // the retried entry, done
	h.checkLen("after the second round")

	h.flush()
	h.reopen()
	h.checkLen("reopened")
	want := h.m.waiting()
	if n := h.drain(t0); n != want {
		h.t.Fatalf("reopened: %d entries handed out, want the %d waiting", n, want)
	}
	h.checkLen("reopened and drained")
}

// nextEach hands out an entry of each of n hosts at now, and returns them
// by host.
func (h *harness) nextEach(now time.Time, n int) map[string]frontier.Entry {
	h.t.Helper()
	out := map[string]frontier.Entry{}
	for range n {
		e, ok := h.next(now)
		if !ok {
			h.t.Fatalf("Next at %v handed out entries of %d hosts, want %d", now, len(out), n)
		}
		out[e.Host] = e
	}
	return out
}

// retry gives e back with tries more Tries, and ends the step.
func (h *harness) retry(e frontier.Entry, tries int) {
	h.t.Helper()
	e.Tries += tries
	h.done(e, frontier.Result{Retry: true})
}

// checkReadyTime checks that each host's ready time, set by Done, survives
// a reopen, whether the host has entries waiting or not: its entries are
// not handed out before it, and wake reports it.
func checkReadyTime(h *harness) {
	for j, n := range []int{3, 2, 1, 2} {
		for i := range n {
			h.push(entry(j, i))
		}
	}
	h.commit()
	out := h.nextEach(t0, 4)
	soon := t0.Add(1500 * time.Millisecond)
	later := t0.Add(90*time.Minute + 250*time.Millisecond)
	h.done(out[host(0)], frontier.Result{Next: later, Requested: true})
	e := out[host(1)]
	e.Tries++
	h.done(e, frontier.Result{Next: soon, Retry: true, Requested: true}) // asked to come back later
	h.done(out[host(2)], frontier.Result{Next: later, Requested: true})  // its last entry
	h.done(out[host(3)], frontier.Result{Next: t0.Add(-time.Hour)})      // in the past
	h.flush()
	h.reopen()
	h.checkLen("reopened")
	h.push(entry(2, 1)) // a new link to host 2, which waits until later
	h.commit()
	// next checks what is handed out against each host's ready time, and
	// wake when nothing is.
	for _, step := range []struct {
		now  time.Time
		want int
	}{{t0, 1}, {soon.Add(-time.Millisecond), 0}, {soon, 2}, {later.Add(-time.Millisecond), 0}, {later, 3}} {
		if n := h.drain(step.now); n != step.want {
			h.t.Fatalf("reopened: %d entries handed out at %v, want %d", n, step.now, step.want)
		}
	}
}

// checkCloseFlushes checks that Close, without a Flush before it, keeps
// every step committed: the seen-set's, the frontier's and the ready
// times.
func checkCloseFlushes(h *harness) {
	var added []uint64
	for i := range 4 {
		for j := range 3 {
			e := entry(j, i)
			if !h.st.Seen.Add(e.FP) {
				h.t.Fatalf("Add(%#x) reported a new fingerprint present", e.FP)
			}
			added = append(added, e.FP)
			h.push(e)
		}
		h.commit()
	}
	out := h.nextEach(t0, 3)
	h.done(out[host(0)], frontier.Result{Next: t0.Add(time.Hour), Requested: true})
	h.retry(out[host(1)], 1)
	// host 2's stays out.
	h.reopen()
	if n := h.st.Seen.Len(); n != len(added) {
		h.t.Errorf("reopened: Seen.Len = %d, want %d", n, len(added))
	}
	for _, fp := range added {
		if !h.st.Seen.Contains(fp) {
			h.t.Fatalf("reopened: Seen.Contains(%#x) = false; it was added in a step committed before Close", fp)
		}
	}
	h.checkLen("reopened")
	h.drain(t0)
	h.drain(t0.Add(time.Hour))
	h.checkLen("reopened and drained")
}

// checkKeep checks a Keeper's values: written at a commit when not nil,
// the last one committed returned by Kept, before a reopen and after.
func checkKeep(h *harness) {
	k, ok := h.st.Frontier.(frontier.Keeper)
	if !ok {
		h.t.Skipf("the Frontier, a %T, is not a frontier.Keeper", h.st.Frontier)
	}
	var value []byte
	calls := 0
	k.Keep("count", func() []byte {
		calls++
		return value
	})
	k.Keep("other", func() []byte { return []byte("x") })
	k.Keep("other", func() []byte { return []byte("y") }) // replaces "x"
	i := 0
	// step commits and flushes a step with value v.
	step := func(v []byte) {
		h.t.Helper()
		value = v
		h.push(entry(0, i))
		i++
		h.commit()
		h.flush()
	}
	kept := func(name, want, when string) {
		h.t.Helper()
		got := k.Kept(name)
		if want == "" && got != nil || want != "" && !bytes.Equal(got, []byte(want)) {
			h.t.Fatalf("%s: Kept(%q) = %q, want %q (\"\": nil)", when, name, got, want)
		}
	}
	kept("count", "", "before any commit")
	step(nil)
	kept("count", "", "after a commit of a nil value")
	step([]byte("1"))
	kept("count", "1", `after a commit of "1"`)
	step(nil)
	kept("count", "1", "after a commit of a nil value (unchanged)")
	if calls == 0 {
		h.t.Fatal("the value registered with Keep was never called")
	}
	value = []byte("2")
	h.push(entry(0, i)) // a step not yet committed
	kept("count", "1", `with "2" not yet committed`)
	h.commit()
	h.flush()
	kept("count", "2", `after a commit of "2"`)
	kept("other", "y", "after Keep replaced a value")
	kept("never", "", "a name never kept")

	h.reopen()
	k = h.st.Frontier.(frontier.Keeper)
	kept("count", "2", "reopened")
	kept("other", "y", "reopened")
	kept("never", "", "reopened")
	k.Keep("count", func() []byte { return nil })
	h.push(entry(0, i))
	h.commit()
	h.flush()
	kept("count", "2", "reopened, after a commit of a nil value")
}

// checkManyHosts checks that many hosts, with more entries each than a
// store may keep in memory, survive reopens in order: once all waiting,
// once half handed out and a few of them out at the close.
func checkManyHosts(h *harness) {
	const hosts, perHost = 50, 100
	for i := range perHost {
		for j := range hosts {
			e := entry(j, i)
			h.st.Seen.Add(e.FP)
			h.push(e)
		}
		h.commit()
	}
	h.flush()
	h.reopen()
	h.checkLen("reopened")
	for range hosts * perHost / 2 {
		e, ok := h.next(t0)
		if !ok {
			h.t.Fatal("reopened: Next handed out nothing")
		}
		h.done(e, frontier.Result{Requested: true})
	}
	for range 5 {
		h.next(t0) // out at the close
	}
	h.flush()
	h.reopen()
	h.checkLen("reopened again")
	if n := h.drain(t0); n != hosts*perHost/2 {
		h.t.Fatalf("reopened again: %d entries handed out, want %d", n, hosts*perHost/2)
	}
	if n := h.st.Seen.Len(); n != hosts*perHost {
		h.t.Errorf("reopened again: Seen.Len = %d, want %d", n, hosts*perHost)
	}
}
