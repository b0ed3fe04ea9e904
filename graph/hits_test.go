package graph_test

import (
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"crawler/graph"
)

// TestHITSSmall checks a graph solved by hand: p links to a and b, q to a.
// AᵀA on (a, b) and AAᵀ on (p, q) are both [[2 1] [1 1]], whose principal
// eigenvector is (1, φ-1) up to scale, φ the golden ratio.
func TestHITSSmall(t *testing.T) {
	g, node := fromEdges(t, [][]int{{2, 3}, {2}, {}, {}}) // p, q, a, b
	res, err := graph.HITS(g, graph.HITSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	phi := (1 + math.Sqrt(5)) / 2
	big, small := 1/math.Sqrt(1+(phi-1)*(phi-1)), (phi-1)/math.Sqrt(1+(phi-1)*(phi-1))
	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"hub p", res.Hubs[node[0]], big},
		{"hub q", res.Hubs[node[1]], small},
		{"hub a", res.Hubs[node[2]], 0},
		{"authority a", res.Authorities[node[2]], big},
		{"authority b", res.Authorities[node[3]], small},
		{"authority p", res.Authorities[node[0]], 0},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if !res.Converged {
		t.Errorf("not converged after %d iterations", res.Iterations)
	}
}

// TestHITSKnown builds a web of noise pages linking at random, plus hubs
// that each link to most authorities: the hubs must rank first as hubs, the
// authorities first as authorities.
func TestHITSKnown(t *testing.T) {
	const noise, hubs, auths = 400, 10, 10
	r := rand.New(rand.NewPCG(9, 10))
	n := noise + hubs + auths
	out := make([][]int, n) // noise 0..399, hubs 400..409, authorities 410..419
	for i := range noise {
		for range r.IntN(4) {
			out[i] = append(out[i], r.IntN(n))
		}
	}
	for h := noise; h < noise+hubs; h++ {
		for a := noise + hubs; a < n; a++ {
			if r.IntN(5) != 0 {
				out[h] = append(out[h], a)
			}
		}
		out[h] = append(out[h], r.IntN(noise)) // and a little noise
	}
	g, node := fromEdges(t, out)
	res, err := graph.HITS(g, graph.HITSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged {
		t.Errorf("not converged after %d iterations", res.Iterations)
	}
	top := func(score []float64, k int) []int {
		pages := make([]int, n)
		for i := range pages {
			pages[i] = i
		}
		slices.SortFunc(pages, func(i, j int) int { return cmp.Compare(score[node[j]], score[node[i]]) })
		top := slices.Clone(pages[:k])
		slices.Sort(top)
		return top
	}
	wantHubs, wantAuths := make([]int, hubs), make([]int, auths)
	for i := range wantHubs {
		wantHubs[i] = noise + i
	}
	for i := range wantAuths {
		wantAuths[i] = noise + hubs + i
	}
	if got := top(res.Hubs, hubs); !slices.Equal(got, wantHubs) {
		t.Errorf("top hubs %v, want %v", got, wantHubs)
	}
	if got := top(res.Authorities, auths); !slices.Equal(got, wantAuths) {
		t.Errorf("top authorities %v, want %v", got, wantAuths)
	}
	norm := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x * x
		}
		return math.Sqrt(s)
	}
	if h, a := norm(res.Hubs), norm(res.Authorities); math.Abs(h-1) > 1e-12 || math.Abs(a-1) > 1e-12 {
		t.Errorf("L2 norms %v, %v; want 1", h, a)
	}
}

func TestHITSEdgeCases(t *testing.T) {
	g, _ := fromEdges(t, [][]int{{}, {}})
	res, err := graph.HITS(g, graph.HITSOptions{})
	if err != nil || !res.Converged || len(res.Hubs) != 2 || res.Hubs[0] != 0 || res.Authorities[1] != 0 {
		t.Errorf("graph without edges: %+v, %v", res, err)
	}
	for _, o := range []graph.HITSOptions{{Tolerance: -1}, {MaxIterations: -2}, {Workers: -1}} {
		if _, err := graph.HITS(g, o); !errors.Is(err, graph.ErrOptions) {
			t.Errorf("%+v: %v, want ErrOptions", o, err)
		}
	}
}
