package store_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"crawler/frontier"
	"crawler/store"
)

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// open opens a store in memory (or on fs, if not nil) and closes it at the
// end of the test.
func open(t *testing.T, fs vfs.FS, o store.Options) *store.Store {
	t.Helper()
	if fs == nil {
		fs = vfs.NewMem()
	}
	o.FS = fs
	st, err := store.Open("crawl", o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// copyLinks is a crashable in-memory FS whose Link fails, so that Pebble
// copies the table a merge of the seen-set's log ingests: pebble v2.1.7's
// MemFS.Link takes the lock of CrashClone twice, and a CrashClone between
// the two (the merge runs off the test's goroutine) waits forever.
type copyLinks struct{ *vfs.MemFS }

func (copyLinks) Link(_, _ string) error { return errors.New("links copied in tests") }

func entry(host string, i int) frontier.Entry {
	return frontier.Entry{URL: fmt.Sprintf("http://%s/%d", host, i), FP: uint64(i + 1), Host: host,
		Depth: i % 5, Hops: i % 2, Referrer: fmt.Sprintf("http://%s/", host)}
}

// What a closed store held, a reopened one holds: the entries waiting, in
// their order, those handed out and not done among them; the seen-set; each
// host's next time.
func TestReopen(t *testing.T) {
	t.Parallel()
	fs := vfs.NewMem()
	st, err := store.Open("crawl", store.Options{FS: fs, ExpectedURLs: 1000})
	if err != nil {
		t.Fatal(err)
	}
	f, s := st.Frontier(), st.Seen()
	for i := range 200 { // more than a host's head in memory
		host := fmt.Sprintf("h%d.test", i%3)
		if !s.Add(uint64(i + 1)) {
			t.Fatalf("Add(%d) reported it seen", i+1)
		}
		f.Push(entry(host, i))
	}
	e, ok, _ := f.Next(t0) // h0's first: done
	if !ok {
		t.Fatal("nothing handed out")
	}
	f.Done(e, frontier.Result{Next: t0.Add(time.Hour), Requested: true})
	inFlight, _, _ := f.Next(t0) // h1's first: in flight at the close
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st = open(t, fs, store.Options{ExpectedURLs: 1000})
	f, s = st.Frontier(), st.Seen()
	if st.Requests() != 1 {
		t.Errorf("reopened: Requests %d, want the one request made", st.Requests())
	}
	if f.Len() != 199 || s.Len() != 200 || !s.Contains(1) || !s.Contains(200) || s.Contains(201) {
		t.Fatalf("reopened: Len %d, seen %d; want 199 waiting (the one in flight back) and 200 seen", f.Len(), s.Len())
	}
	var got []frontier.Entry
	for {
		e, ok, _ := f.Next(t0)
		if !ok {
			break
		}
		got = append(got, e)
		f.Done(e, frontier.Result{})
	}
	if len(got) != 199-66 { // h0's 66 others wait an hour
		t.Fatalf("%d handed out at t0, want %d", len(got), 199-66)
	}
	if got[0] != inFlight && got[1] != inFlight {
		t.Errorf("the entry in flight at the close came back as %+v, %+v; want %+v", got[0], got[1], inFlight)
	}
	if _, ok, wake := f.Next(t0); ok || !wake.Equal(t0.Add(time.Hour)) {
		t.Errorf("h0: wake %v, want its next time kept, an hour on", wake)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Host == got[i-1].Host && got[i].FP < got[i-1].FP {
			t.Fatalf("%s handed out before %s, pushed first", got[i-1].URL, got[i].URL)
		}
	}
}

// The hosts a reopened store restored from disk take the limits of
// LimitHosts, and the others Options.PerHost (the AOPIC's PerHost).
func TestLimitHostsReopened(t *testing.T) {
	t.Parallel()
	for _, aopic := range []bool{false, true} {
		fs := vfs.NewMem()
		st, err := store.Open("crawl", store.Options{FS: fs, ExpectedURLs: 1000, PerHost: 2})
		if err != nil {
			t.Fatal(err)
		}
		f := frontierOf(t, st, aopic, 2)
		for i := range 12 {
			f.Push(entry([]string{"wide.test", "other.test"}[i%2], i))
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}

		st = open(t, fs, store.Options{ExpectedURLs: 1000, PerHost: 2})
		f = frontierOf(t, st, aopic, 2)
		f.(frontier.HostLimiter).LimitHosts(func(host string) int {
			if host == "wide.test" {
				return 4
			}
			return 0
		})
		out := map[string]int{}
		for e, ok, _ := f.Next(t0); ok; e, ok, _ = f.Next(t0) {
			out[e.Host]++
		}
		if out["wide.test"] != 4 || out["other.test"] != 2 {
			t.Errorf("aopic %v: out at once %v, want wide.test 4 (its limit), other.test 2 (PerHost)", aopic, out)
		}
	}
}

// A store written by another version, or held by another Store, is refused.
func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	fs := vfs.NewMem()
	st := open(t, fs, store.Options{ExpectedURLs: 10})
	if _, err := store.Open("crawl", store.Options{FS: fs}); err == nil {
		t.Error("a second Open of a store in use succeeded")
	}
	st.Close()
	dir := t.TempDir() // on the operating system's files, locked as for another process
	held, err := store.Open(dir, store.Options{ExpectedURLs: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if _, err := store.Open(dir, store.Options{}); !errors.Is(err, store.ErrLocked) {
		t.Errorf("a second Open of a directory in use = %v, want ErrLocked", err)
	}

	db, err := pebble.Open("crawl", &pebble.Options{FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	db.Set([]byte("m"), []byte{99}, pebble.Sync)
	db.Close()
	if _, err := store.Open("crawl", store.Options{FS: fs}); !errors.Is(err, store.ErrVersion) {
		t.Errorf("Open of a version-99 store = %v, want ErrVersion", err)
	}
}

// crawlState is what a store holds, as the crawler sees it.
type crawlState struct {
	seen    []uint64 // sorted
	waiting []uint64 // sorted
}

func (a crawlState) equal(b crawlState) bool {
	return slices.Equal(a.seen, b.seen) && slices.Equal(a.waiting, b.waiting)
}

// TestCrash runs crawl steps on a crashable file system and, after steps
// chosen at random, simulates a crash of the machine: the store reopened
// from what was synced holds exactly what it held after some step, no
// earlier than the last one synced. So a step is never half kept: a URL is
// never seen without being queued.
func TestCrash(t *testing.T) {
	t.Parallel()
	for _, interval := range []time.Duration{time.Hour, time.Nanosecond, -1} {
		t.Run(fmt.Sprint("interval=", interval), func(t *testing.T) { testCrash(t, interval, false) })
	}
	t.Run("AOPIC", func(t *testing.T) { testCrash(t, time.Hour, true) })
}

// frontierOf returns st's breadth-first frontier, or with aopic its AOPIC
// one (of st's PerHost), which reads the checkpoint and the queue.
func frontierOf(t *testing.T, st *store.Store, aopic bool, perHost int) interface {
	frontier.Frontier
	frontier.Committer
} {
	t.Helper()
	if !aopic {
		return st.Frontier()
	}
	f, err := st.AOPIC(&frontier.AOPIC{PerHost: perHost})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// testCrash is TestCrash with commit groups of SyncInterval interval: an
// hour (a group ends when the test flushes), a nanosecond (each step is a
// group, committed while up to three before it are still syncing) or -1
// (each step alone, synced); with aopic, on the AOPIC frontier, whose
// checkpoint of credits lags the queue.
func testCrash(t *testing.T, interval time.Duration, aopic bool) {
	r := rand.New(rand.NewPCG(3, 4))
	fs := vfs.NewCrashableMem()
	st, err := store.Open("crawl", store.Options{FS: copyLinks{fs}, ExpectedURLs: 1000, SyncInterval: interval, CheckpointPages: 3, MergeURLs: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { st.Close() }()
	f := frontierOf(t, st, aopic, 0)
	var model crawlState
	history := []crawlState{{}} // before the first step and after each
	synced := 0                 // steps synced
	var out []frontier.Entry
	next := uint64(1)
	// discover records a new URL seen and queued, as the crawler does.
	discover := func() {
		fp := next
		next++
		st.Seen().Add(fp)
		f.Push(frontier.Entry{URL: fmt.Sprintf("http://h%d/%d", fp%5, fp), FP: fp, Host: fmt.Sprintf("h%d", fp%5)})
		model.seen = append(model.seen, fp)
		model.waiting = append(model.waiting, fp)
	}
	for step := range 300 {
		switch r.IntN(3) {
		case 0, 1: // a page done with new links, as the crawler does
			if len(out) > 0 {
				e := out[0]
				out = out[1:]
				for range r.IntN(4) {
					discover()
				}
				f.Done(e, frontier.Result{})
				model.waiting = slices.DeleteFunc(model.waiting, func(fp uint64) bool { return fp == e.FP })
			} else { // a seed
				discover()
			}
		case 2: // hand an entry out: no write
			if e, ok, _ := f.Next(t0); ok {
				out = append(out, e)
			}
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		slices.Sort(model.seen)
		slices.Sort(model.waiting)
		history = append(history, crawlState{slices.Clone(model.seen), slices.Clone(model.waiting)})
		if interval < 0 {
			synced = step + 1
		} else if r.IntN(10) == 0 {
			if err := st.Flush(); err != nil {
				t.Fatal(err)
			}
			synced = step + 1
		}
		if r.IntN(15) != 0 {
			continue
		}
		crashed := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: r.IntN(101), RNG: rand.New(rand.NewPCG(uint64(step), 5))})
		got := stateOf(t, crashed, next, aopic)
		if !slices.ContainsFunc(history[synced:], got.equal) {
			t.Fatalf("step %d: after a crash the store holds seen %v, waiting %v: no step's state since the last synced (%d): %v",
				step, got.seen, got.waiting, synced, history[synced:])
		}
	}
}

// stateOf opens the store on fs and reads what it holds: the seen
// fingerprints below next, and every entry waiting.
func stateOf(t *testing.T, fs vfs.FS, next uint64, aopic bool) crawlState {
	t.Helper()
	st, err := store.Open("crawl", store.Options{FS: fs, ExpectedURLs: -1, PerHost: -1})
	if err != nil {
		t.Fatalf("reopen after a crash: %v", err)
	}
	defer st.Close()
	var c crawlState
	for fp := uint64(1); fp < next; fp++ {
		if st.Seen().Contains(fp) {
			c.seen = append(c.seen, fp)
		}
	}
	f := frontierOf(t, st, aopic, -1)
	for {
		e, ok, _ := f.Next(t0)
		if !ok {
			break
		}
		c.waiting = append(c.waiting, e.FP)
	}
	slices.Sort(c.waiting)
	return c
}

// A store holds one crawl: Claim records it, and refuses another.
func TestClaim(t *testing.T) {
	t.Parallel()
	fs := vfs.NewMem()
	st := open(t, fs, store.Options{ExpectedURLs: 10})
	if err := st.Claim("seeds: a b"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = open(t, fs, store.Options{ExpectedURLs: 10})
	if err := st.Claim("seeds: a b"); err != nil {
		t.Errorf("the same crawl refused: %v", err)
	}
	if err := st.Claim("seeds: c"); !errors.Is(err, store.ErrOtherCrawl) {
		t.Errorf("Claim of another crawl = %v, want ErrOtherCrawl", err)
	}
}

// A value kept is written with the group of steps committed, only when it
// changed, and read back by a reopened store.
func TestKeep(t *testing.T) {
	t.Parallel()
	fs := vfs.NewMem()
	st := open(t, fs, store.Options{ExpectedURLs: 1000})
	calls, n := 0, 0
	st.Keep("count", func() []byte {
		calls++
		if n == 0 {
			return nil
		}
		return fmt.Appendf(nil, "%d", n)
	})
	if err := st.Flush(); err != nil || calls != 0 {
		t.Fatalf("flush with no step: err %v, value asked %d times, want 0", err, calls)
	}
	for i := range 3 {
		n = i
		st.Seen().Add(uint64(i + 1))
		if err := st.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if got := string(st.Kept("count")); got != "2" || calls != 3 {
		t.Fatalf("Kept = %q after %d commits, want \"2\" after 3", got, calls)
	}
	if st.Kept("other") != nil {
		t.Fatal("a value never kept is not nil")
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if got := string(open(t, fs, store.Options{}).Kept("count")); got != "2" {
		t.Fatalf("reopened: Kept = %q, want \"2\"", got)
	}
}

// An AOPIC frontier closed and reopened has its credits back exactly: the
// same importance for every page, the same order.
func TestAOPICReopen(t *testing.T) {
	t.Parallel()
	fs := vfs.NewMem()
	st := open(t, fs, store.Options{ExpectedURLs: 1000})
	a := new(frontier.AOPIC)
	f, err := st.AOPIC(a)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	next := uint64(1)
	push := func(depth int, ref string) uint64 {
		fp := next
		next++
		st.Seen().Add(fp)
		f.Push(frontier.Entry{URL: fmt.Sprintf("http://h%d/%d", fp%4, fp), FP: fp, Host: fmt.Sprintf("h%d", fp%4), Depth: depth, Referrer: ref})
		return fp
	}
	for range 4 {
		push(0, "")
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	for range 60 {
		e, ok, _ := f.Next(t0)
		if !ok {
			break
		}
		var links []uint64
		for range r.IntN(5) {
			if r.IntN(3) == 0 && next > 2 {
				links = append(links, 1+r.Uint64N(next-1)) // a page known already
			} else {
				links = append(links, push(e.Depth+1, e.URL))
			}
		}
		f.Done(e, frontier.Result{Links: links})
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	want := map[uint64]float64{}
	for fp := uint64(1); fp < next; fp++ {
		want[fp], _ = a.Importance(fp)
	}
	n := a.Len()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st = open(t, fs, store.Options{})
	b := new(frontier.AOPIC)
	g, err := st.AOPIC(b)
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != n {
		t.Fatalf("reopened: Len %d, want %d", g.Len(), n)
	}
	for fp, imp := range want {
		if got, _ := b.Importance(fp); got != imp {
			t.Errorf("page %d: importance %v after reopening, %v before", fp, got, imp)
		}
	}
	for range n {
		e1, ok1, _ := a.Next(t0)
		e2, ok2, _ := g.Next(t0)
		if ok1 != ok2 || e1.FP != e2.FP {
			t.Fatalf("reopened: Next hands out %d (%v), the closed one %d (%v)", e2.FP, ok2, e1.FP, ok1)
		}
		if !ok1 {
			break
		}
		a.Done(e1, frontier.Result{})
		g.Done(e2, frontier.Result{})
	}
}

// The store hands out what frontier.FIFO hands out, entry for entry, Tries
// included, and its seen-set answers as a map does, whether a step's writes
// are in the commit group gathering or in one of those committing (which
// reads of the database do not see yet: the store keeps them in memory
// too) or applied. A few hosts with
// long queues and many entries out empty their heads in memory often, and
// load them again while the group in progress holds pushes, removals and
// retries of their queues; a cache of 4 fingerprints evicts those added.
func TestModel(t *testing.T) {
	t.Parallel()
	seeds := uint64(20)
	if testing.Short() {
		seeds = 4 // the quick loop; the full run tries all 20
	}
	for _, interval := range []time.Duration{time.Hour, time.Nanosecond, -1} {
		for _, perHost := range []int{1, 3, -1} {
			t.Run(fmt.Sprintf("interval=%v,perHost=%d", interval, perHost), func(t *testing.T) {
				t.Parallel()
				for seed := range seeds {
					testModel(t, seed, interval, perHost)
					if t.Failed() {
						t.Fatalf("seed %d", seed)
					}
				}
			})
		}
	}
}

func testModel(t *testing.T, seed uint64, interval time.Duration, perHost int) {
	r := rand.New(rand.NewPCG(seed, 6))
	merge := []int{0, -1, 5}[seed%3] // the seen-set's log merged never, after every group, or every 5 URLs
	o := store.Options{ExpectedURLs: -1, CachedURLs: -1, SyncInterval: interval, PerHost: perHost, MergeURLs: merge}
	if interval == time.Nanosecond { // slow commits: groups pile up, each step's writes in the overlays
		o.BeforeCommit = func() error { time.Sleep(100 * time.Microsecond); return nil }
	}
	st := open(t, nil, o)
	f, s := st.Frontier(), st.Seen()
	model := &frontier.FIFO{PerHost: perHost}
	seen := map[uint64]bool{}
	var out, modelOut []frontier.Entry // the model's keep their place in its queues
	now := t0
	for step := range 600 {
		switch op := r.IntN(10); {
		case op < 4: // discover a URL, maybe seen
			fp := uint64(r.IntN(400) + 1)
			if s.Add(fp) != !seen[fp] {
				t.Fatalf("step %d: Add(%d) = %v, seen before: %v", step, fp, !seen[fp], seen[fp])
			}
			if !seen[fp] {
				seen[fp] = true
				host := fmt.Sprintf("h%d", fp%3)
				e := frontier.Entry{URL: fmt.Sprintf("http://%s/%d", host, fp), FP: fp, Host: host, Depth: r.IntN(3), Referrer: "http://" + host + "/"}
				f.Push(e)
				model.Push(e)
			}
		case op < 7:
			got, ok, wake := f.Next(now)
			want, wantOK, wantWake := model.Next(now)
			if ok != wantOK || !wake.Equal(wantWake) || ok && !sameEntry(got, want) {
				t.Fatalf("step %d: Next = %+v %v %v, want %+v %v %v", step, got, ok, wake, want, wantOK, wantWake)
			}
			if ok {
				out, modelOut = append(out, got), append(modelOut, want)
			}
		case op < 9 && len(out) > 0: // a page done, or retried, with its host's next time
			i := r.IntN(len(out))
			e, m := out[i], modelOut[i]
			out, modelOut = slices.Delete(out, i, i+1), slices.Delete(modelOut, i, i+1)
			res := frontier.Result{Retry: r.IntN(3) == 0}
			if res.Retry {
				e.Tries++
				m.Tries++
			}
			if r.IntN(4) == 0 {
				res.Next = now.Add(time.Duration(r.IntN(3)) * time.Second)
			}
			f.Done(e, res)
			model.Done(m, res)
		case op == 9:
			now = now.Add(time.Second)
			if fp := uint64(r.IntN(400) + 1); s.Contains(fp) != seen[fp] {
				t.Fatalf("step %d: Contains(%d) = %v, want %v", step, fp, !seen[fp], seen[fp])
			}
		}
		if f.Len() != model.Len() {
			t.Fatalf("step %d: Len %d, want %d", step, f.Len(), model.Len())
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		if r.IntN(20) == 0 {
			if err := f.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// sameEntry reports whether a and b are the same entry, Importance aside.
func sameEntry(a, b frontier.Entry) bool {
	return a.URL == b.URL && a.FP == b.FP && a.Host == b.Host && a.Depth == b.Depth && a.Hops == b.Hops &&
		a.Referrer == b.Referrer && a.Tries == b.Tries
}

// Prepare reads a page's links as one sorted batch and changes no answer:
// with a cache too small to help, the fingerprints it found are seen, those
// it did not are new, and the Adds that follow read nothing more.
func TestPrepare(t *testing.T) {
	t.Parallel()
	fs := vfs.NewMem()
	o := store.Options{ExpectedURLs: -1, CachedURLs: -1} // every test reaches the store
	st := open(t, fs, o)
	for fp := uint64(1); fp <= 100; fp += 2 { // the odd ones are seen
		st.Seen().Add(fp)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, fs, o) // the seen-set's log merged: the fingerprints on disk
	s := st.Seen()
	links := []uint64{40, 7, 13, 8, 99, 7, 2, 55}
	before := s.Stats().Reads
	s.Prepare(links)
	reads := s.Stats().Reads
	if n := reads - before; n < 6 || n > 7 {
		t.Errorf("Prepare read %d fingerprints, want the 7 distinct ones (6 if 99, added last, is cached)", n)
	}
	for _, fp := range links {
		if got, want := s.Contains(fp), fp%2 == 1; got != want {
			t.Errorf("Contains(%d) = %v after Prepare, want %v", fp, got, want)
		}
	}
	if got := s.Stats().Reads; got != reads {
		t.Errorf("Contains read %d fingerprints Prepare had read", got-reads)
	}
	if s.Add(40) != true || s.Add(41) != false || s.Contains(40) != true {
		t.Error("Add after Prepare: 40 not new, or 41 new, or 40 not seen once added")
	}
	if got := s.Stats().Reads; got > reads+1 { // 41 was not prepared: one read
		t.Errorf("%d reads after Prepare's, want at most 1 (for 41)", got-reads)
	}
}

// A test that a read of Prepare answered counts as a read, not as a cache
// hit, though Prepare put the fingerprint in the cache for it; the tests
// of it after that are cache hits.
func TestSeenStatsCountPrepared(t *testing.T) {
	t.Parallel()
	fs := vfs.NewMem()
	o := store.Options{ExpectedURLs: -1} // no Bloom filter: every test asks the cache, then the store
	st := open(t, fs, o)
	for fp := uint64(1); fp <= 10; fp++ {
		st.Seen().Add(fp)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, fs, o) // on disk, none cached
	s := st.Seen()
	s.Prepare([]uint64{3, 5, 7})
	for _, fp := range []uint64{3, 5, 7, 3, 5} {
		if !s.Contains(fp) {
			t.Fatalf("Contains(%d) = false", fp)
		}
	}
	if got, want := s.Stats(), (store.SeenStats{Tests: 5, Reads: 3, CacheHits: 2}); got != want {
		t.Errorf("Stats() = %+v, want %+v: the three reads answered the first tests, the cache the two after", got, want)
	}
}

// Drain gives up the waiting entries of the hosts matched, in their order,
// leaves those handed out, and reports the hosts' ready times; Hold makes
// a host wait. Both are durable with the step.
func TestDrainHold(t *testing.T) {
	t.Parallel()
	fs := vfs.NewMem()
	st := open(t, fs, store.Options{FS: fs, ExpectedURLs: 1000})
	f := st.Frontier()
	for i := range 12 { // more than a host's head in memory
		f.Push(entry("a.test", i))
		f.Push(entry("b.test", 100+i))
	}
	now := time.Now()
	out, ok, _ := f.Next(now)
	if !ok {
		t.Fatal("nothing handed out")
	}
	later := now.Add(time.Hour)
	f.Done(out, frontier.Result{Retry: true, Next: later}) // out's host waits an hour
	out, _, _ = f.Next(now)                                // the other host's first
	ready := map[string]time.Time{}
	got := f.Drain(func(h string) bool { return h == out.Host }, func(h string, at time.Time) { ready[h] = at })
	if len(got) != 11 {
		t.Fatalf("drained %d entries of %s, want its 11 waiting", len(got), out.Host)
	}
	for i := 1; i < len(got); i++ {
		if got[i].FP <= got[i-1].FP {
			t.Fatalf("drained out of order: %d then %d", got[i-1].FP, got[i].FP)
		}
	}
	if len(ready) != 0 {
		t.Errorf("ready times of a host ready now: %v", ready)
	}
	if f.Len() != 12 {
		t.Errorf("Len %d after the drain, want the other host's 12", f.Len())
	}
	f.Done(out, frontier.Result{}) // the entry out is done as usual
	other := "a.test"
	if out.Host == "a.test" {
		other = "b.test"
	}
	f.Drain(func(h string) bool { return h == other }, func(h string, at time.Time) { ready[h] = at })
	if !ready[other].Equal(later) {
		t.Errorf("%s reported ready at %v, want %v", other, ready[other], later)
	}
	f.Hold("c.test", later)
	f.Push(entry("c.test", 500))
	if e, ok, wake := f.Next(now); ok || !wake.Equal(later) {
		t.Errorf("Next after a Hold: %v %v, wake %v; want nothing before %v", e.URL, ok, wake, later)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, fs, store.Options{FS: fs, ExpectedURLs: 1000})
	if n := st.Frontier().Len(); n != 1 {
		t.Errorf("reopened with %d entries waiting, want c.test's 1", n)
	}
	if _, ok, wake := st.Frontier().Next(now); ok || !wake.Equal(later) {
		t.Errorf("reopened: the hold on c.test is lost (ok %v, wake %v)", ok, wake)
	}
}

// Records are written with the step, deleted by a nil value, read back
// by id under their own name only (not one that the name starts), and
// kept by a reopened store.
func TestRecords(t *testing.T) {
	t.Parallel()
	fs := vfs.NewMem()
	st := open(t, fs, store.Options{ExpectedURLs: 1000})
	for _, id := range []uint64{3, 1, 1 << 63, 2} {
		st.Record("visits", id, fmt.Appendf(nil, "v%d", id))
	}
	st.Record("visitsX", 7, []byte("other name"))
	st.Record("visits", 2, nil)
	if err := st.Flush(); err != nil {
		t.Fatal(err)
	}
	read := func(st *store.Store) string {
		var got []string
		err := st.Records("visits", func(id uint64, v []byte) error {
			got = append(got, fmt.Sprintf("%d=%s", id, v))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}
	want := "1=v1 3=v3 9223372036854775808=v9223372036854775808"
	if got := read(st); got != want {
		t.Fatalf("Records = %q, want %q", got, want)
	}
	stop := errors.New("stop")
	n := 0
	if err := st.Records("visits", func(uint64, []byte) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("Records with f failing: %v after %d calls, want stop after 1", err, n)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if got := read(open(t, fs, store.Options{})); got != want {
		t.Fatalf("reopened: Records = %q, want %q", got, want)
	}
}

// BeforeCommit runs before each group is applied, and its error fails the
// commit with nothing of the group applied.
func TestBeforeCommit(t *testing.T) {
	t.Parallel()
	fs := vfs.NewMem()
	var calls int
	var fail error
	st, err := store.Open("crawl", store.Options{FS: fs, SyncInterval: -1, BeforeCommit: func() error { calls++; return fail }})
	if err != nil {
		t.Fatal(err)
	}
	f, s := st.Frontier(), st.Seen()
	s.Add(1)
	f.Push(entry("h.test", 0))
	if err := f.Commit(); err != nil || calls != 1 {
		t.Fatalf("commit: %v after %d calls, want nil after 1", err, calls)
	}
	fail = errors.New("archive disk full")
	s.Add(2)
	f.Push(entry("h.test", 1))
	if err := f.Commit(); !errors.Is(err, fail) || calls != 2 {
		t.Fatalf("failing: %v after %d calls, want the error after 2", err, calls)
	}
	st.Close()
	st = open(t, fs, store.Options{})
	if st.Frontier().Len() != 1 || st.Seen().Contains(2) {
		t.Errorf("reopened: %d waiting, 2 seen: %v; want only the first group", st.Frontier().Len(), st.Seen().Contains(2))
	}
}

func TestOpenRefusesOtherFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>a copy of a site</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := store.Open(dir, store.Options{})
	if !errors.Is(err, store.ErrNotState) || !strings.Contains(err.Error(), "index.html") {
		t.Fatalf("Open of a directory of other files = %v, want ErrNotState naming index.html", err)
	}
	names, _ := os.ReadDir(dir)
	if len(names) != 1 {
		t.Errorf("Open wrote %d files among the directory's one", len(names)-1)
	}
	// A store's own directory, and an empty one, open.
	empty := t.TempDir()
	st, err := store.Open(empty, store.Options{ExpectedURLs: 10})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	st, err = store.Open(empty, store.Options{ExpectedURLs: 10})
	if err != nil {
		t.Fatalf("reopening a store: %v", err)
	}
	st.Close()
}

// TestOnDone checks that OnDone sees each Done of both frontiers, with its
// Result, before the step is committed.
func TestOnDone(t *testing.T) {
	t.Parallel()
	for _, aopic := range []bool{false, true} {
		var got []string
		st := open(t, nil, store.Options{OnDone: func(e frontier.Entry, r frontier.Result) {
			got = append(got, fmt.Sprintf("%s retry=%v", e.URL, r.Retry))
		}})
		var f frontier.Frontier = st.Frontier()
		if aopic {
			a, err := st.AOPIC(&frontier.AOPIC{})
			if err != nil {
				t.Fatal(err)
			}
			f = a
		}
		a, b := entry("h.test", 0), entry("g.test", 1)
		f.Push(a)
		f.Push(b)
		for i := range 3 {
			e, ok, _ := f.Next(t0.Add(time.Duration(i) * time.Hour))
			if !ok {
				t.Fatalf("aopic=%v: nothing handed out at %d", aopic, i)
			}
			f.Done(e, frontier.Result{Retry: i == 0})
		}
		if len(got) != 3 || !strings.HasSuffix(got[0], "retry=true") || !strings.HasSuffix(got[2], "retry=false") {
			t.Errorf("aopic=%v: OnDone saw %q, want 3 calls, the first a retry", aopic, got)
		}
	}
}

// Under LongestFirst the ready host with the smallest share of its
// requests done goes first (a host with none requested yet first of all):
// its requests done over those plus its entries waiting times the share of
// its entries done that were requested (one requested and one not counted
// before any), or over a typical host's entries (waiting and done over
// hosts) times that share, if more; each host's entries keep their order.
// Without it, the oldest entry goes first.
func TestLongestFirst(t *testing.T) {
	t.Parallel()
	for _, longest := range []bool{false, true} {
		st := open(t, nil, store.Options{ExpectedURLs: 1000, LongestFirst: longest})
		f := st.Frontier()
		fp := 0
		push := func(host string, k int) {
			for range k {
				f.Push(entry(host, fp))
				fp++
			}
		}
		push("a.test", 6)  // every entry requested
		push("b.test", 11) // only the first requested: the others disallowed, say
		var got []string
		next := func(k int) {
			for range k {
				e, ok, _ := f.Next(t0)
				if !ok {
					t.Fatalf("LongestFirst %v: nothing handed out with %d waiting", longest, f.Len())
				}
				got = append(got, e.Host[:1])
				f.Done(e, frontier.Result{Requested: e.Host != "b.test" || !slices.Contains(got[:len(got)-1], "b")})
			}
		}
		next(8)
		push("c.test", 2)
		next(2)
		// Breadth-first: a's entries are older than b's, b's than c's.
		want := "[a a a a a a b b b b]"
		if longest {
			// Shares done before each hand-out (a typical host's entries:
			// 8.5, then 6.33 with c): a 0 = b 0: a, the older; a 0.18
			// (1 of 8.5×2/3), b 0: b; b 0.13 (1 of 1+10×2/3): b; b 0.182,
			// a 0.176: a; a 0.31, b 0.18: b; b 0.24: b; b 0.30: b; a 0.31,
			// b 0.37: a; c new: c; c 0.24 (1 of 6.33×2/3, not of
			// 1+1×2/3: its entries are found as it is crawled): c.
			want = "[a b b a b b b a c c]"
		}
		if fmt.Sprint(got) != want {
			t.Errorf("LongestFirst %v: handed out %v, want %v", longest, got, want)
		}
	}
}
