package graph

import (
	"cmp"
	"slices"

	"github.com/zeebo/xxh3"
)

// A Graph is a crawl's link graph in compressed sparse rows: nodes 0 to
// Len()-1, each with a URL, its fingerprint and its sorted out-edges. Read
// and Load make one.
//
// By default the nodes are the pages recorded in the file, numbered in the
// order the writer first saw their URLs (as a page or as a link: the crawl's
// discovery order). Page p has an edge to page q if p's last record links
// to q, or to a URL whose redirect, or chain of redirects, ends at q.
// Several links from p to q make one edge; a link of p to itself is an
// edge. Links to anything else are dropped. This is the graph of
// crawlertest's Web.PageRank. With ReadOptions.KeepUnfetched, the URLs
// never recorded follow the pages as nodes without out-edges.
//
// A Graph costs 24 bytes per node plus its URL, and 4 bytes per edge. It
// is immutable and safe for concurrent use.
type Graph struct {
	urls  string   // the URLs of the nodes, concatenated
	ends  []int    // URL k is urls[ends[k-1]:ends[k]]
	fps   []uint64 // fingerprint of node k
	byFP  []uint32 // the nodes, sorted by fingerprint
	off   []uint32 // edges of node k are dst[off[k]:off[k+1]]
	dst   []uint32
	pages int // nodes 0 to pages-1 were recorded as pages
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.fps) }

// Pages returns the number of nodes recorded as pages: nodes 0 to
// Pages()-1. It is Len() unless the graph was read with
// ReadOptions.KeepUnfetched.
func (g *Graph) Pages() int { return g.pages }

// Edges returns the number of edges.
func (g *Graph) Edges() int { return len(g.dst) }

// URL returns the URL of node k. It does not allocate.
func (g *Graph) URL(k int) string {
	start := 0
	if k > 0 {
		start = g.ends[k-1]
	}
	return g.urls[start:g.ends[k]]
}

// Fingerprint returns the fingerprint of node k: the xxh3 hash (seed 0) of
// its URL, as crawler/canon's Fingerprint computes it.
func (g *Graph) Fingerprint(k int) uint64 { return g.fps[k] }

// Out returns the out-edges of node k: the nodes it links to, ascending,
// each once. The slice is part of the graph: it must not be modified.
func (g *Graph) Out(k int) []uint32 { return g.dst[g.off[k]:g.off[k+1]:g.off[k+1]] }

// Lookup returns the node of url (byte for byte as written), if it is one.
// It costs a hash and a binary search, without allocating.
func (g *Graph) Lookup(url string) (int, bool) {
	return g.LookupFingerprint(xxh3.HashString(url))
}

// LookupFingerprint returns the node whose URL has fingerprint fp, if
// there is one.
func (g *Graph) LookupFingerprint(fp uint64) (int, bool) {
	i, ok := slices.BinarySearchFunc(g.byFP, fp, func(k uint32, fp uint64) int { return cmp.Compare(g.fps[k], fp) })
	if !ok {
		return 0, false
	}
	return int(g.byFP[i]), true
}

// ByURL returns the values of v, one per node (such as PageRank's ranks),
// by URL. It panics if len(v) != Len().
func (g *Graph) ByURL(v []float64) map[string]float64 {
	if len(v) != g.Len() {
		panic("graph: ByURL of a vector that is not one value per node")
	}
	m := make(map[string]float64, len(v))
	for k, x := range v {
		m[g.URL(k)] = x
	}
	return m
}

// inDegrees returns the in-degree of every node.
func (g *Graph) inDegrees() []uint32 {
	in := make([]uint32, g.Len())
	for _, t := range g.dst {
		in[t]++
	}
	return in
}

// transpose returns the in-edges in compressed sparse rows: the sources of
// the edges to node k are src[off[k]:off[k+1]], ascending.
func (g *Graph) transpose() (off, src []uint32) {
	n := g.Len()
	off = make([]uint32, n+1)
	for _, t := range g.dst {
		off[t+1]++
	}
	for k := range n {
		off[k+1] += off[k]
	}
	src = make([]uint32, len(g.dst))
	next := slices.Clone(off[:n])
	for k := range n {
		for _, t := range g.Out(k) {
			src[next[t]] = uint32(k)
			next[t]++
		}
	}
	return off, src
}
