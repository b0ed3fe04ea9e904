package store

import "math"

// hostHeap orders hosts by the seq of their first waiting entry (the ready
// hosts: breadth-first order across hosts), by the share of their
// requests done, least first (the ready hosts under Options.LongestFirst,
// see hostQueue.doneShare), or by ready time (the waiting ones). Each
// host's key is copied into the heap when it is pushed, so that a
// comparison reads the heap's array alone, not two hosts and their heads
// (three cache misses each, 1.6% of a durable crawl's CPU at 5 ms
// latency): the key stays what it was then while the host is in the heap
// (entries pushed since are not seen), until the host is removed.
type hostHeap struct {
	items     []heapItem
	byReadyAt bool
	byLeft    bool    // the ready hosts by share of their requests done, least first, then by seq
	typical   float64 // byLeft: a host's entries waiting and done, on average (see hostQueue.doneShare)
}

// heapItem is a host in a hostHeap and its key: (0, seq of its first
// entry), (the share of its requests done in billionths, seq of its first
// entry), or (its ready time in Unix nanoseconds, id). Ready times compare
// by their wall clock reading, as the store keeps them, not the monotonic
// one: a step of the clock between two hosts' times may order them wrong
// by as much, which only delays the later one.
type heapItem struct {
	at  int64
	seq uint64
	h   *hostQueue
}

func (q *hostHeap) len() int        { return len(q.items) }
func (q *hostHeap) min() *hostQueue { return q.items[0].h }

// push adds h, with its key as it is now.
func (q *hostHeap) push(h *hostQueue) {
	it := heapItem{h: h}
	switch {
	case q.byLeft:
		it.at, it.seq = int64(h.doneShare(q.typical)*1e9), h.head[0].seq
	case !q.byReadyAt:
		it.seq = h.head[0].seq
	case h.readyAt.IsZero():
		it.at, it.seq = math.MinInt64, uint64(h.id)
	default:
		it.at, it.seq = h.readyAt.UnixNano(), uint64(h.id)
	}
	h.heap, h.index = q, len(q.items)
	q.items = append(q.items, it)
	q.up(h.index)
}

// remove takes h out.
func (q *hostHeap) remove(h *hostQueue) {
	i, last := h.index, len(q.items)-1
	if i != last {
		q.swap(i, last)
	}
	q.items = q.items[:last]
	if i != last && !q.down(i) {
		q.up(i)
	}
	h.heap, h.index = nil, -1
}

func (q *hostHeap) less(i, j int) bool {
	a, b := &q.items[i], &q.items[j]
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

func (q *hostHeap) swap(i, j int) {
	q.items[i], q.items[j] = q.items[j], q.items[i]
	q.items[i].h.index, q.items[j].h.index = i, j
}

// up and down are the sift steps of package frontier's heapUp and
// heapDown, written again with direct calls of less and swap: through
// frontier's closures a pop and push of this heap took 60% more time
// (a benchmark of 20,000 hosts, six runs each, alternated).
func (q *hostHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			return
		}
		q.swap(i, parent)
		i = parent
	}
}

// down moves the item at i down to its place, and reports whether it
// moved.
func (q *hostHeap) down(i int) bool {
	start, n := i, len(q.items)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && q.less(r, c) {
			c = r
		}
		if !q.less(c, i) {
			break
		}
		q.swap(i, c)
		i = c
	}
	return i > start
}
