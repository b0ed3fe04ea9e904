package store

import (
	"bytes"
	"errors"
	"slices"

	"github.com/cockroachdb/pebble/v2"

	"crawler/seen"
)

// Seen returns the store's URL-seen set: fingerprints on disk behind an
// in-memory Bloom filter, so that a new URL costs no disk read (but for
// the filter's false positives, 1% when it holds ExpectedURLs), and a URL
// seen before costs one. Adds are part of the step in progress.
func (s *Store) Seen() *Seen { return (*Seen)(s) }

// Seen is a Store seen as a [seen.Set]. It is exact: the Bloom filter only
// spares reads.
type Seen Store

var _ seen.Batcher = (*Seen)(nil)

// Add records fp as seen and reports whether it was new. The cache
// answers most seen fingerprints first, in one probe, where the Bloom
// filter would take all of its; for the others Add sets fp's bits in the
// filter: one pass over them, which also tells a new fingerprint from one
// to look up.
func (t *Seen) Add(fp uint64) bool {
	s := (*Store)(t)
	s.seenStats.Tests++
	if s.cache.contains(fp) {
		s.countHit(fp)
		return false
	}
	if s.bloom != nil && s.bloom.add(fp) {
		s.seenStats.Filtered++ // a bit was clear: new
	} else if t.read(fp) {
		return false
	}
	s.fresh = append(s.fresh, fp) // for the group's record of the seen-set's log
	s.recent.Add(fp)              // until merged into the database
	delete(s.absent, fp)
	s.cache.add(fp) // Mercator's table of recent additions, in the same cache
	s.nSeen++
	return true
}

// Contains reports whether fp was added, in a committed step or the one
// in progress: yes for most seen fingerprints from the cache, no for most
// new ones from the Bloom filter, and from a read of the store for the
// rest.
func (t *Seen) Contains(fp uint64) bool {
	s := (*Store)(t)
	s.seenStats.Tests++
	if s.cache.contains(fp) {
		s.countHit(fp)
		return true
	}
	if s.bloom != nil && !s.bloom.contains(fp) {
		s.seenStats.Filtered++
		return false
	}
	return t.read(fp)
}

// read is Contains for a fingerprint neither the cache nor the Bloom
// filter answered: from what Prepare read, the fingerprints added and not
// yet merged into the database, or a read of the store.
func (t *Seen) read(fp uint64) bool {
	s := (*Store)(t)
	if _, ok := s.absent[fp]; ok {
		return false // read by Prepare, and not added since
	}
	if s.unmerged(fp) {
		return true // added, not yet merged into the database
	}
	s.seenStats.Reads++
	if s.err != nil {
		return true // unknown: never fetch twice
	}
	s.kbuf = appendSeenKey(s.kbuf[:0], fp)
	_, closer, err := s.db.Get(s.kbuf)
	if err == nil {
		closer.Close()
		s.cache.add(fp)
		return true
	}
	if !errors.Is(err, pebble.ErrNotFound) {
		s.write(err)
		return true // unknown: never fetch twice
	}
	return false
}

// Prepare reads the fingerprints of fps that neither the Bloom filter nor
// the cache answers in key order, with one iterator, as Mercator merged a
// sorted batch of a page's links with the sorted fingerprints on disk:
// those found are cached, those not found are noted absent, so that the
// Add and Contains calls that follow read nothing. One such fingerprint is
// left to its Add.
func (t *Seen) Prepare(fps []uint64) {
	s := (*Store)(t)
	clear(s.absent)
	clear(s.found)
	need := s.need[:0]
	for _, fp := range fps {
		if s.cache.contains(fp) || s.bloom != nil && !s.bloom.contains(fp) {
			continue
		}
		if s.unmerged(fp) {
			continue
		}
		need = append(need, fp)
	}
	s.need = need
	if len(need) < 2 || s.err != nil {
		return
	}
	slices.Sort(need)
	need = slices.Compact(need)
	it, err := s.seenReads.iter(s.db, []byte{prefixSeen}, []byte{prefixSeen + 1})
	if err != nil {
		s.write(err)
		return
	}
	for _, fp := range need {
		s.seenStats.Reads++
		s.kbuf = appendSeenKey(s.kbuf[:0], fp)
		if it.SeekPrefixGE(s.kbuf) && bytes.Equal(it.Key(), s.kbuf) {
			s.cache.add(fp)
			s.found[fp] = struct{}{}
		} else if it.Error() == nil {
			s.absent[fp] = struct{}{}
		}
	}
	s.write(it.Error())
}

// countHit counts a test the cache answered, but for the first test of a
// fingerprint that Prepare read and cached: the read answered that one,
// and is counted in Reads.
func (s *Store) countHit(fp uint64) {
	if _, ok := s.found[fp]; ok {
		delete(s.found, fp)
		return
	}
	s.seenStats.CacheHits++
}

// SeenStats counts the seen-set's tests and how each was answered.
type SeenStats struct {
	Tests     int64 // calls of Contains, Add's included
	Filtered  int64 // answered "new" by the Bloom filter, with no read
	CacheHits int64 // answered "seen" by the cache (not those Prepare's reads put there for the test)
	Reads     int64 // reads of the store: one a test, or one a fingerprint that Prepare read for its test
}

// Stats returns the counts of the tests so far.
func (t *Seen) Stats() SeenStats { return t.seenStats }

// Len reports the number of fingerprints added. O(1).
func (t *Seen) Len() int { return t.nSeen }
