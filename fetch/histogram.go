package fetch

import (
	"math"
	"slices"
	"sync/atomic"
	"time"
)

// TimeBounds returns the upper bounds of the buckets a [Timer] counts
// durations in: those Prometheus uses by default.
func TimeBounds() []time.Duration { return slices.Clone(timeBounds[:]) }

var timeBounds = [...]time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 25 * time.Millisecond,
	50 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second}

// Histogram counts durations, such as the response times of fetches (the
// crawler's Stats.FetchTime), by bucket.
type Histogram struct {
	Bounds []time.Duration // upper bounds of the buckets, ascending (TimeBounds)
	Counts []int64         // per bucket, len(Bounds)+1: Counts[i] for Bounds[i-1] < d <= Bounds[i], the last above every bound
	Sum    time.Duration   // the durations added up
}

// Count returns the number of durations counted.
func (h Histogram) Count() int64 {
	var n int64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Quantile estimates the q-quantile (0 <= q <= 1) by the upper bound of
// its bucket (the last: its lower bound); 0 for an empty histogram.
func (h Histogram) Quantile(q float64) time.Duration {
	n := h.Count()
	if n == 0 || len(h.Bounds) == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(n)))
	var acc int64
	for i, c := range h.Counts {
		acc += c
		if acc >= rank && c > 0 {
			return h.Bounds[min(i, len(h.Bounds)-1)]
		}
	}
	return h.Bounds[len(h.Bounds)-1]
}

// Plus returns the counts of h and g, which have the same bounds or are
// zero, added.
func (h Histogram) Plus(g Histogram) Histogram {
	if len(h.Counts) == 0 {
		h, g = g, h
	}
	sum := Histogram{Bounds: slices.Clone(h.Bounds), Counts: slices.Clone(h.Counts), Sum: h.Sum + g.Sum}
	for i := range min(len(sum.Counts), len(g.Counts)) {
		sum.Counts[i] += g.Counts[i]
	}
	return sum
}

// Timer counts durations in the buckets of TimeBounds. Its zero value is
// ready to use; it is safe for concurrent use.
type Timer struct {
	counts [len(timeBounds) + 1]atomic.Int64
	sum    atomic.Int64
}

// Observe counts d.
func (t *Timer) Observe(d time.Duration) {
	i, _ := slices.BinarySearch(timeBounds[:], d)
	t.counts[i].Add(1)
	t.sum.Add(int64(d))
}

// Histogram returns what t counted.
func (t *Timer) Histogram() Histogram {
	h := Histogram{Bounds: TimeBounds(), Counts: make([]int64, len(t.counts)), Sum: time.Duration(t.sum.Load())}
	for i := range t.counts {
		h.Counts[i] = t.counts[i].Load()
	}
	return h
}
