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
	s.write(s.batch.Set(seenKey(fp), nil, nil))
	if s.bloom != nil {
		s.bloom.Add(fp)
	}
	s.nSeen++
	return true
}

// Contains reports whether fp was added, in a committed step or the one
// in progress.
func (t *Seen) Contains(fp uint64) bool {
	s := (*Store)(t)
	if s.bloom != nil && !s.bloom.Contains(fp) {
		return false
	}
	_, closer, err := s.batch.Get(seenKey(fp))
	if err == nil {
		closer.Close()
		return true
	}
	if !errors.Is(err, pebble.ErrNotFound) {
		s.write(err)
		return true // unknown: never fetch twice
	}
	return false
}

// Len reports the number of fingerprints added. O(1).
func (t *Seen) Len() int { return t.nSeen }
