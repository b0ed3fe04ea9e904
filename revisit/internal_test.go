package revisit

import (
	"math"
	"testing"
)

// gInverse inverts g to within a few ulps across its range, where the
// bisection it replaced took fifty steps, and g itself is smooth where
// it switches to its series.
func TestGInverse(t *testing.T) {
	for _, target := range []float64{1e-20, 1e-12, 1e-9, 1e-6, 5e-5, 1e-3, 0.01, 0.1, 0.3, 0.4999, 0.5, 0.7, 0.9, 0.99, 0.999999, 1 - 1e-12} {
		x := gInverse(target)
		// The reference: bisection on g, which rises.
		lo, hi := 0.0, 1.0
		for g(hi) < target {
			lo, hi = hi, hi*2
		}
		for range 200 {
			if mid := (lo + hi) / 2; g(mid) < target {
				lo = mid
			} else {
				hi = mid
			}
		}
		if want := (lo + hi) / 2; math.Abs(x-want) > 1e-11*want {
			t.Errorf("gInverse(%g) = %.17g, want %.17g", target, x, want)
		}
	}
	below, above := g(math.Nextafter(0.01, 0)), g(0.01)
	if math.Abs(below-above) > 1e-12*above {
		t.Errorf("g jumps at the series' edge: %.17g, %.17g", below, above)
	}
}
