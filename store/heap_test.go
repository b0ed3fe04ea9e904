package store

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// A hostHeap hands out its hosts in key order, whatever was pushed and
// removed before, by seq of the first entry, by share of its requests
// done and seq, or by ready time and id.
func TestHostHeapOrder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for _, q := range []*hostHeap{{}, {byLeft: true, typical: 6}, {byReadyAt: true}} {
		byReadyAt := q.byReadyAt
		key := func(h *hostQueue) [2]int64 {
			if q.byLeft {
				return [2]int64{int64(h.doneShare(q.typical) * 1e9), int64(h.head[0].seq)}
			}
			if !byReadyAt {
				return [2]int64{0, int64(h.head[0].seq)}
			}
			if h.readyAt.IsZero() {
				return [2]int64{-1 << 63, int64(h.id)}
			}
			return [2]int64{h.readyAt.UnixNano(), int64(h.id)}
		}
		in := map[*hostQueue]bool{}
		var hosts []*hostQueue
		for i := range 300 {
			h := &hostQueue{id: uint32(i), index: -1, head: []queued{{seq: r.Uint64N(1000)}}, count: 1 + r.IntN(9)}
			h.done = r.IntN(20)
			h.fetched = r.IntN(h.done + 1)
			if r.IntN(10) > 0 { // some never waited: the zero time
				h.readyAt = time.Unix(0, r.Int64N(50)*int64(time.Millisecond))
			}
			hosts = append(hosts, h)
		}
		for range 2000 {
			h := hosts[r.IntN(len(hosts))]
			switch {
			case !in[h]:
				q.push(h)
				in[h] = true
			case r.IntN(2) == 0:
				q.remove(h)
				in[h] = false
			}
			if h.heap != nil != in[h] {
				t.Fatalf("host %d: in a heap %v, want %v", h.id, h.heap != nil, in[h])
			}
		}
		var want [][2]int64
		for h, ok := range in {
			if ok {
				want = append(want, key(h))
			}
		}
		slices.SortFunc(want, func(a, b [2]int64) int { return slices.Compare(a[:], b[:]) })
		var got [][2]int64
		for q.len() > 0 {
			h := q.min()
			got = append(got, key(h))
			q.remove(h)
		}
		if !slices.Equal(got, want) {
			t.Errorf("byReadyAt %v, byLeft %v: popped %v,\nwant %v", byReadyAt, q.byLeft, got, want)
		}
	}
}
