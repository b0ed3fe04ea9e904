package revisit

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"net/http"
	"time"

	"crawler/canon"
	"crawler/frontier"
	"crawler/sitemap"
)

// Config says how a crawl fetches its pages again, to keep its copies
// fresh (the crawler's Crawler.Recrawl): a page fetched with a 2xx status
// is revisited at the rate that the optimal policy ([Allocate]) gives it,
// from its rate of change estimated from its visits ([Prior.Estimate]), under
// the crawl's revisit budget (Uniform: the same rate for all). A revisit
// is a conditional GET with the validators of the visit before (ETag,
// Last-Modified): a 304 Not Modified, or a 200 whose content fingerprint
// has not changed, counts as unchanged, and the crawler's Handler sees
// Page.Revisit and Page.Unchanged. A response's Last-Modified and Date
// tell how long before it the page last changed, which the estimates
// read, unless they prove useless (see the package doc). A revisit that finds the page gone (a
// 4xx other than 429, a redirect, a robots.txt that now disallows it)
// stops its revisits; one that fails (no response, 5xx) is tried again
// after the page's interval. A sitemap's lastmod later than a page's last
// visit makes the page due at once.
//
// A resource, a response that is not an HTML page (an image, a PDF, a
// stylesheet: see [Outcome].Resource), is revisited apart: once every
// MaxInterval, or never if MaxInterval is negative, outside the budget of
// the pages, whose plan does not count it (Resources: as a page).
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
type Config struct {
	// Rate is the revisits per second of all pages together. 0 or
	// negative: a share of the crawl's MaxRate (see Share); the crawl
	// then needs a MaxRate.
	Rate float64
	// Share is the fraction of MaxRate that revisits take while new URLs
	// wait, when Rate is 0; when none wait, they take all of it. 0:
	// DefaultShare; negative: none while new URLs wait.
	Share float64
	// MinInterval is the shortest time between two visits of a page. 0 or
	// negative: no bound but its host's politeness.
	MinInterval time.Duration
	// MaxInterval is the longest: a page that changes too fast for the
	// budget to keep it fresh, and one that never changes, are still
	// revisited this often. 0: DefaultMaxInterval; negative: no
	// bound (the optimal policy may never revisit a page).
	MaxInterval time.Duration
	// Uniform, if set, revisits every page at the same rate: the baseline
	// the optimal policy is measured against.
	Uniform bool
	// Resources, if set, revisits resources (responses that are not HTML
	// pages: images, PDFs) as pages, under the same budget. Unset, each is
	// revisited once every MaxInterval (never if MaxInterval is negative)
	// and takes none of the budget: a crawl revisits to keep its pages
	// fresh, and its pages' links find the resources that change anew.
	Resources bool
}

// Defaults of [Config].
const (
	// DefaultShare is the fraction of MaxRate that revisits take while
	// new URLs wait.
	DefaultShare = 0.5
	// DefaultMaxInterval is the longest time between two visits of a
	// page.
	DefaultMaxInterval = 7 * 24 * time.Hour
)

const (
	// The revisit budget is spread anew over the pages when their number
	// doubles, or the budget changes, or after visits of a sixteenth of
	// them (their estimates have moved), but not more often than every
	// replanMin, and at least every replanMax if any page was visited. A
	// sixteenth, not a quarter: while pages have few visits each one
	// moves their estimates most, and on issue 46's change web simulated
	// at 18 revisits a second, plans every 7 s (a quarter) kept 0.492 of
	// the pages fresh, every 1.7 s 0.495 (uniform: 0.493). A Plan costs
	// microseconds a page (BenchmarkPlan), a second or more for a large
	// crawl, on the scheduler's goroutine: plans are also kept 20 times
	// as long as the last one took apart, so they take at most 5% of it.
	replanMin = time.Second
	replanMax = 10 * time.Minute
	// keptVisits names the records of the pages revisited in a
	// frontier.Recorder.
	keptVisits = "crawler/visits"
	// notModified is HTTP's 304 Not Modified.
	notModified = 304
)

// Validate reports settings of c that no crawl can run with, at maxRate
// requests a second (0 or negative: none). Its errors name the crawler's
// fields (Crawler.Recrawl, MaxRate).
func (c *Config) Validate(maxRate float64) error {
	switch {
	case math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return fmt.Errorf("crawler: Recrawl.Rate is %v", c.Rate)
	case math.IsNaN(c.Share) || c.Share > 1:
		return fmt.Errorf("crawler: Recrawl.Share is %v; want at most 1", c.Share)
	case c.Rate == 0 && maxRate <= 0:
		return errors.New("crawler: Recrawl needs a rate: set Recrawl.Rate, or MaxRate for it to share")
	}
	return nil
}

// Tracker runs the revisits of a crawl under a Config: it keeps the pages
// fetched, their visits and validators, and those waiting for their time
// in a heap, puts each in the frontier when it is due, and learns from
// each outcome. A crawler's scheduler alone uses it: it is not safe for
// concurrent use. Make one with NewTracker; the Runs that resume a crawl
// on one frontier share it, one at a time.
type Tracker struct {
	cfg     Config
	maxRate float64
	sched   Schedule // the pages revisited under the budget
	apart   Schedule // the resources revisited apart (without Config.Resources): every MaxInterval
	pages   map[uint64]*visited
	due     dueHeap
	queued  int               // pages put in the frontier to be revisited, not yet done
	rec     frontier.Recorder // writes each page's record with its step; nil: none

	planned       time.Time // of the last Plan
	plannedPages  int
	plannedBudget float64
	planTook      time.Duration // by the last Plan
	visits        int           // since the last Plan
	// epochs holds the Date of each host's first response to the
	// Tracker: a first visit's Last-Modified after its host's epoch is a
	// change. Each host's by its own clock, since servers' clocks differ;
	// a resumed crawl starts them anew, which counts fewer first visits
	// as changes, never more.
	epochs map[string]time.Time
}

// visited is what the Tracker keeps of a page it revisits.
type visited struct {
	url                string
	depth              int
	etag, lastModified string        // validators of the last response that had them
	date               time.Time     // of the last response (its Date, else when it was done)
	untrusted          bool          // its Last-Modified proved useless: its visits tell changes only
	content            uint64        // fingerprint of the last body
	due                time.Time     // when the page is to be fetched again
	interval           time.Duration // the interval of the plan due was set by; 0: unknown
	queued             bool          // it is in the frontier, to be fetched now
	resource           bool          // the last 2xx response was a resource (Outcome.Resource)
}

// Last is what a revisit needs of the visit before: the validators to ask
// with, and the content fingerprint to compare with.
type Last struct {
	ETag, LastModified string
	Content            uint64
}

// Outcome is what a Tracker learns from a page fetched, or tried, for the
// last time in its turn (after its retries).
type Outcome struct {
	// Status is the final response's status; 0: no response.
	Status int
	// ETag and LastModified are the response's validators; "": none.
	ETag, LastModified string
	// Date is the response's Date header; "": none (the Tracker then
	// takes the time Done is called). With it, LastModified tells the
	// page's age at the fetch by the server's own clock.
	Date string
	// Content is the fingerprint of a 2xx response's content, which the
	// next revisit compares with (the crawler's: that of an HTML page's
	// text and links, or xxh3 of another body).
	Content uint64
	// Gone says the page is no more: its revisits stop. The crawler sets
	// it for a 4xx other than 429, a redirect, a robots.txt that
	// disallows the page and an address or host it does not fetch.
	Gone bool
	// Revisit says the fetch was a revisit: the Tracker handed out a Last
	// for it ([Tracker.Revisiting]). The Tracker does not read it.
	Revisit bool
	// Resource says a 2xx response is no page: not HTML (the crawler
	// judges by its Content-Type, or by its body without one) and no
	// sitemap, whose links make it a page. Config.Resources says how
	// resources are revisited. A 304 leaves the page as it was.
	Resource bool
	// LastMods are the lastmods a sitemap gave its URLs: those of pages
	// modified since their last visit are due at once.
	LastMods []sitemap.LastMod
}

// Unchanged reports whether o, the outcome of a revisit, found the page as
// last saw it: a 304 Not Modified, or a 2xx with the same content
// fingerprint.
func (o *Outcome) Unchanged(last *Last) bool {
	return o.Status == notModified || o.Status/100 == 2 && o.Content == last.Content
}

// NewTracker returns a Tracker of no page, under c for a crawl of at most
// maxRate requests a second (0 or negative: none; then c.Rate is the
// budget).
func NewTracker(c Config, maxRate float64) *Tracker {
	t := &Tracker{pages: map[uint64]*visited{}, epochs: map[string]time.Time{}}
	t.Configure(c, maxRate)
	return t
}

// Configure takes the settings of a Run that resumes the crawl; the pages
// and their visits stay, and the next Release spreads the budget anew.
func (t *Tracker) Configure(c Config, maxRate float64) {
	t.cfg, t.maxRate = c, maxRate
	maxInterval := c.MaxInterval
	if maxInterval == 0 {
		maxInterval = DefaultMaxInterval
	}
	t.sched.Uniform = c.Uniform
	t.sched.Bounds = Bounds{Min: max(c.MinInterval, 0), Max: max(maxInterval, 0)}
	t.sched.Budget = t.budget(true)
	// No budget: each resource is due at its bound's rate, 1/MaxInterval.
	t.apart.Bounds = Bounds{Max: max(maxInterval, 0)}
	t.plannedBudget = -1
	for fp, p := range t.pages { // Resources may have changed
		if p.resource {
			t.move(fp, p)
		}
	}
}

// schedule returns the Schedule of page p: the resources' apart, unless
// Config.Resources.
func (t *Tracker) schedule(p *visited) *Schedule {
	if p.resource && !t.cfg.Resources {
		return &t.apart
	}
	return &t.sched
}

// move puts page fp, with its visits, in the Schedule its kind and the
// Config give it, from the other.
func (t *Tracker) move(fp uint64, p *visited) {
	to, from := t.schedule(p), &t.apart
	if to == from {
		from = &t.sched
	}
	if last, visits, ok := from.Visits(fp); ok {
		to.Restore(fp, last, visits)
		from.Forget(fp)
	}
}

// budget returns the revisits per second, while new URLs wait or not.
func (t *Tracker) budget(newWaiting bool) float64 {
	switch share := t.cfg.Share; {
	case t.cfg.Rate > 0:
		return t.cfg.Rate
	case !newWaiting:
		return t.maxRate
	case share == 0:
		return t.maxRate * DefaultShare
	case share < 0:
		return 0
	default:
		return t.maxRate * share
	}
}

// Len returns the number of pages the Tracker revisits.
func (t *Tracker) Len() int { return len(t.pages) }

// Load has the Tracker keep its pages in f, if f is a frontier.Recorder:
// it reads the records f kept of a crawl resumed, the pages waiting for
// their time and those that were in the frontier (an Expediter does not
// keep those it was given: they are given again), and from then on writes
// each page's record with the step in progress of f. Without a Recorder
// it does nothing. Call it once, on a new Tracker, before the rest. A
// record that does not decode is an error: the crawl's state is damaged.
func (t *Tracker) Load(f frontier.Frontier) error {
	rec, ok := f.(frontier.Recorder)
	if !ok {
		return nil
	}
	t.rec = rec
	_, expedite := f.(frontier.Expediter)
	return rec.Records(keptVisits, func(fp uint64, b []byte) error {
		p, last, visits, err := decodeVisited(b)
		if err != nil {
			return fmt.Errorf("crawler: the record of a page revisited (%x): %w", fp, err)
		}
		t.pages[fp] = p
		t.schedule(p).Restore(fp, last, visits)
		switch {
		case p.queued && expedite:
			t.queued++
			t.push(f, fp, p)
		case p.queued:
			t.queued++
		default:
			heap.Push(&t.due, dueAt{fp, p.due})
		}
		return nil
	})
}

// Release spreads the budget anew when it is time, and puts in f the
// pages due at now, ahead of the URLs waiting if f is a
// frontier.Expediter. It reports how many it put: the step that did so
// is to be committed. While f holds new URLs, revisits take their Share
// of MaxRate; while it holds none, all of it.
func (t *Tracker) Release(now time.Time, f frontier.Frontier) int {
	t.plan(now, f.Len() > t.queued)
	return t.release(now, f)
}

// plan spreads the budget anew when it is time, and moves each waiting
// page's due time to its new rate, but for those due already (a
// sitemap's lastmod may have made them so). A page keeps its phase: the
// wait it has left is scaled by its new interval over the old, so that
// a plan that shortens the intervals (the budget doubles when the new
// URLs run out) does not make every page visited longer ago than its
// new interval due at once, to be fetched in a bunch, late, one per
// MaxRate slot.
func (t *Tracker) plan(now time.Time, newWaiting bool) {
	b := t.budget(newWaiting)
	n := t.sched.Len()
	since := now.Sub(t.planned)
	switch {
	case n == 0:
		return
	case b != t.plannedBudget || n >= 2*t.plannedPages:
	case since >= max(replanMin, 20*t.planTook) && t.visits >= max(n/16, 1):
	case since >= replanMax && t.visits > 0:
	default:
		return
	}
	t.planned, t.plannedPages, t.plannedBudget, t.visits = now, n, b, 0
	t.sched.Budget = b
	start := time.Now()
	t.sched.Plan()
	t.planTook = time.Since(start)
	t.due = t.due[:0]
	for fp, p := range t.pages {
		if p.queued {
			continue
		}
		if p.due.After(now) {
			s := t.schedule(p)
			due, _ := s.Due(fp)
			last, _, _ := s.Visits(fp)
			in := due.Sub(last)
			if p.interval > 0 && p.interval < Never && in < Never {
				due = now.Add(time.Duration(float64(p.due.Sub(now)) * (float64(in) / float64(p.interval))))
			}
			p.due, p.interval = due, in
		}
		t.due = append(t.due, dueAt{fp, p.due})
	}
	heap.Init(&t.due)
}

// release puts in the frontier the pages due at now, and reports how many.
func (t *Tracker) release(now time.Time, f frontier.Frontier) int {
	n := 0
	for len(t.due) > 0 && !t.due[0].at.After(now) {
		d := heap.Pop(&t.due).(dueAt)
		p := t.pages[d.fp]
		if p == nil || p.queued || !p.due.Equal(d.at) {
			continue // stale: planned anew, or forgotten
		}
		p.queued = true
		t.queued++
		n++
		t.push(f, d.fp, p)
		t.write(d.fp, p)
	}
	return n
}

// push puts page fp in the frontier, ahead of the URLs waiting if the
// frontier is an Expediter.
func (t *Tracker) push(f frontier.Frontier, fp uint64, p *visited) {
	e := frontier.Entry{URL: p.url, FP: fp, Host: canon.Host(p.url), Depth: p.depth}
	if x, ok := f.(frontier.Expediter); ok {
		x.Expedite(e)
		return
	}
	f.Push(e)
}

// Next returns when the next page is due, if any is waiting.
func (t *Tracker) Next() (time.Time, bool) {
	for len(t.due) > 0 {
		d := t.due[0]
		if p := t.pages[d.fp]; p != nil && !p.queued && p.due.Equal(d.at) {
			return d.at, true
		}
		heap.Pop(&t.due) // stale
	}
	return time.Time{}, false
}

// Revisiting returns the visit before of the page with fingerprint fp,
// which the frontier has just handed out, if Release put it there to be
// revisited; nil if it is no revisit. The Last is a copy: the worker
// that revisits the page may keep it.
func (t *Tracker) Revisiting(fp uint64) *Last {
	p := t.pages[fp]
	if p == nil || !p.queued {
		return nil
	}
	return &Last{ETag: p.etag, LastModified: p.lastModified, Content: p.content}
}

// Done takes the outcome o of the page of entry e, fetched (or tried) for
// the last time in its turn, at now: a first visit of a page that
// answered 2xx starts its revisits; a revisit is recorded and the page
// scheduled again, or forgotten if it is gone; the lastmods of a sitemap
// make the pages modified since their last visit due at now.
func (t *Tracker) Done(e frontier.Entry, o Outcome, now time.Time) {
	t.visit(e, &o, now)
	t.hint(o.LastMods, now)
}

// visit records the outcome of a page at now.
func (t *Tracker) visit(e frontier.Entry, o *Outcome, now time.Time) {
	fp := e.FP
	p := t.pages[fp]
	if p != nil && p.queued {
		p.queued = false
		t.queued--
	}
	switch {
	case o.Status/100 == 2 || o.Status == notModified && p != nil:
		first := p == nil
		if first {
			p = &visited{url: e.URL, depth: e.Depth, resource: o.Resource}
			t.pages[fp] = p
		}
		changed := o.Status != notModified && o.Content != p.content
		age, event := t.age(e, p, o, now, first, changed)
		if o.Status != notModified {
			p.content = o.Content
			if p.resource != o.Resource {
				p.resource = o.Resource
				t.move(fp, p)
			}
		}
		if o.ETag != "" || o.LastModified != "" || o.Status != notModified {
			p.etag, p.lastModified = o.ETag, o.LastModified
		}
		s := t.schedule(p)
		if first {
			changed = event
		}
		p.due = s.VisitedAge(fp, now, changed, age)
		p.interval = p.due.Sub(now)
		if s == &t.sched {
			t.visits++
		}
	case p == nil:
		return
	case o.Gone:
		t.schedule(p).Forget(fp)
		delete(t.pages, fp)
		if t.rec != nil {
			t.rec.Record(keptVisits, fp, nil)
		}
		return
	default: // failed: try again after its interval, with nothing learnt
		last, _, _ := t.schedule(p).Visits(fp)
		due, _ := t.schedule(p).Due(fp)
		p.due = now.Add(due.Sub(last))
	}
	heap.Push(&t.due, dueAt{fp, p.due})
	t.write(fp, p)
}

// age returns the age of page p, of entry e, at the response of o (first:
// its first visit; changed: a revisit that saw a change) by its
// Last-Modified and Date (else now), and whether its last modification
// was a change the crawl can count (for a first visit: one later than its
// host's epoch); 0 if no age is to be read. Both stamps are to the second, and
// their difference is the age on average, but for a page modified in the
// second of the response, whose age is 0 to 1 s: its age is taken to be
// half a second (a nanosecond, unbiased on average, lets a single change
// just before a fetch make a page seem too fast to keep fresh, never to
// be revisited again: on issue 46's change web simulated at 18 revisits
// a second, 0.503 of the pages fresh, half a second 0.507). A
// Last-Modified is not to be trusted, and the page's ages are forgotten
// for good (its visits tell changes only), when it is later than the
// Date, moves though the page did not change (a dynamic page's, the time
// of the response), or is earlier than the visit before though the page
// changed.
func (t *Tracker) age(e frontier.Entry, p *visited, o *Outcome, now time.Time, first, changed bool) (age time.Duration, event bool) {
	date, err := http.ParseTime(o.Date)
	if err != nil {
		date = now.UTC().Truncate(time.Second)
	}
	epoch, ok := t.epochs[e.Host]
	if !ok {
		epoch = date
		t.epochs[e.Host] = date
	}
	before := p.date
	p.date = date
	lm, err := http.ParseTime(o.LastModified)
	if p.untrusted || err != nil {
		return 0, false
	}
	bad := lm.After(date)
	if !first && !before.IsZero() {
		if changed {
			bad = bad || lm.Before(before)
		} else {
			was, err := http.ParseTime(p.lastModified)
			bad = bad || lm.After(before) || err == nil && !lm.Equal(was)
		}
	}
	if bad {
		p.untrusted = true
		t.schedule(p).forgetAges(e.FP)
		return 0, false
	}
	if !first && !changed {
		return 0, false
	}
	return max(date.Sub(lm), time.Second/2), !first || lm.After(epoch)
}

// hint makes the pages a sitemap says were modified since their last
// visit due at now.
func (t *Tracker) hint(lastmods []sitemap.LastMod, now time.Time) {
	for _, m := range lastmods {
		p := t.pages[m.FP]
		if p == nil || p.queued || !p.due.After(now) {
			continue
		}
		if last, _, _ := t.schedule(p).Visits(m.FP); m.At.After(last) {
			p.due = now
			heap.Push(&t.due, dueAt{m.FP, now})
			t.write(m.FP, p)
		}
	}
}

// write records page fp with the step in progress, if there is a
// Recorder.
func (t *Tracker) write(fp uint64, p *visited) {
	if t.rec == nil {
		return
	}
	last, visits, _ := t.schedule(p).Visits(fp)
	t.rec.Record(keptVisits, fp, encodeVisited(p, last, visits))
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
