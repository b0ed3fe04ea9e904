package store

// fpCache is a cache of fingerprints known to be seen, in front of the
// store's reads, as Mercator kept one of popular URLs: most links of a page
// point to pages linked from everywhere (a site's home and navigation), so
// a few hundred thousand fingerprints answer most of the seen ones. It is
// set-associative, four ways, each set evicting by CLOCK (second chance):
// a fingerprint used since the hand last passed stays. The zero value is
// unusable; newFPCache makes one.
type fpCache struct {
	fps  []uint64 // 4 per set; 0 marks an empty way (fingerprint 0 is not cached)
	ref  []bool   // used since the hand last passed
	hand []uint8  // per set, the way the hand points at
	mask uint64   // sets - 1
}

// newFPCache returns a cache of at least n fingerprints (rounded up to a
// power of two, 4 per set).
func newFPCache(n int) *fpCache {
	sets := 1
	for sets*4 < n {
		sets *= 2
	}
	c := &fpCache{ref: make([]bool, 4*sets), hand: make([]uint8, sets), mask: uint64(sets - 1)}
	c.fps = offHeapWords(c, 4*sets)
	return c
}

// set returns the index of fp's set's first way. Fingerprints are xxh3
// hashes: their high bits are as good as any, and the Bloom filter and
// the store's keys use the others.
func (c *fpCache) set(fp uint64) int { return int((fp>>40)&c.mask) * 4 }

// contains reports whether fp is cached, marking it used.
func (c *fpCache) contains(fp uint64) bool {
	s := c.set(fp)
	for i := s; i < s+4; i++ {
		if c.fps[i] == fp && fp != 0 {
			c.ref[i] = true
			return true
		}
	}
	return false
}

// add caches fp, evicting the first way of its set the hand finds unused.
func (c *fpCache) add(fp uint64) {
	if fp == 0 || c.contains(fp) {
		return
	}
	s := c.set(fp)
	h := &c.hand[s/4]
	for {
		i := s + int(*h)
		*h = (*h + 1) % 4
		if c.fps[i] == 0 || !c.ref[i] {
			c.fps[i], c.ref[i] = fp, false
			return
		}
		c.ref[i] = false
	}
}
