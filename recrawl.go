package crawler

import (
	"time"

	"crawler/revisit"
)

// startRevisits sets up the revisits of a Run under Crawler.Recrawl:
// those an earlier Run on the same frontier left, or, for a frontier
// that is a Recorder, those its records hold.
func (r *runState) startRevisits() error {
	c := r.c
	if c.Recrawl == nil {
		return nil
	}
	m := &c.made
	if m.revisits == nil || m.revisitsOf != r.frontier {
		t := revisit.NewTracker(*c.Recrawl, c.MaxRate)
		if err := t.Load(r.frontier); err != nil {
			return err
		}
		m.revisits, m.revisitsOf = t, r.frontier
	}
	r.revisits = m.revisits
	r.revisits.Configure(*c.Recrawl, c.MaxRate)
	return nil
}

// releaseRevisits puts the pages due at now in the frontier, as a step.
func (r *runState) releaseRevisits(now time.Time) error {
	if r.revisits.Release(now, r.frontier) == 0 {
		return nil
	}
	return r.commit()
}
