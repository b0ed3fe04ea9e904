package simhash

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"sync"
)

// DefaultDistance is the k of NewIndex(0) and of the zero Index: two pages
// whose OfHTML fingerprints are at most 3 bits apart are near-duplicates.
// It was chosen by measurement on crawlertest's near-duplicate families
// (see the package doc), and is also the k of Manku et al.
const DefaultDistance = 3

// MaxDistance is the largest k of an Index: k+1 blocks of at least one bit.
const MaxDistance = 63

// Index stores fingerprints, each with an id given by the caller, and
// finds a stored fingerprint within Hamming distance k of a query.
//
// It uses the permuted tables of Manku, Jain & Das Sarma: the 64 bits are
// split into k+1 blocks (16 bits each for k = 3), so by pigeonhole a
// fingerprint within k of the query equals it on at least one block. Table
// t holds every stored fingerprint, rotated so that block t comes first,
// sorted, with a directory on its leading bits; a query probes each table
// at its own block and compares only that run (about n/2^16 fingerprints
// of n per table for k = 3). New fingerprints wait in a buffer of 256,
// compared one by one, then go to a small set of tables, which is merged
// into the main one when it reaches 32√n to 64√n fingerprints (3% of a
// million).
//
// Memory: 8(k+2) bytes per fingerprint, 40 bytes for k = 3 (k+1 tables
// of 8 bytes and the ids), plus the spare capacity of growing slices (up
// to a quarter more), plus directories of 4(k+1)·2^d bytes, where 2^d is
// about n/8 but d at most the block width (1 MiB in all for k = 3 from
// n = 2^19 on). Cost: Near is 2(k+1) directory probes and runs, plus the
// buffer; Add is amortized about (k+1)·√n/8 word moves, but an Add
// that merges the small tables into the main ones moves (k+1)·8n bytes
// with the lock held (tens of milliseconds for n = 10^6 and k = 3). See
// the package's benchmarks for measured figures.
//
// The zero Index is ready to use, with k = DefaultDistance. An Index is
// safe for concurrent use: its methods take a mutex.
type Index struct {
	mu sync.Mutex
	k  int // 0 until first use

	shifts []int // per table: left rotation bringing its block to the top
	width  int   // width of the narrowest block

	big, small     level    // main tables, and the small ones merged into them
	newFPs, newIDs []uint64 // the buffer: added since the last merge, in order

	// Merge scratch.
	pairs            []pair
	sortFPs, sortIDs []uint64

	sink uint64 // written by near, so that its touching loads are kept
}

// level is a set of k+1 tables.
type level struct {
	tables [][]uint64 // per table: rotated fingerprints, sorted
	ids    []uint64   // ids of tables[0] (rotation 0), entry for entry
	dirs   [][]uint32 // per table: dirs[t][v] is the first entry whose top d bits are ≥ v; len 2^d+1
	dbits  int        // d ≤ Index.width; 0: no directory
}

type pair struct{ fp, id uint64 }

// bufferSize is the size of the buffer of an Index.
const bufferSize = 256

// smallMax returns how many fingerprints the small tables of an Index
// whose main tables hold n take before being merged: 32√n to 64√n (at
// least 4096), so that merging the buffer into them and them into the
// main tables cost about the same per fingerprint.
func smallMax(n int) int {
	s := 1 << ((bits.Len(uint(n)) + 1) / 2) // √n ≤ s < 2√n
	return max(4096, 32*s)
}

// NewIndex returns an empty Index that finds fingerprints within Hamming
// distance k; k = 0 means DefaultDistance (3). It panics if k is negative
// or above MaxDistance. The memory per fingerprint grows with k (see
// Index), and so do the candidates compared per query: the blocks narrow
// as k grows.
func NewIndex(k int) *Index {
	if k < 0 || k > MaxDistance {
		panic(fmt.Sprintf("simhash: NewIndex(%d): k out of range [0, %d]", k, MaxDistance))
	}
	x := &Index{}
	x.init(k)
	return x
}

// init sets up an Index for distance k (0: the default).
func (x *Index) init(k int) {
	if k == 0 {
		k = DefaultDistance
	}
	x.k = k
	blocks := k + 1
	x.width = 64 / blocks
	x.shifts = make([]int, blocks)
	start := 0
	for t := range blocks {
		x.shifts[t] = start
		start += x.width
		if t < 64%blocks {
			start++
		}
	}
	for _, l := range []*level{&x.big, &x.small} {
		l.tables = make([][]uint64, blocks)
		l.dirs = make([][]uint32, blocks)
	}
}

// lazyInit makes a zero Index usable; x.mu must be held.
func (x *Index) lazyInit() {
	if x.k == 0 {
		x.init(0)
	}
}

// K returns the Index's distance k.
func (x *Index) K() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.lazyInit()
	return x.k
}

// Len returns the number of fingerprints added. Cost: O(1).
func (x *Index) Len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.big.ids) + len(x.small.ids) + len(x.newIDs)
}

// Add stores fp with id, whether or not a near fingerprint is stored
// already. Ids need not be distinct (see Near).
func (x *Index) Add(fp, id uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.lazyInit()
	x.add(fp, id)
}

// Near returns the id of the stored fingerprint closest to fp, and its
// distance, if one is within k; ok is false otherwise. Among several
// equally close, it returns the smallest id.
func (x *Index) Near(fp uint64) (id uint64, dist int, ok bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.lazyInit()
	return x.near(fp)
}

// FindOrAdd is Near then, if nothing is within k, Add, in one atomic step:
// of two near-duplicates added concurrently, exactly one is found. When ok
// is true, fp is not stored: a near-duplicate leaves the Index as it was,
// and a later page is compared with the first of its family.
func (x *Index) FindOrAdd(fp, id uint64) (nearID uint64, dist int, ok bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.lazyInit()
	if nearID, dist, ok = x.near(fp); ok {
		return nearID, dist, true
	}
	x.add(fp, id)
	return 0, 0, false
}

func (x *Index) add(fp, id uint64) {
	x.newFPs = append(x.newFPs, fp)
	x.newIDs = append(x.newIDs, id)
	if len(x.newFPs) < bufferSize {
		return
	}
	x.mergeBuffer()
	if len(x.small.ids) >= smallMax(len(x.big.ids)) {
		x.mergeSmall()
	}
}

// near is Near with x.mu held.
func (x *Index) near(fp uint64) (id uint64, dist int, ok bool) {
	// Find the runs of every table, then touch them all, then scan them:
	// their cache misses overlap instead of following one another.
	levels := [2]*level{&x.big, &x.small}
	var runs [2][MaxDistance + 1][2]int
	for i, l := range levels {
		if len(l.ids) == 0 {
			continue
		}
		for t := range l.tables {
			runs[i][t][0], runs[i][t][1] = l.run(t, bits.RotateLeft64(fp, x.shifts[t]))
		}
	}
	var touch uint64
	for i, l := range levels {
		for t, tab := range l.tables {
			if lo := runs[i][t][0]; lo < runs[i][t][1] {
				touch += tab[lo]
			}
		}
	}
	x.sink = touch

	best := x.k + 1
	var buf [8]uint64
	cands := buf[:0] // distinct fingerprints of the tables at distance best
	for i, l := range levels {
		best, cands = x.scan(l, &runs[i], fp, best, cands)
	}
	bufOK := false // a fingerprint of the buffer is at distance best, with id
	for i, f := range x.newFPs {
		d := bits.OnesCount64(f ^ fp)
		if d > x.k || d > best {
			continue
		}
		if d < best {
			best, cands, bufOK = d, cands[:0], false
		}
		if !bufOK || x.newIDs[i] < id {
			id, bufOK = x.newIDs[i], true
		}
	}
	if best > x.k {
		return 0, 0, false
	}
	ok = bufOK
	for _, f := range cands {
		for _, l := range levels {
			if i, found := l.minID(f); found && (!ok || i < id) {
				id, ok = i, true
			}
		}
	}
	return id, best, ok
}

// scan compares fp with the runs of its blocks in the tables of l, and
// returns the least distance found, if not above best, and the distinct
// fingerprints at that distance, appended to cands (reset if closer than
// best).
func (x *Index) scan(l *level, runs *[MaxDistance + 1][2]int, fp uint64, best int, cands []uint64) (int, []uint64) {
	k := x.k
	for t, tab := range l.tables {
		s := x.shifts[t]
		q := bits.RotateLeft64(fp, s)
		for _, e := range tab[runs[t][0]:runs[t][1]] {
			d := bits.OnesCount64(e ^ q)
			if d > k || d > best {
				continue
			}
			if d < best {
				best, cands = d, cands[:0]
			}
			if f := bits.RotateLeft64(e, -s); !slices.Contains(cands, f) {
				cands = append(cands, f)
			}
		}
	}
	return best, cands
}

// run returns the bounds of the entries of table t whose top d bits are
// those of q.
func (l *level) run(t int, q uint64) (lo, hi int) {
	if l.dbits == 0 {
		return 0, len(l.tables[t])
	}
	v := q >> (64 - l.dbits)
	dir := l.dirs[t]
	return int(dir[v]), int(dir[v+1])
}

// minID returns the smallest id of fingerprint fp in l, if it is there.
func (l *level) minID(fp uint64) (id uint64, ok bool) {
	lo, hi := l.run(0, fp)
	tab := l.tables[0]
	i, found := slices.BinarySearch(tab[lo:hi], fp)
	if !found {
		return 0, false
	}
	id = l.ids[lo+i]
	for i := lo + i + 1; i < hi && tab[i] == fp; i++ {
		id = min(id, l.ids[i])
	}
	return id, true
}

// mergeBuffer moves the buffer into the small tables.
func (x *Index) mergeBuffer() {
	x.pairs = x.pairs[:0]
	for i, f := range x.newFPs {
		x.pairs = append(x.pairs, pair{f, x.newIDs[i]})
	}
	slices.SortFunc(x.pairs, func(a, b pair) int { return cmp.Compare(a.fp, b.fp) })
	x.sortFPs, x.sortIDs = x.sortFPs[:0], x.sortIDs[:0]
	for _, p := range x.pairs {
		x.sortFPs = append(x.sortFPs, p.fp)
		x.sortIDs = append(x.sortIDs, p.id)
	}
	l := &x.small
	d := dirBitsFor(len(l.ids)+len(x.newFPs), x.width)
	l.tables[0], l.ids = mergeSorted(l.tables[0], l.ids, x.sortFPs, x.sortIDs, l.dirs[0], l.dbits)
	l.dirs[0] = updateDir(l.dirs[0], l.tables[0], x.sortFPs, l.dbits, d)
	for t := 1; t < len(l.tables); t++ {
		x.sortFPs = x.sortFPs[:0]
		for _, f := range x.newFPs {
			x.sortFPs = append(x.sortFPs, bits.RotateLeft64(f, x.shifts[t]))
		}
		slices.Sort(x.sortFPs)
		l.tables[t], _ = mergeSorted(l.tables[t], nil, x.sortFPs, nil, l.dirs[t], l.dbits)
		l.dirs[t] = updateDir(l.dirs[t], l.tables[t], x.sortFPs, l.dbits, d)
	}
	l.dbits = d
	x.newFPs, x.newIDs = x.newFPs[:0], x.newIDs[:0]
}

// mergeSmall moves the small tables into the main ones.
func (x *Index) mergeSmall() {
	b, s := &x.big, &x.small
	d := dirBitsFor(len(b.ids)+len(s.ids), x.width)
	for t := range b.tables {
		var sids []uint64
		if t == 0 {
			sids = s.ids
		}
		b.tables[t], b.ids = mergeSorted(b.tables[t], b.ids, s.tables[t], sids, b.dirs[t], b.dbits)
		b.dirs[t] = updateDir(b.dirs[t], b.tables[t], s.tables[t], b.dbits, d)
		s.tables[t] = s.tables[t][:0]
	}
	b.dbits = d
	s.ids, s.dbits = s.ids[:0], 0
}

// dirBitsFor returns the directory bits for a level of n fingerprints:
// runs of about 8, at most width bits.
func dirBitsFor(n, width int) int {
	return min(max(bits.Len(uint(n))-3, 0), width, 20)
}

// mergeSorted merges the sorted entries add into the sorted table dst, in
// place from the back, and their ids addIDs into dstIDs (if addIDs is not
// nil). Each new entry goes after the old entries equal to it, found with
// dst's directory dir on its top d bits, and the old entries between two
// new ones move in one copy.
func mergeSorted(dst, dstIDs, add, addIDs []uint64, dir []uint32, d int) ([]uint64, []uint64) {
	n, m := len(dst), len(add)
	dst = slices.Grow(dst, m)[:n+m]
	if addIDs != nil {
		dstIDs = slices.Grow(dstIDs, m)[:n+m]
	}
	hi := n // dst[:hi] holds the old entries not moved yet
	for j := m - 1; j >= 0; j-- {
		p := upper(dst[:hi], add[j], dir, d)
		copy(dst[p+j+1:], dst[p:hi])
		dst[p+j] = add[j]
		if addIDs != nil {
			copy(dstIDs[p+j+1:], dstIDs[p:hi])
			dstIDs[p+j] = addIDs[j]
		}
		hi = p
	}
	return dst, dstIDs
}

// upper returns the index of the first entry of sorted s above v,
// searching only the run of v's top d bits in directory dir (of a prefix
// of s at least) if d > 0.
func upper(s []uint64, v uint64, dir []uint32, d int) int {
	lo, hi := 0, len(s)
	if d > 0 {
		t := v >> (64 - d)
		lo, hi = min(int(dir[t]), hi), min(int(dir[t+1]), hi)
	}
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if s[mid] <= v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// updateDir returns the directory on the top d bits of sorted tab, to
// which the sorted entries add were just merged, reusing dir's memory:
// dir[v] is the first entry whose top d bits are ≥ v. If dir was on old
// bits, d too, it only shifts its offsets by the new entries before them,
// in O(2^d + len(add)); else it is rebuilt in O(2^d + len(tab)).
func updateDir(dir []uint32, tab, add []uint64, old, d int) []uint32 {
	if d == 0 {
		return dir[:0]
	}
	size := 1<<d + 1
	if d == old {
		j := 0
		for v := range size - 1 {
			for j < len(add) && add[j]>>(64-d) < uint64(v) {
				j++
			}
			dir[v] += uint32(j)
		}
		dir[size-1] = uint32(len(tab))
		return dir
	}
	if cap(dir) < size {
		dir = make([]uint32, size)
	}
	dir = dir[:size]
	j := 0
	for v := range size - 1 {
		for j < len(tab) && tab[j]>>(64-d) < uint64(v) {
			j++
		}
		dir[v] = uint32(j)
	}
	dir[size-1] = uint32(len(tab))
	return dir
}
