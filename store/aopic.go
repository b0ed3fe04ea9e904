package store

import (
	"encoding/binary"
	"fmt"
	"time"

	"crawler/frontier"
)

// DefaultCheckpointPages is the fewest pages done between two checkpoints
// of an AOPIC frontier's credits (see [Store.AOPIC]).
const DefaultCheckpointPages = 10_000

// aopicKey is the name under which the AOPIC checkpoint is kept.
const aopicKey = "store/aopic"

// AOPIC returns a frontier that orders the store's URLs by importance, as
// a, which must be empty (its PerHost and Tax set). Its URLs are as durable
// as the breadth-first frontier's, written in the crawler's steps, and
// each host's next time too; a's credits, which change with every page
// done, are checkpointed with the steps every max(Options.CheckpointPages,
// URLs waiting / 8) pages done, and at Close. A crawl resumed after a clean
// Close has its credits exactly; after a crash, they lag by the pages done
// since the last checkpoint, whose credit went to lambda rather than to
// their links (Restore and Reconcile in package frontier), and URLs are
// never lost. Unlike the breadth-first frontier, it keeps every URL known
// in memory, as a does (about 36 bytes and its URL per page).
//
// AOPIC reads the store's queue and the last checkpoint into a; a store
// is used with one frontier, this one or [Store.Frontier], not both.
func (s *Store) AOPIC(a *frontier.AOPIC) (*AOPIC, error) {
	if a.Len() != 0 || len(s.out) > 0 || s.aopic != nil {
		return nil, fmt.Errorf("store: AOPIC needs an empty AOPIC and a store whose frontier is not in use")
	}
	f := &AOPIC{s: s, a: a, at: map[uint64]queuedAt{}}
	if b := s.Kept(aopicKey); b != nil {
		if err := a.Restore(b); err != nil {
			return nil, fmt.Errorf("store: the AOPIC checkpoint: %w", err)
		}
	}
	byID := make(map[uint32]*hostQueue, len(s.hosts))
	for _, h := range s.hosts {
		byID[h.id] = h
	}
	err := s.scan(prefixQueue, func(k, v []byte) error {
		h := byID[binary.BigEndian.Uint32(k[1:])]
		seq := binary.BigEndian.Uint64(k[5:])
		e, err := decodeEntry(v, h.name)
		if err != nil {
			return fmt.Errorf("queue entry %d of %s: %w", seq, h.name, err)
		}
		f.at[e.FP] = queuedAt{h, seq}
		a.Push(e) // a page the checkpoint has waiting is left as it is
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	a.Reconcile(func(fp uint64) bool { _, ok := f.at[fp]; return ok })
	for _, h := range s.hosts {
		a.Hold(h.name, h.readyAt)
	}
	s.Keep(aopicKey, f.checkpoint)
	s.aopic = f
	return f, nil
}

// AOPIC is a Store's frontier ordered by an AOPIC; see [Store.AOPIC].
type AOPIC struct {
	s     *Store
	a     *frontier.AOPIC
	at    map[uint64]queuedAt // where each URL waiting or out is in the store
	since int                 // pages done since the last checkpoint
}

// queuedAt is where an entry is kept: its host's queue and its sequence.
type queuedAt struct {
	host *hostQueue
	seq  uint64
}

var (
	_ frontier.Recorder    = (*AOPIC)(nil)
	_ frontier.HostLimiter = (*AOPIC)(nil)
)

// Push adds e, written in the step in progress.
func (f *AOPIC) Push(e frontier.Entry) {
	s := f.s
	h := s.host(e.Host)
	seq := s.seq
	s.seq++
	s.setEntry(h.id, seq, e)
	if old, ok := f.at[e.FP]; ok { // pushed again, to be fetched again
		s.delEntry(old.host.id, old.seq)
	}
	f.at[e.FP] = queuedAt{h, seq}
	f.a.Push(e)
}

// Wake makes host's entries ready from at, if its ready time is later;
// see [frontier.Waker]. It writes nothing, as [Frontier.Wake].
func (f *AOPIC) Wake(host string, at time.Time) {
	f.s.wake(host, at)
	f.a.Wake(host, at)
}

// Next hands out the entry the AOPIC ranks first among the hosts ready at
// now. It writes nothing.
func (f *AOPIC) Next(now time.Time) (frontier.Entry, bool, time.Time) { return f.a.Next(now) }

// Done records e's outcome in the step in progress: its host's next time,
// and e removed from the queue, or rewritten for a retry.
func (f *AOPIC) Done(e frontier.Entry, r frontier.Result) {
	s := f.s
	if s.onDone != nil {
		s.onDone(e, r)
	}
	f.a.Done(e, r)
	q := f.at[e.FP]
	s.advance(q.host, r.Next, time.Until(r.Next))
	if r.Retry {
		s.setEntry(q.host.id, q.seq, e)
	} else {
		s.delEntry(q.host.id, q.seq)
		delete(f.at, e.FP)
		f.since++
	}
	if r.Requested {
		s.requests++
	}
}

// Len reports the number of entries waiting. O(1).
func (f *AOPIC) Len() int { return f.a.Len() }

// LimitHosts sets the function that gives a host's limit of entries out
// at once in place of the AOPIC's PerHost: see [frontier.AOPIC.LimitHosts].
// The hosts met already, those restored from disk included, take theirs
// at once; the limits are not stored.
func (f *AOPIC) LimitHosts(limit func(host string) int) { f.a.LimitHosts(limit) }

// Commit ends the crawler's step; see [Store.Commit].
func (f *AOPIC) Commit() error { return f.s.Commit() }

// Flush makes the steps ended durable; see [Store.Flush].
func (f *AOPIC) Flush() error { return f.s.Flush() }

// Keep registers a value kept with the steps; see [Store.Keep].
func (f *AOPIC) Keep(name string, value func() []byte) { f.s.Keep(name, value) }

// Kept returns the value last committed under name; see [Store.Kept].
func (f *AOPIC) Kept(name string) []byte { return f.s.Kept(name) }

// checkpoint is the kept value of the AOPIC: a snapshot when enough pages
// were done since the last, or the store closes.
func (f *AOPIC) checkpoint() []byte {
	if !f.s.closing && (f.s.checkpoint <= 0 || f.since < max(f.s.checkpoint, f.a.Len()/8)) {
		return nil
	}
	f.since = 0
	return f.a.AppendSnapshot(nil)
}
