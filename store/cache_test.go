package store

import (
	"math/rand/v2"
	"testing"
)

// TestFPCacheClock checks the CLOCK of one set: seven fingerprints fit; an
// eighth evicts the first way the hand finds unused, and a fingerprint
// used since the hand passed survives it once.
func TestFPCacheClock(t *testing.T) {
	t.Parallel()
	c := newFPCache(1)
	if c.sets != 1 {
		t.Fatalf("%d sets for 1 fingerprint, want 1", c.sets)
	}
	for fp := uint64(1); fp <= ways; fp++ {
		c.add(fp)
	}
	for fp := uint64(1); fp <= ways; fp++ {
		if !c.contains(fp) { // marks every way used
			t.Fatalf("%d not cached", fp)
		}
	}
	if c.contains(0) || c.contains(ways+1) {
		t.Fatal("contains a fingerprint never added")
	}
	// Every way is marked: the hand clears them all, comes back to way 0
	// and evicts fingerprint 1.
	c.add(100)
	if c.contains(1) || !c.contains(100) {
		t.Fatalf("after a full sweep: 1 cached %v, 100 cached %v", c.contains(1), c.contains(100))
	}
	// 100 and 2 are used again; the hand is at way 1 (2), which it spares,
	// and evicts 3 at way 2.
	c.contains(2)
	c.add(101)
	for fp, want := range map[uint64]bool{2: true, 3: false, 100: true, 101: true, 4: true} {
		if c.contains(fp) != want {
			t.Errorf("after a second add: %d cached %v, want %v", fp, !want, want)
		}
	}
	c.add(0)
	if c.contains(0) {
		t.Error("fingerprint 0 cached")
	}
}

// TestFPCacheHolds checks that a cache of n fingerprints holds most of n
// random ones, keeps the last added of each set, and never answers yes for
// a fingerprint it was not given.
func TestFPCacheHolds(t *testing.T) {
	t.Parallel()
	const n = 70_000
	c := newFPCache(n)
	rng := rand.New(rand.NewPCG(3, 4))
	fps := make([]uint64, n)
	for i := range fps {
		fps[i] = rng.Uint64() | 1
		c.add(fps[i])
		if !c.contains(fps[i]) {
			t.Fatalf("fingerprint %d not cached just after its add", i)
		}
	}
	held := 0
	for _, fp := range fps {
		if c.contains(fp) {
			held++
		}
	}
	if held < n*8/10 {
		t.Errorf("holds %d of %d fingerprints added, want 80%% at least", held, n)
	}
	for range 10_000 {
		if c.contains(rng.Uint64() &^ 1) { // even: never added
			t.Fatal("contains a fingerprint never added")
		}
	}
}
