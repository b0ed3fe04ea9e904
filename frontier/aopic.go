package frontier

import (
	"crawler/internal/urlform"
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"
)

// DefaultTax is the share of a crawled page's credit that [AOPIC] gives to
// its virtual page lambda when AOPIC.Tax is 0.
const DefaultTax = 0.1

// groups is the number of groups of hosts by waiting pages, enough for
// any number a host's int32 page indexes allow.
const groups = 32

// groupRate is the weight of a waiting page of a host in group k (2^k to
// 2^(k+1)-1 waiting pages) in lambda's spread: 2^(-k/2), so that a host
// with n waiting pages takes about √n shares of it in all.
func groupRate(k int) float64 {
	r := math.Ldexp(1, -k/2)
	if k%2 == 1 {
		r *= math.Sqrt2 / 2
	}
	return r
}

// AOPIC is a [Frontier] that hands out the most important URL first, by
// Adaptive On-line Page Importance Computation (Abiteboul, Preda and
// Cobena, 2003) in its one-pass form; the package doc describes the
// algorithm. A seed (an entry with Depth 0, Hops 0 and no Referrer) brings
// credit 1; among ready hosts Next hands out the waiting page with the
// most credit (ties: the one pushed first), and Done spends it over
// [Result.Links]. [AOPIC.Importance] and [AOPIC.Top] report the estimates.
// Its zero value is an empty frontier ready to use. It is not safe for
// concurrent use.
//
// Costs, for n known pages and h hosts: Push is O(log n + log h), Next
// O(log n + log h) plus 32 steps, Done O((l+1)(log n + log h)) for l links.
// A known page, waiting or fetched, takes a 40-byte record, 8 to 16 bytes
// of a hash table and its URL's bytes past the host; see bench/README.md.
type AOPIC struct {
	// PerHost is the number of entries of one host that may be handed out
	// at once (handed out by Next and not yet Done). 0 means 1; negative,
	// no limit.
	PerHost int
	// Tax is the share of a fetched page's credit that goes to lambda,
	// below 1. 0 means DefaultTax; negative, none.
	Tax float64

	pages  []page       // every page ever pushed, in order of Push
	index  []int32      // pages by fingerprint (see AOPIC.find)
	seed   maphash.Seed // of index's hash
	hosts  []*aopicHost
	byName map[string]int32 // index into hosts
	// ready holds the hosts dispatchable now, by the credit of their best
	// page, in groups by their number of waiting pages: group k holds
	// hosts with 2^k to 2^(k+1)-1, whose pages lambda lifts alike.
	ready   [groups]aopicHostHeap
	waiting aopicHostHeap // dispatchable once readyAt has passed
	n       int           // waiting pages
	inGroup [groups]int   // waiting pages of the hosts in each group

	redirects map[int32]uint64      // the pages that were redirects, to their targets
	limit     func(host string) int // see LimitHosts; nil: PerHost for every host

	lambda   float64 // credit of the virtual page lambda
	lift     float64 // credit lambda gave so far to a page of group 0; one of group k got lift·groupRate(k)
	received float64 // credit received through links by all pages so far, seeds' included
}

// page is the compact record of one known page; the rest of its Entry is
// kept in its host's records (see aopicHost.keep). While the page waits, its
// credit is stored less its host's pot at the time it joined the queue, so
// that a spread lifts every waiting page of the host at once; otherwise it
// is the page's own.
type page struct {
	credit  float64
	history float64
	fp      uint64
	host    int32  // index into AOPIC.hosts
	pos     int32  // index in its host's heap, or posOut, or posFetched
	rec     uint32 // offset of its record in its host's records
}

// Values of page.pos for a page that is not waiting.
const (
	posOut     = -1 // handed out by Next, not yet Done
	posFetched = -2 // Done without a retry
)

func (p *page) waiting() bool { return p.pos >= 0 }
func (p *page) fetched() bool { return p.pos == posFetched }

// aopicHost is the state of one host: a max-heap of its waiting pages and
// its politeness.
type aopicHost struct {
	name     string
	records  []byte  // its pages' records, at page.rec (see aopicHost.keep)
	lastRef  int     // offset in records of the referrer kept last, or -1
	pages    []int32 // indexes into AOPIC.pages, best first
	inflight int
	limit    int     // entries out at once, from AOPIC.limit; 0: AOPIC.PerHost
	pot      float64 // credit per waiting page passed on by the host's fetched pages, and lambda's lift until liftMark
	liftMark float64 // AOPIC.lift when pot last took in lambda's lift
	group    int     // the group of its number of waiting pages (see AOPIC.ready)
	readyAt  time.Time
	heap     *aopicHostHeap // the heap the host is in, or nil
	index    int            // its index there
}

// Ranked is a page and its importance, as reported by [AOPIC.Top].
type Ranked struct {
	URL        string
	FP         uint64
	Importance float64
}

// Push adds e to its host's queue. A seed (Depth 0, Hops 0, no Referrer)
// brings credit 1; other entries start with none. The frontier holds one
// page per fingerprint: an entry whose page is waiting or handed out is
// ignored, and one whose page was fetched puts it back in the queue, with
// the history it has and no credit.
func (a *AOPIC) Push(e Entry) {
	if a.byName == nil {
		a.seed = maphash.MakeSeed()
		a.byName = make(map[string]int32)
		a.initHeaps()
	}
	if i, ok := a.find(e.FP); ok {
		if p := &a.pages[i]; p.fetched() {
			// Fetched, and pushed again: back in its host's queue with
			// no credit of its own (it was spent) and its history.
			delete(a.redirects, i)
			p.rec = a.hosts[p.host].keep(e)
			a.enqueue(i, 0, p.history)
		}
		return
	}
	hi, ok := a.byName[e.Host]
	if !ok {
		hi = int32(len(a.hosts))
		a.hosts = append(a.hosts, &aopicHost{name: e.Host, lastRef: -1, limit: hostLimit(a.limit, e.Host), index: -1})
		a.byName[e.Host] = hi
	}
	var credit float64
	if e.Depth == 0 && e.Hops == 0 && e.Referrer == "" {
		credit = 1
		a.received++
	}
	i := int32(len(a.pages))
	a.pages = append(a.pages, page{fp: e.FP, host: hi, pos: posOut, rec: a.hosts[hi].keep(e)})
	a.add(i)
	a.enqueue(i, credit, credit)
}

// Next hands out the URL with the most credit among the hosts ready at
// now, after spreading lambda's credit if lambda holds more. Its
// Importance is set to the page's share of all credit received so far.
func (a *AOPIC) Next(now time.Time) (Entry, bool, time.Time) {
	for a.waiting.len() > 0 && !a.waiting.min().readyAt.After(now) {
		h := a.waiting.min()
		a.hostRemove(&a.waiting, h)
		a.hostPush(&a.ready[h.group], h)
	}
	h, best := a.best()
	if h == nil {
		if a.waiting.len() > 0 {
			return Entry{}, false, a.waiting.min().readyAt
		}
		return Entry{}, false, time.Time{}
	}
	if a.lambda > best {
		a.spreadLambda()
		h, _ = a.best()
	}
	a.hostRemove(h.heap, h)
	a.unweigh(h)
	i := a.popPage(h)
	p := &a.pages[i]
	p.credit += h.pot
	a.weigh(h)
	a.n--
	h.inflight++
	a.schedule(h)
	e := a.entry(i)
	if a.received > 0 {
		e.Importance = p.history / a.received
	}
	return e, true, time.Time{}
}

// Done records the outcome of e: the host becomes ready again at r.Next (or
// later). A retried entry goes back to its host's queue with its credit;
// otherwise the page's credit is spent on lambda and r.Links, and the page
// is never handed out again. Done panics if e was not handed out by Next.
func (a *AOPIC) Done(e Entry, r Result) {
	i, ok := a.find(e.FP)
	if !ok || a.pages[i].pos != posOut {
		panic("frontier: Done for an entry that was not handed out")
	}
	p := &a.pages[i]
	h := a.hosts[p.host]
	if h.heap != nil {
		// Out of its heap while its key changes, so that the heap stays
		// in order for the hosts that spend moves.
		a.hostRemove(h.heap, h)
	}
	h.inflight--
	if r.Next.After(h.readyAt) {
		h.readyAt = r.Next
	}
	switch {
	case r.Retry:
		p.rec = h.keep(e)
		a.enqueue(i, p.credit, p.history)
	case r.Redirect && len(r.Links) == 1:
		a.redirect(i, r.Links[0])
	default:
		a.spend(i, r.Links)
	}
	a.schedule(h)
}

// spend marks page i fetched and shares its credit out over lambda and
// links.
func (a *AOPIC) spend(i int32, links []uint64) {
	p := &a.pages[i]
	c := p.credit
	p.credit = 0
	p.pos = posFetched
	tax := a.Tax
	switch {
	case tax == 0:
		tax = DefaultTax
	case tax < 0:
		tax = 0
	}
	if len(links) == 0 {
		a.lambda += c
		return
	}
	a.lambda += c * tax
	share := (c - c*tax) / float64(len(links))
	for _, fp := range links {
		a.give(fp, share)
	}
}

// give adds credit c to the page with fingerprint fp.
func (a *AOPIC) give(fp uint64, c float64) {
	i, ok := a.follow(fp)
	if !ok {
		a.lambda += c
		return
	}
	a.received += c
	a.pages[i].history += c
	a.deposit(i, c)
}

// deposit adds credit c to page i: to its credit if it waits (moving it
// up its host's queue) or is handed out, to its host's waiting pages if it
// was fetched.
func (a *AOPIC) deposit(i int32, c float64) {
	p := &a.pages[i]
	switch {
	case p.fetched():
		a.passOn(a.hosts[p.host], c)
	case !p.waiting():
		p.credit += c
	default:
		p.credit += c
		h := a.hosts[p.host]
		a.pageFix(h, int(p.pos))
		if h.heap != nil {
			a.hostFix(h.heap, h)
		}
	}
}

// redirect marks page i, handed out, a redirect to the page target: its
// credit and its history go to the target whole (untaxed: a redirect is
// one page under two URLs), and so does what links to it bring later. If
// the frontier does not know the target, the credit goes to lambda and the
// history stays.
func (a *AOPIC) redirect(i int32, target uint64) {
	p := &a.pages[i]
	c := p.credit
	p.credit, p.pos = 0, posFetched
	if a.redirects == nil {
		a.redirects = map[int32]uint64{}
	}
	a.redirects[i] = target
	j, ok := a.follow(target)
	if !ok {
		a.lambda += c
		return
	}
	a.pages[j].history += p.history // already counted in a.received
	p.history = 0
	a.deposit(j, c)
}

// maxRedirects bounds the redirect hops follow takes, against loops.
const maxRedirects = 32

// follow finds the page of fp, or, if fp is a redirect, of its target,
// following hops.
func (a *AOPIC) follow(fp uint64) (int32, bool) {
	i, ok := a.find(fp)
	for range maxRedirects {
		target, isRedirect := a.redirects[i]
		if !ok || !isRedirect {
			return i, ok
		}
		i, ok = a.find(target)
	}
	return 0, false
}

// best returns the ready host with the best page, and that page's credit.
// O(groups).
func (a *AOPIC) best() (*aopicHost, float64) {
	var best *aopicHost
	var credit float64
	for k := range a.ready {
		if a.ready[k].len() == 0 {
			continue
		}
		h := a.ready[k].min()
		if c := a.credit(h.pages[0]); best == nil || c > credit || c == credit && h.pages[0] < best.pages[0] {
			best, credit = h, c
		}
	}
	return best, credit
}

// credit returns the credit of waiting page i.
func (a *AOPIC) credit(i int32) float64 {
	h := a.hosts[a.pages[i].host]
	return a.pages[i].credit + h.pot + a.lifted(h)
}

// lifted returns the credit lambda gave each waiting page of h since h's
// pot last took its lift in.
func (a *AOPIC) lifted(h *aopicHost) float64 {
	return (a.lift - h.liftMark) * groupRate(h.group)
}

// spreadLambda "crawls" lambda: its credit goes to every waiting page, a
// page of a host in group k with weight groupRate(k). O(groups).
func (a *AOPIC) spreadLambda() {
	var weight float64
	for k, n := range a.inGroup {
		weight += float64(n) * groupRate(k)
	}
	a.lift += a.lambda / weight
	a.lambda = 0
}

// unweigh brings lambda's lift of h's pages so far into h.pot and takes
// h's pages out of their group's count, before their number changes. The
// order of h in its heap stays the same.
func (a *AOPIC) unweigh(h *aopicHost) {
	if n := len(h.pages); n > 0 {
		h.pot += a.lifted(h)
		a.inGroup[h.group] -= n
	}
	h.liftMark = a.lift
}

// weigh counts h's pages in their group after their number changed, and
// moves h to its place in its heap, or to the ready heap of its new group.
func (a *AOPIC) weigh(h *aopicHost) {
	n := len(h.pages)
	if n == 0 {
		return
	}
	k := bits.Len(uint(n)) - 1
	a.inGroup[k] += n
	if k == h.group {
		if h.heap != nil {
			a.hostFix(h.heap, h)
		}
		return
	}
	h.group = k
	if hh := h.heap; hh != nil && hh != &a.waiting {
		a.hostRemove(hh, h)
		a.hostPush(&a.ready[k], h)
	} else if hh != nil {
		a.hostFix(hh, h)
	}
}

// passOn gives credit c, sent to a fetched page of h, to h's waiting pages
// evenly, or to lambda if none waits. O(log h).
func (a *AOPIC) passOn(h *aopicHost, c float64) {
	if len(h.pages) == 0 {
		a.lambda += c
		return
	}
	h.pot += c / float64(len(h.pages))
	if h.heap != nil {
		a.hostFix(h.heap, h)
	}
}

// Hold keeps host's entries from being handed out before until, as a Done
// with Result.Next does; a time before the one the host has changes
// nothing. It is for a store that restores hosts' times newer than the
// checkpoint it restored a from (see [AOPIC.Restore]).
func (a *AOPIC) Hold(host string, until time.Time) {
	hi, ok := a.byName[host]
	if !ok {
		return
	}
	h := a.hosts[hi]
	if !until.After(h.readyAt) {
		return
	}
	if h.heap != nil {
		a.hostRemove(h.heap, h)
	}
	h.readyAt = until
	a.schedule(h)
}

// Wake makes host's entries ready from at, if its ready time is later;
// see [Waker]. Cost: O(log h).
func (a *AOPIC) Wake(host string, at time.Time) {
	hi, ok := a.byName[host]
	if !ok {
		return
	}
	h := a.hosts[hi]
	if !h.readyAt.After(at) {
		return
	}
	if h.heap == &a.waiting {
		a.hostRemove(h.heap, h)
	}
	h.readyAt = at
	a.schedule(h)
}

// Len reports the number of URLs waiting. Cost: O(1).
func (a *AOPIC) Len() int { return a.n }

// Hosts reports the number of hosts the frontier has seen. Cost: O(1).
func (a *AOPIC) Hosts() int { return len(a.hosts) }

// Importance reports the importance of the page with fingerprint fp,
// waiting, handed out or fetched: its share of all the credit received by
// pages so far; that of a redirect is its target's. It reports false if
// the frontier does not know fp. Cost: O(1).
func (a *AOPIC) Importance(fp uint64) (float64, bool) {
	i, ok := a.follow(fp)
	if !ok {
		return 0, false
	}
	return a.importance(i), true
}

func (a *AOPIC) importance(i int32) float64 {
	if a.received == 0 {
		return 0
	}
	return a.pages[i].history / a.received
}

// Top returns the n known pages with the highest importance, highest
// first (ties: the page pushed first), redirects left out. It is a
// snapshot, and costs O(p log n) for p known pages.
func (a *AOPIC) Top(n int) []Ranked {
	if n <= 0 {
		return nil
	}
	// best is a min-heap of the n best pages seen so far, worst first.
	best := make([]int32, 0, min(n, len(a.pages)))
	worse := func(x, y int32) bool {
		ix, iy := a.importance(x), a.importance(y)
		if ix != iy {
			return ix < iy
		}
		return x > y
	}
	// best is a heap, worst first, of the best pages so far.
	before := func(i, j int) bool { return worse(best[i], best[j]) }
	swap := func(i, j int) { best[i], best[j] = best[j], best[i] }
	for i := range int32(len(a.pages)) {
		if _, ok := a.redirects[i]; ok {
			continue // no page of its own
		}
		if len(best) < n {
			best = append(best, i)
			heapUp(len(best)-1, before, swap)
		} else if worse(best[0], i) {
			best[0] = i
			heapDown(0, len(best), before, swap)
		}
	}
	slices.SortFunc(best, func(x, y int32) int {
		switch {
		case worse(y, x):
			return -1
		case worse(x, y):
			return 1
		}
		return 0
	})
	top := make([]Ranked, len(best))
	for k, i := range best {
		top[k] = Ranked{URL: a.url(i), FP: a.pages[i].fp, Importance: a.importance(i)}
	}
	return top
}

// keep appends the record of e, a page of h, to h.records and returns its
// offset. A record holds what Next hands out beyond the page's FP and
// host:
//
//	URL                 as appendURL keeps it for h
//	Depth, Hops, Tries  varints
//	Referrer            uvarint d; if d is 0, the referrer follows, kept
//	                    as the URL is; else it is the one kept d bytes
//	                    before d
//
// Pages pushed one after another mostly share their referrer (the page
// whose links they are), so a referrer that h kept last is not kept
// again. Records are never removed: a fetched page keeps its URL for Top,
// and a retried page gets a new record. Offsets are 32-bit: keep panics
// once a host's records pass 4 GiB (tens of millions of URLs).
func (h *aopicHost) keep(e Entry) uint32 {
	rec := len(h.records)
	if rec > math.MaxUint32 {
		panic("frontier: AOPIC holds over 4 GiB of URLs of host " + h.name)
	}
	b := appendURL(h.records, e.URL, h.name)
	b = binary.AppendVarint(b, int64(e.Depth))
	b = binary.AppendVarint(b, int64(e.Hops))
	b = binary.AppendVarint(b, int64(e.Tries))
	if h.lastRef >= 0 && sameURL(b, h.lastRef, e.Referrer, h.name) {
		b = binary.AppendUvarint(b, uint64(len(b)-h.lastRef))
	} else {
		b = append(b, 0)
		h.lastRef = len(b)
		b = appendURL(b, e.Referrer, h.name)
	}
	h.records = b
	return uint32(rec)
}

// entry returns the Entry of page i, not fetched, from its record, with
// its URL and Referrer in one allocation.
func (a *AOPIC) entry(i int32) Entry {
	p := &a.pages[i]
	h := a.hosts[p.host]
	src := h.records
	form, rest, n := urlAt(src, int(p.rec))
	e := Entry{FP: p.fp, Host: h.name}
	e.Depth, n = varint(src, n)
	e.Hops, n = varint(src, n)
	e.Tries, n = varint(src, n)
	d, k := binary.Uvarint(src[n:])
	ref := n + k
	if d > 0 {
		ref = n - int(d)
	}
	refForm, refRest, _ := urlAt(src, ref)
	var b strings.Builder
	u := urlform.JoinedLen(form, h.name, rest)
	b.Grow(u + urlform.JoinedLen(refForm, h.name, refRest))
	urlform.Write(&b, form, h.name, rest)
	urlform.Write(&b, refForm, h.name, refRest)
	s := b.String()
	e.URL, e.Referrer = s[:u], s[u:]
	return e
}

// url returns the URL of page i, from its record.
func (a *AOPIC) url(i int32) string {
	p := &a.pages[i]
	h := a.hosts[p.host]
	form, rest, _ := urlAt(h.records, int(p.rec))
	return urlform.Join(form, h.name, rest)
}

// enqueue puts page i in its host's queue with the given credit and
// history.
func (a *AOPIC) enqueue(i int32, credit, history float64) {
	p := &a.pages[i]
	h := a.hosts[p.host]
	a.unweigh(h)
	p.credit = credit - h.pot
	p.history = history
	a.pagePush(h, i)
	a.n++
	a.weigh(h)
	a.schedule(h)
}

// schedule puts h in the heap it belongs to, if any: a host with URLs and
// a free slot waits for its ready time; others sit in no heap.
func (a *AOPIC) schedule(h *aopicHost) {
	if h.heap != nil || len(h.pages) == 0 || h.inflight >= hostOr(h.limit, a.PerHost) {
		return
	}
	a.hostPush(&a.waiting, h)
}

// LimitHosts sets the function that gives a host's limit of entries out
// at once in place of PerHost; see [HostLimiter]. Hosts met already,
// those of a snapshot restored included, take theirs at once; a Restore
// later keeps limit and gives the hosts it restores theirs. Cost:
// O(h log h) for h hosts met.
func (a *AOPIC) LimitHosts(limit func(host string) int) {
	a.limit = limit
	for _, h := range a.hosts {
		h.limit = hostLimit(limit, h.name)
		if h.heap != nil && h.inflight >= hostOr(h.limit, a.PerHost) {
			a.hostRemove(h.heap, h)
		}
		a.schedule(h)
	}
}
