package seen_test

import (
	"fmt"
	"math/rand/v2"
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

func BenchmarkExactAdd(b *testing.B) {
	fps := make([]uint64, 1<<16)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range fps {
		fps[i] = r.Uint64()
	}
	s := seen.NewExact(len(fps))
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		s.Add(fps[i&(len(fps)-1)])
		i++
	}
}
