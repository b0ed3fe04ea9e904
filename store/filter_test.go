package store

import (
	"math/rand/v2"
	"testing"

	"crawler/seen"
)

// TestBlockFilterRate fills filters to their expected size and checks that
// every fingerprint added is "maybe" and that the false "maybe" answers of
// fingerprints never added are about 1.15%, where seen.Bloom's are 1% in
// as many bits.
func TestBlockFilterRate(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1000, 200_000} {
		f := newBlockFilter(n, func(n int) []uint64 { return make([]uint64, n) })
		r := rand.New(rand.NewPCG(uint64(n), 1))
		added := make([]uint64, n)
		for i := range added {
			added[i] = r.Uint64()
			f.add(added[i])
		}
		for _, fp := range added {
			if !f.contains(fp) {
				t.Fatalf("n=%d: %#x added, not contained", n, fp)
			}
		}
		const tests = 1_000_000
		falses := 0
		for range tests {
			if f.contains(r.Uint64()) {
				falses++
			}
		}
		rate := float64(falses) / tests
		t.Logf("n=%d: %d blocks, %.1f bits each, false maybe %.3f%%", n, f.blocks, float64(f.blocks*512)/float64(n), 100*rate)
		if rate < 0.009 || rate > 0.014 {
			t.Errorf("n=%d: false maybe rate %.3f%%, want about 1.15%%", n, 100*rate)
		}
	}
}

// TestBlockFilterAdd checks add's answer: true the first time, false after.
func TestBlockFilterAdd(t *testing.T) {
	t.Parallel()
	f := newBlockFilter(100, func(n int) []uint64 { return make([]uint64, n) })
	if f.blocks != 2 { // 960 bits: two blocks of 512
		t.Fatalf("%d blocks for 100 fingerprints, want 2", f.blocks)
	}
	for fp := uint64(1); fp <= 50; fp++ {
		if f.contains(fp * 0x9e3779b97f4a7c15) {
			continue // a false maybe: add may say false
		}
		if !f.add(fp * 0x9e3779b97f4a7c15) {
			t.Fatalf("add of %d, not contained, reported not new", fp)
		}
		if f.add(fp * 0x9e3779b97f4a7c15) {
			t.Fatalf("second add of %d reported new", fp)
		}
	}
}

// BenchmarkFilter compares the store's blocked filter with seen.Bloom at
// the store's default size (10M fingerprints), filled to a third: adds of
// new fingerprints, and tests of those added (which probe every bit).
func BenchmarkFilter(b *testing.B) {
	const n = DefaultExpectedURLs
	fps := make([]uint64, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range fps {
		fps[i] = r.Uint64()
	}
	fill := func(add func(uint64) bool) {
		for range n / 3 {
			add(r.Uint64())
		}
	}
	alloc := func(n int) []uint64 { return offHeapWords(b, n) }
	bloom := seen.NewBloomIn(n, 0.01, alloc)
	block := newBlockFilter(n, alloc)
	fill(bloom.Add)
	fill(block.add)
	for _, c := range []struct {
		name          string
		add, contains func(uint64) bool
	}{{"bloom", bloom.Add, bloom.Contains}, {"blocked", block.add, block.contains}} {
		b.Run(c.name+"/add", func(b *testing.B) {
			i := 0
			for b.Loop() {
				c.add(fps[i&(len(fps)-1)] + uint64(i>>20))
				i++
			}
		})
		b.Run(c.name+"/contains", func(b *testing.B) {
			i := 0
			for b.Loop() {
				c.contains(fps[i&(len(fps)-1)])
				i++
			}
		})
	}
}
