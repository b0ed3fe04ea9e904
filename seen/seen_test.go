package seen_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"crawler/seen"
)

var _ seen.Set = (*seen.Exact)(nil)

func TestExactAgainstMap(t *testing.T) {
	for _, s := range []*seen.Exact{seen.NewExact(0), seen.NewExact(1000), new(seen.Exact)} {
		model := map[uint64]bool{}
		r := rand.New(rand.NewPCG(1, 2))
		for range 20000 {
			fp := r.Uint64N(5000) // small range: many repeats
			if got, want := s.Add(fp), !model[fp]; got != want {
				t.Fatalf("Add(%d) = %v, want %v", fp, got, want)
			}
			model[fp] = true
			probe := r.Uint64N(10000)
			if got := s.Contains(probe); got != model[probe] {
				t.Fatalf("Contains(%d) = %v, want %v", probe, got, model[probe])
			}
		}
		if s.Len() != len(model) {
			t.Fatalf("Len() = %d, want %d", s.Len(), len(model))
		}
	}
}

func TestExactZeroValue(t *testing.T) {
	var s seen.Exact
	if s.Contains(7) || s.Len() != 0 {
		t.Fatal("zero Exact is not empty")
	}
	if !s.Add(7) || s.Add(7) || !s.Contains(7) || s.Len() != 1 {
		t.Fatal("zero Exact did not behave as a set")
	}
}

func ExampleExact() {
	s := seen.NewExact(16)
	for _, fp := range []uint64{3, 1, 3, 2, 1} {
		fmt.Print(s.Add(fp), " ")
	}
	fmt.Println(s.Len())
	// Output: true true false true false 3
}

func TestExactZeroFingerprintAndGrowth(t *testing.T) {
	s := seen.NewExact(0)
	if !s.Add(0) || s.Add(0) || !s.Contains(0) || s.Contains(1) {
		t.Fatal("fingerprint 0 is not handled as a member")
	}
	for i := uint64(1); i <= 100000; i++ {
		s.Add(i << 40) // same low bits: a weak hash would collide
	}
	if s.Len() != 100001 || !s.Contains(77<<40) || s.Contains(77) {
		t.Fatalf("after growth: Len %d", s.Len())
	}
	if perURL := float64(s.MemoryBytes()) / float64(s.Len()); perURL > 21.5 {
		t.Errorf("%.1f bytes per fingerprint", perURL)
	}
}

func TestExactClear(t *testing.T) {
	s := seen.NewExact(0)
	for i := range uint64(1000) {
		s.Add(i) // 0 among them
	}
	size := s.MemoryBytes()
	s.Clear()
	if s.Len() != 0 || s.Contains(0) || s.Contains(5) || s.MemoryBytes() != size {
		t.Fatalf("after Clear: Len %d, Contains(0) %v, Contains(5) %v, %d bytes (was %d)",
			s.Len(), s.Contains(0), s.Contains(5), s.MemoryBytes(), size)
	}
	if allocs := testing.AllocsPerRun(3, func() {
		s.Clear()
		for i := range uint64(700) {
			s.Add(i*7919 + 1)
		}
	}); allocs != 0 {
		t.Errorf("filling a cleared set again allocated %v times", allocs)
	}
	if !s.Add(5) || s.Add(5) || s.Len() != 701 {
		t.Fatalf("a cleared set does not behave as a set: Len %d", s.Len())
	}
}

// BenchmarkExactAdd inserts n fresh fingerprints per op into our table and
// into a Go map, reporting bytes per fingerprint (heap growth / n).
//
//	go test -run '^$' -bench ExactAdd -count 6 ./seen
func BenchmarkExactAdd(b *testing.B) {
	const n = 1 << 20
	fps := make([]uint64, n)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range fps {
		fps[i] = r.Uint64()
	}
	b.Run("impl=exact", func(b *testing.B) {
		var bytes float64
		for b.Loop() {
			s := seen.NewExact(0)
			for _, fp := range fps {
				s.Add(fp)
			}
			bytes = float64(s.MemoryBytes())
		}
		b.ReportMetric(bytes/n, "B/url")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/add")
	})
	b.Run("impl=map", func(b *testing.B) {
		build := func() map[uint64]struct{} {
			m := map[uint64]struct{}{}
			for _, fp := range fps {
				m[fp] = struct{}{}
			}
			return m
		}
		var ms0, ms1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		m := build()
		runtime.ReadMemStats(&ms1)
		bytes := float64(ms1.HeapAlloc - ms0.HeapAlloc)
		runtime.KeepAlive(m)
		for b.Loop() {
			build()
		}
		b.ReportMetric(bytes/n, "B/url")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/add")
	})
}
