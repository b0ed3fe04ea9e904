package bench

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bits-and-blooms/bloom/v3"

	"crawler/seen"
)

// The operating point: 10M URLs at a 1% false-positive rate.
const (
	bloomN  = 10_000_000
	bloomFP = 0.01
)

func fingerprints(n int, seed uint64) []uint64 {
	r := rand.New(rand.NewPCG(seed, seed+1))
	fps := make([]uint64, n)
	for i := range fps {
		fps[i] = r.Uint64()
	}
	return fps
}

// BenchmarkBloomAdd fills a filter with 10M fingerprints per op: ours
// (Add, probes from the fingerprint) and bloom/v3 (TestAndAdd on the
// fingerprint's 8 bytes), reporting ns per add, the measured
// false-positive rate on 1M fresh fingerprints, and bits per URL.
func BenchmarkBloomAdd(b *testing.B) {
	fps := fingerprints(bloomN, 1)
	fresh := fingerprints(1_000_000, 99)
	optimal := -math.Log(bloomFP) / (math.Ln2 * math.Ln2)

	b.Run("impl=crawler", func(b *testing.B) {
		var f *seen.Bloom
		for b.Loop() {
			f = seen.NewBloom(bloomN, bloomFP)
			for _, fp := range fps {
				f.Add(fp)
			}
		}
		fp := 0
		for _, x := range fresh {
			if f.Contains(x) {
				fp++
			}
		}
		report(b, float64(fp)/float64(len(fresh)), float64(f.MemoryBytes()*8)/bloomN, optimal)
	})
	b.Run("impl=bloomv3", func(b *testing.B) {
		var f *bloom.BloomFilter
		var key [8]byte
		for b.Loop() {
			f = bloom.NewWithEstimates(bloomN, bloomFP)
			for _, fp := range fps {
				binary.LittleEndian.PutUint64(key[:], fp)
				f.TestAndAdd(key[:])
			}
		}
		fp := 0
		for _, x := range fresh {
			binary.LittleEndian.PutUint64(key[:], x)
			if f.Test(key[:]) {
				fp++
			}
		}
		report(b, float64(fp)/float64(len(fresh)), float64(f.Cap())/bloomN, optimal)
	})
}

func report(b *testing.B, fpRate, bitsPerURL, optimal float64) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/bloomN, "ns/add")
	b.ReportMetric(fpRate*100, "fp-%")
	b.ReportMetric(bitsPerURL, "bits/url")
	b.ReportMetric(bitsPerURL/optimal, "x-optimal")
}
