package frontier

// hostHeap is a binary min-heap of hosts that records each host's position,
// so that a host can be removed from the middle. It orders hosts by the
// sequence number of their head entry (oldest first), or, if byReadyAt is
// set, by readyAt first.
type hostHeap struct {
	hosts     []*hostQueue
	byReadyAt bool
}

func (hh *hostHeap) len() int { return len(hh.hosts) }

func (hh *hostHeap) min() *hostQueue { return hh.hosts[0] }

func (hh *hostHeap) push(h *hostQueue) {
	h.heap, h.index = hh, len(hh.hosts)
	hh.hosts = append(hh.hosts, h)
	hh.up(h.index)
}

func (hh *hostHeap) popMin() *hostQueue {
	h := hh.hosts[0]
	hh.remove(h)
	return h
}

func (hh *hostHeap) remove(h *hostQueue) {
	i, last := h.index, len(hh.hosts)-1
	if i != last {
		hh.swap(i, last)
	}
	hh.hosts[last] = nil
	hh.hosts = hh.hosts[:last]
	if i != last {
		hh.down(i)
		hh.up(i)
	}
	h.heap, h.index = nil, -1
}

func (hh *hostHeap) less(a, b *hostQueue) bool {
	if hh.byReadyAt && !a.readyAt.Equal(b.readyAt) {
		return a.readyAt.Before(b.readyAt)
	}
	return a.first() < b.first()
}

func (hh *hostHeap) swap(i, j int) {
	hh.hosts[i], hh.hosts[j] = hh.hosts[j], hh.hosts[i]
	hh.hosts[i].index, hh.hosts[j].index = i, j
}

func (hh *hostHeap) up(i int) {
	heapUp(i, func(i, j int) bool { return hh.less(hh.hosts[i], hh.hosts[j]) }, hh.swap)
}

func (hh *hostHeap) down(i int) {
	heapDown(i, len(hh.hosts), func(i, j int) bool { return hh.less(hh.hosts[i], hh.hosts[j]) }, hh.swap)
}

// heapUp moves the element at position i of a binary heap toward the root
// while it goes before its parent; heapDown moves it, in a heap of n
// elements, toward the leaves while a child goes before it. before and
// swap take positions. Every heap of the package sifts with these two.
func heapUp(i int, before func(i, j int) bool, swap func(i, j int)) {
	for i > 0 {
		p := (i - 1) / 2
		if !before(i, p) {
			return
		}
		swap(i, p)
		i = p
	}
}

func heapDown(i, n int, before func(i, j int) bool, swap func(i, j int)) {
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && before(r, l) {
			c = r
		}
		if !before(c, i) {
			return
		}
		swap(i, c)
		i = c
	}
}
