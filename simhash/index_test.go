package simhash_test

import (
	"math/rand/v2"
	"sync"
	"testing"

	"crawler/simhash"
)

// flip returns fp with n distinct random bits flipped.
func flip(r *rand.Rand, fp uint64, n int) uint64 {
	for _, i := range r.Perm(64)[:n] {
		fp ^= 1 << i
	}
	return fp
}

// bruteNear is Near by brute force over fps (id = index + 1000) and its
// ids: the closest within k, the smallest id among equals.
func bruteNear(fps, ids []uint64, fp uint64, k int) (id uint64, dist int, ok bool) {
	dist = k + 1
	for i, f := range fps {
		d := simhash.Distance(f, fp)
		if d < dist || d == dist && ok && ids[i] < id {
			id, dist, ok = ids[i], d, d <= k
		}
	}
	if !ok {
		return 0, 0, false
	}
	return id, dist, true
}

// TestIndexBruteForce checks that Near finds every stored fingerprint
// within k and none beyond, as brute force does, for several k and sizes
// (merged tables and unmerged fingerprints alike), with queries at every
// distance around k from stored fingerprints, random queries, and
// duplicate fingerprints.
func TestIndexBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const size = 6000 // past the first merge into the main tables, at 4096
	for _, k := range []int{1, 2, 3, 4, 7, 12} {
		x := simhash.NewIndex(k)
		var fps, ids []uint64
		// Clusters: a center and a few near it, so that several stored
		// fingerprints are within k of a query.
		var center uint64
		for n := 0; n < size; n++ {
			var fp uint64
			switch {
			case n%50 == 0:
				center = r.Uint64()
				fp = center
			case n%7 == 0:
				fp = flip(r, center, r.IntN(k+2))
			case n%97 == 0 && n > 0:
				fp = fps[r.IntN(len(fps))] // a duplicate
			default:
				fp = r.Uint64()
			}
			id := uint64(r.IntN(1 << 20))
			x.Add(fp, id)
			fps, ids = append(fps, fp), append(ids, id)
			if n%23 != 0 {
				continue
			}
			for range 8 {
				q := r.Uint64()
				if r.IntN(4) > 0 {
					q = flip(r, fps[r.IntN(len(fps))], r.IntN(k+3))
				}
				wantID, wantD, wantOK := bruteNear(fps, ids, q, k)
				id, d, ok := x.Near(q)
				if id != wantID || d != wantD || ok != wantOK {
					t.Fatalf("k=%d, %d stored: Near(%#x) = (%d, %d, %v), want (%d, %d, %v)",
						k, len(fps), q, id, d, ok, wantID, wantD, wantOK)
				}
			}
		}
		if x.Len() != len(fps) {
			t.Errorf("k=%d: Len = %d, want %d", k, x.Len(), len(fps))
		}
	}
}

func TestIndexFindOrAdd(t *testing.T) {
	var x simhash.Index // the zero Index: DefaultDistance
	if k := x.K(); k != simhash.DefaultDistance {
		t.Fatalf("zero Index: K = %d, want %d", k, simhash.DefaultDistance)
	}
	const a = 0x0123456789abcdef
	if _, _, ok := x.FindOrAdd(a, 1); ok {
		t.Fatal("FindOrAdd in an empty Index found something")
	}
	if id, d, ok := x.FindOrAdd(a^0b111, 2); !ok || id != 1 || d != 3 {
		t.Errorf("FindOrAdd(3 bits off) = (%d, %d, %v), want (1, 3, true)", id, d, ok)
	}
	if _, _, ok := x.FindOrAdd(a^0b1111, 3); ok {
		t.Error("FindOrAdd(4 bits off) found a match")
	}
	if n := x.Len(); n != 2 {
		t.Errorf("Len = %d, want 2 (the near-duplicate is not stored)", n)
	}
	if k := simhash.NewIndex(0).K(); k != simhash.DefaultDistance {
		t.Errorf("NewIndex(0).K() = %d, want %d", k, simhash.DefaultDistance)
	}
}

func TestNewIndexPanics(t *testing.T) {
	for _, k := range []int{-1, simhash.MaxDistance + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewIndex(%d) did not panic", k)
				}
			}()
			simhash.NewIndex(k)
		}()
	}
	if k := simhash.NewIndex(simhash.MaxDistance).K(); k != simhash.MaxDistance {
		t.Errorf("NewIndex(MaxDistance).K() = %d", k)
	}
}

// TestIndexConcurrent runs FindOrAdd from several goroutines on the same
// fingerprints (and near copies): each family is stored exactly once.
func TestIndexConcurrent(t *testing.T) {
	const workers, families = 4, 3000
	r := rand.New(rand.NewPCG(7, 8))
	centers := make([]uint64, families)
	for i := range centers {
		centers[i] = r.Uint64() // pairwise far apart, with overwhelming probability
	}
	x := simhash.NewIndex(3)
	var wg sync.WaitGroup
	added := make([][]int, workers) // per worker: families it added
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 9))
			for _, i := range r.Perm(families) {
				fp := flip(r, centers[i], r.IntN(2)) // within 1 of the center: within 2 of each other
				id, _, ok := x.FindOrAdd(fp, uint64(i))
				switch {
				case !ok:
					added[w] = append(added[w], i)
				case id != uint64(i):
					t.Errorf("family %d matched family %d", i, id)
				}
				if w == 0 && i%16 == 0 {
					x.Near(centers[i])
					x.Len()
				}
			}
		})
	}
	wg.Wait()
	count := make([]int, families)
	for _, fs := range added {
		for _, i := range fs {
			count[i]++
		}
	}
	for i, c := range count {
		if c != 1 {
			t.Errorf("family %d added %d times, want 1", i, c)
		}
	}
	if n := x.Len(); n != families {
		t.Errorf("Len = %d, want %d", n, families)
	}
}

// TestIndexLarge checks Near against brute force once the directories
// reach the full block width (k = 3: 16 bits, from 2^19 fingerprints).
func TestIndexLarge(t *testing.T) {
	if testing.Short() || simhash.RaceEnabled {
		t.Skip("large index: skipped in -short and with -race")
	}
	r := rand.New(rand.NewPCG(10, 11))
	const n = 1<<19 + 1<<17
	x := simhash.NewIndex(3)
	fps, ids := make([]uint64, n), make([]uint64, n)
	for i := range fps {
		fps[i], ids[i] = r.Uint64(), uint64(i)
		x.Add(fps[i], ids[i])
	}
	for q := range 300 {
		fp := r.Uint64()
		if q%3 > 0 {
			fp = flip(r, fps[r.IntN(n)], r.IntN(6))
		}
		wantID, wantD, wantOK := bruteNear(fps, ids, fp, 3)
		if id, d, ok := x.Near(fp); id != wantID || d != wantD || ok != wantOK {
			t.Fatalf("Near(%#x) = (%d, %d, %v), want (%d, %d, %v)", fp, id, d, ok, wantID, wantD, wantOK)
		}
	}
}
