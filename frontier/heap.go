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
	for i > 0 {
		p := (i - 1) / 2
		if !hh.less(hh.hosts[i], hh.hosts[p]) {
			return
		}
		hh.swap(i, p)
		i = p
	}
}

func (hh *hostHeap) down(i int) {
	n := len(hh.hosts)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && hh.less(hh.hosts[r], hh.hosts[l]) {
			c = r
		}
		if !hh.less(hh.hosts[c], hh.hosts[i]) {
			return
		}
		hh.swap(i, c)
		i = c
	}
}
