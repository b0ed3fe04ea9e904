package graph

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// randomGraph returns a graph of n pages, each linking to a uniform number
// of 0 to 2·deg uniform random pages (so about n·deg edges, and 1/(2·deg+1)
// of the pages dangling), built directly in compressed sparse rows. Its
// URLs are empty.
func randomGraph(n, deg int, seed uint64) *Graph {
	r := rand.New(rand.NewPCG(seed, seed))
	g := &Graph{pages: n, fps: make([]uint64, n), ends: make([]int, n), off: make([]uint32, n+1)}
	g.dst = make([]uint32, 0, n*deg)
	var row []uint32
	for k := range n {
		row = row[:0]
		for range r.IntN(2*deg + 1) {
			row = append(row, uint32(r.IntN(n)))
		}
		slices.Sort(row)
		g.dst = append(g.dst, slices.Compact(row)...)
		g.off[k+1] = uint32(len(g.dst))
	}
	return g
}

// pageRankPush is PageRank as crawlertest computes it: serially, each page
// pushing its share to its targets. It is here to measure against the
// gathering, parallel PageRank.
func pageRankPush(g *Graph, d float64, iterations int) []float64 {
	n := g.Len()
	pr, next := make([]float64, n), make([]float64, n)
	for k := range pr {
		pr[k] = 1 / float64(n)
	}
	for range iterations {
		clear(next)
		dangling := 0.0
		for p, r := range pr {
			out := g.Out(p)
			if len(out) == 0 {
				dangling += r
				continue
			}
			share := d * r / float64(len(out))
			for _, q := range out {
				next[q] += share
			}
		}
		base := (1-d)/float64(n) + d*dangling/float64(n)
		for q := range next {
			next[q] += base
		}
		pr, next = next, pr
	}
	return pr
}

// BenchmarkPageRank ranks a random graph of a million pages and 10 million
// edges, 10 iterations per op: gathering on 1 and 2 workers (each op
// includes a transpose, also measured alone), and pushing (crawlertest's
// way) on 1.
func BenchmarkPageRank(b *testing.B) {
	const n, deg, iterations = 1_000_000, 10, 10
	g := randomGraph(n, deg, 1)
	var cpu0 time.Duration
	start := func() { cpu0 = cpuTime() }
	perIter := func(b *testing.B) {
		ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N*iterations)
		b.ReportMetric(ns/1e6, "ms/iter")
		b.ReportMetric(ns/float64(g.Edges()), "ns/edge")
		b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N*iterations)/1e6, "cpu-ms/iter")
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("n=1e6/m=1e7/gather/workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			o := PageRankOptions{Workers: workers, MaxIterations: iterations, Tolerance: 1e-300}
			start()
			for b.Loop() {
				if _, err := PageRank(g, o); err != nil {
					b.Fatal(err)
				}
			}
			perIter(b)
		})
	}
	b.Run("n=1e6/m=1e7/transpose", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			g.transpose()
		}
	})
	b.Run("n=1e6/m=1e7/push/workers=1", func(b *testing.B) {
		b.ReportAllocs()
		start()
		for b.Loop() {
			pageRankPush(g, DefaultDamping, iterations)
		}
		perIter(b)
	})
}

// BenchmarkHITS runs 10 HITS iterations per op on the graph of
// BenchmarkPageRank.
func BenchmarkHITS(b *testing.B) {
	const iterations = 10
	g := randomGraph(1_000_000, 10, 1)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("n=1e6/m=1e7/workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			o := HITSOptions{Workers: workers, MaxIterations: iterations, Tolerance: 1e-300}
			for b.Loop() {
				if _, err := HITS(g, o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*iterations)/1e6, "ms/iter")
		})
	}
}

// countWriter counts the bytes written to it.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// synthCrawl returns the URLs and pages of a crawl-like web: hosts of
// perHost pages, each page linking to 30 pages, 24 on its own host (half
// of them among its 50 neighbours) and 6 on random hosts, listed host by
// host as a crawler that stays on a host a while would fetch them.
func synthCrawl(hosts, perHost int) (urls []string, pages [][]int32) {
	r := rand.New(rand.NewPCG(2, 3))
	for h := range hosts {
		for p := range perHost {
			urls = append(urls, fmt.Sprintf("http://www.host%d.example/section/%d/page-%d.html", h, p%17, p))
		}
	}
	pages = make([][]int32, len(urls))
	for i := range pages {
		h := i / perHost
		for j := range 30 {
			var t int
			switch {
			case j < 12:
				t = h*perHost + min(perHost-1, max(0, i%perHost+r.IntN(101)-50))
			case j < 24:
				t = h*perHost + r.IntN(perHost)
			default:
				t = r.IntN(len(urls))
			}
			pages[i] = append(pages[i], int32(t))
		}
	}
	return urls, pages
}

// BenchmarkWriterPage records pages of 30 links. "crawl" writes a crawl
// of 2¹⁷ pages over and over, each time with a new Writer, so that every
// URL is named once; "revisit" rewrites pages whose URLs are all known,
// the cost of the links alone. B/link is the size of the file of one
// crawl, or of one revisit of every page, per recorded link (names and
// framing included).
func BenchmarkWriterPage(b *testing.B) {
	urls, pages := synthCrawl(1<<7, 1<<10)
	links := make([]string, 30)
	page := func(w *Writer, i int) {
		for j, t := range pages[i] {
			links[j] = urls[t]
		}
		if err := w.Page(urls[i], links); err != nil {
			b.Fatal(err)
		}
	}
	// The bytes per link of a crawl, and of a revisit.
	var out countWriter
	w := NewWriter(&out)
	var perLink [2]float64
	for pass := range perLink {
		w.Flush()
		start, recorded := out.n, 0
		for i := range pages {
			page(w, i)
			recorded += len(slices.Compact(slices.Sorted(slices.Values(pages[i]))))
		}
		w.Flush()
		perLink[pass] = float64(out.n-start) / float64(recorded)
	}
	for pass, mode := range []string{"crawl", "revisit"} {
		b.Run("links=30/"+mode, func(b *testing.B) {
			b.ReportAllocs()
			w := NewWriter(io.Discard)
			if mode == "revisit" {
				for i := range pages {
					page(w, i)
				}
			}
			i := 0
			for b.Loop() {
				if i == len(pages) {
					i = 0
					if mode == "crawl" {
						w = NewWriter(io.Discard)
					}
				}
				page(w, i)
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
			b.ReportMetric(perLink[pass], "B/link")
		})
	}
}

// BenchmarkRead reads the file of a crawl of 2¹⁷ pages of 30 links.
func BenchmarkRead(b *testing.B) {
	urls, pages := synthCrawl(1<<7, 1<<10)
	var file bytes.Buffer
	w := NewWriter(&file)
	links := make([]string, 30)
	for i, ts := range pages {
		for j, t := range ts {
			links[j] = urls[t]
		}
		if err := w.Page(urls[i], links); err != nil {
			b.Fatal(err)
		}
	}
	w.Close()
	data := file.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pages)), "ns/page")
}

// TestWriterMemory measures the memory per distinct URL of a Writer's
// table of fingerprints, from 1,000 to a million URLs.
func TestWriterMemory(t *testing.T) {
	ids := newIDTable()
	r := rand.New(rand.NewPCG(4, 5))
	lo, hi := 1e9, 0.0
	for n := 1; n <= 1_000_000; n++ {
		if _, added, _ := ids.add(r.Uint64()); !added {
			t.Fatal("a random fingerprint was already there")
		}
		if n >= 1000 && n%997 == 0 {
			per := float64(8*cap(ids.fps)+4*len(ids.slots)) / float64(n)
			lo, hi = min(lo, per), max(hi, per)
		}
	}
	t.Logf("a Writer keeps %.1f to %.1f bytes per distinct URL", lo, hi)
	if lo < 12 || hi > 24 {
		t.Errorf("%.1f to %.1f bytes per URL, documented as 13 to 24", lo, hi)
	}
}
