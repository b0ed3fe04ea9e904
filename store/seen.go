package store

import (
	"errors"

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

var _ seen.Set = (*Seen)(nil)

// Add records fp as seen and reports whether it was new.
func (t *Seen) Add(fp uint64) bool {
	s := (*Store)(t)
	if t.Contains(fp) {
		return false
	}
	s.set(seenKey(fp), nil)
	if s.bloom != nil {
		s.bloom.Add(fp)
	}
	s.cache.add(fp) // Mercator's table of recent additions, in the same cache
	s.nSeen++
	return true
}

// Contains reports whether fp was added, in a committed step or the one
// in progress: no for most new fingerprints from the Bloom filter, yes for
// most seen ones from the cache, and from a read of the store for the
// rest.
func (t *Seen) Contains(fp uint64) bool {
	s := (*Store)(t)
	s.seenStats.Tests++
	if s.bloom != nil && !s.bloom.Contains(fp) {
		s.seenStats.Filtered++
		return false
	}
	if s.cache.contains(fp) {
		s.seenStats.CacheHits++
		return true
	}
	s.seenStats.Reads++
	if s.err != nil {
		return true // unknown: never fetch twice
	}
	_, closer, err := s.batch.Get(seenKey(fp))
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

// SeenStats counts the seen-set's tests and how each was answered.
type SeenStats struct {
	Tests     int64 // calls of Contains, Add's included
	Filtered  int64 // answered "new" by the Bloom filter, with no read
	CacheHits int64 // answered "seen" by the cache
	Reads     int64 // answered by a read of the store
}

// Stats returns the counts of the tests so far.
func (t *Seen) Stats() SeenStats { return t.seenStats }

// Len reports the number of fingerprints added. O(1).
func (t *Seen) Len() int { return t.nSeen }
