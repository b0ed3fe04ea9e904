package crawlertest

import (
	"math"
	"testing"
)

// TestZipf checks the frequencies of zipf's draws against 1/(rank+1)^s.
func TestZipf(t *testing.T) {
	for _, tt := range []struct {
		n int
		s float64
	}{{1, 1}, {2, 0.5}, {10, 1}, {100, 1.5}} {
		z := newZipf(tt.n, tt.s)
		rg := rng{s: 42}
		const draws = 200_000
		got := make([]int, tt.n)
		for range draws {
			got[z.draw(&rg)]++
		}
		total := 0.0
		for i := range tt.n {
			total += math.Pow(float64(i+1), -tt.s)
		}
		for i := range min(tt.n, 10) {
			p := math.Pow(float64(i+1), -tt.s) / total
			want := p * draws
			if sd := math.Sqrt(want * (1 - p)); math.Abs(float64(got[i])-want) > 5*sd+1 {
				t.Errorf("n=%d s=%v: rank %d drawn %d times, want %.0f±%.0f", tt.n, tt.s, i, got[i], want, 5*sd)
			}
		}
	}
	if newZipf(0, 1) != nil {
		t.Error("newZipf(0, 1) not nil")
	}
}

// TestOtherHostPopular checks that with Popularity the target of a
// cross-host link is never the linking host and favours low indexes.
func TestOtherHostPopular(t *testing.T) {
	g := testGen(10, 10, 10)
	g.hostPop = newZipf(g.hosts-1, 1)
	rg := rng{s: 7}
	hits := make([]int, g.hosts)
	for range 10_000 {
		for h := range g.hosts {
			o := g.otherHost(&rg, h)
			if o == h || o < 0 || o >= g.hosts {
				t.Fatalf("otherHost(%d) = %d", h, o)
			}
			hits[o]++
		}
	}
	for i := 1; i < g.hosts; i++ {
		if hits[i] >= hits[i-1] {
			t.Errorf("host %d chosen %d times, host %d %d times: want fewer", i, hits[i], i-1, hits[i-1])
		}
	}
}

func TestPopularityValidation(t *testing.T) {
	for _, s := range []float64{-1, math.NaN(), math.Inf(1)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewWeb with Popularity %v did not panic", s)
				}
			}()
			NewWeb(Config{Popularity: s}).Close()
		}()
	}
}
