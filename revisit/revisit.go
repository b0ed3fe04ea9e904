// Package revisit decides how often to fetch pages again: it estimates
// each page's rate of change from what its visits saw, and spreads a
// crawl's revisit budget over its pages so that as many stored copies as
// possible are fresh (up to date) at any time.
//
// Pages are taken to change as Poisson processes, each at its own rate λ
// (Cho and Garcia-Molina tracked 500,000 pages: the model fits). A page
// visited every I = 1/f is then fresh a fraction
//
//	F(λ, f) = (f/λ)(1 − e^(−λ/f))
//
// of the time. [Allocate] maximises the sum of F over the pages under a
// total rate Σf = B, Cho and Garcia-Molina's optimal policy (TODS 2003): at
// the optimum every page's ∂F/∂f is the same μ, and a page whose 1/λ is
// below μ (it changes too fast for the budget to keep it fresh) gets no
// revisits beyond the minimum. Uniform revisiting, the same f for every
// page, is the baseline the papers compare with, and beats revisiting in
// proportion to λ.
//
// [Estimate] is the maximum-likelihood estimate of λ from a page's visits,
// each of which only tells whether the page changed at least once since
// the visit before (an incomplete history: the naive changes/time is
// biased low, as several changes look like one); with every visit seeing
// a change, or none, it falls back on Cho and Garcia-Molina's
// bias-reduced estimator for regular visits, −ln((n−X+½)/(n+½))/I. A
// page has few visits when its estimate matters most, so a [Schedule]
// estimates with a [Prior]: ln λ normal about the rate of all its pages
// together ([PooledPrior]), each page's estimate the posterior's mode
// ([Prior.Estimate]), which its own visits move away from the pool as
// they add up.
//
// Most responses tell more than whether the page changed: their
// Last-Modified says when it last did (Cho and Garcia-Molina, "Estimating
// frequency of change", 2003, estimate from it too). Under the Poisson
// model a change a before the fetch, and none since, has likelihood
// λe^(−λa), where "changed since the visit before" has only 1 − e^(−λI):
// each change seen with its age counts as an event and its age as
// exposure, time known to hold no change, as does each interval of a
// visit that saw none (a gamma-Poisson likelihood, under the prior on
// ln λ). Even a page's first fetch tells: its age is exposure, and an
// event if the crawl saw the modification happen (later than its first
// response). Ages are read by the server's clock (Date less
// Last-Modified, both to the second), and a page whose Last-Modified is
// useless (later than its Date, moving while the page does not, as a
// dynamic page's, or older than the visit before though the page
// changed) has its ages forgotten and is estimated from its changes
// alone ([Tracker]). On a web of 500 pages changing every 2 s to 2 min,
// with three to seven visits a page, change counts cannot tell the rates
// apart; the ages can (TestPoliciesSimulatedChangeWeb). A page the plan
// gives no revisits (it seems too fast to keep fresh) is revisited all
// the same every eight even shares of the budget, so that a few unlucky
// visits do not keep it from ever being revisited again.
//
// # The Tracker
//
// A [Schedule] keeps the visits; a [Tracker] runs a crawl's revisits with
// it under a [Config] (the crawler's Crawler.Recrawl): it knows each page
// fetched, its validators and content fingerprint, and when it is due, and
// the crawler's scheduler calls it at its few points:
//
//	t := revisit.NewTracker(cfg, maxRate) // one per crawl and frontier
//	err := t.Load(f)                      // once: the records f kept
//	t.Configure(cfg, maxRate)             // each Run
//	n := t.Release(now, f)                // pages due at now, into f
//	last := t.Revisiting(e.FP)            // for an entry f handed out; nil: no revisit
//	t.Done(e, outcome, now)               // what its fetch found
//	due, ok := t.Next()                   // when to wake for the next
//
// A Tracker is not safe for concurrent use: one goroutine at a time (the
// crawler's scheduler) calls it. The [Last] that Revisiting returns is a
// copy, which the worker that revisits the page may read.
//
// # Durable records
//
// With a frontier that is a frontier.Recorder (the durable store's), a
// Tracker writes each page's record under the name "crawler/visits" and
// its fingerprint, with the frontier's step in progress: when Release
// puts the page in the frontier, when Done learns from its visit or a
// sitemap's lastmod, and a nil record when the page is gone. A record is
// a format byte (1), flags (in the frontier, a resource), the depth, the URL, ETag
// and Last-Modified, the content fingerprint, the due and last visit
// times in Unix milliseconds and the visits kept, without their ages;
// the layout does not change, so that a crawl kept by an older build
// resumes (a crawl resumed estimates from its visits' changes until new
// ones tell ages). [Tracker.Load]
// reads them back after a stop or a crash, and a record that does not
// decode is an error rather than a page forgotten.
package revisit

import (
	"math"
	"time"
)

// Visit is what one fetch of a page found: how long after the fetch
// before it, and whether the page had changed in between; and, if its
// response told when the page was last modified (its Last-Modified), its
// Age: how long before the fetch that was. A visit of a page that changed,
// with its Age, says more than the change alone: the page changed Age
// before the fetch and not since, where a change alone says only that it
// changed at least once in the Interval. The first fetch of a page is a
// Visit too when its Age is known: of Interval 0, Changed if its last
// modification is a change (one made while the crawl ran), not the page's
// making.
type Visit struct {
	Interval time.Duration
	Changed  bool
	// Age is the time from the page's last modification to the fetch;
	// 0: not known (no Last-Modified, or one not to be trusted). It is
	// read for a visit that saw a change, and for a first fetch.
	Age time.Duration
}

// Estimate returns the estimated rate of change of a page, in changes per
// second, from its visits (those after its first fetch). It returns 0 with
// no visit; if no visit saw a change, half a change over the time watched,
// so that a page quiet so far is still revisited, ever more rarely.
func Estimate(visits []Visit) float64 {
	var n, changed int
	var total, unchanged float64 // seconds
	for _, v := range visits {
		t := v.Interval.Seconds()
		if t <= 0 {
			continue
		}
		n++
		total += t
		if v.Changed {
			changed++
		} else {
			unchanged += t
		}
	}
	if n == 0 {
		return 0
	}
	if changed == 0 {
		return 0.5 / total
	}
	if changed == n {
		// The likelihood grows without bound in λ: the bias-reduced
		// estimator for n visits at the mean interval.
		return biasReduced(n, n, total)
	}
	// Maximum likelihood: Σ_changed t/(e^(λt) − 1) = Σ_unchanged t, whose
	// left side falls from +∞ to 0 as λ grows.
	excess := func(lambda float64) float64 {
		s := 0.0
		for _, v := range visits {
			if t := v.Interval.Seconds(); v.Changed && t > 0 {
				s += t / math.Expm1(lambda*t)
			}
		}
		return s - unchanged
	}
	lo, hi := 0.0, 1.0/(total/float64(n))
	for excess(hi) > 0 {
		lo, hi = hi, hi*2
	}
	return bisect(excess, lo, hi, 0)
}

// bisect returns where f, decreasing, crosses zero between lo (f > 0)
// and hi (f <= 0): after 60 halvings, or once they are within tol.
func bisect(f func(float64) float64, lo, hi, tol float64) float64 {
	for range 60 {
		mid := (lo + hi) / 2
		if f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= tol {
			break
		}
	}
	return (lo + hi) / 2
}

// Prior is a log-normal prior on a page's rate of change λ: ln λ is
// normal, of mean ln Median and standard deviation Spread. It is what the
// crawl knows of a page before its visits tell: how the rates of the
// others spread. A Schedule makes its own from all the visits of all its
// pages (see [PooledPrior]). A prior on ln λ, not a gamma on λ, because
// rates of change spread over orders of magnitude (seconds to months):
// a gamma prior whose mean follows the pages that change most (those
// whose visits all saw changes) pulls the rarely changing pages up to
// their rates; a normal on ln λ pulls each page towards the middle of
// the spread, in proportion. The zero Prior is none: [Prior.Estimate] is
// then [Estimate].
type Prior struct {
	Median, Spread float64
}

// DefaultPriorSpread is the Spread of the Prior a Schedule makes: ln λ
// within ±1 of the median for two pages in three (rates within a factor
// of e). On the change web of issue 46 (500 pages changing every 2 s to
// 2 min, each visited every 12 to 28 s for 90 s) it keeps the estimates
// from the single changes and quiet spells that made the optimal policy
// worse than uniform there, and over an hour it beats the
// maximum-likelihood estimate too (TestPoliciesSimulatedChangeWeb,
// TestPoliciesSimulated); a looser prior lets a page that changed at each
// of its first visits, or at none, run to extremes no visit corrects.
const DefaultPriorSpread = 1

// PooledPrior returns a Prior of the given spread whose median is the
// rate of change of all the pages together: Cho and Garcia-Molina's
// bias-reduced estimator −ln((n−X+½)/(n+½))/Ī over their n visits, of
// mean interval Ī, X of which saw a change. With no visit, or no change
// seen, it is the zero Prior.
func PooledPrior(spread float64, n, changed int, total time.Duration) Prior {
	if n <= 0 || changed <= 0 || total <= 0 || spread <= 0 {
		return Prior{}
	}
	return Prior{Median: biasReduced(n, changed, total.Seconds()), Spread: spread}
}

// biasReduced is Cho and Garcia-Molina's bias-reduced estimate of a rate
// of change, −ln((n−X+½)/(n+½))/Ī, from n visits over total seconds (Ī
// their mean interval), changed of which saw a change.
func biasReduced(n, changed int, total float64) float64 {
	return -math.Log((float64(n-changed)+0.5)/(float64(n)+0.5)) / (total / float64(n))
}

// Estimate returns the rate of change of a page, per second, from its
// visits and the prior p: the mode of ln λ's posterior, the x = ln λ
// that solves
//
//	Σ_changed λt/(e^(λt) − 1) + E − λ·(Σ_unchanged t + Σ_aged a) = (x − ln Median)/Spread²
//
// where a visit that saw a change and knows its age a (the time from the
// page's Last-Modified to the fetch: the page changed then, and not
// since) counts in E and in Σ_aged, not in the first sum, whose visits
// only know that the page changed at least once in their interval t
// (the likelihood of a change a before the fetch is λe^(−λa), of a change
// within t 1 − e^(−λt), of none e^(−λt)). A first fetch with its age
// adds its age to Σ_aged, and to E if its last modification was a
// change. Ages are exposure, as in a gamma-Poisson model; the prior stays
// on ln λ. Unlike the maximum-likelihood [Estimate], it needs no fallback
// when every visit saw a change, or none: the prior keeps the estimate
// finite and above 0. With no visit it is the Median. A Prior whose
// Median or Spread is not positive (the zero Prior) gives
// Estimate(visits), which reads no age.
func (p Prior) Estimate(visits []Visit) float64 {
	if p.Median <= 0 || p.Spread <= 0 || math.IsInf(p.Median, 0) || math.IsNaN(p.Median) {
		return Estimate(visits)
	}
	m, s2 := math.Log(p.Median), p.Spread*p.Spread
	exposure, events := 0.0, 0.0 // seconds known to hold no change; changes known to the second
	for _, v := range visits {
		d, e := v.evidence()
		exposure, events = exposure+d.Seconds(), events+float64(e)
	}
	// h falls from +∞ to −∞ as x grows: each term does, or is constant.
	h := func(x float64) float64 {
		lambda := math.Exp(x)
		s := events - lambda*exposure - (x-m)/s2
		for _, v := range visits {
			if t := v.Interval.Seconds(); v.Changed && t > 0 && v.Age <= 0 {
				s += lambda * t / math.Expm1(lambda*t)
			}
		}
		return s
	}
	lo, hi := m, m
	if h(m) > 0 {
		for hi += p.Spread; h(hi) > 0; hi += p.Spread {
			lo = hi
		}
	} else {
		for lo -= p.Spread; h(lo) <= 0; lo -= p.Spread {
			hi = lo
		}
	}
	return math.Exp(bisect(h, lo, hi, 1e-9))
}

// Freshness returns F(λ, f), the expected fraction of time a page that
// changes at rate lambda and is visited at rate f (both per second) is
// fresh: 1 for a page that never changes, 0 for one never visited that
// does.
func Freshness(lambda, f float64) float64 {
	switch {
	case lambda <= 0:
		return 1
	case f <= 0:
		return 0
	}
	x := lambda / f
	return -math.Expm1(-x) / x
}

// g(x) = 1 − (1+x)e^(−x) is λ·∂F/∂f at x = λ/f; it rises from 0 to 1 as
// x does. Below x = 0.01, where the difference cancels, its series.
func g(x float64) float64 {
	if x < 0.01 {
		x2 := x * x
		return x2 * (0.5 - x/3 + x2/8 - x2*x/30 + x2*x2/144 - x2*x2*x/840)
	}
	return -math.Expm1(-x) - x*math.Exp(-x)
}

// gInverse returns the x at which g(x) = t, for t in (0, 1): Newton's
// method (g′(x) = x·e^(−x)) from the inverse of g's series below, or of
// its tail (1 − t ≈ (1+x)e^(−x)) above, kept within a bracket that
// bisection narrows when a step leaves it. Four or five steps reach
// full precision, where bisection took fifty.
func gInverse(t float64) float64 {
	var x float64
	if t < 0.5 {
		r := math.Sqrt(2 * t)
		x = r * (1 + r/3)
	} else {
		l := -math.Log1p(-t)
		x = l + math.Log1p(l)
	}
	lo, hi := 0.0, math.Inf(1)
	for range 40 {
		gx := g(x)
		if gx < t {
			lo = x
		} else {
			hi = x
		}
		next := x - (gx-t)/(x*math.Exp(-x))
		if !(next > lo && next < hi) { // outside the bracket, or NaN
			if math.IsInf(hi, 1) {
				next = 2*x + 1
			} else {
				next = (lo + hi) / 2
			}
		}
		if math.Abs(next-x) <= 1e-13*x {
			return next
		}
		x = next
	}
	return x
}

// Bounds bound the rate of revisits of each page: at least one every Max,
// at most one every Min. Zero fields mean no bound.
type Bounds struct {
	Min, Max time.Duration
}

func (b Bounds) rates() (lo, hi float64) {
	hi = math.Inf(1)
	if b.Min > 0 {
		hi = 1 / b.Min.Seconds()
	}
	if b.Max > 0 {
		lo = 1 / b.Max.Seconds()
	}
	return lo, max(lo, hi)
}

// clamp returns the revisit rate f within the bounds.
func (b Bounds) clamp(f float64) float64 {
	lo, hi := b.rates()
	return min(max(f, lo), hi)
}

// Allocate returns the revisit rate f (per second) of each page, given the
// pages' rates of change and the total rate budget (revisits per second),
// that maximises the pages' summed freshness within the bounds: Cho and
// Garcia-Molina's optimal policy. If the bounds' minimum rates exceed the
// budget, every page gets its minimum; if their maximum rates fall short
// of it, every page gets its maximum.
func Allocate(rates []float64, budget float64, bounds Bounds) []float64 {
	_, hi := bounds.rates()
	f := make([]float64, len(rates))
	fill := func(mu float64) float64 {
		sum := 0.0
		for i, lambda := range rates {
			f[i] = bounds.clamp(rateAt(lambda, mu))
			sum += f[i]
		}
		return sum
	}
	if fill(math.Inf(1)) >= budget {
		return f // the minimum rates use the budget up, or more
	}
	if !math.IsInf(hi, 1) && fill(0) <= budget {
		return f // the maximum rates cannot use it all
	}
	// Σf falls as μ rises, and no page is revisited above μ = 1/λ of the
	// slowest-changing one: find μ with Σf(μ) = budget. Bracket it (h > 0
	// at a, h ≤ 0 at b), then close in by regula falsi with the Illinois
	// rule, which takes about ten steps where bisection took sixty.
	h := func(mu float64) float64 { return fill(mu) - budget }
	b := 0.0
	for _, lambda := range rates {
		if lambda > 0 {
			b = max(b, 1/lambda)
		}
	}
	hb := h(b)
	a, ha := b/16, h(b/16)
	for range 300 {
		if ha > 0 && !math.IsInf(ha, 1) || a == 0 {
			break
		}
		if ha <= 0 {
			b, hb = a, ha
		}
		a /= 16
		ha = h(a)
	}
	if math.IsInf(ha, 1) { // only μ = 0 gives more than the budget
		fill(b)
		return f
	}
	side := 0
	for range 100 {
		c := b - hb*(b-a)/(hb-ha)
		if !(c > a && c < b) {
			c = (a + b) / 2
		}
		hc := h(c)
		if math.Abs(hc) <= 1e-12*budget || c == a || c == b {
			return f
		}
		if hc > 0 {
			a, ha = c, hc
			if side > 0 {
				hb /= 2
			}
			side = 1
		} else {
			b, hb = c, hc
			if side < 0 {
				ha /= 2
			}
			side = -1
		}
	}
	fill(b)
	return f
}

// rateAt returns the f at which ∂F/∂f(λ, f) = μ, or 0 if there is none (μ
// is at or above 1/λ, the derivative's bound) or λ is 0; +Inf for μ = 0.
func rateAt(lambda, mu float64) float64 {
	switch {
	case lambda <= 0 || mu*lambda >= 1:
		return 0
	case mu <= 0:
		return math.Inf(1)
	}
	return lambda / gInverse(mu*lambda)
}

// Uniform returns the uniform policy: the budget shared evenly, within
// the bounds.
func Uniform(n int, budget float64, b Bounds) []float64 {
	f := make([]float64, n)
	for i := range f {
		f[i] = b.clamp(budget / float64(n))
	}
	return f
}

// evidence returns what v tells of its page's rate of change as exposure
// and events, the terms of Prior.Estimate's Σ_aged and E: its age, and
// the change its age dates, if it knows them (a change seen, or a first
// fetch); else its interval, if it saw no change; else nothing of the
// kind (a change within an interval is a term of its own).
func (v Visit) evidence() (exposure time.Duration, events int) {
	switch {
	case v.Age > 0 && (v.Changed || v.Interval <= 0):
		if v.Changed {
			events = 1
		}
		return v.Age, events
	case v.Interval > 0 && !v.Changed:
		return v.Interval, 0
	}
	return 0, 0
}
