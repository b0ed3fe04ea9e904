package seen

import (
	"math"
	"math/bits"

	"github.com/bits-and-blooms/bitset"
)

// Bloom is a Bloom filter over 64-bit fingerprints: a probabilistic [Set]
// that may report a fingerprint never added (a false positive: that URL is
// skipped) but never misses one that was added (so no URL is fetched twice).
// It is not safe for concurrent use.
//
// For n expected fingerprints and a false-positive rate p it uses
// m = -n ln p / (ln 2)^2 bits (9.59 bits per URL at p = 1%) and
// k = (m/n) ln 2 probes. The k probe positions come from the one
// fingerprint by double hashing (h1 + i*h2), each mapped onto [0, m) with a
// multiply-shift instead of a division, so the URL is never hashed again.
type Bloom struct {
	bits  *bitset.BitSet
	words []uint64 // bits.Words(): probed directly, without bitset's checks
	m     uint64   // number of bits
	k     int      // probes per fingerprint
	n     int      // successful Adds
}

// NewBloom returns a Bloom filter sized for expected fingerprints at the
// false-positive rate fpRate (0 < fpRate < 1). Values out of range are
// clamped: expected to at least 1, fpRate to [1e-9, 0.5].
func NewBloom(expected int, fpRate float64) *Bloom {
	return NewBloomIn(expected, fpRate, func(n int) []uint64 { return make([]uint64, n) })
}

// NewBloomIn returns a Bloom filter like [NewBloom] whose bits are the words
// alloc returns: alloc(n) must return n zeroed words. A program keeps a large
// filter outside the Go heap this way (the store maps its own), where it
// does not count in the heap's growth target.
func NewBloomIn(expected int, fpRate float64, alloc func(n int) []uint64) *Bloom {
	n := float64(max(expected, 1))
	p := min(max(fpRate, 1e-9), 0.5)
	m := math.Ceil(-n * math.Log(p) / (math.Ln2 * math.Ln2))
	k := max(1, int(math.Round(m/n*math.Ln2)))
	bs := bitset.From(alloc((int(m) + 63) / 64))
	return &Bloom{bits: bs, words: bs.Words(), m: uint64(m), k: k}
}

// probes returns the first two hashes of the double-hashing sequence.
func probes(fp uint64) (h1, h2 uint64) {
	h1 = fp
	h2 = bits.RotateLeft64(fp, 32)*0x9E3779B97F4A7C15 | 1 // odd, so the sequence never sticks
	return h1, h2
}

// reduce maps a 64-bit hash onto [0, m) without dividing (Lemire's
// multiply-shift).
func reduce(h, m uint64) uint {
	hi, _ := bits.Mul64(h, m)
	return uint(hi)
}

// Add sets fp's bits and reports whether any was clear before: true means fp
// was certainly new. Cost: k bit probes.
func (b *Bloom) Add(fp uint64) bool {
	h1, h2 := probes(fp)
	added := false
	for i := 0; i < b.k; i++ {
		j := reduce(h1, b.m)
		w, mask := &b.words[j>>6], uint64(1)<<(j&63)
		if *w&mask == 0 {
			*w |= mask
			added = true
		}
		h1 += h2
	}
	if added {
		b.n++
	}
	return added
}

// Contains reports whether fp may have been added (false positives
// possible, false negatives not).
func (b *Bloom) Contains(fp uint64) bool {
	h1, h2 := probes(fp)
	for i := 0; i < b.k; i++ {
		j := reduce(h1, b.m)
		if b.words[j>>6]&(uint64(1)<<(j&63)) == 0 {
			return false
		}
		h1 += h2
	}
	return true
}

// Len reports the number of Adds that returned true.
func (b *Bloom) Len() int { return b.n }

// MemoryBytes reports the size of the bit array.
func (b *Bloom) MemoryBytes() int { return int((b.m + 63) / 64 * 8) }

// FPRate estimates the current false-positive rate from the fraction of
// bits set: (set/m)^k. Cost: O(m/64).
func (b *Bloom) FPRate() float64 {
	fill := float64(b.bits.Count()) / float64(b.m)
	return math.Pow(fill, float64(b.k))
}

// Bitmap is the textbook bitmap URL-seen set: one bit per fingerprint
// modulo its size. Like [Bloom] it may report false positives, never false
// negatives; its false-positive rate is the fraction of bits set (about
// n/bits while n is small against bits). It is not safe for concurrent use.
type Bitmap struct {
	bits *bitset.BitSet
	m    uint64
	n    int
}

// NewBitmap returns a Bitmap of size bits (at least 1).
func NewBitmap(size uint64) *Bitmap {
	size = max(size, 1)
	return &Bitmap{bits: bitset.New(uint(size)), m: size}
}

// Add sets fp's bit and reports whether it was clear before.
func (b *Bitmap) Add(fp uint64) bool {
	j := reduce(fp, b.m)
	if b.bits.Test(j) {
		return false
	}
	b.bits.Set(j)
	b.n++
	return true
}

// Contains reports whether fp's bit is set.
func (b *Bitmap) Contains(fp uint64) bool { return b.bits.Test(reduce(fp, b.m)) }

// Len reports the number of Adds that returned true (equal to the bits set).
func (b *Bitmap) Len() int { return b.n }

// MemoryBytes reports the size of the bit array.
func (b *Bitmap) MemoryBytes() int { return int((b.m + 63) / 64 * 8) }

// FPRate reports the current false-positive rate: the fraction of bits set.
func (b *Bitmap) FPRate() float64 { return float64(b.n) / float64(b.m) }
