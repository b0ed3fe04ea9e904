package frontier_test

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"

	"crawler/frontier"
)

const (
	benchURLs  = 1_000_000 // URLs waiting in the frontier
	benchHosts = 1000
	benchBatch = 1 << 14 // entries pushed or handed out between refills, outside the timer
	benchLinks = 25      // out-links per page, as in a typical HTML page
)

var benchImpls = []struct {
	name string
	new  func() frontier.Frontier
}{
	{"impl=fifo", func() frontier.Frontier { return new(frontier.FIFO) }},
	{"impl=aopic", func() frontier.Frontier { return new(frontier.AOPIC) }},
}

// urlGen makes realistic entries: URL i is http://h<i%1000>.example/p/<i>;
// the first of each host is a seed, and the others link from it.
type urlGen struct {
	hosts []string
	seeds []string
	n     int
	r     *rand.Rand
}

func newURLGen() *urlGen {
	g := &urlGen{r: rand.New(rand.NewPCG(1, 2))}
	for h := range benchHosts {
		g.hosts = append(g.hosts, "h"+strconv.Itoa(h)+".example")
	}
	return g
}

func benchFP(i int) uint64 { return uint64(i)*0x9e3779b97f4a7c15 + 1 }

func (g *urlGen) entry() frontier.Entry {
	i := g.n
	g.n++
	h := i % benchHosts
	e := frontier.Entry{URL: "http://" + g.hosts[h] + "/p/" + strconv.Itoa(i), FP: benchFP(i), Host: g.hosts[h]}
	if i < benchHosts {
		g.seeds = append(g.seeds, e.URL)
	} else {
		e.Depth, e.Referrer = 1, g.seeds[h]
	}
	return e
}

// links returns the out-links of a page: 5 URLs the generator made (waiting
// or fetched) and 20 it never will (out of scope, or filtered).
func (g *urlGen) links() []uint64 {
	links := make([]uint64, benchLinks)
	for k := range links {
		if k < 5 {
			links[k] = benchFP(g.r.IntN(g.n))
		} else {
			links[k] = g.r.Uint64() | 1<<63
		}
	}
	return links
}

func fill(f frontier.Frontier, g *urlGen, n int) {
	for range n {
		f.Push(g.entry())
	}
}

// fetch hands out and completes n entries, as a crawler would without
// waiting for the network.
func fetch(f frontier.Frontier, g *urlGen, now time.Time, n int) {
	for range n {
		e, ok, _ := f.Next(now)
		if !ok {
			panic("frontier: ran dry")
		}
		f.Done(e, frontier.Result{Next: now, Links: g.links()})
	}
}

// BenchmarkPush pushes new URLs into a frontier holding 1M.
func BenchmarkPush(b *testing.B) {
	for _, impl := range benchImpls {
		b.Run(impl.name, func(b *testing.B) {
			f, g := impl.new(), newURLGen()
			fill(f, g, benchURLs)
			batch := make([]frontier.Entry, benchBatch)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; {
				b.StopTimer()
				fetch(f, g, t0, benchBatch) // back to 1M
				for k := range batch {
					batch[k] = g.entry()
				}
				b.StartTimer()
				for k := 0; k < len(batch) && i < b.N; k, i = k+1, i+1 {
					f.Push(batch[k])
				}
			}
		})
	}
}

// BenchmarkNextDone hands out and completes one URL of a frontier holding
// 1M, reporting 25 links, 5 of them known.
func BenchmarkNextDone(b *testing.B) {
	for _, impl := range benchImpls {
		b.Run(impl.name, func(b *testing.B) {
			f, g := impl.new(), newURLGen()
			fill(f, g, benchURLs)
			links := make([][]uint64, benchBatch)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; {
				b.StopTimer()
				fill(f, g, benchURLs-f.Len()) // back to 1M
				for k := range links {
					links[k] = g.links()
				}
				b.StartTimer()
				for k := 0; k < len(links) && i < b.N; k, i = k+1, i+1 {
					e, ok, _ := f.Next(t0)
					if !ok {
						b.Fatal("frontier ran dry")
					}
					f.Done(e, frontier.Result{Next: t0, Links: links[k]})
				}
			}
		})
	}
}

// BenchmarkMemory reports the heap that 1M waiting URLs take, their
// strings included (about 40 bytes of each URL), and the heap per URL
// known once half of them were fetched.
func BenchmarkMemory(b *testing.B) {
	for _, impl := range benchImpls {
		b.Run(impl.name, func(b *testing.B) {
			var waiting, fetched float64
			for range b.N {
				var m runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m)
				before := m.HeapAlloc
				f, g := impl.new(), newURLGen()
				fill(f, g, benchURLs)
				runtime.GC()
				runtime.ReadMemStats(&m)
				waiting = float64(m.HeapAlloc-before) / benchURLs
				fetch(f, g, t0, benchURLs/2)
				runtime.GC()
				runtime.ReadMemStats(&m)
				fetched = float64(m.HeapAlloc-before) / benchURLs
				runtime.KeepAlive(f)
			}
			b.ReportMetric(waiting, "B/url")
			b.ReportMetric(fetched, "B/url-half-fetched")
		})
	}
}
