package graph

import "math"

// HITSOptions tune HITS. The zero value means the defaults.
type HITSOptions struct {
	// Tolerance ends the iteration when one step changes the hub and
	// authority vectors by less than it, in L1 norm (the two changes
	// added); 0 means DefaultTolerance (1e-9). It must not be negative.
	Tolerance float64
	// MaxIterations bounds the iterations; 0 means DefaultMaxIterations
	// (1000). HITS converges as (λ₂/λ₁)^k for the two largest eigenvalues
	// of AᵀA, which can be slow. It must not be negative.
	MaxIterations int
	// Workers is as for PageRankOptions: 0 means runtime.GOMAXPROCS(0),
	// and the result does not depend on it.
	Workers int
}

// HITSResult is the outcome of HITS.
type HITSResult struct {
	Hubs        []float64 // one per node, of unit L2 norm
	Authorities []float64 // one per node, of unit L2 norm
	Iterations  int       // iterations run
	Delta       float64   // L1 change of the last iteration
	Converged   bool      // Delta < Tolerance
}

// HITS computes Kleinberg's hub and authority scores of every node of g by
// power iteration: from hubs all 1, each step sets a node's authority to
// the sum of the hub scores of the nodes linking to it, then its hub score
// to the sum of the authorities it links to, and scales each vector to
// unit L2 norm (Kleinberg's normalization: squares sum to 1). The vectors
// converge to the principal eigenvectors of AᵀA and AAᵀ, for the adjacency
// matrix A. A self-link counts like any other edge.
//
// It costs 4 bytes per edge (the transposed graph) and 20 bytes per node
// besides the result (24 while transposing). A graph without edges has
// all scores 0.
func HITS(g *Graph, opt HITSOptions) (HITSResult, error) {
	tol, maxIter, workers, err := iteration(opt.Tolerance, opt.MaxIterations, opt.Workers)
	if err != nil {
		return HITSResult{}, err
	}
	n := g.Len()
	res := HITSResult{Hubs: make([]float64, n), Authorities: make([]float64, n)}
	if g.Edges() == 0 {
		res.Converged = true
		return res, nil
	}
	inOff, inSrc := g.transpose()
	inBlocks, outBlocks := makeBlocks(inOff), makeBlocks(g.off)
	partial := make([]float64, max(len(inBlocks), len(outBlocks))-1)
	hub, auth := res.Hubs, res.Authorities
	newHub, newAuth := make([]float64, n), make([]float64, n)
	for k := range hub {
		hub[k] = 1 / math.Sqrt(float64(n))
	}

	// scale divides v by its L2 norm, block by block, and returns the L1
	// change from old.
	scale := func(v, old []float64, bounds []int) float64 {
		parallel(workers, bounds, func(b, lo, hi int) {
			partial[b] = sumSquares(v[lo:hi])
		})
		norm := math.Sqrt(sum(partial[:len(bounds)-1]))
		parallel(workers, bounds, func(b, lo, hi int) {
			partial[b] = divide(v[lo:hi], old[lo:hi], norm)
		})
		return sum(partial[:len(bounds)-1])
	}
	for res.Iterations < maxIter {
		res.Iterations++
		parallel(workers, inBlocks, func(_, lo, hi int) {
			sumOver(newAuth[lo:hi], hub, inOff[lo:hi+1], inSrc)
		})
		change := scale(newAuth, auth, inBlocks)
		parallel(workers, outBlocks, func(_, lo, hi int) {
			sumOver(newHub[lo:hi], newAuth, g.off[lo:hi+1], g.dst)
		})
		change += scale(newHub, hub, outBlocks)
		hub, newHub = newHub, hub
		auth, newAuth = newAuth, auth
		res.Delta = change
		if change < tol {
			res.Converged = true
			break
		}
	}
	res.Hubs, res.Authorities = hub, auth
	return res, nil
}

// sumOver sets v[k] to the sum of x over the nodes adj[off[k]:off[k+1]].
func sumOver(v, x []float64, off, adj []uint32) {
	for k := range v {
		s := 0.0
		for _, j := range adj[off[k]:off[k+1]] {
			s += x[j]
		}
		v[k] = s
	}
}

// sumSquares returns the sum of the squares of v.
func sumSquares(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return s
}

// divide divides v by norm and returns the L1 change from old.
func divide(v, old []float64, norm float64) (change float64) {
	for k := range v {
		v[k] /= norm
		change += math.Abs(v[k] - old[k])
	}
	return change
}
