package frontier

import (
	"cmp"
	"container/heap"
	"time"

	"crawler/graph"
)

// Priority is a [Frontier] that hands out, among the ready hosts, the
// waiting URL of highest importance by the URL-based formula of the
// crawl-ordering literature (Cho, Garcia-Molina and Page, 1998):
//
//	I(P) = A·backlinks(P) + B·URLScore(P)
//
// where backlinks(P) counts the links to P in the pages done so far
// ([Result.Links], links to pages already seen included) and URLScore
// scores the URL itself. A link found after P was pushed raises P's
// importance where it waits. Ties go to the URL pushed first, so with A
// and B off Priority is breadth-first. Entry.Importance, as handed out, is
// I(P). Its zero value is an empty frontier ready to use (A = B = 1). It is
// not safe for concurrent use.
//
// Unlike [AOPIC], whose credit flows along links and is shared out, a
// backlink counts the same from any page; it is cheaper and needs no
// seeds' credit, but a link farm raises its targets as much as a portal
// does. Costs: Push, Next and each link of Done O(log n + log h) for n
// waiting URLs and h hosts; memory about 100 bytes per waiting URL and 12
// bytes per URL ever linked to (its backlink count).
type Priority struct {
	// PerHost is the number of entries of one host that may be handed out
	// at once. 0 means 1; negative, no limit.
	PerHost int
	// A weighs backlinks and B the URL's score. 0 means 1; negative, 0
	// (the term is off).
	A, B float64
	// URLScore scores a URL in [0, 1]. Nil means graph.DefaultURLScore:
	// 1/(1+d) for a URL d path segments (and a query) below its host's
	// home page, which scores 1.
	URLScore func(url string) float64

	limit     func(host string) int // see LimitHosts; nil: PerHost for every host
	hosts     map[string]*priorityHost
	ready     priorityHosts // dispatchable now, by their best entry
	waiting   priorityHosts // dispatchable once readyAt has passed
	waitingBy map[uint64]*priorityEntry
	backlinks map[uint64]int32
	seq       uint64
	n         int
}

// priorityEntry is an entry waiting in a Priority, with its importance.
type priorityEntry struct {
	e     Entry
	score float64
	seq   uint64
	host  *priorityHost
	index int // in host.queue
}

// priorityHost is one host of a Priority: its waiting entries, best
// first, and its politeness.
type priorityHost struct {
	name     string
	queue    priorityQueue
	inflight int
	limit    int // entries out at once, from Priority.limit; 0: Priority.PerHost
	readyAt  time.Time
	heap     *priorityHosts // the heap the host is in, or nil
	index    int            // its index there
}

// before orders entries: higher importance first, then pushed first.
func (a *priorityEntry) before(b *priorityEntry) bool {
	return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.seq, b.seq)) < 0
}

// priorityQueue is a host's waiting entries, a heap with the best first.
type priorityQueue []*priorityEntry

func (q priorityQueue) Len() int           { return len(q) }
func (q priorityQueue) Less(i, j int) bool { return q[i].before(q[j]) }
func (q priorityQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}
func (q *priorityQueue) Push(x any) {
	e := x.(*priorityEntry)
	e.index = len(*q)
	*q = append(*q, e)
}
func (q *priorityQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return e
}

// priorityHosts is a heap of hosts: by their best entry, or by readyAt.
type priorityHosts struct {
	hosts     []*priorityHost
	byReadyAt bool
}

func (h *priorityHosts) Len() int { return len(h.hosts) }
func (h *priorityHosts) Less(i, j int) bool {
	a, b := h.hosts[i], h.hosts[j]
	if h.byReadyAt {
		return a.readyAt.Before(b.readyAt)
	}
	return a.queue[0].before(b.queue[0])
}
func (h *priorityHosts) Swap(i, j int) {
	h.hosts[i], h.hosts[j] = h.hosts[j], h.hosts[i]
	h.hosts[i].index, h.hosts[j].index = i, j
}
func (h *priorityHosts) Push(x any) {
	ph := x.(*priorityHost)
	ph.index, ph.heap = len(h.hosts), h
	h.hosts = append(h.hosts, ph)
}
func (h *priorityHosts) Pop() any {
	ph := h.hosts[len(h.hosts)-1]
	h.hosts[len(h.hosts)-1] = nil
	h.hosts = h.hosts[:len(h.hosts)-1]
	ph.heap, ph.index = nil, -1
	return ph
}

// weight is the weight a Priority's A or B field gives.
func weight(w float64) float64 {
	switch {
	case w == 0:
		return 1
	case w < 0:
		return 0
	}
	return w
}

// importance returns I(P) of a URL with the given backlinks.
func (f *Priority) importance(url string, backlinks int32) float64 {
	score := f.URLScore
	if score == nil {
		score = graph.DefaultURLScore
	}
	return weight(f.A)*float64(backlinks) + weight(f.B)*score(url)
}

// Push adds e, at the place its importance gives it among its host's URLs.
func (f *Priority) Push(e Entry) {
	f.add(&priorityEntry{e: e, score: f.importance(e.URL, f.backlinks[e.FP]), seq: f.seq})
	f.seq++
}

// add puts p in its host's queue.
func (f *Priority) add(p *priorityEntry) {
	if f.hosts == nil {
		f.hosts = map[string]*priorityHost{}
		f.waitingBy = map[uint64]*priorityEntry{}
		f.backlinks = map[uint64]int32{}
		f.waiting.byReadyAt = true
	}
	h := f.hosts[p.e.Host]
	if h == nil {
		h = &priorityHost{name: p.e.Host, limit: hostLimit(f.limit, p.e.Host), index: -1}
		f.hosts[p.e.Host] = h
	}
	p.host = h
	heap.Push(&h.queue, p)
	f.waitingBy[p.e.FP] = p
	f.n++
	if h.heap == &f.ready {
		heap.Fix(&f.ready, h.index) // its best entry may be p
	}
	f.schedule(h)
}

// Next hands out the most important URL among the hosts ready at now.
func (f *Priority) Next(now time.Time) (Entry, bool, time.Time) {
	for f.waiting.Len() > 0 && !f.waiting.hosts[0].readyAt.After(now) {
		heap.Push(&f.ready, heap.Pop(&f.waiting))
	}
	if f.ready.Len() == 0 {
		if f.waiting.Len() > 0 {
			return Entry{}, false, f.waiting.hosts[0].readyAt
		}
		return Entry{}, false, time.Time{}
	}
	h := heap.Pop(&f.ready).(*priorityHost)
	p := heap.Pop(&h.queue).(*priorityEntry)
	if f.waitingBy[p.e.FP] == p {
		delete(f.waitingBy, p.e.FP)
	}
	f.n--
	h.inflight++
	f.schedule(h)
	e := p.e
	e.Importance, e.seq = p.score, p.seq
	return e, true, time.Time{}
}

// Done records the outcome of e: its host becomes ready at r.Next (or
// later), a retried entry waits again in its place, and each of r.Links
// gains a backlink, which raises it where it waits.
func (f *Priority) Done(e Entry, r Result) {
	h := f.hosts[e.Host]
	if h == nil || h.inflight == 0 {
		panic("frontier: Done for an entry that was not handed out")
	}
	h.inflight--
	if r.Next.After(h.readyAt) {
		h.readyAt = r.Next
	}
	if h.heap != nil {
		heap.Remove(h.heap, h.index)
	}
	if r.Retry { // in its place: the importance it has now, and its sequence number
		f.add(&priorityEntry{e: e, score: f.importance(e.URL, f.backlinks[e.FP]), seq: e.seq})
	}
	a := weight(f.A)
	for _, fp := range r.Links {
		f.backlinks[fp]++
		if p := f.waitingBy[fp]; p != nil && a > 0 {
			p.score += a
			heap.Fix(&p.host.queue, p.index)
			if p.host.heap == &f.ready {
				heap.Fix(&f.ready, p.host.index)
			}
		}
	}
	f.schedule(h)
}

// schedule puts h, if it is in no heap, where it belongs: a host with
// entries and a free slot waits for its ready time (Next moves it to the
// ready hosts once that passed); others sit in no heap.
func (f *Priority) schedule(h *priorityHost) {
	if h.heap == nil && h.queue.Len() > 0 && h.inflight < hostOr(h.limit, f.PerHost) {
		heap.Push(&f.waiting, h)
	}
}

// Wake makes host's entries ready from at, if its ready time is later;
// see [Waker]. Cost: O(log h).
func (f *Priority) Wake(host string, at time.Time) {
	h := f.hosts[host]
	if h == nil || !h.readyAt.After(at) {
		return
	}
	h.readyAt = at
	if h.heap == &f.waiting {
		heap.Fix(&f.waiting, h.index)
	}
}

// LimitHosts sets the function that gives a host's limit of entries out
// at once in place of PerHost; see [HostLimiter]. Hosts met already take
// theirs at once. Cost: O(h log h) for h hosts met.
func (f *Priority) LimitHosts(limit func(host string) int) {
	f.limit = limit
	for _, h := range f.hosts {
		h.limit = hostLimit(limit, h.name)
		if h.heap != nil && h.inflight >= hostOr(h.limit, f.PerHost) {
			heap.Remove(h.heap, h.index)
		}
		f.schedule(h)
	}
}

// Len reports the number of URLs waiting. Cost: O(1).
func (f *Priority) Len() int { return f.n }

// Backlinks reports the links to the URL of fingerprint fp found so far.
func (f *Priority) Backlinks(fp uint64) int { return int(f.backlinks[fp]) }
