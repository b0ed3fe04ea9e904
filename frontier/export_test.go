package frontier

import "fmt"

// Credit reports the credit page fp holds now, for tests of AOPIC's
// accounting.
func (a *AOPIC) Credit(fp uint64) float64 {
	i, ok := a.find(fp)
	if !ok {
		return 0
	}
	p := &a.pages[i]
	if p.waiting() {
		return a.credit(i)
	}
	return p.credit
}

// Lambda reports the credit held by AOPIC's virtual page lambda.
func (a *AOPIC) Lambda() float64 { return a.lambda }

// Received reports the credit received by all pages so far.
func (a *AOPIC) Received() float64 { return a.received }

// CheckHeaps reports the first broken invariant of AOPIC's heaps, or "".
func (a *AOPIC) CheckHeaps() string {
	for hi, h := range a.hosts {
		for k, i := range h.pages {
			if a.pages[i].pos != int32(k) || a.pages[i].host != int32(hi) {
				return fmt.Sprintf("host %d: page %d at %d has pos %d", hi, i, k, a.pages[i].pos)
			}
			if k > 0 && a.better(i, h.pages[(k-1)/2]) {
				return fmt.Sprintf("host %d: page heap out of order at %d", hi, k)
			}
		}
		want := len(h.pages) > 0 && h.inflight < PerHostLimit(a.PerHost)
		if (h.heap != nil) != want {
			return fmt.Sprintf("host %d: in a heap %v, want %v (pages %d, inflight %d)", hi, h.heap != nil, want, len(h.pages), h.inflight)
		}
	}
	var inGroup [groups]int
	for _, h := range a.hosts {
		if len(h.pages) > 0 {
			inGroup[h.group] += len(h.pages)
		}
	}
	if inGroup != a.inGroup {
		return fmt.Sprintf("pages by group %v, counted %v", a.inGroup, inGroup)
	}
	heaps := []*aopicHostHeap{&a.waiting}
	for k := range a.ready {
		heaps = append(heaps, &a.ready[k])
	}
	for _, hh := range heaps {
		for k, h := range hh.hosts {
			if h.heap != hh || h.index != k {
				return fmt.Sprintf("host at %d of a heap has index %d", k, h.index)
			}
			if !hh.byReadyAt && (h.group != hh.group || len(h.pages) < 1<<h.group || len(h.pages) >= 2<<h.group) {
				return fmt.Sprintf("host with %d pages in the ready heap of group %d", len(h.pages), hh.group)
			}
			if k > 0 && a.hostLess(hh, h, hh.hosts[(k-1)/2]) {
				return fmt.Sprintf("host heap (byReadyAt %v) out of order at %d", hh.byReadyAt, k)
			}
		}
	}
	return ""
}
