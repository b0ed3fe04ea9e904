package crawlertest

import (
	"fmt"
	"math"
	"sort"
)

// zipf draws ranks 0..n-1 with probability ∝ 1/(rank+1)^s from a
// precomputed cumulative table (8 bytes per rank), by binary search:
// O(log n) per draw, no allocation. It is immutable and safe for
// concurrent use.
type zipf struct {
	cdf []float64 // cdf[i] = Σ_{j≤i} 1/(j+1)^s; the last entry is the total
}

// newZipf returns the distribution over n ranks with exponent s > 0, or nil
// if n < 1.
func newZipf(n int, s float64) *zipf {
	if n < 1 {
		return nil
	}
	z := &zipf{cdf: make([]float64, n)}
	sum := 0.0
	for i := range z.cdf {
		sum += math.Pow(float64(i+1), -s)
		z.cdf[i] = sum
	}
	return z
}

// draw returns a rank drawn with one step of rg.
func (z *zipf) draw(rg *rng) int {
	x := float64(rg.next()>>11) * 0x1p-53 * z.cdf[len(z.cdf)-1] // in [0, total)
	i := sort.SearchFloat64s(z.cdf, x)                          // first cdf[i] >= x
	if i < len(z.cdf) && z.cdf[i] == x {
		i++ // x falls in [cdf[i], cdf[i+1])
	}
	return min(i, len(z.cdf)-1)
}

// validPopularity panics unless s is a valid Config.Popularity.
func validPopularity(s float64) {
	if s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		panic(fmt.Sprintf("crawlertest: invalid Popularity %v", s))
	}
}

// pageIndex returns a random page index of a host: uniform, or Zipf with
// Config.Popularity.
func (g *gen) pageIndex(rg *rng) int {
	if g.pagePop == nil {
		return rg.intn(g.pages)
	}
	return g.pagePop.draw(rg)
}
