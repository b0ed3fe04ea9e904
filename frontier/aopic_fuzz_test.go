package frontier_test

import (
	"fmt"
	"math"
	"math/bits"
	"testing"
	"time"

	"crawler/frontier"
)

// aopicModel is AOPIC done the slow, obvious way: pages in a slice, and
// lambda's credit handed to every waiting page one by one.
type aopicModel struct {
	perHost  int
	tax      float64
	pages    []*modelPage // in order of Push
	byFP     map[uint64]*modelPage
	lambda   float64
	received float64
	inflight map[string]int
	readyAt  map[string]time.Time
}

type modelPage struct {
	e                frontier.Entry
	credit, history  float64
	waiting, fetched bool
	redirect         bool   // a redirect, whose target takes all that comes to it
	target           uint64 // a redirect's target, which may not be known
}

// resolve follows redirects from p to the page that takes what comes to p.
func (m *aopicModel) resolve(p *modelPage) *modelPage {
	for range 32 {
		if p == nil || !p.redirect {
			return p
		}
		p = m.byFP[p.target]
	}
	return nil
}

func (m *aopicModel) push(e frontier.Entry) {
	p := &modelPage{e: e, waiting: true}
	if e.Depth == 0 && e.Hops == 0 && e.Referrer == "" {
		p.credit, p.history = 1, 1
		m.received++
	}
	m.pages = append(m.pages, p)
	m.byFP[e.FP] = p
}

// best returns the waiting page of a ready host with the most credit, the
// first pushed among equals.
func (m *aopicModel) best(now time.Time) *modelPage {
	var best *modelPage
	for _, p := range m.pages {
		h := p.e.Host
		if !p.waiting || m.inflight[h] >= m.perHost || m.readyAt[h].After(now) {
			continue
		}
		if best == nil || p.credit > best.credit {
			best = p
		}
	}
	return best
}

// wake is when a host with waiting pages and a free slot becomes ready,
// the earliest after now; zero if there is none.
func (m *aopicModel) wake(now time.Time) time.Time {
	var w time.Time
	for _, p := range m.pages {
		h := p.e.Host
		if r := m.readyAt[h]; p.waiting && m.inflight[h] < m.perHost && r.After(now) && (w.IsZero() || r.Before(w)) {
			w = r
		}
	}
	return w
}

// spreadLambda gives lambda's credit to every waiting page, with a weight
// of 2^(-k/2) for a page of a host with 2^k to 2^(k+1)-1 waiting pages.
func (m *aopicModel) spreadLambda() {
	perHost := map[string]int{}
	for _, p := range m.pages {
		if p.waiting {
			perHost[p.e.Host]++
		}
	}
	weight := func(p *modelPage) float64 {
		k := bits.Len(uint(perHost[p.e.Host])) - 1
		return math.Pow(2, -float64(k)/2)
	}
	var sum float64
	for _, p := range m.pages {
		if p.waiting {
			sum += weight(p)
		}
	}
	for _, p := range m.pages {
		if p.waiting {
			p.credit += m.lambda * weight(p) / sum
		}
	}
	m.lambda = 0
}

func (m *aopicModel) handOut(p *modelPage) {
	p.waiting = false
	m.inflight[p.e.Host]++
}

func (m *aopicModel) done(e frontier.Entry, r frontier.Result) {
	p := m.byFP[e.FP]
	m.inflight[e.Host]--
	if r.Next.After(m.readyAt[e.Host]) {
		m.readyAt[e.Host] = r.Next
	}
	if r.Retry {
		p.waiting = true
		return
	}
	p.fetched = true
	c := p.credit
	p.credit = 0
	if r.Redirect && len(r.Links) == 1 {
		p.redirect, p.target = true, r.Links[0]
		q := m.resolve(p)
		if q == nil {
			m.lambda += c
			return
		}
		q.history += p.history
		p.history = 0
		if q.fetched {
			m.passOn(q.e.Host, c)
		} else {
			q.credit += c
		}
		return
	}
	if len(r.Links) == 0 {
		m.lambda += c
		return
	}
	m.lambda += c * m.tax
	share := (c - c*m.tax) / float64(len(r.Links))
	for _, fp := range r.Links {
		q := m.resolve(m.byFP[fp])
		if q == nil {
			m.lambda += share
			continue
		}
		q.history += share
		m.received += share
		if q.fetched {
			m.passOn(q.e.Host, share)
		} else {
			q.credit += share
		}
	}
}

// passOn gives c to the waiting pages of host evenly, or to lambda if none
// waits.
func (m *aopicModel) passOn(host string, c float64) {
	var waiting []*modelPage
	for _, p := range m.pages {
		if p.waiting && p.e.Host == host {
			waiting = append(waiting, p)
		}
	}
	if len(waiting) == 0 {
		m.lambda += c
		return
	}
	for _, p := range waiting {
		p.credit += c / float64(len(waiting))
	}
}

func (m *aopicModel) importance(p *modelPage) float64 {
	if m.received == 0 {
		return 0
	}
	return p.history / m.received
}

// FuzzAOPIC decodes the input as a stream of operations and checks AOPIC
// against the model after each: the same entry handed out (or one with as
// much credit, within rounding), the same wake time when none is, the same
// credits, lambda and importances.
func FuzzAOPIC(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0x10, 0x11, 0x22, 0x31, 0x45, 0x52, 0x63, 0x71, 0x80, 0x91, 0xa2, 0xb3})
	f.Add([]byte{0, 8, 16, 3, 0x81, 0x89, 0x91, 0x99, 0xe5, 3, 3, 0x2d, 0x35, 3, 3, 3, 0x1d, 3, 0xfd, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 2000 {
			return
		}
		perHost := 1 + len(ops)%3
		tax := []float64{0, 0.5, 0.01}[len(ops)/3%3]
		a := &frontier.AOPIC{PerHost: perHost, Tax: tax}
		if tax == 0 {
			tax = frontier.DefaultTax
		}
		m := &aopicModel{perHost: perHost, tax: tax, byFP: map[uint64]*modelPage{},
			inflight: map[string]int{}, readyAt: map[string]time.Time{}}
		var out []frontier.Entry
		now := t0
		n := uint64(0)
		for _, op := range ops {
			arg := int(op >> 3)
			switch op & 7 {
			case 0, 1, 2: // push to one of 4 hosts: a seed, or a link from an entry handed out
				n++
				host := fmt.Sprintf("h%d", arg%4)
				e := frontier.Entry{URL: fmt.Sprintf("http://%s/%d", host, n), Host: host, FP: n}
				if arg >= 8 && len(out) > 0 {
					e.Depth, e.Referrer = 1, out[arg%len(out)].URL
				}
				a.Push(e)
				m.push(e)
			case 3, 4: // next
				best := m.best(now)
				got, ok, wake := a.Next(now)
				if ok != (best != nil) {
					t.Fatalf("Next ok = %v, model %v", ok, best != nil)
				}
				if !ok {
					if want := m.wake(now); !wake.Equal(want) {
						t.Fatalf("Next handed out nothing with wake %v, model %v (now %v)", wake, want, now)
					}
					break
				}
				spread := m.lambda > best.credit
				if near(m.lambda, best.credit) {
					spread = a.Lambda() == 0 // either is right: follow AOPIC
				}
				if spread {
					m.spreadLambda()
					best = m.best(now)
				}
				p := m.byFP[got.FP]
				if p == nil || !p.waiting {
					t.Fatalf("Next = %s, which the model has not waiting", got.URL)
				}
				if p != best && !near(p.credit, best.credit) {
					t.Fatalf("Next = %s with credit %v, model %s with %v", got.URL, p.credit, best.e.URL, best.credit)
				}
				m.handOut(p)
				if want := m.importance(p); !near(got.Importance, want) {
					t.Fatalf("Next = %s with importance %v, model %v", got.URL, got.Importance, want)
				}
				out = append(out, got)
			case 5, 6: // done: a delay of arg%8 seconds, a retry if arg%5 is 1, arg%7 links
				if len(out) == 0 {
					continue
				}
				i := arg % len(out)
				e := out[i]
				out = append(out[:i], out[i+1:]...)
				r := frontier.Result{Next: now.Add(time.Duration(arg%8) * time.Second), Retry: arg%5 == 1}
				for k := range arg % 7 {
					r.Links = append(r.Links, n+2-uint64(k*k)) // n+1 and n+2 are not known
				}
				if len(r.Links) == 1 && arg%3 == 0 { // a redirect, to n+2 (unknown) or a page known
					r.Redirect = true
					r.Links[0] = n + 2 - uint64(arg%5)
				}
				a.Done(e, r)
				m.done(e, r)
			case 7: // time passes
				now = now.Add(time.Duration(arg) * time.Second / 4)
			}
			if msg := a.CheckHeaps(); msg != "" {
				t.Fatalf("after op %#x: %s", op, msg)
			}
			if !near(a.Lambda(), m.lambda) {
				t.Fatalf("lambda = %v, model %v", a.Lambda(), m.lambda)
			}
			for _, p := range m.pages {
				imp, ok := a.Importance(p.e.FP)
				want := m.importance(p)
				if p.redirect {
					if q := m.resolve(p); q == nil {
						want, ok = 0, !ok // the frontier does not know where it leads
					} else {
						want = m.importance(q)
					}
				}
				if c := a.Credit(p.e.FP); !ok || !near(c, p.credit) || !near(imp, want) {
					t.Fatalf("page %s: credit %v, importance %v, model %v, %v", p.e.URL, c, imp, p.credit, m.importance(p))
				}
			}
			if a.Len() != countWaiting(m) {
				t.Fatalf("Len = %d, model %d", a.Len(), countWaiting(m))
			}
		}
	})
}

func countWaiting(m *aopicModel) int {
	var n int
	for _, p := range m.pages {
		if p.waiting {
			n++
		}
	}
	return n
}
