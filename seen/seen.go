// Package seen holds URL-seen sets: the test, made once per discovered link,
// of whether a crawl has met a URL before.
//
// Sets store 64-bit fingerprints of canonical URLs (see canon.Fingerprint),
// never the URL text:
//
//	s := seen.NewExact(1 << 20)
//	if s.Add(canon.Fingerprint(u)) {
//		// first time: schedule u
//	}
//
// [Exact] never errs; [Bloom] (about 9.6 bits per URL at 1% false
// positives) and [Bitmap] (one bit per URL slot) may report a URL as seen
// when it is not, so the crawl skips it, but never fetch one twice.
//
// A Set is owned by one goroutine (the crawler's scheduler); the types here
// are not safe for concurrent use unless they say so.
package seen

import "math/bits"

// Set is a set of 64-bit URL fingerprints.
//
// Implementations need not be safe for concurrent use: the crawler calls a
// Set from one goroutine only. A probabilistic Set may answer "present" for a
// fingerprint never added (a false positive: that URL is skipped), but must
// never answer "absent" for one that was added (which would fetch it twice).
type Set interface {
	// Add inserts fp and reports whether it was absent before: the
	// test-and-set of the URL-seen test, in one step.
	Add(fp uint64) (added bool)
	// Contains reports whether fp is in the set.
	Contains(fp uint64) bool
	// Len reports the number of fingerprints added (for a probabilistic
	// set: the number of successful Adds).
	Len() int
}

// Batcher is a Set that tests many fingerprints at once more cheaply than
// one by one, such as a set on disk, which reads them in key order as one
// sorted batch (Mercator's way). The crawler prepares each page's links.
type Batcher interface {
	Set
	// Prepare tests fps ahead of the Add and Contains calls that follow
	// for them, which it makes cheaper; it changes no answer.
	Prepare(fps []uint64)
}

// Estimator is a Set that may report false positives and estimates how
// often it does now, such as [Bloom] and [Bitmap]. The crawler publishes
// the estimate as Stats.SeenFPRate.
type Estimator interface {
	Set
	// FPRate returns the estimated probability that Add reports a new
	// fingerprint as seen.
	FPRate() float64
}

// Exact is an exact Set: it never reports a false positive. Its zero value
// is an empty set ready to use. It is not safe for concurrent use.
//
// It is an open-addressing hash table of the fingerprints themselves (linear
// probing, at most 3/4 full, doubling when it would be fuller): 8 bytes a
// slot, so 10.7 to 21 bytes per fingerprint, against about 40 for a Go
// map[uint64]struct{} measured the same way (BenchmarkExactAdd).
type Exact struct {
	slots   []uint64 // 0 marks an empty slot; the fingerprint 0 is kept in hasZero
	shift   uint     // 64 - log2(len(slots))
	n       int
	hasZero bool
}

// NewExact returns an empty Exact set sized for hint fingerprints.
func NewExact(hint int) *Exact {
	s := new(Exact)
	if hint > 0 {
		s.resize(tableSize(hint))
	}
	return s
}

// tableSize is the power of two that holds n fingerprints at most 3/4 full.
func tableSize(n int) int {
	size := 16
	for size*3 < n*4 {
		size *= 2
	}
	return size
}

func (s *Exact) slot(fp uint64) uint64 { return (fp * 0x9E3779B97F4A7C15) >> s.shift }

// Add inserts fp and reports whether it was absent before. Cost: O(1)
// expected.
func (s *Exact) Add(fp uint64) bool {
	if fp == 0 {
		added := !s.hasZero
		if added {
			s.hasZero = true
			s.n++
		}
		return added
	}
	if (s.n+1)*4 > len(s.slots)*3 {
		s.resize(max(16, 2*len(s.slots)))
	}
	mask := uint64(len(s.slots) - 1)
	for i := s.slot(fp); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case fp:
			return false
		case 0:
			s.slots[i] = fp
			s.n++
			return true
		}
	}
}

// Contains reports whether fp is in the set. Cost: O(1) expected.
func (s *Exact) Contains(fp uint64) bool {
	if fp == 0 {
		return s.hasZero
	}
	if len(s.slots) == 0 {
		return false
	}
	mask := uint64(len(s.slots) - 1)
	for i := s.slot(fp); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case fp:
			return true
		case 0:
			return false
		}
	}
}

// Len reports the number of fingerprints in the set. Cost: O(1).
func (s *Exact) Len() int { return s.n }

// MemoryBytes reports the size of the table.
func (s *Exact) MemoryBytes() int { return 8 * len(s.slots) }

// Clear empties the set and keeps its table, so that filling it again up
// to its size before allocates nothing.
func (s *Exact) Clear() {
	clear(s.slots)
	s.n = 0
	s.hasZero = false
}

func (s *Exact) resize(size int) {
	old := s.slots
	s.slots = make([]uint64, size)
	s.shift = uint(64 - bits.TrailingZeros(uint(size)))
	mask := uint64(size - 1)
	for _, fp := range old {
		if fp == 0 {
			continue
		}
		i := s.slot(fp)
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = fp
	}
}
