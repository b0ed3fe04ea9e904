package simhash

import (
	"iter"
	"math/bits"

	"github.com/zeebo/xxh3"
)

// Distance returns the Hamming distance of two fingerprints: the number of
// bits in which they differ, 0 to 64.
func Distance(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// Hasher builds the SimHash fingerprint of a weighted set of features
// (Charikar 2002): each feature is hashed to 64 bits with xxh3; bit i of
// the fingerprint is 1 if the features whose hash has bit i set weigh more
// than half of the total weight. Similar feature sets give fingerprints a
// small [Distance] apart.
//
// The zero Hasher is ready to use and holds no feature; a Hasher is about
// 600 bytes and allocates nothing. It is not safe for concurrent use.
type Hasher struct {
	// acc counts small weights without carries (SWAR): byte j of acc[i]
	// is the weight, since the last flush, of the features with bit 8i+j
	// set. pending, the weight added since then, stays ≤ 255.
	acc     [8]uint64
	pending int
	count   [64]int64 // flushed weight of the features with bit i set
	total   int64     // weight of every feature
}

// spread[b] has byte j set to bit j of b: the lanes one byte of a feature
// hash adds to.
var spread = func() (t [256]uint64) {
	for b := range t {
		for j := range 8 {
			t[b] |= uint64(b>>j&1) << (8 * j)
		}
	}
	return t
}()

// Add adds a feature with weight weight: its xxh3 hash counts weight
// times. A weight of 0 adds nothing; Add panics if weight is negative.
func (h *Hasher) Add(feature []byte, weight int) { h.AddHash(xxh3.Hash(feature), weight) }

// AddString is like Add with a string.
func (h *Hasher) AddString(feature string, weight int) {
	h.AddHash(xxh3.HashString(feature), weight)
}

// AddHash adds a feature already hashed to 64 well-mixed bits (by xxh3 or
// another good hash), with weight weight, as Add does. It is the fast path
// for callers that hash their own features. Cost: about a dozen
// instructions for weights below 256.
func (h *Hasher) AddHash(x uint64, weight int) {
	switch {
	case weight <= 0:
		if weight < 0 {
			panic("simhash: negative weight")
		}
		return
	case weight > 255:
		for i := range h.count {
			h.count[i] += int64(x>>i&1) * int64(weight)
		}
		h.total += int64(weight)
		return
	case h.pending+weight > 255:
		h.flush()
	}
	w := uint64(weight)
	h.acc[0] += spread[byte(x)] * w
	h.acc[1] += spread[byte(x>>8)] * w
	h.acc[2] += spread[byte(x>>16)] * w
	h.acc[3] += spread[byte(x>>24)] * w
	h.acc[4] += spread[byte(x>>32)] * w
	h.acc[5] += spread[byte(x>>40)] * w
	h.acc[6] += spread[byte(x>>48)] * w
	h.acc[7] += spread[x>>56] * w
	h.pending += weight
	h.total += int64(weight)
}

// flush moves the byte lanes of acc into count.
func (h *Hasher) flush() {
	for i, a := range h.acc {
		for j := range 8 {
			h.count[8*i+j] += int64(a >> (8 * j) & 0xff)
		}
	}
	h.acc = [8]uint64{}
	h.pending = 0
}

// Sum returns the fingerprint of the features added so far: 0 if none
// was. Sum does not change the set of features; more may be added after.
// Bit i is 1 if the features whose hash has bit i set weigh strictly more
// than the others.
func (h *Hasher) Sum() uint64 {
	h.flush()
	var fp uint64
	for i, c := range h.count {
		if 2*c > h.total {
			fp |= 1 << i
		}
	}
	return fp
}

// Reset empties the Hasher, for reuse.
func (h *Hasher) Reset() { *h = Hasher{} }

// Of returns the fingerprint of a sequence of features, each with weight
// 1: a feature that occurs twice counts twice. It is the shorthand for a
// [Hasher] driven with Add(feature, 1).
func Of(features iter.Seq[[]byte]) uint64 {
	var h Hasher
	for f := range features {
		h.Add(f, 1)
	}
	return h.Sum()
}
