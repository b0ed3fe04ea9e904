package frontier

import "fmt"

// Credit reports the credit page fp holds now, for tests of AOPIC's
// accounting.
func (a *AOPIC) Credit(fp uint64) float64 {
	i, ok := a.byFP[fp]
	if !ok {
		return 0
	}
	p := &a.pages[i]
	if p.waiting() {
		return p.credit + a.spread + a.hosts[p.host].pot
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
		want := len(h.pages) > 0 && h.inflight < max(a.PerHost, 1)
		if (h.heap != nil) != want {
			return fmt.Sprintf("host %d: in a heap %v, want %v (pages %d, inflight %d)", hi, h.heap != nil, want, len(h.pages), h.inflight)
		}
	}
	for _, hh := range []*aopicHostHeap{&a.ready, &a.waiting} {
		for k, h := range hh.hosts {
			if h.heap != hh || h.index != k {
				return fmt.Sprintf("host at %d of a heap has index %d", k, h.index)
			}
			if k > 0 && a.hostLess(hh, h, hh.hosts[(k-1)/2]) {
				return fmt.Sprintf("host heap (byReadyAt %v) out of order at %d", hh.byReadyAt, k)
			}
		}
	}
	return ""
}
