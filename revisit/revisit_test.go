package revisit_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"crawler/revisit"
)

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// After 20 visits at regular intervals of 0.2 to 2 mean change intervals,
// the estimates are within 25% of the true rates (median), and far closer
// than the naive changes/time.
func TestEstimate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var errs, naive []float64
	for range 2000 {
		lambda := 1 / (2 + rng.Float64()*600)                                   // seconds to minutes
		interval := math.Exp(math.Log(0.2)+rng.Float64()*math.Log(10)) / lambda // λI in [0.2, 2]
		var visits []revisit.Visit
		changes := 0
		for range 20 {
			changed := rng.Float64() < -math.Expm1(-lambda*interval)
			visits = append(visits, revisit.Visit{Interval: seconds(interval), Changed: changed})
			if changed {
				changes++
			}
		}
		est := revisit.Estimate(visits)
		errs = append(errs, math.Abs(est-lambda)/lambda)
		naive = append(naive, math.Abs(float64(changes)/(20*interval)-lambda)/lambda)
	}
	slices.Sort(errs)
	slices.Sort(naive)
	t.Logf("relative error after 20 visits: median %.1f%%, 90th percentile %.1f%%; naive changes/time: median %.1f%%",
		100*errs[len(errs)/2], 100*errs[len(errs)*9/10], 100*naive[len(naive)/2])
	if errs[len(errs)/2] > 0.25 {
		t.Errorf("median relative error %.1f%%, want at most 25%%", 100*errs[len(errs)/2])
	}
	if naive[len(naive)/2] <= errs[len(errs)/2] {
		t.Errorf("naive estimator no worse (median %.1f%%) than ours", 100*naive[len(naive)/2])
	}
}

func TestEstimateEdges(t *testing.T) {
	if got := revisit.Estimate(nil); got != 0 {
		t.Errorf("no visits: %v", got)
	}
	quiet := []revisit.Visit{{Interval: 10 * time.Second}, {Interval: 30 * time.Second}}
	if got := revisit.Estimate(quiet); math.Abs(got-0.5/40) > 1e-12 {
		t.Errorf("no change seen: %v, want half a change over 40 s", got)
	}
	always := slices.Repeat([]revisit.Visit{{Interval: 10 * time.Second, Changed: true}}, 4)
	if got, want := revisit.Estimate(always), math.Log(9)/10; math.Abs(got-want) > 1e-12 {
		t.Errorf("every visit changed: %v, want ln(2n+1)/I = %v", got, want)
	}
	// Irregular intervals: the maximum-likelihood equation holds.
	mixed := []revisit.Visit{{Interval: 5 * time.Second, Changed: true}, {Interval: 20 * time.Second}, {Interval: 60 * time.Second, Changed: true}, {Interval: 10 * time.Second}}
	l := revisit.Estimate(mixed)
	lhs := 5/math.Expm1(5*l) + 60/math.Expm1(60*l)
	if math.Abs(lhs-30) > 1e-6 {
		t.Errorf("λ = %v: Σ t/(e^λt − 1) = %v, want Σ unchanged t = 30", l, lhs)
	}
}

func TestFreshness(t *testing.T) {
	for _, tt := range []struct{ lambda, f, want float64 }{
		{0, 0, 1}, {1, 0, 0}, {1, 1, 1 - math.Exp(-1)}, {0.01, 1, (1 - math.Exp(-0.01)) / 0.01},
	} {
		if got := revisit.Freshness(tt.lambda, tt.f); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Freshness(%v, %v) = %v, want %v", tt.lambda, tt.f, got, tt.want)
		}
	}
}

// Allocate spends the budget, keeps the bounds, equalises ∂F/∂f among the
// pages it revisits above the minimum, and beats uniform revisiting.
func TestAllocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rates := make([]float64, 500)
	for i := range rates {
		rates[i] = 1 / math.Exp(math.Log(2)+rng.Float64()*math.Log(300)) // 2 s to 10 min
	}
	b := revisit.Bounds{Min: time.Second, Max: time.Hour}
	budget := 500.0 / 60
	f := revisit.Allocate(rates, budget, b)
	sum, fresh, uniform := 0.0, 0.0, 0.0
	for i, fi := range f {
		sum += fi
		if fi < 1/3600.0-1e-12 || fi > 1+1e-12 {
			t.Fatalf("page %d: rate %v out of bounds", i, fi)
		}
		fresh += revisit.Freshness(rates[i], fi)
		uniform += revisit.Freshness(rates[i], budget/500)
	}
	if math.Abs(sum-budget) > 1e-6*budget {
		t.Errorf("rates sum to %v, want the budget %v", sum, budget)
	}
	if fresh <= uniform {
		t.Errorf("expected freshness %.3f, uniform %.3f: the optimum is no better", fresh/500, uniform/500)
	}
	t.Logf("expected freshness: optimal %.3f, uniform %.3f", fresh/500, uniform/500)
	// Any small transfer of rate between two pages lowers the sum.
	for range 200 {
		i, j := rng.IntN(500), rng.IntN(500)
		d := 0.01 * min(f[i], f[j])
		if d == 0 || f[i]-d < 1/3600.0 || f[j]+d > 1 {
			continue
		}
		before := revisit.Freshness(rates[i], f[i]) + revisit.Freshness(rates[j], f[j])
		after := revisit.Freshness(rates[i], f[i]-d) + revisit.Freshness(rates[j], f[j]+d)
		if after > before+1e-9 {
			t.Fatalf("moving %v of rate from page %d to %d raises freshness: not optimal", d, i, j)
		}
	}
	// Bounds that the budget cannot meet, or cannot fill.
	tight := revisit.Allocate(rates, 0.01, b)
	if tight[0] != 1/3600.0 {
		t.Errorf("budget below the minima: %v, want the minimum rate", tight[0])
	}
	loose := revisit.Allocate(rates, 1e6, b)
	if loose[0] != 1 {
		t.Errorf("budget above the maxima: %v, want the maximum rate", loose[0])
	}
}

func TestScheduleBasics(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := &revisit.Schedule{Budget: 1, Bounds: revisit.Bounds{Min: 2 * time.Second, Max: time.Hour}, History: 3}
	// A lone page before any Plan: the whole budget, within the bounds.
	if due := s.Visited(1, t0, false); !due.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("first visit: due %v, want at the 2 s bound", due.Sub(t0))
	}
	// Ten visits 10 s apart, the last three changed: History keeps those
	// three, all changed: ln(2n+1)/I.
	for i := 1; i <= 10; i++ {
		s.Visited(1, t0.Add(time.Duration(i)*10*time.Second), i > 7)
	}
	if est, _ := s.Rate(1); math.Abs(est-math.Log(7)/10) > 1e-9 {
		t.Errorf("estimate %v, want ln 7 / 10 s from the last 3 visits", est)
	}
	s.Visited(2, t0, false)
	s.Plan()
	_, f1 := s.Rate(1)
	_, f2 := s.Rate(2)
	if f1 != 0.5 || f2 != 0.5 {
		t.Errorf("planned rates %v and %v; want both at the 2 s bound: the budget of 1/s allows it", f1, f2)
	}
	if s.Len() != 2 {
		t.Errorf("Len = %d", s.Len())
	}
	if c, r := s.Rate(99); c != 0 || r != 0 {
		t.Errorf("unknown page: %v %v", c, r)
	}
}

// A page's history read with Visits and given to Restore in a new
// Schedule (a resumed crawl) gives the same estimate; Forget drops it.
func TestScheduleRestore(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := &revisit.Schedule{Budget: 1, History: 4}
	for i := range 6 {
		s.Visited(7, t0.Add(time.Duration(i)*time.Minute), i%2 == 0)
	}
	last, visits, ok := s.Visits(7)
	if !ok || !last.Equal(t0.Add(5*time.Minute)) || len(visits) != 4 {
		t.Fatalf("Visits = %v, %d visits, %v; want the 5th minute, 4 visits", last.Sub(t0), len(visits), ok)
	}
	r := &revisit.Schedule{Budget: 1, History: 3}
	r.Restore(7, last, visits)
	_, kept, _ := r.Visits(7)
	if want := visits[1:]; !slices.Equal(kept, want) {
		t.Fatalf("restored with History 3: %v, want the latest 3 of %v", kept, visits)
	}
	s.Restore(7, last, visits[1:])
	got, _ := s.Rate(7)
	want, _ := r.Rate(7)
	if got != want || got == 0 {
		t.Errorf("estimates after Restore: %v and %v, want equal and not 0", got, want)
	}
	if _, _, ok := s.Visits(8); ok {
		t.Error("History of a page never visited is ok")
	}
	r.Forget(7)
	if r.Len() != 0 {
		t.Errorf("Len after Forget = %d", r.Len())
	}
}

// BenchmarkPlan is a Schedule's Plan over pages with a few visits each:
// what a recrawl pays at each replan (every quarter of the pages
// visited, at most each second).
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			s := &revisit.Schedule{Budget: float64(n) / 600}
			t0 := time.Unix(0, 0)
			for id := range uint64(n) {
				for v := range 8 {
					s.Visited(id, t0.Add(time.Duration(v)*10*time.Minute), rng.IntN(3) == 0)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			next := t0.Add(time.Hour)
			for b.Loop() {
				// A quarter of the pages visited again since the last
				// Plan, as when a recrawl plans.
				b.StopTimer()
				for range n / 4 {
					s.Visited(rng.Uint64N(uint64(n)), next, rng.IntN(3) == 0)
				}
				next = next.Add(time.Hour)
				b.StartTimer()
				s.Plan()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/page")
		})
	}
}

// The prior's estimate: none is the maximum-likelihood one; with no visit
// it is the median; a page whose visits all saw a change, or none, gets a
// finite rate on the side of the median its visits say, nearer to it than
// the maximum-likelihood fallbacks; with visits of both kinds its
// equation holds.
func TestPriorEstimate(t *testing.T) {
	mixed := []revisit.Visit{{Interval: 5 * time.Second, Changed: true}, {Interval: 20 * time.Second}, {Interval: 60 * time.Second, Changed: true}, {Interval: 10 * time.Second}}
	if got, want := (revisit.Prior{}).Estimate(mixed), revisit.Estimate(mixed); got != want {
		t.Errorf("the zero Prior: %v, want Estimate's %v", got, want)
	}
	p := revisit.Prior{Median: 0.05, Spread: 1}
	if got := p.Estimate(nil); math.Abs(got-0.05) > 1e-9 {
		t.Errorf("no visit: %v, want the median 0.05", got)
	}
	always := slices.Repeat([]revisit.Visit{{Interval: 10 * time.Second, Changed: true}}, 3)
	if got, mle := p.Estimate(always), revisit.Estimate(always); !(got > 0.05 && !math.IsInf(got, 0)) {
		t.Errorf("every visit changed: %v, want a finite rate above the median (maximum likelihood: %v)", got, mle)
	}
	quiet := slices.Repeat([]revisit.Visit{{Interval: 100 * time.Second}}, 3)
	if got, mle := p.Estimate(quiet), revisit.Estimate(quiet); !(got > mle && got < 0.05) {
		t.Errorf("no visit changed: %v, want between the maximum-likelihood %v and the median", got, mle)
	}
	l := p.Estimate(mixed)
	x := math.Log(l)
	lhs := 5*l/math.Expm1(5*l) + 60*l/math.Expm1(60*l) - 30*l
	if rhs := (x - math.Log(0.05)); math.Abs(lhs-rhs) > 1e-6 {
		t.Errorf("λ = %v: Σ λt/(e^λt − 1) − λ·Σ unchanged t = %v, want (ln λ − ln median)/spread² = %v", l, lhs, rhs)
	}
	// The pooled prior: Cho and Garcia-Molina's estimator over all visits.
	pp := revisit.PooledPrior(1, 10, 4, 100*time.Second)
	if want := -math.Log(6.5/10.5) / 10; math.Abs(pp.Median-want) > 1e-12 || pp.Spread != 1 {
		t.Errorf("PooledPrior = %+v, want median %v", pp, want)
	}
	if pp := revisit.PooledPrior(1, 10, 0, 100*time.Second); pp != (revisit.Prior{}) {
		t.Errorf("PooledPrior with no change seen = %+v, want none", pp)
	}
}

// pageWithAges returns the visits of a page that changes at rate lambda
// (per second, a Poisson process from time 0), first fetched at first and
// then every interval n times, as a Tracker records them from a change
// web's responses: Last-Modified and Date to the second, the age their
// difference (at least half a second), a first visit's
// last modification a change if after time 0.
func pageWithAges(rng *rand.Rand, lambda, first, interval float64, n int) (aged, counted []revisit.Visit) {
	last, next := 0.0, rng.ExpFloat64()/lambda
	at := func(t float64) (changed bool, age time.Duration) {
		for next <= t {
			changed, last, next = true, next, next+rng.ExpFloat64()/lambda
		}
		return changed, max(seconds(math.Floor(t)-math.Floor(last)), time.Second/2)
	}
	_, age := at(first)
	aged = append(aged, revisit.Visit{Changed: math.Floor(last) > 0, Age: age})
	for i := 1; i <= n; i++ {
		changed, age := at(first + float64(i)*interval)
		v := revisit.Visit{Interval: seconds(interval), Changed: changed}
		counted = append(counted, v)
		if changed {
			v.Age = age
		}
		aged = append(aged, v)
	}
	return aged, counted
}

// With the ages its Last-Modified tells (to the second), a page's
// estimate converges to its rate of change, for pages much faster than
// their visits too, if not than the second (whose
// visits all see a change, and whose change counts say only that they
// change faster than visited); after a first fetch and three revisits,
// the estimates of pages whose rates spread from 2 s to 2 min are far
// closer than from change counts alone; and the estimate solves its
// equation.
func TestPriorEstimateAges(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	p := revisit.Prior{Median: 1.0 / 10, Spread: 1}
	for _, mean := range []float64{2, 10, 60, 600} {
		n := int(max(1000, 1000*mean/10.3)) // a thousand changes at least
		aged, _ := pageWithAges(rng, 1/mean, 3.14, 10.3, n)
		if got := p.Estimate(aged); math.Abs(got*mean-1) > 0.1 {
			t.Errorf("1 change every %v s, %d visits 10.3 s apart: estimated 1 every %.2f s, want within 10%%", mean, n, 1/got)
		}
	}
	var withAges, without []float64
	for range 300 {
		mean := 2 * math.Pow(60, rng.Float64())
		aged, counted := pageWithAges(rng, 1/mean, 30*rng.Float64(), 25, 3)
		withAges = append(withAges, math.Abs(math.Log(p.Estimate(aged)*mean)))
		without = append(without, math.Abs(math.Log(p.Estimate(counted)*mean)))
	}
	slices.Sort(withAges)
	slices.Sort(without)
	a, c := withAges[len(withAges)/2], without[len(without)/2]
	t.Logf("after 4 visits 25 s apart, median |ln(estimate/rate)|: %.2f with ages, %.2f from change counts", a, c)
	if a > 0.7*c {
		t.Errorf("median |ln(estimate/rate)| %.2f with ages, want at most 0.7 of the change counts' %.2f", a, c)
	}
	visits := []revisit.Visit{{Changed: true, Age: 4 * time.Second}, {Interval: 20 * time.Second, Changed: true, Age: 3 * time.Second},
		{Interval: 20 * time.Second}, {Interval: 20 * time.Second, Changed: true}, {Interval: 7 * time.Second, Age: time.Hour}}
	l := p.Estimate(visits)
	lhs := 2 - l*(4+3+20+7) + 20*l/math.Expm1(20*l)
	if rhs := math.Log(l) - math.Log(p.Median); math.Abs(lhs-rhs) > 1e-6 {
		t.Errorf("λ = %v: E − λ·exposure + Σ λt/(e^λt − 1) = %v, want (ln λ − ln median)/spread² = %v", l, lhs, rhs)
	}
}
