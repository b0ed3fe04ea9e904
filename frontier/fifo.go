package frontier

import (
	"cmp"
	"encoding/binary"
	"slices"
	"time"
)

// FIFO is a breadth-first [Frontier]: among the hosts that are ready, it
// hands out the URL that was pushed first. Its zero value is an empty
// frontier ready to use, allowing one request in flight per host. It is not
// safe for concurrent use.
//
// Hosts are kept in two heaps: those that may be contacted now, ordered by
// the age of their oldest URL, and those waiting for their politeness
// delay, ordered by the time they become ready. Push, Next and Done cost
// O(log h) for h hosts with queued URLs. Memory: one queue per host ever
// seen (about 150 bytes) and the waiting entries, encoded: about 10 bytes
// plus the URL without its scheme and host, and the referrer when it
// changes (BenchmarkMemory: 29 bytes per URL at 1M URLs, against 139 for
// Entry values and their strings).
type FIFO struct {
	// PerHost is the number of entries of one host that may be handed out
	// at once (handed out by Next and not yet Done). 0 means 1; negative,
	// no limit.
	PerHost int

	limit   func(host string) int // see LimitHosts; nil: PerHost for every host
	hosts   map[string]*hostQueue
	ready   hostHeap // dispatchable now, by sequence number of the head entry
	waiting hostHeap // dispatchable once readyAt has passed, by readyAt
	seq     uint64   // of the next entry pushed, from expeditedSeqs on
	early   uint64   // of the next entry expedited, below expeditedSeqs
	n       int
}

// expeditedSeqs bounds the sequence numbers of the entries given to
// Expedite: those pushed number from it on, so that expedited ones come
// first.
const expeditedSeqs = 1 << 62

// hostQueue is the state of one host: its URLs in order and its politeness.
// Waiting entries are kept encoded (see appendEntry), each after the
// uvarint difference of its sequence number from the previous one's.
type hostQueue struct {
	name     string
	retried  []Entry // given back by Done, by seq: older than every packed entry
	packed   []byte  // encoded entries, from packed[head:]
	head     int
	n        int // entries in packed[head:]
	inflight int
	limit    int // entries out at once, from FIFO.limit; 0: FIFO.PerHost
	readyAt  time.Time
	heap     *hostHeap // the heap the host is in, or nil
	index    int       // its index there

	tailSeq, headSeq uint64 // seq of the entry last pushed, and last popped from packed
	tailRef, headRef string // their referrers
}

func (h *hostQueue) len() int { return len(h.retried) + h.n }

// first returns the sequence number of the head entry; h must not be empty.
func (h *hostQueue) first() uint64 {
	if len(h.retried) > 0 {
		return h.retried[0].seq
	}
	d, _ := binary.Uvarint(h.packed[h.head:])
	return h.headSeq + d
}

func (h *hostQueue) push(e Entry) {
	h.packed = binary.AppendUvarint(h.packed, e.seq-h.tailSeq)
	h.packed = appendEntry(h.packed, e, h.name, h.tailRef)
	h.tailSeq, h.tailRef = e.seq, e.Referrer
	h.n++
}

func (h *hostQueue) pop() Entry {
	if len(h.retried) > 0 {
		e := h.retried[0]
		h.retried = h.retried[1:]
		if len(h.retried) == 0 {
			h.retried = nil
		}
		e.Importance = 0
		return e
	}
	d, k := binary.Uvarint(h.packed[h.head:])
	e, n := decodeEntry(h.packed[h.head+k:], h.name, h.headRef)
	e.seq = h.headSeq + d
	h.headSeq, h.headRef = e.seq, e.Referrer
	h.head += k + n
	h.n--
	switch {
	case h.n == 0 && cap(h.packed) > 64<<10:
		h.packed, h.head = nil, 0 // let a drained big queue go
	case h.n == 0:
		h.packed, h.head = h.packed[:0], 0
	case h.head >= 4<<10 && h.head*2 >= len(h.packed):
		n := copy(h.packed, h.packed[h.head:])
		h.packed, h.head = h.packed[:n], 0
	}
	return e
}

// putBack returns a handed-out entry to the queue at the place its
// sequence number gives it: among the other retried entries, before every
// packed one.
func (h *hostQueue) putBack(e Entry) {
	i, _ := slices.BinarySearchFunc(h.retried, e.seq, func(r Entry, seq uint64) int { return cmp.Compare(r.seq, seq) })
	h.retried = slices.Insert(h.retried, i, e)
}

// Push adds e at the back of its host's queue.
func (f *FIFO) Push(e Entry) {
	h := f.host(e.Host)
	e.seq = expeditedSeqs + f.seq
	h.push(e)
	f.seq++
	f.n++
	f.schedule(h)
}

// Expedite adds e ahead of every entry given to Push: at the head of its
// host's queue, after those expedited before, and its host ahead of the
// ready hosts with none. See [Expediter].
func (f *FIFO) Expedite(e Entry) {
	h := f.host(e.Host)
	e.seq = f.early
	f.early++
	h.putBack(e)
	f.n++
	if h.heap != nil {
		h.heap.remove(h)
	}
	f.schedule(h)
}

// Next hands out the oldest URL among the hosts ready at now.
func (f *FIFO) Next(now time.Time) (Entry, bool, time.Time) {
	for f.waiting.len() > 0 && !f.waiting.min().readyAt.After(now) {
		h := f.waiting.popMin()
		f.ready.push(h)
	}
	if f.ready.len() == 0 {
		if f.waiting.len() > 0 {
			return Entry{}, false, f.waiting.min().readyAt
		}
		return Entry{}, false, time.Time{}
	}
	h := f.ready.popMin()
	q := h.pop()
	f.n--
	h.inflight++
	f.schedule(h)
	return q, true, time.Time{}
}

// Done records the outcome of e: the host becomes ready again at r.Next (or
// later), and a retried entry goes back to the head of its host's queue.
func (f *FIFO) Done(e Entry, r Result) {
	h := f.hosts[e.Host]
	if h == nil || h.inflight == 0 {
		panic("frontier: Done for an entry that was not handed out")
	}
	h.inflight--
	if r.Next.After(h.readyAt) {
		h.readyAt = r.Next
	}
	if r.Retry {
		// The entry keeps its sequence number, and so its place in
		// breadth-first order: it is older than anything in its host's queue.
		h.putBack(e)
		f.n++
	}
	if h.heap != nil {
		h.heap.remove(h)
	}
	f.schedule(h)
}

// Len reports the number of URLs waiting. Cost: O(1).
func (f *FIFO) Len() int { return f.n }

// Hosts reports the number of hosts the frontier has seen. Cost: O(1).
func (f *FIFO) Hosts() int { return len(f.hosts) }

func (f *FIFO) host(name string) *hostQueue {
	if f.hosts == nil {
		f.hosts = make(map[string]*hostQueue)
		f.waiting.byReadyAt = true
	}
	h := f.hosts[name]
	if h == nil {
		h = &hostQueue{name: name, limit: hostLimit(f.limit, name), index: -1}
		f.hosts[name] = h
	}
	return h
}

// schedule puts h in the heap it belongs to, if any: a host with URLs and
// a free slot waits for its ready time; others sit in no heap.
func (f *FIFO) schedule(h *hostQueue) {
	if h.heap != nil || h.len() == 0 || h.inflight >= hostOr(h.limit, f.PerHost) {
		return
	}
	f.waiting.push(h)
}

// Wake makes host's entries ready from at, if its ready time is later;
// see [Waker]. Cost: O(log h).
func (f *FIFO) Wake(host string, at time.Time) {
	h := f.hosts[host]
	if h == nil || !h.readyAt.After(at) {
		return
	}
	h.readyAt = at
	if h.heap == &f.waiting {
		f.waiting.remove(h)
		f.schedule(h)
	}
}

// LimitHosts sets the function that gives a host's limit of entries out
// at once in place of PerHost; see [HostLimiter]. Hosts met already take
// theirs at once. Cost: O(h log h) for h hosts met.
func (f *FIFO) LimitHosts(limit func(host string) int) {
	f.limit = limit
	for _, h := range f.hosts {
		h.limit = hostLimit(limit, h.name)
		if h.heap != nil && h.inflight >= hostOr(h.limit, f.PerHost) {
			h.heap.remove(h)
		}
		f.schedule(h)
	}
}
