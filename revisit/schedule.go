package revisit

import (
	"math"
	"time"
)

// DefaultHistory is how many visits of a page a Schedule keeps for its
// estimate.
const DefaultHistory = 64

// probeShare is how many times an even share of the budget apart a page
// the plan gives no revisits to is revisited all the same. On issue 46's
// change web simulated at 18 revisits a second, the pages whose estimates
// went too fast after a few visits (a tenth of them) were never revisited
// again: the freshness of the second half of an hour fell to 0.471, below
// uniform's 0.494; with probes every 8 shares, it is 0.512 (the optimal
// policy's: 0.514), and the second half of 90 s loses 0.003 to them.
const probeShare = 8

// Schedule keeps the visits of a crawl's pages and says when each is due
// again: at the rate Allocate gives it from the pages' estimated rates of
// change under the budget, or the same rate for all (Uniform). Pages are
// known by an id (a URL's fingerprint). Visited uses the rates of the last
// Plan; a page first visited since is given an even share of the budget
// until the next. Plan re-estimates the pages visited since the Plan
// before and costs about a hundred floating-point operations a page
// (BenchmarkPlan): call it when many pages were visited, not at each
// visit. A Schedule is not
// safe for concurrent use; its zero value is not usable: set Budget.
type Schedule struct {
	// Budget is the rate of revisits of all pages together, per second.
	Budget float64
	// Bounds bound each page's revisit interval.
	Bounds Bounds
	// Uniform, if set, revisits every page at the same rate: the baseline
	// the optimal policy is measured against.
	Uniform bool
	// History is how many visits of a page are kept (the latest); 0 means
	// DefaultHistory.
	History int
	// PriorSpread is the spread of the prior that each page's estimate
	// starts from: a [PooledPrior], whose median is the rate of change of
	// all the pages together. 0 means DefaultPriorSpread; negative: no
	// prior, the maximum-likelihood [Estimate].
	PriorSpread float64

	pages map[uint64]*page
	prior Prior // of the last Plan
}

type page struct {
	last   time.Time // of the latest visit
	visits []Visit   // the latest History, oldest first
	rate   float64   // planned revisits per second; 0: not planned yet
	change float64   // Estimate(visits), as of the last Plan
	stale  bool      // visits changed since change was estimated
}

// Visited records a visit of page id at, which found it changed or not
// since the visit before (ignored for the first visit), and returns when
// the page is due again.
func (s *Schedule) Visited(id uint64, at time.Time, changed bool) time.Time {
	return s.VisitedAge(id, at, changed, 0)
}

// VisitedAge is Visited told the page's age at the visit too: how long
// before it the page was last modified (by its Last-Modified), 0 if not
// known. The age of a visit that saw a change, and of a first visit, is
// kept with it (see [Visit]); for a first visit, changed says whether its
// last modification is a change (one made while the crawl ran) rather
// than the page's making.
func (s *Schedule) VisitedAge(id uint64, at time.Time, changed bool, age time.Duration) time.Time {
	if s.pages == nil {
		s.pages = map[uint64]*page{}
	}
	p := s.pages[id]
	if p == nil {
		p = &page{}
		s.pages[id] = p
		if age > 0 {
			p.visits, p.stale = append(p.visits, Visit{Changed: changed, Age: age}), true
		}
	} else if d := at.Sub(p.last); d > 0 {
		if len(p.visits) >= s.keep() {
			p.visits = append(p.visits[:0], p.visits[1:]...)
		}
		if !changed {
			age = 0
		}
		p.visits = append(p.visits, Visit{Interval: d, Changed: changed, Age: age})
		p.stale = true
	}
	p.last = at
	return s.due(p)
}

// Due returns when page id is due again, by the rate of the last Plan
// (or, before the Plan that knows it, an even share of the budget); ok is
// false for a page not known. A page the Plan gave no revisits is due in
// about 146 years: never, as near as time goes.
func (s *Schedule) Due(id uint64) (due time.Time, ok bool) {
	p := s.pages[id]
	if p == nil {
		return time.Time{}, false
	}
	return s.due(p), true
}

func (s *Schedule) due(p *page) time.Time {
	rate := p.rate
	if rate <= 0 {
		rate = s.Bounds.clamp(s.Budget / float64(len(s.pages)))
	}
	if rate <= 0 {
		return p.last.Add(Never)
	}
	return p.last.Add(time.Duration(float64(time.Second) / rate))
}

// Never is how long after its last visit a page that is not to be
// revisited is due.
const Never = time.Duration(math.MaxInt64 / 2)

// Plan spreads the budget anew over the pages known, by their rates of
// change estimated from their visits (Uniform: evenly). A page with no
// visit yet counts as changing at its share of the budget.
func (s *Schedule) Plan() {
	if len(s.pages) == 0 {
		return
	}
	ids := make([]uint64, 0, len(s.pages))
	rates := make([]float64, 0, len(s.pages))
	share := s.Budget / float64(len(s.pages))
	prior := s.pooledPrior()
	// A prior that moved re-estimates every page; one that barely did,
	// only the pages visited since.
	moved := math.Abs(prior.Median-s.prior.Median) > 0.05*s.prior.Median || prior.Spread != s.prior.Spread
	if moved {
		s.prior = prior
	}
	for id, p := range s.pages {
		ids = append(ids, id)
		if p.stale || moved {
			p.change, p.stale = s.prior.Estimate(p.visits), false
		}
		r := p.change
		if len(p.visits) == 0 || s.prior.Median <= 0 && !revisited(p.visits) {
			r = share
		}
		rates = append(rates, r)
	}
	var f []float64
	if s.Uniform {
		f = Uniform(len(rates), s.Budget, s.Bounds)
	} else {
		f = Allocate(rates, s.Budget, s.Bounds)
		// Pages the plan gives less than a probe's rate are revisited at
		// it, with the budget of the others cut by what that takes: a
		// page that seems too fast to keep fresh (or never to change)
		// would otherwise never be visited again to correct its
		// estimate, however wrong a few unlucky visits made it.
		if probe := s.Bounds.clamp(share / probeShare); probe > 0 {
			extra := 0.0
			for i := range f {
				extra += max(probe-f[i], 0)
			}
			if extra > 0 && extra < s.Budget/2 {
				f = Allocate(rates, s.Budget-extra, s.Bounds)
				for i := range f {
					f[i] = max(f[i], probe)
				}
			}
		}
	}
	for i, id := range ids {
		s.pages[id].rate = f[i]
	}
}

// pooledPrior returns the prior of the pages' estimates, of spread
// PriorSpread: if their visits saw changes whose ages are known, its
// median is the changes known to the second over the time known to hold
// none, all pages together (the rate of a gamma-Poisson pool); else the
// PooledPrior of all their visits. On issue 46's change web simulated at
// 18 revisits a second, the first kept 0.507 of the pages fresh, the
// second 0.503.
func (s *Schedule) pooledPrior() Prior {
	spread := s.PriorSpread
	if spread == 0 {
		spread = DefaultPriorSpread
	}
	if spread < 0 {
		return Prior{}
	}
	var n, changed, events int
	var total, exposure time.Duration
	for _, p := range s.pages {
		for _, v := range p.visits {
			if v.Interval > 0 {
				n++
				total += v.Interval
				if v.Changed {
					changed++
				}
			}
			d, e := v.evidence()
			exposure, events = exposure+d, events+e
		}
	}
	if events > 0 && exposure > 0 {
		return Prior{Median: float64(events) / exposure.Seconds(), Spread: spread}
	}
	return PooledPrior(spread, n, changed, total)
}

// revisited reports whether visits hold a revisit (not only a first
// visit's age).
func revisited(visits []Visit) bool {
	for _, v := range visits {
		if v.Interval > 0 {
			return true
		}
	}
	return false
}

// Visits returns the time of the latest visit of page id and the visits
// kept for its estimate, oldest first; ok is false for a page not known.
// The slice is the Schedule's: copy it to keep it past the next Visited.
func (s *Schedule) Visits(id uint64) (last time.Time, visits []Visit, ok bool) {
	p := s.pages[id]
	if p == nil {
		return time.Time{}, nil, false
	}
	return p.last, p.visits, true
}

// Restore makes page id known with the history Visits returned for it
// (a crawl resumed from its records), in place of any it had; the next
// Plan gives it its rate.
func (s *Schedule) Restore(id uint64, last time.Time, visits []Visit) {
	if s.pages == nil {
		s.pages = map[uint64]*page{}
	}
	keep := s.keep()
	if len(visits) > keep {
		visits = visits[len(visits)-keep:]
	}
	s.pages[id] = &page{last: last, visits: append([]Visit(nil), visits...), stale: true}
}

// forgetAges drops the ages of page id's visits, and its first visit's:
// its Last-Modified proved not to be trusted.
func (s *Schedule) forgetAges(id uint64) {
	p := s.pages[id]
	if p == nil {
		return
	}
	kept := p.visits[:0]
	for _, v := range p.visits {
		if v.Interval > 0 {
			v.Age = 0
			kept = append(kept, v)
		}
	}
	p.visits, p.stale = kept, true
}

// Forget drops page id: it is not revisited any more (it is gone).
func (s *Schedule) Forget(id uint64) { delete(s.pages, id) }

// keep returns how many visits of a page are kept.
func (s *Schedule) keep() int {
	if s.History <= 0 {
		return DefaultHistory
	}
	return s.History
}

// Len returns the number of pages known.
func (s *Schedule) Len() int { return len(s.pages) }

// Rate returns the rate of change estimated for page id, per second, and
// the rate of revisits the last Plan gave it (0 if none yet).
func (s *Schedule) Rate(id uint64) (change, revisit float64) {
	p := s.pages[id]
	if p == nil {
		return 0, 0
	}
	return s.prior.Estimate(p.visits), p.rate
}
