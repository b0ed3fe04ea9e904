package graph_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"crawler/graph"
)

func TestSpearman(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []float64
		want float64
	}{
		{"same order", []float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{"monotone, not linear", []float64{1, 2, 3, 4}, []float64{1, 8, 27, 1000}, 1},
		{"reversed", []float64{1, 2, 3}, []float64{3, 2, 1}, -1},
		// Ranks 0..4 against 0,4,1,2,3: 1 - 6·Σd²/(n(n²-1)) = 1 - 6·12/120.
		{"one moved", []float64{1, 2, 3, 4, 5}, []float64{1, 100, 2, 3, 4}, 0.4},
		{"ties alike", []float64{1, 1, 2, 3}, []float64{5, 5, 6, 7}, 1},
		// Ranks (1 2 3 4) and (1.5 1.5 3.5 3.5): 4/√20.
		{"ties", []float64{1, 2, 3, 4}, []float64{7, 7, 9, 9}, 4 / math.Sqrt(20)},
		{"one item", []float64{1}, []float64{2}, math.NaN()},
		{"constant", []float64{1, 2, 3}, []float64{5, 5, 5}, math.NaN()},
	} {
		got := graph.Spearman(tc.a, tc.b)
		if math.IsNaN(tc.want) != math.IsNaN(got) || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: Spearman = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSpearmanFormula checks Spearman against the closed form for distinct
// values, 1 - 6Σd²/(n(n²-1)), d the rank differences.
func TestSpearmanFormula(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 20 {
		n := 2 + r.IntN(100)
		pa, pb := r.Perm(n), r.Perm(n)
		a, b := make([]float64, n), make([]float64, n)
		d2 := 0.0
		for i := range n {
			a[i], b[i] = math.Exp(float64(pa[i])), -1/float64(pb[i]+1) // monotone in the rank
			d := float64(pa[i] - pb[i])
			d2 += d * d
		}
		want := 1 - 6*d2/float64(n*(n*n-1))
		if got := graph.Spearman(a, b); math.Abs(got-want) > 1e-12 {
			t.Errorf("n=%d: Spearman = %v, closed form %v", n, got, want)
		}
	}
}

func TestSpearmanPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for vectors of different lengths")
		}
	}()
	graph.Spearman([]float64{1, 2}, []float64{1})
}
