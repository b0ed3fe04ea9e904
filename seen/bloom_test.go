package seen_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"crawler/seen"
)

var (
	_ seen.Estimator = (*seen.Bloom)(nil)
	_ seen.Estimator = (*seen.Bitmap)(nil)
)

// probabilistic is what Bloom and Bitmap share beyond Set.
type probabilistic interface {
	seen.Estimator
	MemoryBytes() int
}

// TestNoFalseNegatives: whatever was added is always contained, and Add of
// something added before never reports it new (which would fetch it twice).
func TestNoFalseNegatives(t *testing.T) {
	for name, s := range map[string]probabilistic{
		"bloom":  seen.NewBloom(10000, 0.01),
		"bitmap": seen.NewBitmap(1 << 16),
	} {
		r := rand.New(rand.NewPCG(5, 6))
		added := make([]uint64, 0, 10000)
		for range 10000 {
			fp := r.Uint64()
			s.Add(fp)
			added = append(added, fp)
		}
		for _, fp := range added {
			if !s.Contains(fp) || s.Add(fp) {
				t.Fatalf("%s: lost fingerprint %x", name, fp)
			}
		}
	}
}

func TestBloomFalsePositiveRate(t *testing.T) {
	const n = 200000
	for _, p := range []float64{0.01, 0.001} {
		b := seen.NewBloom(n, p)
		r := rand.New(rand.NewPCG(7, 8))
		for range n {
			b.Add(r.Uint64())
		}
		fp := 0
		const probes = 200000
		for range probes {
			if b.Contains(r.Uint64()) { // fresh random values: never added
				fp++
			}
		}
		measured := float64(fp) / probes
		if measured > p*1.25 {
			t.Errorf("p=%v: measured false-positive rate %.5f", p, measured)
		}
		if est := b.FPRate(); est < p*0.7 || est > p*1.3 {
			t.Errorf("p=%v: FPRate estimate %.5f", p, est)
		}
		if bitsPerURL := float64(b.MemoryBytes()*8) / n; bitsPerURL > 1.05*(-1.4427*1.4427)*logf(p) {
			t.Errorf("p=%v: %.2f bits per URL", p, bitsPerURL)
		}
	}
}

func TestBitmapFPRateIsFill(t *testing.T) {
	b := seen.NewBitmap(1000)
	for i := range uint64(100) {
		b.Add(i * 0x9E3779B97F4A7C15)
	}
	if got := b.FPRate(); got != float64(b.Len())/1000 || b.Len() < 90 {
		t.Errorf("FPRate = %v with %d bits set of 1000", got, b.Len())
	}
}

func BenchmarkBloomAdd(b *testing.B) {
	const n = 1 << 20
	fps := make([]uint64, n)
	r := rand.New(rand.NewPCG(9, 10))
	for i := range fps {
		fps[i] = r.Uint64()
	}
	bl := seen.NewBloom(n, 0.01)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		bl.Add(fps[i&(n-1)])
		i++
	}
}

func logf(x float64) float64 { return math.Log(x) }

// TestBloomIn: a filter on words of the caller's answers as NewBloom's does,
// and its bits are those words.
func TestBloomIn(t *testing.T) {
	var words []uint64
	in := seen.NewBloomIn(10000, 0.01, func(n int) []uint64 {
		if words != nil {
			t.Fatal("alloc called twice")
		}
		words = make([]uint64, n)
		return words
	})
	ref := seen.NewBloom(10000, 0.01)
	if in.MemoryBytes() != ref.MemoryBytes() || in.MemoryBytes() != 8*len(words) {
		t.Fatalf("MemoryBytes %d and %d for %d words", in.MemoryBytes(), ref.MemoryBytes(), len(words))
	}
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 20000 {
		fp := r.Uint64()
		if i%2 == 0 {
			if in.Add(fp) != ref.Add(fp) {
				t.Fatalf("Add(%x) differs", fp)
			}
		} else if in.Contains(fp) != ref.Contains(fp) {
			t.Fatalf("Contains(%x) differs", fp)
		}
	}
	set := 0
	for _, w := range words {
		if w != 0 {
			set++
		}
	}
	if set == 0 || in.FPRate() != ref.FPRate() {
		t.Fatalf("%d words set, FP rates %v and %v", set, in.FPRate(), ref.FPRate())
	}
}
