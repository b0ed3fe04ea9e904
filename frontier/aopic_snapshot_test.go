package frontier_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"crawler/frontier"
)

// twins applies one stream of operations to several AOPICs, which must
// behave alike: the same entries handed out, the same wake times, Len,
// importances and Top.
type twins struct {
	t   testing.TB
	fs  []*frontier.AOPIC
	out []frontier.Entry // handed out by all, not yet Done
	fps []uint64         // every FP pushed
	now time.Time
	n   uint64
}

// apply decodes op as FuzzAOPIC does, plus an op that reconciles a page,
// and applies it to every AOPIC.
func (w *twins) apply(op byte) {
	arg := int(op >> 3)
	switch op & 7 {
	case 0, 1: // push to one of 5 hosts: a seed, or a link from an entry handed out
		w.n++
		host := fmt.Sprintf("h%d.example", arg%5)
		e := frontier.Entry{URL: fmt.Sprintf("http://%s/%d", host, w.n), Host: host, FP: w.n * 0x9e3779b97f4a7c15, Tries: arg % 3}
		if arg >= 8 && len(w.out) > 0 {
			e.Depth, e.Referrer = 1, w.out[arg%len(w.out)].URL
		}
		if arg%7 == 6 && len(w.fps) > 0 { // a page known: fetched ones come back
			e = frontier.Entry{URL: "http://other/", Host: "other", FP: w.fps[arg%len(w.fps)]}
		} else {
			w.fps = append(w.fps, e.FP)
		}
		for _, f := range w.fs {
			f.Push(e)
		}
	case 2: // a page no longer waiting in the store: reconcile
		if len(w.fps) == 0 {
			break
		}
		fp := w.fps[arg%len(w.fps)]
		var marked []int
		for _, f := range w.fs {
			marked = append(marked, f.Reconcile(func(x uint64) bool { return x != fp }))
		}
		for _, m := range marked[1:] {
			if m != marked[0] {
				w.t.Fatalf("Reconcile marked %v pages", marked)
			}
		}
	case 3, 4: // next
		var first frontier.Entry
		var firstOK bool
		var firstWake time.Time
		for k, f := range w.fs {
			e, ok, wake := f.Next(w.now)
			if k == 0 {
				first, firstOK, firstWake = e, ok, wake
				continue
			}
			if e != first || ok != firstOK || !wake.Equal(firstWake) {
				w.t.Fatalf("AOPIC %d: Next = %+v %v %v, AOPIC 0: %+v %v %v", k, e, ok, wake, first, firstOK, firstWake)
			}
		}
		if firstOK {
			w.out = append(w.out, first)
		}
	case 5, 6: // done: a delay of arg%8 seconds, a retry if arg%5 is 1, arg%7 links
		if len(w.out) == 0 {
			break
		}
		i := arg % len(w.out)
		e := w.out[i]
		w.out = slices.Delete(w.out, i, i+1)
		r := frontier.Result{Next: w.now.Add(time.Duration(arg%8) * time.Second), Retry: arg%5 == 1}
		for k := range arg % 7 {
			if k%2 == 0 && len(w.fps) > 0 {
				r.Links = append(r.Links, w.fps[(arg*(k+1))%len(w.fps)])
			} else {
				r.Links = append(r.Links, uint64(k)+1) // unknown
			}
		}
		if len(r.Links) == 1 && arg%3 == 0 {
			r.Redirect = true
		}
		for _, f := range w.fs {
			f.Done(e, frontier.Result{Next: r.Next, Retry: r.Retry, Links: slices.Clone(r.Links), Redirect: r.Redirect})
		}
	case 7: // time passes
		w.now = w.now.Add(time.Duration(arg) * time.Second / 4)
	}
	w.compare()
}

// compare checks that the AOPICs agree on Len, every importance and Top.
func (w *twins) compare() {
	w.t.Helper()
	a := w.fs[0]
	for k, f := range w.fs[1:] {
		if f.Len() != a.Len() {
			w.t.Fatalf("AOPIC %d: Len %d, AOPIC 0: %d", k+1, f.Len(), a.Len())
		}
		for _, fp := range w.fps {
			x, okx := a.Importance(fp)
			y, oky := f.Importance(fp)
			if x != y || okx != oky || a.Credit(fp) != f.Credit(fp) {
				w.t.Fatalf("AOPIC %d: page %#x importance %v %v credit %v, AOPIC 0: %v %v credit %v",
					k+1, fp, y, oky, f.Credit(fp), x, okx, a.Credit(fp))
			}
		}
		if x, y := a.Top(7), f.Top(7); !slices.Equal(x, y) {
			w.t.Fatalf("AOPIC %d: Top %v, AOPIC 0: %v", k+1, y, x)
		}
		if f.Lambda() != a.Lambda() || f.Received() != a.Received() {
			w.t.Fatalf("AOPIC %d: lambda %v received %v, AOPIC 0: %v %v", k+1, f.Lambda(), f.Received(), a.Lambda(), a.Received())
		}
	}
	for k, f := range w.fs {
		if msg := f.CheckHeaps(); msg != "" {
			w.t.Fatalf("AOPIC %d: %s", k, msg)
		}
	}
}

// checkRestore runs ops on an AOPIC, snapshots it after the first cut of
// them, with entries out, restores the snapshot into a new AOPIC, gives
// the entries out back to the first, and runs the rest of ops on both,
// which must agree bit for bit. It returns the snapshot.
func checkRestore(t testing.TB, perHost int, tax float64, ops []byte, cut int) []byte {
	a := &frontier.AOPIC{PerHost: perHost, Tax: tax}
	w := &twins{t: t, fs: []*frontier.AOPIC{a}, now: t0}
	for _, op := range ops[:cut] {
		w.apply(op)
	}
	snap := a.AppendSnapshot([]byte("prefix"))
	if !bytes.HasPrefix(snap, []byte("prefix")) {
		t.Fatalf("AppendSnapshot lost what dst held")
	}
	snap = snap[len("prefix"):]
	b := &frontier.AOPIC{PerHost: perHost, Tax: tax}
	if err := b.Restore(snap); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	for _, e := range w.out {
		a.Done(e, frontier.Result{Retry: true})
	}
	w.out = nil
	w.fs = append(w.fs, b)
	w.compare()
	if again := b.AppendSnapshot(nil); !bytes.Equal(again, a.AppendSnapshot(nil)) || !bytes.Equal(again, snap) {
		t.Fatalf("snapshots differ: the restored AOPIC's is\n%x\nthe first's\n%x", again, snap)
	}
	for _, op := range ops[cut:] {
		w.apply(op)
	}
	if x, y := a.AppendSnapshot(nil), b.AppendSnapshot(nil); !bytes.Equal(x, y) {
		t.Fatalf("snapshots differ at the end")
	}
	return snap
}

func TestAOPICRestoreBehavesAlike(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for run := range 300 {
		ops := make([]byte, 50+r.IntN(800))
		for i := range ops {
			ops[i] = byte(r.UintN(256))
		}
		cut := r.IntN(len(ops))
		perHost := []int{0, 1, 2, -1}[run%4]
		tax := []float64{0, 0.5, 0.01, -1}[run/4%4]
		checkRestore(t, perHost, tax, ops, cut)
		if t.Failed() {
			t.Fatalf("run %d: perHost %d, tax %v, cut %d, ops %x", run, perHost, tax, cut, ops)
		}
	}
}

// TestAOPICRestoreLambdaLift snapshots after lambda's credit was spread over
// hosts of several groups and hosts passed credit on, so that pots and lift
// are folded into the credits saved.
func TestAOPICRestoreLambdaLift(t *testing.T) {
	var a frontier.AOPIC
	s := seed("a", 1)
	a.Push(s)
	fp := uint64(100)
	for h := range 6 {
		for range 1 << h {
			fp++
			a.Push(child(s, fmt.Sprint("h", h), fp))
		}
	}
	a.Done(mustNext(t, &a, t0), frontier.Result{})             // all to lambda
	e := mustNext(t, &a, t0)                                   // spreads lambda
	a.Done(e, frontier.Result{Links: []uint64{e.FP, e.FP, 1}}) // passed on to e's host, and a's
	if a.Credit(163) == 0 {
		t.Fatalf("lambda was not spread")
	}
	var b frontier.AOPIC
	if err := b.Restore(a.AppendSnapshot(nil)); err != nil {
		t.Fatal(err)
	}
	w := &twins{t: t, fs: []*frontier.AOPIC{&a, &b}, now: t0}
	for fp := uint64(1); fp <= 200; fp++ {
		w.fps = append(w.fps, fp)
	}
	w.compare()
	for range 1000 {
		w.apply(3)
		w.apply(5 | 3<<3)
		w.apply(7 | 16<<3)
	}
	if a.Len() != 0 {
		t.Fatalf("Len = %d after draining", a.Len())
	}
}

func TestAOPICRestoreEmpty(t *testing.T) {
	var a, b frontier.AOPIC
	if err := b.Restore(a.AppendSnapshot(nil)); err != nil {
		t.Fatal(err)
	}
	if b.Len() != 0 || b.Hosts() != 0 {
		t.Fatalf("Len %d, Hosts %d", b.Len(), b.Hosts())
	}
	s := seed("a", 1)
	b.Push(s)
	if e := mustNext(t, &b, t0); e.URL != s.URL {
		t.Fatalf("Next = %v", e)
	}
}

func TestAOPICRestoreKeepsEntries(t *testing.T) {
	var a frontier.AOPIC
	s := seed("a.example", 1)
	s.URL = "https://a.example/"
	a.Push(s)
	want := []frontier.Entry{
		{URL: "https://a.example/x", FP: 2, Host: "a.example", Depth: 3, Hops: 1, Referrer: s.URL, Tries: 2},
		{URL: "ftp://a.example/y", FP: 3, Host: "a.example", Depth: 1, Referrer: "http://b.example/"},
		{URL: "http://a.example:8080/z", FP: 4, Host: "a.example", Depth: 1, Referrer: "http://b.example/"},
		{URL: "http://b.example/", FP: 5, Host: "b.example", Depth: 2, Referrer: "http://b.example/"},
	}
	for _, e := range want {
		a.Push(e)
	}
	mustNext(t, &a, t0) // s, out: saved as waiting
	var b frontier.AOPIC
	if err := b.Restore(a.AppendSnapshot(nil)); err != nil {
		t.Fatal(err)
	}
	got := map[uint64]frontier.Entry{}
	for b.Len() > 0 {
		e := mustNext(t, &b, t0)
		b.Done(e, frontier.Result{})
		e.Importance = 0
		got[e.FP] = e
	}
	for _, e := range append(want, s) {
		if got[e.FP] != e {
			t.Errorf("restored %+v, want %+v", got[e.FP], e)
		}
	}
}

func TestAOPICRestoreKeepsReadyAt(t *testing.T) {
	var a frontier.AOPIC
	a.Push(seed("a", 1))
	a.Push(seed("a", 2))
	later := t0.Add(time.Hour + 5*time.Nanosecond)
	a.Done(mustNext(t, &a, t0), frontier.Result{Next: later})
	var b frontier.AOPIC
	if err := b.Restore(a.AppendSnapshot(nil)); err != nil {
		t.Fatal(err)
	}
	if _, ok, wake := b.Next(t0); ok || !wake.Equal(later) {
		t.Fatalf("Next = %v, wake %v; want nothing until %v", ok, wake, later)
	}
	mustNext(t, &b, later)
}

// A restored AOPIC's hosts take the limits of the LimitHosts set before
// Restore; one set after gives them new ones.
func TestAOPICRestoreLimitHosts(t *testing.T) {
	var a frontier.AOPIC
	for i := range 4 {
		a.Push(seed("a", uint64(i+1)))
		a.Push(seed("b", uint64(i+11)))
	}
	snap := a.AppendSnapshot(nil)
	outAtOnce := func(f *frontier.AOPIC) map[string]int {
		n := map[string]int{}
		for e, ok, _ := f.Next(t0); ok; e, ok, _ = f.Next(t0) {
			n[e.Host]++
		}
		return n
	}
	var b frontier.AOPIC
	b.LimitHosts(func(host string) int { return map[string]int{"a": 3}[host] })
	if err := b.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if n := outAtOnce(&b); n["a"] != 3 || n["b"] != 1 {
		t.Errorf("LimitHosts before Restore: out at once %v, want a:3 b:1", n)
	}
	var c frontier.AOPIC
	if err := c.Restore(snap); err != nil {
		t.Fatal(err)
	}
	c.LimitHosts(func(host string) int { return map[string]int{"b": 2}[host] })
	if n := outAtOnce(&c); n["a"] != 1 || n["b"] != 2 {
		t.Errorf("LimitHosts after Restore: out at once %v, want a:1 b:2", n)
	}
}

func TestAOPICRestoreNotEmpty(t *testing.T) {
	var a frontier.AOPIC
	a.Push(seed("a", 1))
	snap := a.AppendSnapshot(nil)
	err := a.Restore(snap)
	if err == nil || !strings.HasPrefix(err.Error(), "frontier: AOPIC snapshot:") {
		t.Fatalf("Restore into a non-empty AOPIC: %v", err)
	}
	if a.Len() != 1 || a.Hosts() != 1 {
		t.Fatalf("Restore changed the AOPIC: Len %d, Hosts %d", a.Len(), a.Hosts())
	}
}

// sampleSnapshot returns the snapshot of an AOPIC of a few hosts, with
// pages waiting, fetched, out and a redirect.
func sampleSnapshot(t testing.TB) []byte {
	var a frontier.AOPIC
	s := seed("a", 1)
	a.Push(s)
	a.Push(child(s, "b", 2))
	a.Push(child(s, "b", 3))
	a.Push(child(s, "c", 4))
	a.Done(mustNext(t, &a, t0), frontier.Result{Links: []uint64{2, 3, 4, 9}, Next: t0.Add(time.Second)})
	e := mustNext(t, &a, t0)
	a.Done(e, frontier.Result{Links: []uint64{4}, Redirect: true})
	mustNext(t, &a, t0)
	return a.AppendSnapshot(nil)
}

func TestAOPICRestoreCorrupt(t *testing.T) {
	snap := sampleSnapshot(t)
	restore := func(b []byte) error {
		var a frontier.AOPIC
		err := a.Restore(b)
		if err != nil && (a.Len() != 0 || a.Hosts() != 0) {
			t.Fatalf("a failed Restore left %d pages, %d hosts", a.Len(), a.Hosts())
		}
		if err != nil && !strings.HasPrefix(err.Error(), "frontier: AOPIC snapshot: ") {
			t.Fatalf("error %q lacks the prefix", err)
		}
		return err
	}
	if err := restore(snap); err != nil {
		t.Fatal(err)
	}
	for k := range len(snap) {
		if err := restore(snap[:k]); err == nil {
			t.Errorf("Restore of the first %d bytes of %d: no error", k, len(snap))
		}
	}
	for k := range len(snap) {
		for _, bit := range []byte{1, 0x80} {
			b := slices.Clone(snap)
			b[k] ^= bit
			if restore(b) == nil {
				drainRestored(t, b)
			}
		}
	}
	nan := math.Float64bits(math.NaN())
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"magic", append([]byte("AOPX"), snap[4:]...), "magic"},
		{"version", append([]byte("AOPC\x02"), snap[5:]...), "version 2"},
		{"trailing", append(slices.Clone(snap), 0), "1 bytes after"},
		{"NaN lambda", append([]byte("AOPC\x01"), append(le(nan), snap[13:]...)...), "lambda"},
		{"negative received", append(append([]byte("AOPC\x01"), snap[5:13]...), append(le(math.Float64bits(-1)), snap[21:]...)...), "received"},
		{"hosts", []byte("AOPC\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x01"), "hosts"},
		{"duplicate FP", twoPages(1, 1), "twice"},
	} {
		err := restore(c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Restore = %v, want an error about %q", c.name, err, c.want)
		}
	}
	if err := restore(twoPages(1, 2)); err != nil {
		t.Errorf("twoPages(1, 2): %v", err)
	}
}

func le(x uint64) []byte { return binary.LittleEndian.AppendUint64(nil, x) }

// twoPages returns a snapshot of two waiting pages of host "h", with FPs x
// and y, written out by hand.
func twoPages(x, y uint64) []byte {
	b := []byte("AOPC\x01")
	b = append(b, make([]byte, 16)...) // lambda, received: 0
	b = append(b, 1, 1, 'h', 0, 2)     // 1 host "h", zero readyAt, 2 records
	rec := []byte{0, 2, '/', 'x', 0, 0, 0, 0, 0, 0}
	b = append(b, rec...)
	b = append(b, rec[:7]...)
	b = append(b, 9) // the referrer written 9 bytes back
	b = append(b, 2) // 2 pages
	b = append(append(append(b, 0), le(x)...), 0)
	return append(append(append(b, 0), le(y)...), 0)
}

// drainRestored hands out and completes every page of the AOPIC restored from b,
// which must not panic, and checks its heaps.
func drainRestored(t testing.TB, b []byte) {
	var a frontier.AOPIC
	if err := a.Restore(b); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if msg := a.CheckHeaps(); msg != "" {
		t.Fatalf("restored: %s", msg)
	}
	again := a.AppendSnapshot(nil)
	var c frontier.AOPIC
	if err := c.Restore(again); err != nil {
		t.Fatalf("Restore of a restored AOPIC's snapshot: %v", err)
	}
	if x := c.AppendSnapshot(nil); !bytes.Equal(x, again) {
		t.Fatalf("snapshot of a restored AOPIC changed by another restore")
	}
	a.Top(3)
	now := t0
	for a.Len() > 0 {
		e, ok, wake := a.Next(now)
		if !ok {
			if wake.IsZero() {
				t.Fatalf("Len %d, and Next hands out nothing", a.Len())
			}
			now = wake
			continue
		}
		a.Done(e, frontier.Result{Links: []uint64{e.FP, 1, 2}})
		if msg := a.CheckHeaps(); msg != "" {
			t.Fatalf("after Done: %s", msg)
		}
	}
}

func TestAOPICReconcile(t *testing.T) {
	var a frontier.AOPIC
	s := seed("a", 1)
	a.Push(s)
	for fp := uint64(2); fp <= 9; fp++ {
		a.Push(child(s, fmt.Sprint("h", fp%3), fp))
	}
	a.Done(mustNext(t, &a, t0), frontier.Result{Links: []uint64{2, 3, 4, 5, 6, 7, 8, 9}})
	out := mustNext(t, &a, t0)
	var b frontier.AOPIC
	if err := b.Restore(a.AppendSnapshot(nil)); err != nil {
		t.Fatal(err)
	}
	gone := map[uint64]bool{3: true, 4: true, out.FP: true, 1: true}
	hist, _ := b.Importance(3)
	n := b.Reconcile(func(fp uint64) bool { return !gone[fp] })
	if n != 3 { // 1 was fetched already
		t.Fatalf("Reconcile marked %d pages, want 3", n)
	}
	if b.Len() != 8-3 {
		t.Fatalf("Len = %d, want 5", b.Len())
	}
	if imp, _ := b.Importance(3); imp != hist {
		t.Errorf("importance of a reconciled page: %v, was %v", imp, hist)
	}
	sum := b.Lambda()
	for fp := uint64(1); fp <= 9; fp++ {
		sum += b.Credit(fp)
		if gone[fp] && b.Credit(fp) != 0 {
			t.Errorf("page %d kept credit %v", fp, b.Credit(fp))
		}
	}
	if !near(sum, 1) {
		t.Errorf("credit sums to %v, want 1", sum)
	}
	if msg := b.CheckHeaps(); msg != "" {
		t.Fatal(msg)
	}
	if n := b.Reconcile(func(uint64) bool { return false }); n != 5 {
		t.Fatalf("Reconcile of all: %d, want 5", n)
	}
	if _, ok, _ := b.Next(t0); ok || b.Len() != 0 {
		t.Fatalf("Next after every page was reconciled: %v, Len %d", ok, b.Len())
	}
	b.Push(child(s, "h0", 3)) // the store still holds it: back, with no credit
	if e := mustNext(t, &b, t0); e.FP != 3 {
		t.Fatalf("Next = %d, want 3", e.FP)
	}

	// A page handed out is left alone.
	if n := a.Reconcile(func(uint64) bool { return false }); n != 7 {
		t.Fatalf("Reconcile with a page out marked %d, want 7", n)
	}
	a.Done(out, frontier.Result{})
}

// FuzzAOPICRestore restores arbitrary bytes: an error or an AOPIC that
// works, never a panic.
func FuzzAOPICRestore(f *testing.F) {
	f.Add(sampleSnapshot(f))
	f.Add(twoPages(1, 2))
	f.Add(new(frontier.AOPIC).AppendSnapshot(nil))
	r := rand.New(rand.NewPCG(5, 6))
	for run := range 4 {
		ops := make([]byte, 100+50*run)
		for i := range ops {
			ops[i] = byte(r.UintN(256))
		}
		f.Add(checkRestore(f, 1, 0, ops, len(ops)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var a frontier.AOPIC
		if a.Restore(b) == nil {
			drainRestored(t, b)
		}
	})
}

// BenchmarkAOPICSnapshot snapshots and restores an AOPIC of 1M known pages
// of 1000 hosts, a tenth of them fetched.
func BenchmarkAOPICSnapshot(b *testing.B) {
	a, g := new(frontier.AOPIC), newURLGen()
	fill(a, g, benchURLs*9/10)
	fetch(a, g, t0, benchURLs/10)
	fill(a, g, benchURLs/10)
	pages := float64(benchURLs)
	snap := a.AppendSnapshot(nil)
	b.Run("op=snapshot", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = a.AppendSnapshot(buf[:0])
		}
		b.ReportMetric(float64(len(buf))/pages, "B/page")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/pages, "ns/page")
	})
	b.Run("op=restore", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r frontier.AOPIC
			if err := r.Restore(snap); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/pages, "ns/page")
	})
}

// TestAOPICResumeFromCheckpoint follows the recipe of Restore's doc: a
// crawl checkpoints its credits, goes on (pages fetched, pages found),
// and crashes; the AOPIC restored from the checkpoint and reconciled with
// the durable queue holds the same URLs waiting, credit still sums to
// the number of seeds, and importances still sum to 1.
func TestAOPICResumeFromCheckpoint(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var a frontier.AOPIC
	queue := map[uint64]frontier.Entry{} // the store's durable queue
	var known []uint64
	push := func(e frontier.Entry) {
		a.Push(e)
		queue[e.FP] = e
		known = append(known, e.FP)
	}
	for i := range 3 {
		push(seed(fmt.Sprint("h", i), uint64(i+1)))
	}
	var checkpoint []byte
	for step := range 400 {
		if step == 200 {
			checkpoint = a.AppendSnapshot(nil)
		}
		e, ok, _ := a.Next(t0)
		if !ok {
			break
		}
		var links []uint64
		for range r.IntN(5) {
			fp := uint64(len(known) + 1)
			if r.IntN(3) == 0 {
				fp = known[r.IntN(len(known))]
			} else {
				push(child(e, fmt.Sprint("h", r.IntN(8)), fp))
			}
			links = append(links, fp)
		}
		a.Done(e, frontier.Result{Links: links})
		delete(queue, e.FP)
	}
	if len(queue) == 0 {
		t.Fatal("the crawl ran dry")
	}

	var b frontier.AOPIC
	if err := b.Restore(checkpoint); err != nil {
		t.Fatal(err)
	}
	for _, e := range queue {
		b.Push(e)
	}
	n := b.Reconcile(func(fp uint64) bool { _, ok := queue[fp]; return ok })
	if n < 50 {
		t.Fatalf("Reconcile marked %d pages fetched after the checkpoint, want about 100 (the rest were found after it)", n)
	}
	if b.Len() != len(queue) || b.Len() != a.Len() {
		t.Fatalf("Len = %d, want %d", b.Len(), len(queue))
	}
	sum, imp := b.Lambda(), 0.0
	for _, fp := range known {
		sum += b.Credit(fp)
		x, _ := b.Importance(fp)
		imp += x
	}
	if !near(sum, 3) || !near(imp, 1) {
		t.Fatalf("credit sums to %v, want 3; importances to %v, want 1", sum, imp)
	}
	for b.Len() > 0 {
		e := mustNext(t, &b, t0)
		if _, ok := queue[e.FP]; !ok {
			t.Fatalf("Next = %s, not in the queue", e.URL)
		}
		delete(queue, e.FP)
		b.Done(e, frontier.Result{})
	}
}
