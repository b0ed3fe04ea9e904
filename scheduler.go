package crawler

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"crawler/frontier"
	"crawler/revisit"
)

// link is a URL found on a page (or a redirect target), canonical and in
// scope, on its way to the seen-test.
type link struct {
	url   string
	fp    uint64
	host  string
	depth int
	hops  int
}

// outcome is what a worker reports to the scheduler about one entry.
type outcome struct {
	entry     frontier.Entry
	requested bool      // a page request was sent (counts against MaxPages)
	retry     bool      // not processed: hand the entry out again
	next      time.Time // when its host may be contacted again
	links     []link    // links to follow (canonical, in scope)
	linkFPs   []uint64  // fingerprints of all the page's out-links and its redirect target
	redirect  bool      // a redirect followed: linkFPs holds its target alone
	depthCut  bool      // links were left out for their depth alone (Scope.MaxDepth)
	html      bool      // a 2xx HTML page was read
	failure   error     // why the entry yielded no page, when it is done with and got no response; nil otherwise
	// visit is the response as Recrawl sees it; its Content is also
	// that of a 2xx HTML page for Traps.DuplicatePages.
	visit revisit.Outcome
}

// job is an entry handed to a worker, with the visit before if it is a
// revisit.
type job struct {
	entry frontier.Entry
	last  *revisit.Last
}

// scheduler is the loop of one Run. It owns the frontier and the
// seen-set: it hands ready URLs to the workers, takes back what they
// found, and decides when the Run has ended. It runs on one goroutine.
type scheduler struct {
	*runState
	jobs      chan job
	results   chan outcome // never full: at most workers entries are out
	inflight  int          // entries handed out and not yet back
	requested int64        // page requests sent, for MaxPages
	nextSlot  time.Time    // under MaxRate, the earliest time the next URL may be handed out
	failed    error        // a step the frontier could not commit: the crawl stops
	timer     *time.Timer
	ready     <-chan struct{} // links forwarded here by other parts of the crawl; nil if none
	retiring  <-chan struct{} // hosts the operator retired (RetireHost); nil without a waker
}

// loop runs the Run's workers and schedules their URLs until the Run ends:
// hand out what may start, stop if nothing is left, else wait for an
// outcome, a wake-up or the end of ctx.
func (r *runState) loop(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &scheduler{runState: r, jobs: make(chan job, r.workers), results: make(chan outcome, r.workers), timer: time.NewTimer(time.Hour)}
	s.timer.Stop()
	defer s.timer.Stop()
	if r.exchange != nil {
		s.ready = r.exchange.Ready()
	}
	if r.waker != nil {
		s.retiring = r.hostTab.Retiring()
	}
	var wg sync.WaitGroup
	for range r.workers {
		wg.Go(func() {
			for j := range s.jobs {
				s.results <- r.process(ctx, j)
			}
		})
	}
	var err error
	for err == nil && s.failed == nil {
		paused, resumed := r.c.paused.State()
		wake := s.handOut(paused)
		r.publish(s.inflight)
		if left := s.budgetLeft(); s.inflight == 0 && !paused && r.ended(left) {
			r.exhausted = left
			break
		}
		err = s.wait(ctx, wake, paused, resumed)
	}
	// Stop the workers, and keep what those in flight found or left
	// undone: entries cut short go back to the frontier.
	close(s.jobs)
	cancel()
	wg.Wait()
	return s.drain(err)
}

// handOut releases the revisits due and hands the workers the URLs ready
// now, while the crawl may start more. It returns when to look again:
// the time the next URL will be ready, or zero if none is known.
func (s *scheduler) handOut(paused bool) (wake time.Time) {
	if s.revisits != nil && s.revisits.Release(time.Now(), s.frontier) > 0 {
		s.fail(s.commit())
	}
	for !paused && s.inflight < s.workers && s.budgetLeft() {
		now := time.Now()
		if now.Before(s.holdUntil) {
			wake = s.holdUntil
			break
		}
		if s.rateInterval > 0 && now.Before(s.nextSlot) {
			wake = s.nextSlot
			break
		}
		e, ok, w := s.frontier.Next(now)
		if !ok {
			wake = w
			break
		}
		if s.rateInterval > 0 { // from the slot, not the hand-out: a wake-up late by up to half an interval costs no rate
			s.nextSlot = later(s.nextSlot, now.Add(-s.rateInterval/2)).Add(s.rateInterval)
		}
		e.Depth = s.depths.HandedOut(e.FP, e.Depth) // a shorter path may have been found while it waited
		s.inflight++
		j := job{entry: e}
		if s.revisits != nil {
			j.last = s.revisits.Revisiting(e.FP)
		}
		s.jobs <- j
	}
	if s.revisits != nil {
		if due, ok := s.revisits.Next(); ok && (wake.IsZero() || due.Before(wake)) {
			wake = due
		}
	}
	return wake
}

// wait takes the next event: an outcome, a change of Pause, links
// forwarded here, a host retired, the wake time, or the end of ctx, whose
// cause it returns.
func (s *scheduler) wait(ctx context.Context, wake time.Time, paused bool, resumed <-chan struct{}) error {
	if s.inflight == 0 {
		s.fail(s.flush()) // no step will end before the wait does
	}
	var wakeC <-chan time.Time
	if !wake.IsZero() && !paused && s.inflight < s.workers && s.budgetLeft() {
		s.timer.Reset(time.Until(wake))
		wakeC = s.timer.C
	}
	select {
	case o := <-s.results:
		s.apply(o)
	case <-resumed:
	case <-s.ready:
		s.fail(s.receive())
	case <-s.retiring: // their URLs end now, not after the hosts' delays or backoffs
		for _, host := range s.hostTab.TakeRetiring() {
			s.waker.Wake(host, time.Now())
		}
	case <-wakeC:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	return nil
}

// budgetLeft reports whether MaxPages and MaxBytes let another URL start.
func (s *scheduler) budgetLeft() bool {
	if maxPages := s.c.MaxPages; maxPages > 0 && s.requested+int64(s.inflight) >= maxPages {
		return false
	}
	return s.c.MaxBytes <= 0 || s.stats.bytes.Load() < s.c.MaxBytes
}

// apply takes a worker's outcome, as one step: its links are discovered,
// the frontier told, the revisits recorded.
func (s *scheduler) apply(o outcome) {
	s.inflight--
	if o.requested {
		s.requested++
	}
	if o.html && !o.visit.Revisit {
		s.checkContent(o)
	}
	// New links are pushed before Done, so that a frontier spending
	// credit on the page's links (AOPIC) knows them all.
	s.prepare(o.links)
	for _, l := range o.links {
		s.discover(l, o.entry.URL)
	}
	s.frontier.Done(o.entry, frontier.Result{Next: o.next, Retry: o.retry, Links: o.linkFPs, Redirect: o.redirect, Requested: o.requested})
	if !o.retry {
		if o.failure != nil && s.seeds[o.entry.FP] && o.entry.Referrer == "" {
			s.seedErrs[o.entry.FP] = o.failure
		}
		s.finished(o)
		if s.revisits != nil {
			s.revisits.Done(o.entry, o.visit, time.Now())
		}
	}
	s.fail(s.commit())
	s.publish(s.inflight)
}

// drain takes the outcomes of the workers stopped, and returns the
// Run's error: the frontier's, else a StoppedError if ctx ended it with
// cause.
func (s *scheduler) drain(cause error) error {
	for s.inflight > 0 {
		s.apply(<-s.results)
	}
	s.fail(s.flush())
	s.publish(0)
	switch {
	case s.failed != nil:
		return s.failed
	case cause != nil:
		return &StoppedError{Cause: cause, Frontier: s.frontier.Len()}
	}
	return nil
}

// fail keeps the first error of the frontier's steps, which stops the
// crawl.
func (s *scheduler) fail(err error) {
	if s.failed == nil {
		s.failed = err
	}
}

// ended reports whether a loop with nothing in flight is done: its
// frontier is empty or its budget spent, or with an Exchanger, the whole
// crawl is finished.
func (r *runState) ended(budgetLeft bool) bool {
	if r.exchange != nil {
		return r.exchange.Finished()
	}
	return r.frontier.Len() == 0 && (r.revisits == nil || r.revisits.Len() == 0) || !budgetLeft
}

// receive discovers the links other parts of the crawl forwarded here, as
// one step.
func (r *runState) receive() error {
	es := r.exchange.Receive()
	if len(es) == 0 {
		return nil
	}
	r.stats.received.Add(int64(len(es)))
	for _, e := range es {
		r.discover(link{url: e.URL, fp: e.FP, host: e.Host, depth: e.Depth, hops: e.Hops}, e.Referrer)
	}
	return r.commit()
}

// prepare has a seen-set that tests many fingerprints at once
// (seen.Batcher) test those of links, before they are discovered.
func (r *runState) prepare(links []link) {
	if r.batcher == nil || len(links) < 2 {
		return
	}
	r.fps = r.fps[:0]
	for _, l := range links {
		r.fps = append(r.fps, l.fp)
	}
	r.batcher.Prepare(r.fps)
}

// discover runs the URL-seen test on l and pushes it if it is new and no
// trap rule stops it (seeds, with no referrer, always pass the rules). It
// reports whether l was pushed.
func (r *runState) discover(l link, referrer string) bool {
	if r.exchange != nil && r.exchange.Forward(frontier.Entry{URL: l.url, FP: l.fp, Host: l.host, Depth: l.depth, Hops: l.hops, Referrer: referrer}) {
		r.stats.forwarded.Add(1)
		return false
	}
	if !r.seen.Add(l.fp) {
		r.stats.duplicates.Add(1)
		if r.depths.FoundAgain(l.fp, l.depth) {
			r.fetchAgain(frontier.Entry{URL: l.url, FP: l.fp, Host: l.host, Depth: l.depth, Hops: l.hops, Referrer: referrer})
		}
		return false
	}
	if rule := r.traps.Admit(l.url, l.host, referrer == ""); rule != "" {
		r.stats.traps.Add(rule, 1)
		return false
	}
	r.hosts[l.host] = struct{}{}
	r.depths.Pushed(l.fp, l.depth)
	r.frontier.Push(frontier.Entry{URL: l.url, FP: l.fp, Host: l.host, Depth: l.depth, Hops: l.hops, Referrer: referrer})
	return true
}

// checkContent records the content of an HTML page for the duplicate
// rule of Traps, which may stop the page's path pattern.
func (r *runState) checkContent(o outcome) {
	stopped, duplicate := r.traps.Observe(o.entry.URL, o.entry.Host, o.visit.Content)
	if duplicate {
		r.stats.duplicateContent.Add(1)
	}
	if stopped != "" {
		r.stats.addTrapPattern(stopped)
		r.log.Warn("trap: path pattern keeps serving duplicates; not followed any more", "pattern", stopped)
	}
}

// finished forgets the depth of an entry done with, and fetches it again
// if it was found nearer a seed while it was in flight (see
// depths.Shortest, which keeps the pages within Scope.MaxDepth of a seed
// by their shortest path).
func (r *runState) finished(o outcome) {
	e := o.entry
	if d, again := r.depths.Done(e.FP, e.Depth, len(o.linkFPs) > 0 || o.depthCut); again {
		e.Depth, e.Tries = d, 0
		r.fetchAgain(e)
	}
}

// fetchAgain pushes e, a page done with at a greater depth than e's, to be
// fetched again.
func (r *runState) fetchAgain(e frontier.Entry) {
	r.stats.depthRefetches.Add(1)
	r.depths.Pushed(e.FP, e.Depth)
	r.frontier.Push(e)
}

// commit ends a step of the scheduler for a frontier that writes in steps
// (frontier.Committer). Its error, wrapped, stops the crawl.
func (r *runState) commit() error {
	if r.committer == nil {
		return nil
	}
	r.traps.Record()
	if err := r.committer.Commit(); err != nil {
		return fmt.Errorf("crawler: frontier commit: %w", err)
	}
	return nil
}

// flush makes the steps ended durable, for a frontier.Committer.
func (r *runState) flush() error {
	if r.committer == nil {
		return nil
	}
	if err := r.committer.Flush(); err != nil {
		return fmt.Errorf("crawler: frontier flush: %w", err)
	}
	return nil
}

// publish makes the scheduler's own figures visible to Stats.
func (r *runState) publish(inflight int) {
	r.stats.inflight.Store(int64(inflight))
	r.stats.frontier.Store(int64(r.frontier.Len()))
	r.stats.seen.Store(int64(r.seen.Len()))
	r.stats.hosts.Store(int64(len(r.hosts)))
	if r.fpRate != nil {
		r.stats.seenFPRate.Store(math.Float64bits(r.fpRate.FPRate()))
	}
	if r.revisits != nil {
		r.stats.revisiting.Store(int64(r.revisits.Len()))
	}
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
