package crawler

import (
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"crawler/canon"
	"crawler/frontier"
	"crawler/revisit"
)

// Recrawl says how a crawl fetches its pages again, to keep its copies
// fresh: a page fetched with a 2xx status is revisited at the rate that
// package revisit's optimal policy gives it, from its rate of change
// estimated from its visits, under the crawl's revisit budget (Uniform:
// the same rate for all). A revisit is a conditional GET with the
// validators of the visit before (ETag, Last-Modified): a 304 Not
// Modified, or a 200 whose content fingerprint has not changed, counts as
// unchanged, and the Handler sees Page.Revisit and Page.Unchanged. A
// revisit that finds the page gone (a 4xx other than 429, a redirect, a
// robots.txt that now disallows it) stops its revisits; one that fails
// (no response, 5xx) is tried again after the page's interval. A
// sitemap's lastmod later than a page's last visit makes the page due at
// once.
//
// Revisits go through the frontier when they are due, so the host's
// politeness and the crawl's MaxRate hold for them as for new URLs. A
// frontier that is a [frontier.Expediter] (FIFO) hands a due page out
// before the new URLs waiting, so revisits take their share while they
// wait; another (the durable store's) after the URLs its host queued
// before it. A crawl that recrawls runs until its context is done or a budget
// (MaxPages, MaxBytes) is spent. With a frontier that is a
// [frontier.Recorder] (a durable store), each page's visits are written
// with its outcome, and a crawl resumed after a crash or a stop has them
// back.
type Recrawl struct {
	// Rate is the revisits per second of all pages together. 0 or
	// negative: a share of MaxRate (see Share); Recrawl then needs MaxRate.
	Rate float64
	// Share is the fraction of MaxRate that revisits take while new URLs
	// wait, when Rate is 0; when none wait, they take all of it. 0:
	// DefaultRecrawlShare; negative: none while new URLs wait.
	Share float64
	// MinInterval is the shortest time between two visits of a page. 0 or
	// negative: no bound but its host's politeness.
	MinInterval time.Duration
	// MaxInterval is the longest: a page that changes too fast for the
	// budget to keep it fresh, and one that never changes, are still
	// revisited this often. 0: DefaultRecrawlMaxInterval; negative: no
	// bound (the optimal policy may never revisit a page).
	MaxInterval time.Duration
	// Uniform, if set, revisits every page at the same rate: the baseline
	// the optimal policy is measured against.
	Uniform bool
}

// Defaults of Recrawl.
const (
	DefaultRecrawlShare       = 0.5
	DefaultRecrawlMaxInterval = 7 * 24 * time.Hour
	// The revisit budget is spread anew over the pages when their number
	// doubles, or the budget changes, or after visits of a quarter of
	// them (their estimates have moved), but not more often than every
	// recrawlReplanMin, and at least every recrawlReplanMax if any page
	// was visited.
	recrawlReplanMin = time.Second
	recrawlReplanMax = 10 * time.Minute
	// keptVisits names the records of the pages revisited in a
	// frontier.Recorder.
	keptVisits = "crawler/visits"
)

// validate reports settings of rc that no crawl can run with.
func (rc *Recrawl) validate(maxRate float64) error {
	switch {
	case math.IsNaN(rc.Rate) || math.IsInf(rc.Rate, 0):
		return fmt.Errorf("crawler: Recrawl.Rate is %v", rc.Rate)
	case math.IsNaN(rc.Share) || rc.Share > 1:
		return fmt.Errorf("crawler: Recrawl.Share is %v; want at most 1", rc.Share)
	case rc.Rate == 0 && maxRate <= 0:
		return errors.New("crawler: Recrawl needs a rate: set Recrawl.Rate, or MaxRate for it to share")
	}
	return nil
}

// revisits is the state of a crawl's revisits: the pages fetched, their
// visits, and those waiting for their time. The scheduler alone uses it.
type revisits struct {
	cfg     Recrawl
	maxRate float64
	sched   revisit.Schedule
	pages   map[uint64]*visited
	due     dueHeap
	queued  int               // pages put in the frontier to be revisited, not yet done
	rec     frontier.Recorder // writes each page's record with its step; nil: none

	planned       time.Time // of the last Plan
	plannedPages  int
	plannedBudget float64
	visits        int // since the last Plan
}

// visited is what the crawl keeps of a page it revisits.
type visited struct {
	url                string
	depth              int
	etag, lastModified string    // validators of the last response that had them
	content            uint64    // fingerprint of the last body
	due                time.Time // when the page is to be fetched again
	queued             bool      // it is in the frontier, to be fetched now
}

// lastVisit is what a worker needs of the visit before: the validators
// to ask with, and the content to compare with.
type lastVisit struct {
	etag, lastModified string
	content            uint64
}

func newRevisits(rc Recrawl, maxRate float64) *revisits {
	v := &revisits{pages: map[uint64]*visited{}}
	v.configure(rc, maxRate)
	return v
}

// configure takes the settings of a Run, and has the next step plan anew.
func (v *revisits) configure(rc Recrawl, maxRate float64) {
	v.cfg, v.maxRate = rc, maxRate
	maxInterval := rc.MaxInterval
	if maxInterval == 0 {
		maxInterval = DefaultRecrawlMaxInterval
	}
	v.sched.Uniform = rc.Uniform
	v.sched.Bounds = revisit.Bounds{Min: max(rc.MinInterval, 0), Max: max(maxInterval, 0)}
	v.sched.Budget = v.budget(true)
	v.plannedBudget = -1
}

// budget returns the revisits per second, while new URLs wait or not.
func (v *revisits) budget(newWaiting bool) float64 {
	switch share := v.cfg.Share; {
	case v.cfg.Rate > 0:
		return v.cfg.Rate
	case !newWaiting:
		return v.maxRate
	case share == 0:
		return v.maxRate * DefaultRecrawlShare
	case share < 0:
		return 0
	default:
		return v.maxRate * share
	}
}

// load reads the records the Recorder kept: the pages of the crawl
// resumed, those waiting for their time and those in the frontier f (an
// Expediter does not keep those it was given: they are given again).
func (v *revisits) load(f frontier.Frontier) error {
	_, expedite := f.(frontier.Expediter)
	return v.rec.Records(keptVisits, func(fp uint64, b []byte) error {
		p, last, visits, err := decodeVisited(b)
		if err != nil {
			return fmt.Errorf("crawler: the record of a page revisited (%x): %w", fp, err)
		}
		v.pages[fp] = p
		v.sched.Restore(fp, last, visits)
		switch {
		case p.queued && expedite:
			v.queued++
			v.push(f, fp, p)
		case p.queued:
			v.queued++
		default:
			heap.Push(&v.due, dueAt{fp, p.due})
		}
		return nil
	})
}

// plan spreads the budget anew when it is time, and moves each waiting
// page's due time to its new rate, but for those due already (a
// sitemap's lastmod may have made them so).
func (v *revisits) plan(now time.Time, newWaiting bool) {
	b := v.budget(newWaiting)
	n := len(v.pages)
	since := now.Sub(v.planned)
	switch {
	case n == 0:
		return
	case b != v.plannedBudget || n >= 2*v.plannedPages:
	case since >= recrawlReplanMin && v.visits >= max(n/4, 1):
	case since >= recrawlReplanMax && v.visits > 0:
	default:
		return
	}
	v.planned, v.plannedPages, v.plannedBudget, v.visits = now, n, b, 0
	v.sched.Budget = b
	v.sched.Plan()
	v.due = v.due[:0]
	for fp, p := range v.pages {
		if p.queued {
			continue
		}
		if p.due.After(now) {
			p.due, _ = v.sched.Due(fp)
		}
		v.due = append(v.due, dueAt{fp, p.due})
	}
	heap.Init(&v.due)
}

// release puts in the frontier the pages due at now, and reports how many.
func (v *revisits) release(now time.Time, f frontier.Frontier) int {
	n := 0
	for len(v.due) > 0 && !v.due[0].at.After(now) {
		d := heap.Pop(&v.due).(dueAt)
		p := v.pages[d.fp]
		if p == nil || p.queued || !p.due.Equal(d.at) {
			continue // stale: planned anew, or forgotten
		}
		p.queued = true
		v.queued++
		n++
		v.push(f, d.fp, p)
		v.write(d.fp, p)
	}
	return n
}

// push puts page fp in the frontier, ahead of the URLs waiting if the
// frontier is an Expediter.
func (v *revisits) push(f frontier.Frontier, fp uint64, p *visited) {
	e := frontier.Entry{URL: p.url, FP: fp, Host: canon.Host(p.url), Depth: p.depth}
	if x, ok := f.(frontier.Expediter); ok {
		x.Expedite(e)
		return
	}
	f.Push(e)
}

// next returns when the next page is due, if any is waiting.
func (v *revisits) next() (time.Time, bool) {
	for len(v.due) > 0 {
		d := v.due[0]
		if p := v.pages[d.fp]; p != nil && !p.queued && p.due.Equal(d.at) {
			return d.at, true
		}
		heap.Pop(&v.due) // stale
	}
	return time.Time{}, false
}

// revisiting returns what a worker needs to revisit the page with
// fingerprint fp, or nil if it is no revisit.
func (v *revisits) revisiting(fp uint64) *lastVisit {
	p := v.pages[fp]
	if p == nil || !p.queued {
		return nil
	}
	return &lastVisit{etag: p.etag, lastModified: p.lastModified, content: p.content}
}

// done takes the outcome of a page fetched (or tried) for the last time
// in its turn, at now: the visit, and the lastmods of the sitemap it may
// be.
func (v *revisits) done(o outcome, now time.Time) {
	v.visit(o, now)
	v.hint(o.lastmods, now)
}

// visit records the outcome of a page at now: a first visit of a page
// that answered 2xx starts its revisits; a revisit is recorded and the
// page scheduled again, or forgotten if it is gone.
func (v *revisits) visit(o outcome, now time.Time) {
	fp := o.entry.FP
	p := v.pages[fp]
	if p != nil && p.queued {
		p.queued = false
		v.queued--
	}
	switch {
	case o.status/100 == 2 || o.status == 304 && p != nil:
		if p == nil {
			p = &visited{url: o.entry.URL, depth: o.entry.Depth}
			v.pages[fp] = p
		}
		changed := o.status != 304 && o.content != p.content
		if o.status != 304 {
			p.content = o.content
		}
		if o.etag != "" || o.lastModified != "" || o.status != 304 {
			p.etag, p.lastModified = o.etag, o.lastModified
		}
		p.due = v.sched.Visited(fp, now, changed)
		v.visits++
	case p == nil:
		return
	case o.gone:
		v.sched.Forget(fp)
		delete(v.pages, fp)
		if v.rec != nil {
			v.rec.Record(keptVisits, fp, nil)
		}
		return
	default: // failed: try again after its interval, with nothing learnt
		last, _, _ := v.sched.Visits(fp)
		due, _ := v.sched.Due(fp)
		p.due = now.Add(due.Sub(last))
	}
	heap.Push(&v.due, dueAt{fp, p.due})
	v.write(fp, p)
}

// hint makes the pages a sitemap says were modified since their last
// visit due at now.
func (v *revisits) hint(lastmods []lastmod, now time.Time) {
	for _, m := range lastmods {
		p := v.pages[m.fp]
		if p == nil || p.queued || !p.due.After(now) {
			continue
		}
		if last, _, _ := v.sched.Visits(m.fp); m.at.After(last) {
			p.due = now
			heap.Push(&v.due, dueAt{m.fp, now})
			v.write(m.fp, p)
		}
	}
}

// write records page fp with the step in progress, if there is a
// Recorder.
func (v *revisits) write(fp uint64, p *visited) {
	if v.rec == nil {
		return
	}
	last, visits, _ := v.sched.Visits(fp)
	v.rec.Record(keptVisits, fp, encodeVisited(p, last, visits))
}

// lastmod is a sitemap's lastmod of the page with fingerprint fp.
type lastmod struct {
	fp uint64
	at time.Time
}

// dueAt is a page waiting in the heap for its time. An entry whose page
// was planned anew or forgotten since is stale, and skipped.
type dueAt struct {
	fp uint64
	at time.Time
}

type dueHeap []dueAt

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h dueHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)        { *h = append(*h, x.(dueAt)) }
func (h *dueHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// The record of a page revisited: a format byte, flags (queued), the
// depth, the URL and validators (uvarint lengths), the content
// fingerprint, the due and last visit times (Unix milliseconds, varint),
// and the visits kept: uvarint(interval in ms << 1 | changed) each.
const visitedFormat = 1

func encodeVisited(p *visited, last time.Time, visits []revisit.Visit) []byte {
	b := make([]byte, 0, 48+len(p.url)+len(p.etag)+len(p.lastModified)+3*len(visits))
	flags := byte(0)
	if p.queued {
		flags = 1
	}
	b = append(b, visitedFormat, flags)
	b = binary.AppendUvarint(b, uint64(p.depth))
	for _, s := range []string{p.url, p.etag, p.lastModified} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.BigEndian.AppendUint64(b, p.content)
	b = binary.AppendVarint(b, p.due.UnixMilli())
	b = binary.AppendVarint(b, last.UnixMilli())
	b = binary.AppendUvarint(b, uint64(len(visits)))
	for _, vis := range visits {
		x := uint64(max(vis.Interval.Milliseconds(), 0)) << 1
		if vis.Changed {
			x |= 1
		}
		b = binary.AppendUvarint(b, x)
	}
	return b
}

var errBadRecord = errors.New("not a valid record")

func decodeVisited(b []byte) (p *visited, last time.Time, visits []revisit.Visit, err error) {
	if len(b) < 2 || b[0] != visitedFormat || b[1] > 1 {
		return nil, time.Time{}, nil, errBadRecord
	}
	d := decoder{b: b[2:]}
	p = &visited{queued: b[1] == 1}
	p.depth = int(d.uvarint(math.MaxInt32))
	p.url, p.etag, p.lastModified = d.string(), d.string(), d.string()
	p.content = d.uint64()
	p.due = time.UnixMilli(d.varint())
	last = time.UnixMilli(d.varint())
	n := d.uvarint(math.MaxInt32)
	if n > uint64(len(d.b)) { // each visit takes a byte at least
		d.bad, d.b, n = true, nil, 0
	}
	for range n {
		x := d.uvarint(math.MaxUint64)
		visits = append(visits, revisit.Visit{Interval: time.Duration(x>>1) * time.Millisecond, Changed: x&1 == 1})
	}
	if d.bad || len(d.b) != 0 || p.url == "" {
		return nil, time.Time{}, nil, errBadRecord
	}
	return p, last, visits, nil
}

// decoder reads a record; bad says it was cut short or out of bounds.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint(limit uint64) uint64 {
	x, n := binary.Uvarint(d.b)
	if n <= 0 || x > limit {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) varint() int64 {
	x, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) string() string {
	n := d.uvarint(math.MaxInt32)
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) uint64() uint64 {
	if len(d.b) < 8 {
		d.bad, d.b = true, nil
		return 0
	}
	x := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return x
}

// startRevisits sets up the revisits of a Run under Crawler.Recrawl:
// those an earlier Run on the same frontier left, or, for a frontier
// that is a Recorder, those its records hold.
func (r *run) startRevisits() error {
	c := r.c
	if c.Recrawl == nil {
		return nil
	}
	m := &c.made
	if m.revisits == nil || m.revisitsOf != r.frontier {
		v := newRevisits(*c.Recrawl, c.MaxRate)
		if rec, ok := r.frontier.(frontier.Recorder); ok {
			v.rec = rec
			if err := v.load(r.frontier); err != nil {
				return err
			}
		}
		m.revisits, m.revisitsOf = v, r.frontier
	}
	r.revisits = m.revisits
	r.revisits.configure(*c.Recrawl, c.MaxRate)
	return nil
}

// releaseRevisits plans the revisits anew when it is time, and puts the
// pages due at now in the frontier, as a step.
func (r *run) releaseRevisits(now time.Time) error {
	v := r.revisits
	v.plan(now, r.frontier.Len() > v.queued)
	if v.release(now, r.frontier) == 0 {
		return nil
	}
	return r.commit()
}
