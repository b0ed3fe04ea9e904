package simhash_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"

	"crawler/crawlertest"
	"crawler/simhash"
)

// benchPages fetches, once, a story page (about 5 KiB) and an ordinary
// page (about 4 KiB) of a crawlertest web.
func benchPages(b *testing.B) map[string][]byte {
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 1, NearDuplicates: 1})
	defer w.Close()
	c := w.Client()
	out := map[string][]byte{}
	for name, u := range map[string]string{"story": w.NearDuplicateFamilies()[0][0], "page": w.URL(0, 1)} {
		resp, err := c.Get(u)
		if err != nil {
			b.Fatal(err)
		}
		out[name], err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	return out
}

func BenchmarkOfHTML(b *testing.B) {
	for _, name := range []string{"story", "page"} {
		body := benchPages(b)[name]
		b.Run("page="+name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				simhash.OfHTML(body)
			}
		})
	}
}

func BenchmarkHasherAddHash(b *testing.B) {
	var h simhash.Hasher
	x := uint64(0x9e3779b97f4a7c15)
	b.ReportAllocs()
	for b.Loop() {
		h.AddHash(x, 4)
		x = x*6364136223846793005 + 1442695040888963407
	}
	h.Sum()
}

// randomFPs returns n random fingerprints.
func randomFPs(n int, seed uint64) []uint64 {
	r := rand.New(rand.NewPCG(seed, seed))
	fps := make([]uint64, n)
	for i := range fps {
		fps[i] = r.Uint64()
	}
	return fps
}

// liveHeap returns the bytes of the live heap, after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkIndexBuild adds n random fingerprints to a new Index per
// iteration, and reports the time per fingerprint (ns/fp) and the live
// heap the Index keeps per fingerprint (B/fp); B/op counts the garbage of
// growing slices too.
func BenchmarkIndexBuild(b *testing.B) {
	const n = 1_000_000
	fps := randomFPs(n, 1)
	for _, k := range []int{3, 4} {
		b.Run(fmt.Sprintf("n=1e6/k=%d", k), func(b *testing.B) {
			b.ReportAllocs()
			var live float64
			for b.Loop() {
				before := liveHeap()
				x := simhash.NewIndex(k)
				for i, fp := range fps {
					x.Add(fp, uint64(i))
				}
				b.StopTimer()
				live = float64(liveHeap()-before) / n
				runtime.KeepAlive(x)
				b.StartTimer()
			}
			b.ReportMetric(live, "B/fp")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/fp")
		})
	}
}

// BenchmarkNear queries an Index of a million random fingerprints: a
// quarter of the queries are stored fingerprints with up to k+1 bits
// flipped, the rest random.
func BenchmarkNear(b *testing.B) {
	const n = 1_000_000
	fps := randomFPs(n, 2)
	for _, k := range []int{3, 4, 6} {
		b.Run(fmt.Sprintf("n=1e6/k=%d", k), func(b *testing.B) {
			x := simhash.NewIndex(k)
			for i, fp := range fps {
				x.Add(fp, uint64(i))
			}
			r := rand.New(rand.NewPCG(3, 3))
			qs := make([]uint64, 4096)
			for i := range qs {
				qs[i] = r.Uint64()
				if i%4 == 0 {
					qs[i] = fps[r.IntN(n)]
					for range r.IntN(k + 2) {
						qs[i] ^= 1 << r.IntN(64)
					}
				}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				x.Near(qs[i&4095])
				i++
			}
		})
	}
}

// BenchmarkFindOrAdd runs FindOrAdd of new random fingerprints on an Index
// holding a million: the per-page cost for a crawler, merges included.
func BenchmarkFindOrAdd(b *testing.B) {
	const n = 1_000_000
	fps := randomFPs(n, 4)
	more := randomFPs(1<<20, 5)
	for _, k := range []int{3} {
		b.Run(fmt.Sprintf("n=1e6/k=%d", k), func(b *testing.B) {
			x := simhash.NewIndex(k)
			for i, fp := range fps {
				x.Add(fp, uint64(i))
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				x.FindOrAdd(more[i&(1<<20-1)], uint64(n+i))
				i++
			}
		})
	}
}
