package frontier

import "hash/maphash"

// AOPIC finds pages by fingerprint in an open-addressed hash table of page
// indexes (plus 1; 0 marks an empty slot), probed linearly from the slot
// of the fingerprint's hash. The fingerprints are the pages' own, so a
// slot takes 4 bytes, and the table, a quarter to half full, 8 to 16
// bytes a page, where a map[uint64]int32 takes 25 to 40. Pages are never
// removed, so no slot is ever emptied; the table doubles before it is
// more than half full, which keeps a search for a fingerprint it does
// not hold to about 2.5 probes on average. The hash is seeded per
// frontier, as a map's is, so that URLs made to collide cannot make
// searches long.

// find returns the index of the page with fingerprint fp.
func (a *AOPIC) find(fp uint64) (int32, bool) {
	if len(a.index) == 0 {
		return 0, false
	}
	mask := len(a.index) - 1
	for k := a.home(fp); ; k = (k + 1) & mask {
		i := a.index[k] - 1
		if i < 0 {
			return 0, false
		}
		if a.pages[i].fp == fp {
			return i, true
		}
	}
}

// add puts page i, the last one pushed, in the table, which must not hold
// its fingerprint yet. The table doubles first if it would be more than
// half full.
func (a *AOPIC) add(i int32) {
	if n := len(a.index); 2*len(a.pages) > n {
		a.index = make([]int32, max(2*n, 1<<10))
		for j := range i {
			a.put(j)
		}
	}
	a.put(i)
}

// put puts page i in the first empty slot from its fingerprint's.
func (a *AOPIC) put(i int32) {
	mask := len(a.index) - 1
	k := a.home(a.pages[i].fp)
	for a.index[k] != 0 {
		k = (k + 1) & mask
	}
	a.index[k] = i + 1
}

// home returns the slot where the search for fp starts.
func (a *AOPIC) home(fp uint64) int {
	return int(maphash.Comparable(a.seed, fp)) & (len(a.index) - 1)
}
