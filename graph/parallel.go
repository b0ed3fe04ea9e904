package graph

import (
	"sync"
	"sync/atomic"
)

// blockWork is the work of a block of nodes: about this many nodes plus
// edges. Blocks depend on the graph only, never on the number of workers,
// and per-block sums are added in block order, so results are the same,
// bit for bit, on any number of workers.
const blockWork = 1 << 16

// makeBlocks splits nodes 0 to len(off)-2 into ranges of about blockWork
// nodes plus edges, where node k has off[k+1]-off[k] edges. It returns the
// boundaries: block b is nodes bounds[b] to bounds[b+1]-1.
func makeBlocks(off []uint32) []int {
	n := len(off) - 1
	bounds := []int{0}
	lo := 0
	for k := range n {
		if k-lo+int(off[k+1]-off[lo]) >= blockWork {
			bounds = append(bounds, k+1)
			lo = k + 1
		}
	}
	if lo < n || n == 0 {
		bounds = append(bounds, n)
	}
	return bounds
}

// parallel calls f(b, lo, hi) for every block b of bounds (nodes lo to
// hi-1) on up to workers goroutines, the calling one included, and returns
// when all calls have.
func parallel(workers int, bounds []int, f func(b, lo, hi int)) {
	blocks := len(bounds) - 1
	if workers <= 1 || blocks <= 1 {
		for b := range blocks {
			f(b, bounds[b], bounds[b+1])
		}
		return
	}
	var next atomic.Int64
	run := func() {
		for {
			b := int(next.Add(1) - 1)
			if b >= blocks {
				return
			}
			f(b, bounds[b], bounds[b+1])
		}
	}
	var wg sync.WaitGroup
	for range min(workers, blocks) - 1 {
		wg.Go(run)
	}
	run()
	wg.Wait()
}
