package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"slices"
	"time"

	"crawler/frontier"
	"crawler/internal/urlform"
)

// Frontier returns the store's frontier: breadth-first, one queue per host
// on disk with its first entries in memory, host ready times kept. It
// implements [frontier.Committer]: the crawler commits each step.
func (s *Store) Frontier() *Frontier { return (*Frontier)(s) }

// Frontier is a Store seen as a [frontier.Frontier].
type Frontier Store

var _ frontier.Frontier = (*Frontier)(nil)
var _ frontier.Recorder = (*Frontier)(nil)
var _ frontier.HostLimiter = (*Frontier)(nil)

// Commit ends the crawler's step; see [Store.Commit].
func (f *Frontier) Commit() error { return (*Store)(f).Commit() }

// Flush makes the steps ended durable; see [Store.Flush].
func (f *Frontier) Flush() error { return (*Store)(f).Flush() }

// Len reports the number of entries waiting. O(1).
func (f *Frontier) Len() int { return f.n }

// Push adds e at the back of its host's queue, in the step in progress.
func (f *Frontier) Push(e frontier.Entry) {
	s := (*Store)(f)
	h := s.host(e.Host)
	seq := s.seq
	s.seq++
	q := s.setEntry(h.id, seq, e)
	if len(h.head) == h.count && len(h.head) < headMax {
		h.head = append(h.head, q)
		h.loaded = seq + 1
	} else {
		s.record(h, write{queued: q})
	}
	h.count++
	s.n++
	s.schedule(h)
}

// host returns the queue of name, made (and written) if new. Most links
// of a page are to its own host, pushed among those to others: the two
// hosts last found answer them without a lookup of the map (a string
// hash and a miss or two of the CPU's cache each: 0.6 s of a crawl of
// 300k pages; the two answered 60% of the lookups of bench's web).
func (s *Store) host(name string) *hostQueue {
	last := &s.lastHosts
	if h := last[0]; h != nil && h.name == name {
		return h
	}
	if h := last[1]; h != nil && h.name == name {
		last[0], last[1] = h, last[0]
		return h
	}
	h := s.hosts[name]
	if h == nil {
		h = &hostQueue{name: name, id: s.nextID, limit: s.hostLimit(name), index: -1}
		s.nextID++
		s.hosts[name] = h
		s.writeHost(h)
	}
	last[0], last[1] = h, last[0]
	return h
}

// writeHost records h's id and ready time in the step in progress.
func (s *Store) writeHost(h *hostQueue) {
	var nanos int64
	if !h.readyAt.IsZero() {
		nanos = h.readyAt.UnixNano()
	}
	s.kbuf = appendHostKey(s.kbuf[:0], h.name)
	s.vbuf = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(s.vbuf[:0], h.id), uint64(nanos))
	s.vbuf = binary.BigEndian.AppendUint64(s.vbuf, uint64(h.wait))
	s.set(s.kbuf, s.vbuf)
}

// advance moves h's ready time on to next, the end of a wait, if that is
// later, in the step in progress, and reports whether it did. wait is
// the wait that next ends, kept to be waited again after a restart: for a
// page done, from its Done to its Result.Next (the host's delay after the
// request, or its backoff).
func (s *Store) advance(h *hostQueue, next time.Time, wait time.Duration) bool {
	if !next.After(h.readyAt) {
		return false
	}
	h.readyAt, h.wait = next, max(wait, 0)
	s.writeHost(h)
	return true
}

// Wake makes host's entries ready from at, if its ready time is later;
// see [frontier.Waker]. It writes nothing: a crawl resumed has the host's
// ready time that its politeness set.
func (f *Frontier) Wake(host string, at time.Time) {
	s := (*Store)(f)
	if h := s.wake(host, at); h != nil && h.heap == &s.waiting {
		s.waiting.remove(h)
		s.schedule(h)
	}
}

// wake moves the ready time of host, if it knows it, back to at if that
// is sooner, in memory, and returns the host if it did.
func (s *Store) wake(host string, at time.Time) *hostQueue {
	h := s.hosts[host]
	if h == nil || !h.readyAt.After(at) {
		return nil
	}
	h.readyAt = at
	return h
}

// Next hands out the oldest entry among the hosts ready at now. It writes
// nothing: an entry handed out stays on disk until Done.
func (f *Frontier) Next(now time.Time) (frontier.Entry, bool, time.Time) {
	s := (*Store)(f)
	for s.waiting.len() > 0 && !s.waiting.min().readyAt.After(now) {
		h := s.waiting.min()
		s.waiting.remove(h)
		if !s.fill(h) {
			continue // a write error: the store takes no more
		}
		if s.ready.byLeft { // the key of h is made now
			s.ready.typical = float64(s.n+s.done) / float64(max(len(s.hosts), 1))
		}
		s.ready.push(h)
	}
	if s.ready.len() == 0 {
		if s.waiting.len() > 0 {
			return frontier.Entry{}, false, s.waiting.min().readyAt
		}
		return frontier.Entry{}, false, time.Time{}
	}
	h := s.ready.min()
	s.ready.remove(h)
	q := h.head[0]
	e, err := decodeEntry(q.enc, h.name)
	if err != nil { // checked when read: a bug, or memory gone bad
		s.write(fmt.Errorf("queue entry %d of %s: %w", q.seq, h.name, err))
		return frontier.Entry{}, false, time.Time{}
	}
	h.head = h.head[1:]
	h.count--
	s.n--
	h.inflight++
	s.out[e.FP] = handedOut{h, q.seq}
	s.schedule(h)
	return e, true, time.Time{}
}

// fill loads more of h's entries from the store if its head is empty, and
// reports whether h has one in memory. The store is the database and the
// writes to h's queue of the groups not yet applied to it (h.writes),
// merged by seq, as an indexed batch would show them: a write replaces the
// database's entry at its seq, or, deleted, hides it. An entry pushed to
// the head needs no write there: fill reads only when the head is empty,
// and by then it is out (skipped), or done, its deletion or retry written.
func (s *Store) fill(h *hostQueue) bool {
	if len(h.head) > 0 {
		return true
	}
	if s.err != nil {
		return false
	}
	s.kbuf = appendQueueKey(s.kbuf[:0], h.id, h.loaded)
	n := len(s.kbuf)
	s.kbuf = appendQueueKey(s.kbuf, h.id, math.MaxUint64)
	it, err := s.queueReads.iter(s.db, s.kbuf[:n], s.kbuf[n:])
	if err != nil {
		s.write(err)
		return false
	}
	i, _ := slices.BinarySearchFunc(h.writes, h.loaded, bySeq)
	writes := h.writes[i:]
	for it.First(); len(h.head) < headMax; {
		var w write
		var seq uint64
		if it.Valid() {
			seq = binary.BigEndian.Uint64(it.Key()[5:])
		}
		switch {
		case len(writes) > 0 && (!it.Valid() || writes[0].seq <= seq):
			w, writes = writes[0], writes[1:]
			if it.Valid() && w.seq == seq {
				it.Next() // replaced or deleted by a group not yet applied
			}
		case it.Valid():
			if err := checkEntry(it.Value()); err != nil {
				s.write(fmt.Errorf("queue entry %d of %s: %w", seq, h.name, err))
				return false
			}
			w.queued = queued{seq, bytes.Clone(it.Value())}
			it.Next()
		default:
			s.write(it.Error())
			return len(h.head) > 0
		}
		if w.deleted {
			continue
		}
		if o, out := s.out[w.fp()]; out && o.host == h && o.seq == w.seq {
			continue // handed out, still on disk until Done
		}
		h.head = append(h.head, w.queued)
		h.loaded = w.seq + 1
	}
	s.write(it.Error())
	return true
}

// LongestFirst reports whether the frontier hands out first the ready
// hosts with the most requests left (Options.LongestFirst).
func (f *Frontier) LongestFirst() bool { return f.ready.byLeft }

// Done records e's outcome in the step in progress: its host's next time,
// and e removed from the queue, or put back at its place for a retry.
func (f *Frontier) Done(e frontier.Entry, r frontier.Result) {
	s := (*Store)(f)
	o, ok := s.out[e.FP]
	if !ok {
		panic("store: Done for an entry that was not handed out")
	}
	delete(s.out, e.FP)
	if s.onDone != nil {
		s.onDone(e, r)
	}
	h := o.host
	h.inflight--
	s.advance(h, r.Next, time.Until(r.Next))
	if r.Retry {
		q := s.setEntry(h.id, o.seq, e)
		s.record(h, write{queued: q})
		i := 0
		for i < len(h.head) && h.head[i].seq < o.seq {
			i++
		}
		switch {
		case i < len(h.head) || len(h.head) == h.count:
			h.head = slices.Insert(h.head, i, q)
		case o.seq < h.loaded:
			h.loaded = o.seq // fill loads it again (skipping the entries out)
		}
		h.count++
		s.n++
	} else {
		s.delEntry(h.id, o.seq)
		s.record(h, write{queued: queued{seq: o.seq}, deleted: true})
		h.done++
		s.done++
		if r.Requested {
			h.fetched++
		}
	}
	if r.Requested {
		s.requests++
	}
	if h.heap != nil {
		h.heap.remove(h)
	}
	s.schedule(h)
}

// schedule puts h in the waiting heap if it has entries and a free slot.
func (s *Store) schedule(h *hostQueue) {
	if h.heap != nil || h.count == 0 || h.inflight >= h.limit {
		return
	}
	s.waiting.push(h)
}

// hostLimit returns the limit of entries of host out at once: the one
// s.limit gives, or Options.PerHost's.
func (s *Store) hostLimit(host string) int {
	if s.limit != nil {
		if n := s.limit(host); n > 0 {
			return n
		}
	}
	return s.perHost
}

// LimitHosts sets the function that gives a host's limit of entries out
// at once in place of Options.PerHost; see [frontier.HostLimiter]. The
// hosts met already, those Open restored from disk included, take theirs
// at once: the limits are not stored, and a store opened again has
// Options.PerHost for every host until LimitHosts is called. Cost: O(h
// log h) for h hosts met.
func (f *Frontier) LimitHosts(limit func(host string) int) {
	s := (*Store)(f)
	s.limit = limit
	for _, h := range s.hosts {
		h.limit = s.hostLimit(h.name)
		if h.heap != nil && h.inflight >= h.limit {
			h.heap.remove(h)
		}
		s.schedule(h)
	}
}

// appendEntry appends e encoded to dst: a flags byte (the forms in which
// URL and Referrer are kept for the queue's host, urlform's, in bits 0-1
// and 2-3), FP, Depth, Hops, Tries, URL and Referrer. Without their
// "http(s)://"+host, the entries of a crawl are a third shorter, and so is
// the work of compacting them (4% more pages/s at 300k pages).
func appendEntry(dst []byte, e frontier.Entry) []byte {
	uf, u := urlform.Cut(e.URL, e.Host)
	rf, r := urlform.Cut(e.Referrer, e.Host)
	dst = append(dst, uf|rf<<2)
	dst = binary.BigEndian.AppendUint64(dst, e.FP)
	dst = binary.AppendUvarint(dst, uint64(e.Depth))
	dst = binary.AppendUvarint(dst, uint64(e.Hops))
	dst = binary.AppendUvarint(dst, uint64(e.Tries))
	dst = binary.AppendUvarint(dst, uint64(len(u)))
	dst = append(dst, u...)
	return append(dst, r...)
}

// checkEntry reports whether b may be an entry encoded by appendEntry: its
// length and flags, which decodeEntry checks first.
func checkEntry(b []byte) error {
	if len(b) < 9 || b[0]&^(urlform.Mask|urlform.Mask<<2) != 0 {
		return fmt.Errorf("an entry of %d bytes, flags %#x", len(b), b[:min(len(b), 1)])
	}
	return nil
}

// decodeEntry decodes an entry of host encoded by appendEntry.
func decodeEntry(b []byte, host string) (frontier.Entry, error) {
	e := frontier.Entry{Host: host}
	if err := checkEntry(b); err != nil {
		return e, err
	}
	flags := b[0]
	e.FP = binary.BigEndian.Uint64(b[1:])
	b = b[9:]
	var nums [4]uint64
	for i := range nums {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > math.MaxInt32 {
			return e, fmt.Errorf("a bad number in an entry")
		}
		nums[i], b = v, b[n:]
	}
	if nums[3] > uint64(len(b)) {
		return e, fmt.Errorf("a URL of %d bytes in %d", nums[3], len(b))
	}
	e.Depth, e.Hops, e.Tries = int(nums[0]), int(nums[1]), int(nums[2])
	e.URL = urlform.Join(flags&urlform.Mask, host, b[:nums[3]])
	e.Referrer = urlform.Join(flags>>2&urlform.Mask, host, b[nums[3]:])
	return e, nil
}

// Drain removes the waiting entries of the hosts for which match returns
// true, in the step in progress, and returns them in each host's order;
// it calls ready with each such host that may not be contacted before a
// time to come, and that time. Entries handed out stay until Done; hosts
// keep their ready times. A node of a cluster drains the hosts of a
// partition it hands over.
func (f *Frontier) Drain(match func(host string) bool, ready func(host string, at time.Time)) []frontier.Entry {
	s := (*Store)(f)
	now := time.Now()
	var out []frontier.Entry
	for _, h := range s.hosts {
		if !match(h.name) {
			continue
		}
		if h.readyAt.After(now) && ready != nil {
			ready(h.name, h.readyAt)
		}
		for h.count > 0 && s.fill(h) && len(h.head) > 0 {
			for _, q := range h.head {
				e, err := decodeEntry(q.enc, h.name)
				if err != nil {
					s.write(fmt.Errorf("queue entry %d of %s: %w", q.seq, h.name, err))
					return out
				}
				s.delEntry(h.id, q.seq)
				s.record(h, write{queued: queued{seq: q.seq}, deleted: true})
				out = append(out, e)
			}
			h.count -= len(h.head)
			s.n -= len(h.head)
			h.head = h.head[:0]
		}
		if h.heap != nil && h.count == 0 {
			h.heap.remove(h)
		}
	}
	return out
}

// Hold makes host wait until the time until before it is contacted, if
// that is later than it would be, in the step in progress: a node of a
// cluster holds the hosts of a partition handed over to it as their last
// holder had them.
func (f *Frontier) Hold(host string, until time.Time) {
	s := (*Store)(f)
	h := s.host(host)
	if !s.advance(h, until, h.wait) {
		return
	}
	if h.heap != nil {
		h.heap.remove(h)
	}
	s.schedule(h)
}

// Waiting yields each host with entries waiting, and how many. A node of
// a cluster counts its partitions' backlogs from it when it starts.
func (f *Frontier) Waiting() iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		for _, h := range f.hosts {
			if h.count > 0 && !yield(h.name, h.count) {
				return
			}
		}
	}
}
