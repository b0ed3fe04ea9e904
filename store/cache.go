package store

import "math/bits"

// fpCache is a cache of fingerprints known to be seen, in front of the
// store's reads, as Mercator kept one of popular URLs: most links of a page
// point to pages linked from everywhere (a site's home and navigation), so
// a few hundred thousand fingerprints answer most of the seen ones. It is
// set-associative, seven ways, each set evicting by CLOCK (second chance):
// a fingerprint used since the hand last passed stays. A set is one 64-byte
// cache line, seven fingerprints and a word of its own state, so that a
// test costs one miss of the CPU's cache, not one for the fingerprints, one
// for their marks and one for the hand. The zero value is unusable;
// newFPCache makes one.
type fpCache struct {
	words []uint64 // setWords per set: the ways (0: empty; fingerprint 0 is not cached), then the set's state
	sets  uint64
}

// A set's words: ways fingerprints, then a word of state whose bits 0-6
// mark the ways used since the hand last passed and whose bits 8-15 hold
// the way the hand points at.
const (
	ways      = 7
	setWords  = ways + 1
	handShift = 8
)

// newFPCache returns a cache of at least n fingerprints (one set, at the
// least).
func newFPCache(n int) *fpCache {
	sets := max(1, (n+ways-1)/ways)
	c := &fpCache{sets: uint64(sets)}
	c.words = offHeapWords(c, sets*setWords) // page-aligned: each set in one cache line
	return c
}

// set returns fp's set's words. Fingerprints are xxh3 hashes: their high
// bits are as good as any, and multiplying maps them onto the sets without
// a division.
func (c *fpCache) set(fp uint64) []uint64 {
	i, _ := bits.Mul64(fp, c.sets)
	return c.words[i*setWords : (i+1)*setWords : (i+1)*setWords]
}

// contains reports whether fp is cached, marking it used.
func (c *fpCache) contains(fp uint64) bool {
	if fp == 0 {
		return false
	}
	s := c.set(fp)
	for i, w := range s[:ways] {
		if w == fp {
			s[ways] |= 1 << i
			return true
		}
	}
	return false
}

// add caches fp, evicting the first way of its set the hand finds unused
// (clearing the marks it passes).
func (c *fpCache) add(fp uint64) {
	if fp == 0 || c.contains(fp) {
		return
	}
	s := c.set(fp)
	state := s[ways]
	hand := state >> handShift
	for {
		i := hand
		hand = (hand + 1) % ways
		if s[i] == 0 || state&(1<<i) == 0 {
			s[i] = fp
			s[ways] = state&^(1<<i)&^(0xff<<handShift) | hand<<handShift
			return
		}
		state &^= 1 << i
	}
}
