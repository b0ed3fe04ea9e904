package frontier

// The heaps of AOPIC: each host keeps a max-heap of its waiting pages by
// credit, and hosts sit in a min-heap by readyAt (waiting) or a max-heap by
// the credit of their best page (ready). Every element records its
// position, so that one whose credit changed is moved in O(log n).

// better reports whether waiting page i goes before waiting page j: it has
// more credit, or as much and was pushed first. Stored credits of waiting
// pages share one offset, so they compare as they are.
func (a *AOPIC) better(i, j int32) bool {
	ci, cj := a.pages[i].credit, a.pages[j].credit
	if ci != cj {
		return ci > cj
	}
	return i < j
}

func (a *AOPIC) pagePush(h *aopicHost, i int32) {
	a.pages[i].pos = int32(len(h.pages))
	h.pages = append(h.pages, i)
	a.pageUp(h, len(h.pages)-1)
}

// popPage removes and returns h's best page.
func (a *AOPIC) popPage(h *aopicHost) int32 {
	i := h.pages[0]
	last := len(h.pages) - 1
	a.pageSwap(h, 0, last)
	h.pages = h.pages[:last]
	a.pageDown(h, 0)
	a.pages[i].pos = -1
	return i
}

// pageFix moves the page at position k of h's heap to its place after its
// credit grew.
func (a *AOPIC) pageFix(h *aopicHost, k int) { a.pageUp(h, k) }

func (a *AOPIC) pageSwap(h *aopicHost, k, l int) {
	h.pages[k], h.pages[l] = h.pages[l], h.pages[k]
	a.pages[h.pages[k]].pos, a.pages[h.pages[l]].pos = int32(k), int32(l)
}

func (a *AOPIC) pageUp(h *aopicHost, k int) {
	heapUp(k, func(i, j int) bool { return a.better(h.pages[i], h.pages[j]) }, func(i, j int) { a.pageSwap(h, i, j) })
}

func (a *AOPIC) pageDown(h *aopicHost, k int) {
	heapDown(k, len(h.pages), func(i, j int) bool { return a.better(h.pages[i], h.pages[j]) }, func(i, j int) { a.pageSwap(h, i, j) })
}

// aopicHostHeap is a binary heap of hosts with waiting pages, ordered by
// readyAt if byReadyAt is set, then by their best pages.
type aopicHostHeap struct {
	hosts     []*aopicHost
	byReadyAt bool
	group     int // of the hosts in a ready heap
}

func (hh *aopicHostHeap) len() int { return len(hh.hosts) }

func (hh *aopicHostHeap) min() *aopicHost { return hh.hosts[0] }

func (a *AOPIC) hostLess(hh *aopicHostHeap, x, y *aopicHost) bool {
	if hh.byReadyAt {
		if !x.readyAt.Equal(y.readyAt) {
			return x.readyAt.Before(y.readyAt)
		}
		return x.pages[0] < y.pages[0]
	}
	// Pages of one host share its pot and lift; across hosts they count.
	// The hosts of one group share the rate of lambda's lift.
	cx := a.pages[x.pages[0]].credit + x.pot - x.liftMark*groupRate(hh.group)
	cy := a.pages[y.pages[0]].credit + y.pot - y.liftMark*groupRate(hh.group)
	if cx != cy {
		return cx > cy
	}
	return x.pages[0] < y.pages[0]
}

func (a *AOPIC) hostPush(hh *aopicHostHeap, h *aopicHost) {
	h.heap, h.index = hh, len(hh.hosts)
	hh.hosts = append(hh.hosts, h)
	a.hostUp(hh, h.index)
}

func (a *AOPIC) hostRemove(hh *aopicHostHeap, h *aopicHost) {
	i, last := h.index, len(hh.hosts)-1
	if i != last {
		hostSwap(hh, i, last)
	}
	hh.hosts[last] = nil
	hh.hosts = hh.hosts[:last]
	if i != last {
		a.hostDown(hh, i)
		a.hostUp(hh, i)
	}
	h.heap, h.index = nil, -1
}

// hostFix moves h to its place in hh after its best page changed.
func (a *AOPIC) hostFix(hh *aopicHostHeap, h *aopicHost) {
	a.hostDown(hh, h.index)
	a.hostUp(hh, h.index)
}

func hostSwap(hh *aopicHostHeap, i, j int) {
	hh.hosts[i], hh.hosts[j] = hh.hosts[j], hh.hosts[i]
	hh.hosts[i].index, hh.hosts[j].index = i, j
}

func (a *AOPIC) hostUp(hh *aopicHostHeap, i int) {
	heapUp(i, func(i, j int) bool { return a.hostLess(hh, hh.hosts[i], hh.hosts[j]) }, func(i, j int) { hostSwap(hh, i, j) })
}

func (a *AOPIC) hostDown(hh *aopicHostHeap, i int) {
	heapDown(i, len(hh.hosts), func(i, j int) bool { return a.hostLess(hh, hh.hosts[i], hh.hosts[j]) }, func(i, j int) { hostSwap(hh, i, j) })
}
