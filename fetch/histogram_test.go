package fetch

import (
	"sync"
	"testing"
	"time"
)

func TestHistogramQuantile(t *testing.T) {
	b := TimeBounds()
	h := Histogram{Bounds: b, Counts: make([]int64, len(b)+1)}
	if q := h.Quantile(0.5); q != 0 {
		t.Errorf("empty: %v", q)
	}
	h.Counts[0], h.Counts[3], h.Counts[len(b)] = 50, 45, 5 // 50 ≤5ms, 45 in (25,50]ms, 5 above 10s
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, b[0]}, {0.51, b[3]}, {0.95, b[3]}, {0.96, b[len(b)-1]}, {1, b[len(b)-1]}} {
		if got := h.Quantile(c.q); got != c.want {
			t.Errorf("Quantile(%g) = %v, want %v", c.q, got, c.want)
		}
	}
	if n := h.Count(); n != 100 {
		t.Errorf("Count = %d", n)
	}
}

func TestTimerAndPlus(t *testing.T) {
	var tm Timer
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			tm.Observe(time.Millisecond)      // the first bucket
			tm.Observe(30 * time.Millisecond) // (25, 50] ms
			tm.Observe(time.Minute)           // above every bound
		})
	}
	wg.Wait()
	h := tm.Histogram()
	if h.Counts[0] != 4 || h.Counts[3] != 4 || h.Counts[len(h.Bounds)] != 4 || h.Sum != 4*(time.Millisecond+30*time.Millisecond+time.Minute) {
		t.Fatalf("Histogram = %+v", h)
	}
	sum := Histogram{}.Plus(h).Plus(h)
	if sum.Count() != 24 || sum.Sum != 2*h.Sum || h.Count() != 12 {
		t.Errorf("Plus: %+v (h %+v)", sum, h)
	}
}
