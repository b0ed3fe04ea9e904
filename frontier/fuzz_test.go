package frontier_test

import (
	"fmt"
	"testing"
	"time"

	"crawler/frontier"
)

// model is a slice-based FIFO frontier: obviously right, and slow.
type model struct {
	perHost  int
	queue    []modelEntry // every waiting entry, in order of seq
	inflight map[string]int
	readyAt  map[string]time.Time
	seq      int
}

type modelEntry struct {
	e   frontier.Entry
	seq int
}

func (m *model) push(e frontier.Entry) {
	m.queue = append(m.queue, modelEntry{e, m.seq})
	m.seq++
}

func (m *model) next(now time.Time) (frontier.Entry, bool) {
	best := -1
	for i, q := range m.queue {
		h := q.e.Host
		if m.inflight[h] >= m.perHost || m.readyAt[h].After(now) {
			continue
		}
		if best < 0 || q.seq < m.queue[best].seq {
			best = i
		}
	}
	if best < 0 {
		return frontier.Entry{}, false
	}
	e := m.queue[best].e
	m.queue = append(m.queue[:best], m.queue[best+1:]...)
	m.inflight[e.Host]++
	return e, true
}

// wake is when a host with waiting entries and a free slot becomes ready,
// the earliest after now; zero if there is none.
func (m *model) wake(now time.Time) time.Time {
	var w time.Time
	for _, q := range m.queue {
		h := q.e.Host
		if r := m.readyAt[h]; m.inflight[h] < m.perHost && r.After(now) && (w.IsZero() || r.Before(w)) {
			w = r
		}
	}
	return w
}

func (m *model) done(e frontier.Entry, next time.Time, retry bool, retrySeq int) {
	m.inflight[e.Host]--
	if next.After(m.readyAt[e.Host]) {
		m.readyAt[e.Host] = next
	}
	if retry {
		m.queue = append(m.queue, modelEntry{e, retrySeq})
	}
}

// FuzzFIFO decodes the input as a stream of operations and checks FIFO
// against the model after each: same entries handed out, same Len, no URL
// handed out while its host is busy or waiting, and when none is, the same
// wake time.
func FuzzFIFO(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0x10, 0x11, 0x22, 0x31, 0x45, 0x52, 0x63, 0x71, 0x80, 0x91, 0xa2, 0xb3})
	f.Add([]byte{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0x47, 0x47, 0x9f, 0x9f})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 2000 {
			return
		}
		perHost := 1 + int(len(ops)%3)
		fifo := &frontier.FIFO{PerHost: perHost}
		m := &model{perHost: perHost, inflight: map[string]int{}, readyAt: map[string]time.Time{}}
		var out []frontier.Entry // handed out, not yet done
		// Retried entries go to the head of their host: in the model, they
		// keep the seq they were first given, which is older than every
		// other entry of that host still queued.
		seqOf := map[string]int{}
		now := t0
		n := 0
		for _, op := range ops {
			arg := int(op >> 3)
			switch op & 7 {
			case 0, 1, 2: // push to one of 4 hosts
				host := fmt.Sprintf("h%d", arg%4)
				e := frontier.Entry{URL: fmt.Sprintf("http://%s/%d", host, n), Host: host, FP: uint64(n)}
				seqOf[e.URL] = m.seq
				n++
				fifo.Push(e)
				m.push(e)
			case 3, 4: // next
				got, ok, wake := fifo.Next(now)
				want, wantOK := m.next(now)
				if ok != wantOK || got.URL != want.URL {
					t.Fatalf("Next = %v %v, model %v %v", got.URL, ok, want.URL, wantOK)
				}
				if ok {
					out = append(out, got)
				} else if want := m.wake(now); !wake.Equal(want) {
					t.Fatalf("Next handed out nothing with wake %v, model %v (now %v)", wake, want, now)
				}
			case 5, 6: // done, with a delay of arg seconds, retrying if arg is odd
				if len(out) == 0 {
					continue
				}
				i := arg % len(out)
				e := out[i]
				out = append(out[:i], out[i+1:]...)
				next := now.Add(time.Duration(arg%8) * time.Second)
				retry := arg%5 == 1
				fifo.Done(e, frontier.Result{Next: next, Retry: retry})
				m.done(e, next, retry, seqOf[e.URL])
			case 7: // time passes
				now = now.Add(time.Duration(arg) * time.Second / 4)
			}
			if fifo.Len() != len(m.queue) {
				t.Fatalf("Len = %d, model %d", fifo.Len(), len(m.queue))
			}
		}
	})
}
