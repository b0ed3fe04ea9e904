package frontier

import "time"

// FIFO is a breadth-first [Frontier]: among the hosts that are ready, it
// hands out the URL that was pushed first. Its zero value is an empty
// frontier ready to use, allowing one request in flight per host. It is not
// safe for concurrent use.
//
// Hosts are kept in two heaps: those that may be contacted now, ordered by
// the age of their oldest URL, and those waiting for their politeness
// delay, ordered by the time they become ready. Push, Next and Done cost
// O(log h) for h hosts with queued URLs. Memory: one queue per host ever
// seen (about 100 bytes plus its URLs) and the entries themselves.
type FIFO struct {
	// PerHost is the number of entries of one host that may be handed out
	// at once (handed out by Next and not yet Done). Zero means 1.
	PerHost int

	hosts   map[string]*hostQueue
	ready   hostHeap // dispatchable now, by sequence number of the head entry
	waiting hostHeap // dispatchable once readyAt has passed, by readyAt
	seq     uint64
	n       int
}

// hostQueue is the state of one host: its URLs in order and its politeness.
type hostQueue struct {
	name     string
	entries  []Entry
	head     int // entries[head:] are waiting
	inflight int
	readyAt  time.Time
	heap     *hostHeap // the heap the host is in, or nil
	index    int       // its index there
}

func (h *hostQueue) len() int { return len(h.entries) - h.head }

func (h *hostQueue) pop() Entry {
	q := h.entries[h.head]
	h.entries[h.head] = Entry{}
	h.head++
	if h.head == len(h.entries) {
		h.entries, h.head = h.entries[:0], 0
	} else if h.head >= 64 && h.head*2 >= len(h.entries) {
		n := copy(h.entries, h.entries[h.head:])
		clear(h.entries[n:])
		h.entries, h.head = h.entries[:n], 0
	}
	return q
}

// putBack returns a handed-out entry to the queue at the place its
// sequence number gives it, which is at or near the head.
func (h *hostQueue) putBack(e Entry) {
	i := h.head
	for i < len(h.entries) && h.entries[i].seq < e.seq {
		i++
	}
	if i == h.head && h.head > 0 {
		h.head--
		h.entries[h.head] = e
		return
	}
	h.entries = append(h.entries, Entry{})
	copy(h.entries[i+1:], h.entries[i:])
	h.entries[i] = e
}

// Push adds e at the back of its host's queue.
func (f *FIFO) Push(e Entry) {
	h := f.host(e.Host)
	e.seq = f.seq
	h.entries = append(h.entries, e)
	f.seq++
	f.n++
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
		h = &hostQueue{name: name, index: -1}
		f.hosts[name] = h
	}
	return h
}

// schedule puts h in the heap it belongs to, if any: a host with URLs and
// a free slot waits for its ready time; others sit in no heap.
func (f *FIFO) schedule(h *hostQueue) {
	if h.heap != nil || h.len() == 0 || h.inflight >= max(f.PerHost, 1) {
		return
	}
	f.waiting.push(h)
}
