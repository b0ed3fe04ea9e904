package revisit_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"crawler/revisit"
)

// page is a page of the simulated web: it changes as a Poisson process.
type page struct {
	lambda     float64
	lastChange float64 // latest change at or before now
	nextChange float64
	lastVisit  float64
	nextVisit  float64
	visits     []revisit.Visit
	changedYet bool // a change since the last visit
}

// simulate revisits n pages for dur seconds of simulated time at the
// total rate budget, by a policy that returns the pages' revisit rates
// from what is known (nil: the true rates), asked every replan seconds.
// It returns the time-averaged fraction of fresh pages over the second
// half.
func simulate(seed uint64, rates []float64, budget, dur, replan float64, policy func(p []*page) []float64) float64 {
	rng := rand.New(rand.NewPCG(seed, 99))
	pages := make([]*page, len(rates))
	for i, l := range rates {
		pages[i] = &page{lambda: l, lastChange: -1, nextChange: rng.ExpFloat64() / l, nextVisit: rng.Float64() * float64(len(rates)) / budget}
	}
	const dt = 0.1
	var f []float64
	fresh, samples := 0.0, 0
	for step := 0; float64(step)*dt < dur; step++ {
		now := float64(step) * dt
		if f == nil || math.Mod(now, replan) < dt {
			f = policy(pages)
		}
		for i, p := range pages {
			for p.nextChange <= now {
				p.lastChange, p.changedYet = p.nextChange, true
				p.nextChange += rng.ExpFloat64() / p.lambda
			}
			if p.nextVisit <= now {
				if p.lastVisit > 0 || p.changedYet {
					p.visits = append(p.visits, revisit.Visit{Interval: time.Duration((now - p.lastVisit) * float64(time.Second)), Changed: p.changedYet})
				}
				p.lastVisit, p.changedYet = now, false
				p.nextVisit = now + 1/f[i]
			}
		}
		if now >= dur/2 && step%10 == 0 {
			for _, p := range pages {
				if !p.changedYet {
					fresh++
				}
			}
			samples += len(pages)
		}
	}
	return fresh / float64(samples)
}

// On 500 pages whose mean change intervals spread from seconds to minutes,
// revisiting by estimated rates keeps at least the freshness of uniform
// revisiting at the same total rate, and 90% of the optimal policy's that
// knows the true rates.
func TestPoliciesSimulated(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rates := make([]float64, 500)
	for i := range rates {
		rates[i] = 1 / math.Exp(math.Log(2)+rng.Float64()*math.Log(300)) // 2 s to 10 min
	}
	budget := 500.0 / 60 // each page once a minute on average
	b := revisit.Bounds{Min: time.Second, Max: 30 * time.Minute}
	const dur, replan = 3600.0, 120.0
	uniform := simulate(7, rates, budget, dur, replan, func([]*page) []float64 { return revisit.Uniform(len(rates), budget, b) })
	optimal := simulate(7, rates, budget, dur, replan, func([]*page) []float64 { return revisit.Allocate(rates, budget, b) })
	estimated := simulate(7, rates, budget, dur, replan, func(ps []*page) []float64 {
		est := make([]float64, len(ps))
		for i, p := range ps {
			v := p.visits
			if len(v) > 64 {
				v = v[len(v)-64:]
			}
			if est[i] = revisit.Estimate(v); len(v) == 0 {
				est[i] = budget / float64(len(ps)) // not seen yet: as uniform
			}
		}
		return revisit.Allocate(est, budget, b)
	})
	t.Logf("time-averaged freshness, second half: uniform %.3f, estimated %.3f (%.0f%% of optimal), optimal %.3f",
		uniform, estimated, 100*estimated/optimal, optimal)
	if estimated < uniform {
		t.Errorf("estimated %.3f below uniform %.3f", estimated, uniform)
	}
	if estimated < 0.9*optimal {
		t.Errorf("estimated %.3f below 90%% of optimal %.3f", estimated, optimal)
	}
}

// simulateSchedule is simulate with a Schedule deciding the visits: each
// page is visited when the Schedule says it is due, and the Schedule
// plans anew every replan seconds.
func simulateSchedule(seed uint64, rates []float64, s *revisit.Schedule, dur, replan float64) float64 {
	rng := rand.New(rand.NewPCG(seed, 99))
	t0 := time.Unix(0, 0)
	at := func(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }
	pages := make([]*page, len(rates))
	for i, l := range rates {
		pages[i] = &page{lambda: l, lastChange: -1, nextChange: rng.ExpFloat64() / l, nextVisit: rng.Float64() * float64(len(rates)) / s.Budget}
	}
	const dt = 0.1
	fresh, samples := 0.0, 0
	for step := 0; float64(step)*dt < dur; step++ {
		now := float64(step) * dt
		if step > 0 && math.Mod(now, replan) < dt {
			s.Plan()
		}
		for i, p := range pages {
			for p.nextChange <= now {
				p.lastChange, p.changedYet = p.nextChange, true
				p.nextChange += rng.ExpFloat64() / p.lambda
			}
			if p.nextVisit <= now {
				due := s.Visited(uint64(i), at(now), p.changedYet)
				p.changedYet = false
				p.nextVisit = due.Sub(t0).Seconds()
			}
		}
		if now >= dur/2 && step%10 == 0 {
			for _, p := range pages {
				if !p.changedYet {
					fresh++
				}
			}
			samples += len(pages)
		}
	}
	return fresh / float64(samples)
}

// The Schedule, driving the visits itself, does as well as the policies
// above: at least uniform revisiting (the Schedule's own Uniform), and
// 90% of the optimal policy that knows the true rates.
func TestScheduleSimulated(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rates := make([]float64, 500)
	for i := range rates {
		rates[i] = 1 / math.Exp(math.Log(2)+rng.Float64()*math.Log(300))
	}
	budget := 500.0 / 60
	b := revisit.Bounds{Min: time.Second, Max: 30 * time.Minute}
	const dur, replan = 3600.0, 120.0
	uniform := simulateSchedule(7, rates, &revisit.Schedule{Budget: budget, Bounds: b, Uniform: true}, dur, replan)
	s := &revisit.Schedule{Budget: budget, Bounds: b}
	estimated := simulateSchedule(7, rates, s, dur, replan)
	optimal := simulate(7, rates, budget, dur, replan, func([]*page) []float64 { return revisit.Allocate(rates, budget, b) })
	t.Logf("time-averaged freshness, second half: Schedule uniform %.3f, Schedule %.3f (%.0f%% of optimal), optimal %.3f",
		uniform, estimated, 100*estimated/optimal, optimal)
	if estimated < uniform || estimated < 0.9*optimal {
		t.Errorf("Schedule %.3f: want at least uniform %.3f and 90%% of optimal %.3f", estimated, uniform, optimal)
	}
	if s.Len() != len(rates) {
		t.Errorf("Len = %d, want %d", s.Len(), len(rates))
	}
	// Estimates after an hour: the median page within 25% of its rate.
	var errs []float64
	for i, l := range rates {
		est, f := s.Rate(uint64(i))
		if f <= 0 {
			t.Fatalf("page %d: no revisit rate planned", i)
		}
		errs = append(errs, math.Abs(est-l)/l)
	}
	slices.Sort(errs)
	t.Logf("estimates after an hour: median relative error %.1f%%", 100*errs[len(errs)/2])
}
