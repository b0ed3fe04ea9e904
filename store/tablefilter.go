package store

import (
	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
)

// seenFilter is the filter policy of the store's tables: a Bloom filter of
// each table's seen-set keys alone (Pebble's, 10 bits a key, about 1%
// false "maybe" answers). A test the store's own filter and cache leave
// to a read is a lookup of one key (Seen.Prepare's SeekPrefixGE, or a
// Get): with the tables' filters it reads a data block of the one table
// that holds the key, not one of each table of level 0 and of each level
// below (a crawl of 300k pages with -state, no latency, spent 6.0 s of its
// scheduler's 14.5 in those reads, 3.9 s of 12.7 with the filters). The
// queue's keys are only scanned, by host, which a filter does
// not help: leaving them out spares compactions half the hashing, and a
// lookup of any key but a seen one passes the filter.
type seenFilter struct{}

var _ pebble.FilterPolicy = seenFilter{}

// seenBloom is the Bloom filter seenFilter keeps of the seen-set's keys.
const seenBloom = bloom.FilterPolicy(10)

// Name names the policy in the tables it wrote: not Pebble's Bloom
// filter's name, whose filters hold every key.
func (seenFilter) Name() string { return "crawler/store.seen-bloom-10" }

// MayContain reports whether the table whose filter is f may hold key:
// true for a key that is not the seen-set's.
func (seenFilter) MayContain(t pebble.FilterType, f, key []byte) bool {
	return len(key) == 0 || key[0] != prefixSeen || seenBloom.MayContain(t, f, key)
}

// NewWriter returns a writer of a table's filter that adds its seen-set
// keys to a Bloom filter, and leaves out the others.
func (seenFilter) NewWriter(t pebble.FilterType) pebble.FilterWriter {
	return seenKeys{seenBloom.NewWriter(t)}
}

// seenKeys is seenFilter's writer.
type seenKeys struct{ pebble.FilterWriter }

// AddKey adds key to the filter if it is a seen-set key.
func (w seenKeys) AddKey(key []byte) {
	if len(key) > 0 && key[0] == prefixSeen {
		w.FilterWriter.AddKey(key)
	}
}
