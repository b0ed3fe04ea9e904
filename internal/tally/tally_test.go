package tally

import (
	"maps"
	"sync"
	"testing"
)

func TestKeyed(t *testing.T) {
	k := New("other", "dns", "timeout", "other")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			k.Add("dns", 1)
			k.Add("nonsense", 2) // counts as other
		})
	}
	wg.Wait()
	if got, want := k.Counts(), map[string]int64{"dns": 8, "other": 16}; !maps.Equal(got, want) {
		t.Errorf("Counts = %v, want %v", got, want)
	}
	noFallback := New(-1, 200, 404)
	noFallback.Add(500, 1)
	noFallback.Add(404, 1)
	if got := noFallback.Counts(); len(got) != 1 || got[404] != 1 {
		t.Errorf("Counts = %v, want only 404 once", got)
	}
}

// Sum adds the counts of both maps, keeps a key of either alone, and
// writes to neither.
func TestSum(t *testing.T) {
	a, b := map[string]int64{"dns": 2, "timeout": 1}, map[string]int64{"dns": 3, "reset": 4}
	got := Sum(a, b)
	if want := map[string]int64{"dns": 5, "timeout": 1, "reset": 4}; !maps.Equal(got, want) {
		t.Errorf("Sum = %v, want %v", got, want)
	}
	if len(a) != 2 || a["dns"] != 2 || len(b) != 2 || b["dns"] != 3 {
		t.Errorf("Sum wrote to its arguments: %v %v", a, b)
	}
	if got := Sum[int](nil, nil); got == nil || len(got) != 0 {
		t.Errorf("Sum(nil, nil) = %#v, want an empty map", got)
	}
}
