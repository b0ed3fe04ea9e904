package store

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// prefixRecord is the prefix of the records kept for the crawler:
// "r" name 0 id.
const prefixRecord = 'r'

// Record writes value under (name, id) with the step in progress, or
// deletes it if value is nil: a record is committed with the step that
// wrote it, whole or not at all. See [frontier.Recorder]. The crawler
// keeps the visits of the pages it revisits so.
func (s *Store) Record(name string, id uint64, value []byte) {
	if value == nil {
		s.del(recordKey(name, id))
		return
	}
	s.set(recordKey(name, id), value)
}

// Records calls f with every record committed under name, by id, until f
// returns an error, which Records returns.
func (s *Store) Records(name string, f func(id uint64, value []byte) error) error {
	prefix := recordKey(name, 0)[:len(name)+2]
	upper := append([]byte(nil), prefix...)
	upper[len(upper)-1]++
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: upper})
	if err != nil {
		return fmt.Errorf("store: records %q: %w", name, err)
	}
	for it.First(); it.Valid(); it.Next() {
		k := it.Key()
		if len(k) != len(prefix)+8 {
			it.Close()
			return fmt.Errorf("store: records %q: a key of %d bytes", name, len(k))
		}
		if err := f(binary.BigEndian.Uint64(k[len(prefix):]), it.Value()); err != nil {
			it.Close()
			return err
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return fmt.Errorf("store: records %q: %w", name, err)
	}
	return nil
}

// Record writes a record with the step in progress. See [Store.Record].
func (f *Frontier) Record(name string, id uint64, value []byte) {
	(*Store)(f).Record(name, id, value)
}

// Records reads the records committed under name. See [Store.Records].
func (f *Frontier) Records(name string, fn func(id uint64, value []byte) error) error {
	return (*Store)(f).Records(name, fn)
}

// Record writes a record with the step in progress. See [Store.Record].
func (f *AOPIC) Record(name string, id uint64, value []byte) { f.s.Record(name, id, value) }

// Records reads the records committed under name. See [Store.Records].
func (f *AOPIC) Records(name string, fn func(id uint64, value []byte) error) error {
	return f.s.Records(name, fn)
}

// recordKey is "r" name 0 id, id big-endian so that records scan by id.
// A name must not hold a 0 byte.
func recordKey(name string, id uint64) []byte {
	k := make([]byte, 0, len(name)+10)
	k = append(append(append(k, prefixRecord), name...), 0)
	return binary.BigEndian.AppendUint64(k, id)
}
