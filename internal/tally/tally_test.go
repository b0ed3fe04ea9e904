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
