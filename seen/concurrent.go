package seen

import (
	"sync/atomic"
)

// SyncBloom is a [Bloom] filter safe for concurrent use without locks: each
// probe sets its bit with an atomic OR, and Add reports true if any of its
// bits was clear. Two goroutines adding the same new fingerprint at once may
// both be told it was new (each set some of its bits first); a caller that
// needs exactly one winner must serialize those Adds. It never loses a
// fingerprint once its Add has returned.
type SyncBloom struct {
	words []uint64
	m     uint64
	k     int
	n     atomic.Int64
}

// NewSyncBloom returns a concurrent Bloom filter sized like [NewBloom].
func NewSyncBloom(expected int, fpRate float64) *SyncBloom {
	b := NewBloom(expected, fpRate)
	return &SyncBloom{words: b.words, m: b.m, k: b.k}
}

// Add sets fp's bits and reports whether any was clear before.
func (b *SyncBloom) Add(fp uint64) bool {
	h1, h2 := probes(fp)
	added := false
	for i := 0; i < b.k; i++ {
		j := reduce(h1, b.m)
		mask := uint64(1) << (j & 63)
		if old := atomic.OrUint64(&b.words[j>>6], mask); old&mask == 0 {
			added = true
		}
		h1 += h2
	}
	if added {
		b.n.Add(1)
	}
	return added
}

// Contains reports whether fp may have been added.
func (b *SyncBloom) Contains(fp uint64) bool {
	h1, h2 := probes(fp)
	for i := 0; i < b.k; i++ {
		j := reduce(h1, b.m)
		if atomic.LoadUint64(&b.words[j>>6])&(uint64(1)<<(j&63)) == 0 {
			return false
		}
		h1 += h2
	}
	return true
}

// Len reports the number of Adds that returned true.
func (b *SyncBloom) Len() int { return int(b.n.Load()) }

// MemoryBytes reports the size of the bit array.
func (b *SyncBloom) MemoryBytes() int { return 8 * len(b.words) }
