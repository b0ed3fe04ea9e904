package seen_test

import (
	"math/rand/v2"
	"sync"
	"testing"

	"crawler/seen"
)

var _ seen.Set = (*seen.SyncBloom)(nil)

// Many goroutines add disjoint fingerprints at once: every one is
// contained afterwards, and the filter answers like a sequential one.
func TestSyncBloomConcurrentAdds(t *testing.T) {
	const goroutines, each = 8, 5000
	s := seen.NewSyncBloom(goroutines*each, 0.001)
	seq := seen.NewBloom(goroutines*each, 0.001)
	all := make([][]uint64, goroutines)
	for g := range all {
		r := rand.New(rand.NewPCG(uint64(g), 77))
		for range each {
			fp := r.Uint64()
			all[g] = append(all[g], fp)
			seq.Add(fp)
		}
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for _, fp := range all[g] {
				s.Add(fp)
				if !s.Contains(fp) {
					t.Errorf("%x missing right after its Add", fp)
				}
			}
		})
	}
	wg.Wait()
	for _, fps := range all {
		for _, fp := range fps {
			if !s.Contains(fp) || s.Add(fp) {
				t.Fatalf("%x lost", fp)
			}
		}
	}
	for probe := range uint64(20000) {
		x := probe * 0x9E3779B97F4A7C15
		if s.Contains(x) != seq.Contains(x) {
			t.Fatalf("concurrent and sequential filters disagree on %x", x)
		}
	}
	if s.Len() < goroutines*each*99/100 {
		t.Errorf("Len = %d", s.Len())
	}
}
