package graph

import (
	"cmp"
	"math"
	"slices"
)

// Spearman returns Spearman's rank correlation of a and b, paired by
// index: the Pearson correlation of their ranks, where tied values share
// the average of the ranks they span. It is 1 when b orders the items as a
// does, -1 when it reverses them, and NaN when it is undefined: fewer than
// two items, or all of a or all of b equal. NaNs in a or b rank first and
// tie with each other. It panics if len(a) != len(b).
//
// To compare rankings keyed by URL, as crawlertest's Web.PageRank is,
// pair them first; Graph.ByURL maps a vector of a Graph to URLs.
func Spearman(a, b []float64) float64 {
	if len(a) != len(b) {
		panic("graph: Spearman of vectors of different lengths")
	}
	if len(a) < 2 {
		return math.NaN()
	}
	return pearson(ranks(a), ranks(b))
}

// ranks returns the ranks of the values of v, from 1, ties averaged.
func ranks(v []float64) []float64 {
	order := make([]int, len(v))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(v[i], v[j]) })
	r := make([]float64, len(v))
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && cmp.Compare(v[order[j]], v[order[i]]) == 0 {
			j++
		}
		avg := float64(i+j+1) / 2 // the mean of ranks i+1 to j
		for _, k := range order[i:j] {
			r[k] = avg
		}
		i = j
	}
	return r
}

// pearson returns the Pearson correlation of x and y.
func pearson(x, y []float64) float64 {
	n := float64(len(x))
	mx, my := sum(x)/n, sum(y)/n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}
