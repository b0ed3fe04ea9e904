package graph_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"crawler/graph"
)

// fromEdges writes and reads the graph of pages "n0" to "n<n-1>" where
// out[i] lists the pages n<i> links to (repeats allowed). It returns the
// graph and the node of each page.
func fromEdges(t testing.TB, out [][]int) (*graph.Graph, []int) {
	t.Helper()
	ps := make([]page, len(out))
	for i, ts := range out {
		ps[i].url = fmt.Sprint("n", i)
		for _, j := range ts {
			ps[i].links = append(ps[i].links, fmt.Sprint("n", j))
		}
	}
	g := read(t, write(t, ps...), graph.ReadOptions{})
	node := make([]int, len(out))
	for i := range out {
		k, ok := g.Lookup(fmt.Sprint("n", i))
		if !ok {
			t.Fatalf("page n%d is not a node", i)
		}
		node[i] = k
	}
	return g, node
}

func TestPageRankCycle(t *testing.T) {
	g, _ := fromEdges(t, [][]int{{1}, {2}, {0}})
	res, err := graph.PageRank(g, graph.PageRankOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range res.Ranks {
		if math.Abs(r-1.0/3) > 1e-15 {
			t.Errorf("rank of %s = %v, want 1/3", g.URL(k), r)
		}
	}
	if !res.Converged || res.Iterations != 1 {
		t.Errorf("Converged %v after %d iterations, want true after 1 (the uniform vector is the fixed point)", res.Converged, res.Iterations)
	}
}

// solve computes PageRank by Gaussian elimination with partial pivoting on
// (I - G) r = (1-d)/n, where G[q][p] = d/out(p) for each distinct edge
// p -> q and d/n for every q if p is dangling.
func solve(out [][]int, d float64) []float64 {
	n := len(out)
	a := make([][]float64, n)
	for q := range a {
		a[q] = make([]float64, n+1)
		a[q][q] = 1
		a[q][n] = (1 - d) / float64(n)
	}
	for p, ts := range out {
		ts = slices.Compact(slices.Sorted(slices.Values(ts)))
		if len(ts) == 0 {
			for q := range n {
				a[q][p] -= d / float64(n)
			}
		}
		for _, q := range ts {
			a[q][p] -= d / float64(len(ts))
		}
	}
	for c := range n {
		pivot := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[pivot][c]) {
				pivot = r
			}
		}
		a[c], a[pivot] = a[pivot], a[c]
		for r := range n {
			if r == c || a[r][c] == 0 {
				continue
			}
			f := a[r][c] / a[c][c]
			for k := c; k <= n; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	x := make([]float64, n)
	for q := range x {
		x[q] = a[q][n] / a[q][q]
	}
	return x
}

// randomOut returns the out-links of n pages: repeats, self-links and
// dangling pages included.
func randomOut(r *rand.Rand, n int) [][]int {
	out := make([][]int, n)
	for i := range out {
		if r.IntN(4) == 0 {
			continue // dangling
		}
		for range 1 + r.IntN(5) {
			out[i] = append(out[i], r.IntN(n))
		}
	}
	return out
}

func TestPageRankLinearSystem(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		n := 1 + trial%15
		out := randomOut(r, n)
		if trial == 0 {
			out = [][]int{{1, 1, 2}, {2}, {}, {3, 0}} // n2 dangling, n3 self-link
			n = len(out)
		}
		d := []float64{0.85, 0.5, 0.99}[trial%3]
		g, node := fromEdges(t, out)
		res, err := graph.PageRank(g, graph.PageRankOptions{Damping: d, Tolerance: 1e-14, MaxIterations: 1 << 14})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged {
			t.Errorf("trial %d: not converged after %d iterations (delta %g)", trial, res.Iterations, res.Delta)
		}
		want := solve(out, d)
		total := 0.0
		for i := range n {
			total += res.Ranks[node[i]]
			if diff := math.Abs(res.Ranks[node[i]] - want[i]); diff > 1e-11 {
				t.Errorf("trial %d (n=%d, d=%v): rank of n%d = %v, linear system %v", trial, n, d, i, res.Ranks[node[i]], want[i])
			}
		}
		if math.Abs(total-1) > 1e-12 {
			t.Errorf("trial %d: ranks sum to %v", trial, total)
		}
	}
}

func TestPageRankOptions(t *testing.T) {
	g, _ := fromEdges(t, randomOut(rand.New(rand.NewPCG(5, 6)), 50))
	for _, o := range []graph.PageRankOptions{
		{Damping: -0.1}, {Damping: 1}, {Damping: 1.5}, {Damping: math.NaN()},
		{Tolerance: -1}, {Tolerance: math.NaN()}, {MaxIterations: -1}, {Workers: -1},
	} {
		if _, err := graph.PageRank(g, o); !errors.Is(err, graph.ErrOptions) {
			t.Errorf("%+v: %v, want ErrOptions", o, err)
		}
	}
	res, err := graph.PageRank(g, graph.PageRankOptions{MaxIterations: 3})
	if err != nil || res.Converged || res.Iterations != 3 {
		t.Errorf("MaxIterations 3: %d iterations, converged %v, %v", res.Iterations, res.Converged, err)
	}
	res, err = graph.PageRank(g, graph.PageRankOptions{})
	if err != nil || !res.Converged || res.Iterations > 133 || res.Delta >= graph.DefaultTolerance {
		t.Errorf("defaults: %d iterations, converged %v, delta %g, %v", res.Iterations, res.Converged, res.Delta, err)
	}

	empty := read(t, write(t), graph.ReadOptions{})
	res, err = graph.PageRank(empty, graph.PageRankOptions{})
	if err != nil || !res.Converged || len(res.Ranks) != 0 {
		t.Errorf("empty graph: %+v, %v", res, err)
	}
}

// TestPageRankWorkers checks that the ranks do not depend on the number of
// workers, on a graph of many blocks.
func TestPageRankWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	out := make([][]int, 20000) // 2 blocks of nodes and edges
	for i := range out {
		for range r.IntN(8) {
			out[i] = append(out[i], r.IntN(len(out)))
		}
	}
	g, _ := fromEdges(t, out)
	var first graph.PageRankResult
	for _, w := range []int{1, 2, 3} {
		res, err := graph.PageRank(g, graph.PageRankOptions{Workers: w, MaxIterations: 10})
		if err != nil {
			t.Fatal(err)
		}
		if w == 1 {
			first = res
			continue
		}
		if !slices.Equal(res.Ranks, first.Ranks) || res.Iterations != first.Iterations {
			t.Errorf("%d workers: ranks differ from 1 worker's", w)
		}
	}
	hits1, err := graph.HITS(g, graph.HITSOptions{Workers: 1, MaxIterations: 10})
	if err != nil {
		t.Fatal(err)
	}
	hits2, err := graph.HITS(g, graph.HITSOptions{Workers: 2, MaxIterations: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(hits1.Hubs, hits2.Hubs) || !slices.Equal(hits1.Authorities, hits2.Authorities) {
		t.Error("HITS differs with 1 and 2 workers")
	}
}
