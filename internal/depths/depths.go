// Package depths keeps the link depths of URL fingerprints compactly.
package depths

import "math"

// Table maps URL fingerprints to link depths: the shortest known of
// each URL waiting in the frontier or in flight. It is an open-addressing
// table (linear probing, at most 3/4 full, backward-shift deletion) of 10
// bytes a slot, under half what a Go map[uint64]int takes, since a crawl
// keeps one entry per waiting URL. Depths are kept up to math.MaxUint16;
// a greater one is not kept. The zero value is empty and ready to use; it
// is not safe for concurrent use.
type Table struct {
	fps     []uint64 // 0 marks an empty slot; the fingerprint 0 is kept apart
	depths  []uint16
	n       int
	zero    uint16 // the depth of fingerprint 0, if hasZero
	hasZero bool
}

// Get returns the depth kept for fp.
func (t *Table) Get(fp uint64) (int, bool) {
	if fp == 0 {
		if !t.hasZero {
			return 0, false
		}
		return int(t.zero), true
	}
	if len(t.fps) == 0 {
		return 0, false
	}
	for i := t.slot(fp); t.fps[i] != 0; i = (i + 1) & (len(t.fps) - 1) {
		if t.fps[i] == fp {
			return int(t.depths[i]), true
		}
	}
	return 0, false
}

// Set keeps depth for fp, replacing what was kept. A depth beyond
// math.MaxUint16 forgets fp.
func (t *Table) Set(fp uint64, depth int) {
	if depth < 0 || depth > math.MaxUint16 {
		t.Remove(fp)
		return
	}
	if fp == 0 {
		t.zero, t.hasZero = uint16(depth), true
		return
	}
	if 4*(t.n+1) > 3*len(t.fps) {
		t.grow()
	}
	i := t.slot(fp)
	for t.fps[i] != 0 && t.fps[i] != fp {
		i = (i + 1) & (len(t.fps) - 1)
	}
	if t.fps[i] == 0 {
		t.fps[i] = fp
		t.n++
	}
	t.depths[i] = uint16(depth)
}

// Remove forgets fp.
func (t *Table) Remove(fp uint64) {
	if fp == 0 {
		t.hasZero = false
		return
	}
	if len(t.fps) == 0 {
		return
	}
	mask := len(t.fps) - 1
	i := t.slot(fp)
	for t.fps[i] != fp {
		if t.fps[i] == 0 {
			return
		}
		i = (i + 1) & mask
	}
	// Shift back the entries after i that probed past it, so that every
	// entry stays reachable from its home slot without tombstones.
	for j := (i + 1) & mask; t.fps[j] != 0; j = (j + 1) & mask {
		if home := t.slot(t.fps[j]); (j-home)&mask >= (j-i)&mask {
			t.fps[i], t.depths[i] = t.fps[j], t.depths[j]
			i = j
		}
	}
	t.fps[i] = 0
	t.n--
}

// Len returns the number of fingerprints kept.
func (t *Table) Len() int {
	if t.hasZero {
		return t.n + 1
	}
	return t.n
}

// slot is fp's home slot. Fingerprints are xxh3 hashes, so their low bits
// are as good as any.
func (t *Table) slot(fp uint64) int { return int(fp) & (len(t.fps) - 1) }

func (t *Table) grow() {
	old, oldDepths := t.fps, t.depths
	t.fps = make([]uint64, max(2*len(old), 64))
	t.depths = make([]uint16, len(t.fps))
	t.n = 0
	for i, fp := range old {
		if fp != 0 {
			t.Set(fp, int(oldDepths[i]))
		}
	}
}
