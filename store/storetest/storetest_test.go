package storetest_test

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"crawler/frontier"
	"crawler/store/storetest"
)

// memStore is a reference store: its state in memory, made "durable" by
// Flush, which copies it to its disk under its directory. A flaw, if set,
// breaks it as a real store could be broken.
type memStore struct {
	disk   map[string]*image
	dir    string
	flaw   flaw
	cur    *image
	values map[string]func() []byte // registered with Keep
}

// flaw is a way to break memStore, named for what it does.
type flaw string

const (
	sound         flaw = ""
	dropLastHost  flaw = "dropLastHost"  // reopened, it has lost the entries of its last host
	forgetReadyAt flaw = "forgetReadyAt" // reopened, every host is ready at once
	retryAtBack   flaw = "retryAtBack"   // a retried entry goes to the back of its host's queue
	closeNoFlush  flaw = "closeNoFlush"  // Close drops the steps not flushed
	loseTries     flaw = "loseTries"     // entries are written without their Tries
	forgetSeen    flaw = "forgetSeen"    // the seen-set is not written with the steps
	loseOut       flaw = "loseOut"       // an entry handed out is deleted, not kept until Done
	keepNil       flaw = "keepNil"       // a nil value of Keep is written too, erasing the last
	truncate      flaw = "truncate"      // each host's queue is written up to 64 entries
	dropIdleHosts flaw = "dropIdleHosts" // a host with no entry waiting is written without its ready time
	keptLive      flaw = "keptLive"      // Kept returns the value not yet committed
)

// image is what a memStore holds.
type image struct {
	seen    map[uint64]bool
	queues  map[string][]slot // each host's entries, waiting or out, in push order
	readyAt map[string]time.Time
	kept    map[string][]byte
	seq     uint64
}

type slot struct {
	seq uint64
	e   frontier.Entry
	out bool
}

// save returns a copy of m as written to disk (by a store with flaw f).
func (m *image) save(f flaw) *image {
	c := &image{
		seen:    map[uint64]bool{},
		queues:  map[string][]slot{},
		readyAt: map[string]time.Time{},
		kept:    map[string][]byte{},
		seq:     m.seq,
	}
	if f != forgetSeen {
		for fp := range m.seen {
			c.seen[fp] = true
		}
	}
	for host, q := range m.queues {
		for _, s := range q {
			if f == loseOut && s.out {
				continue
			}
			if f == loseTries {
				s.e.Tries = 0
			}
			if f == truncate && len(c.queues[host]) == 64 {
				break
			}
			s.out = false
			c.queues[host] = append(c.queues[host], s)
		}
	}
	for host, t := range m.readyAt {
		if f != dropIdleHosts || len(c.queues[host]) > 0 {
			c.readyAt[host] = t
		}
	}
	for name, v := range m.kept {
		c.kept[name] = bytes.Clone(v)
	}
	return c
}

// openMem opens the memStore of dir on disk.
func openMem(disk map[string]*image, dir string, f flaw) storetest.State {
	s := &memStore{disk: disk, dir: dir, flaw: f, values: map[string]func() []byte{}}
	if d := disk[dir]; d != nil {
		s.cur = d.save(sound)
	} else {
		s.cur = (&image{}).save(sound)
	}
	switch f {
	case dropLastHost:
		if hosts := slices.Sorted(maps.Keys(s.cur.queues)); len(hosts) > 0 {
			delete(s.cur.queues, hosts[len(hosts)-1])
		}
	case forgetReadyAt:
		clear(s.cur.readyAt)
	}
	return storetest.State{Seen: (*memSeen)(s), Frontier: s, Close: s.Close}
}

func (s *memStore) Push(e frontier.Entry) {
	s.cur.queues[e.Host] = append(s.cur.queues[e.Host], slot{seq: s.cur.seq, e: e})
	s.cur.seq++
}

// Next hands out, among the hosts ready at now with none out, the entry
// pushed first.
func (s *memStore) Next(now time.Time) (frontier.Entry, bool, time.Time) {
	var best string
	var wake time.Time
	for host, q := range s.cur.queues {
		if len(q) == 0 || q[0].out {
			continue
		}
		if r := s.cur.readyAt[host]; r.After(now) {
			if wake.IsZero() || r.Before(wake) {
				wake = r
			}
			continue
		}
		if best == "" || q[0].seq < s.cur.queues[best][0].seq {
			best = host
		}
	}
	if best == "" {
		return frontier.Entry{}, false, wake
	}
	q := s.cur.queues[best]
	q[0].out = true
	return q[0].e, true, time.Time{}
}

func (s *memStore) Done(e frontier.Entry, r frontier.Result) {
	q := s.cur.queues[e.Host]
	i := slices.IndexFunc(q, func(s slot) bool { return s.out && s.e.FP == e.FP })
	if i < 0 {
		panic("memStore: Done for an entry not out")
	}
	e.Importance = 0
	switch {
	case r.Retry && s.flaw == retryAtBack:
		s.cur.queues[e.Host] = append(slices.Delete(q, i, i+1), slot{seq: s.cur.seq, e: e})
		s.cur.seq++
	case r.Retry:
		q[i] = slot{seq: q[i].seq, e: e}
	default:
		s.cur.queues[e.Host] = slices.Delete(q, i, i+1)
	}
	if r.Next.After(s.cur.readyAt[e.Host]) {
		s.cur.readyAt[e.Host] = r.Next
	}
}

func (s *memStore) Len() int {
	n := 0
	for _, q := range s.cur.queues {
		for _, s := range q {
			if !s.out {
				n++
			}
		}
	}
	return n
}

// Commit does nothing: the steps are committed in one group, at Flush.
func (s *memStore) Commit() error { return nil }

// Flush writes the values kept, then the state, to disk.
func (s *memStore) Flush() error {
	for name, value := range s.values {
		if v := value(); v != nil || s.flaw == keepNil {
			s.cur.kept[name] = bytes.Clone(v)
		}
	}
	s.disk[s.dir] = s.cur.save(s.flaw)
	return nil
}

func (s *memStore) Keep(name string, value func() []byte) { s.values[name] = value }

func (s *memStore) Kept(name string) []byte {
	if value := s.values[name]; value != nil && s.flaw == keptLive {
		if v := value(); v != nil {
			return v
		}
	}
	if d := s.disk[s.dir]; d != nil {
		return bytes.Clone(d.kept[name])
	}
	return nil
}

func (s *memStore) Close() error {
	if s.flaw == closeNoFlush {
		return nil
	}
	return s.Flush()
}

// memSeen is a memStore seen as a seen.Set.
type memSeen memStore

func (s *memSeen) Add(fp uint64) bool {
	if s.cur.seen[fp] {
		return false
	}
	s.cur.seen[fp] = true
	return true
}

func (s *memSeen) Contains(fp uint64) bool { return s.cur.seen[fp] }
func (s *memSeen) Len() int                { return len(s.cur.seen) }

var _ frontier.Keeper = (*memStore)(nil)

// The reference store passes: the suite asks nothing a store cannot do.
// This is how a store runs the suite from its own tests.
func TestReference(t *testing.T) {
	disk := map[string]*image{}
	storetest.Run(t, func(t *testing.T, dir string) storetest.State {
		return openMem(disk, dir, sound)
	})
}

// recorder is a testing.TB that records failures instead of failing the
// test, and stops the check at the first fatal one.
type recorder struct {
	testing.TB // the test's, for TempDir, Cleanup and Logf
	msgs       []string
}

// stop is the panic of recorder's Fatal and Skip.
type stop struct{}

func (r *recorder) Helper()                      {}
func (r *recorder) Fail()                        { r.msgs = append(r.msgs, "Fail") }
func (r *recorder) Failed() bool                 { return len(r.msgs) > 0 }
func (r *recorder) FailNow()                     { r.Fail(); panic(stop{}) }
func (r *recorder) Error(args ...any)            { r.msgs = append(r.msgs, fmt.Sprint(args...)) }
func (r *recorder) Errorf(f string, args ...any) { r.msgs = append(r.msgs, fmt.Sprintf(f, args...)) }
func (r *recorder) Fatal(args ...any)            { r.Error(args...); panic(stop{}) }
func (r *recorder) Fatalf(f string, args ...any) { r.Errorf(f, args...); panic(stop{}) }
func (r *recorder) Skip(...any)                  { panic(stop{}) }
func (r *recorder) Skipf(string, ...any)         { panic(stop{}) }
func (r *recorder) SkipNow()                     { panic(stop{}) }

// failures runs the check name on the store open opens, and returns what
// it reported.
func failures(t *testing.T, name string, open func(dir string) storetest.State) (msgs []string) {
	r := &recorder{TB: t}
	defer func() {
		if v := recover(); v != nil && v != (stop{}) {
			panic(v)
		}
		msgs = r.msgs
	}()
	storetest.RunCheck(r, name, open)
	return nil
}

// Each flaw of a store is caught by the check named, which the sound
// store passes.
func TestCatchesFlaws(t *testing.T) {
	for _, tt := range []struct {
		flaw  flaw
		check string
	}{
		{dropLastHost, "Reopen"},
		{dropLastHost, "ManyHosts"},
		{forgetReadyAt, "ReadyTime"},
		{retryAtBack, "Reopen"},
		{closeNoFlush, "CloseFlushes"},
		{loseTries, "Reopen"},
		{forgetSeen, "Seen"},
		{loseOut, "Reopen"},
		{keepNil, "Keep"},
		{truncate, "ManyHosts"},
		{dropIdleHosts, "ReadyTime"},
		{keptLive, "Keep"},
	} {
		t.Run(string(tt.flaw)+"/"+tt.check, func(t *testing.T) {
			disk := map[string]*image{}
			if msgs := failures(t, tt.check, func(dir string) storetest.State { return openMem(disk, dir, sound) }); msgs != nil {
				t.Fatalf("the sound store fails: %s", strings.Join(msgs, "; "))
			}
			msgs := failures(t, tt.check, func(dir string) storetest.State { return openMem(disk, dir, tt.flaw) })
			if msgs == nil {
				t.Fatalf("%s passes %s", string(tt.flaw), tt.check)
			}
			t.Log(strings.Join(msgs, "; "))
		})
	}
}

// notCommitter is a store whose frontier cannot commit.
type notCommitter struct{ frontier.FIFO }

// A Frontier that is not a Committer fails Open, and says why.
func TestNotCommitter(t *testing.T) {
	disk := map[string]*image{}
	msgs := failures(t, "Open", func(dir string) storetest.State {
		st := openMem(disk, dir, sound)
		st.Frontier = new(notCommitter)
		return st
	})
	if len(msgs) == 0 || !strings.Contains(msgs[0], "not a frontier.Committer") {
		t.Fatalf("Open of a store whose Frontier is not a Committer reported %q", msgs)
	}
}
