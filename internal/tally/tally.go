// Package tally counts events by key, for keys known in advance, without
// locks.
package tally

import (
	"maps"
	"sync/atomic"
)

// Keyed counts by key. Its keys are fixed when it is made; a key it does
// not know counts under the fallback key, if it was given one. It is safe
// for concurrent use.
type Keyed[K comparable] struct {
	index    map[K]int // read only once made
	keys     []K
	counts   []atomic.Int64
	fallback int // index of the fallback key; -1: none
}

// New returns a Keyed that counts under keys. If fallback is one of them,
// unknown keys count under it; else they are not counted.
func New[K comparable](fallback K, keys ...K) *Keyed[K] {
	t := &Keyed[K]{index: make(map[K]int, len(keys)), keys: keys, counts: make([]atomic.Int64, len(keys)), fallback: -1}
	for i, k := range keys {
		t.index[k] = i
	}
	if i, ok := t.index[fallback]; ok {
		t.fallback = i
	}
	return t
}

// Add counts n under k.
func (t *Keyed[K]) Add(k K, n int64) {
	i, ok := t.index[k]
	if !ok {
		if i = t.fallback; i < 0 {
			return
		}
	}
	t.counts[i].Add(n)
}

// Counts returns the counts above 0, by key.
func (t *Keyed[K]) Counts() map[K]int64 {
	m := map[K]int64{}
	for i := range t.counts {
		if n := t.counts[i].Load(); n > 0 {
			m[t.keys[i]] = n
		}
	}
	return m
}

// Sum returns the counts of a and b added, in a new map: the totals of
// two Counts.
func Sum[K comparable](a, b map[K]int64) map[K]int64 {
	sum := make(map[K]int64, len(b))
	maps.Copy(sum, b)
	for k, n := range a {
		sum[k] += n
	}
	return sum
}
