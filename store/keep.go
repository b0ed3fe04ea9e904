package store

import (
	"bytes"
	"errors"

	"github.com/cockroachdb/pebble/v2"
)

// prefixKept is the prefix of the values kept for the crawler: "k" name.
const prefixKept = 'k'

// kept is a value registered with Keep.
type kept struct {
	name  string
	value func() []byte
}

// Keep registers value under name: each commit of a group of steps writes
// what it returns with them, unless nil. See [frontier.Keeper].
func (f *Frontier) Keep(name string, value func() []byte) { (*Store)(f).Keep(name, value) }

// Kept returns the value last committed under name, or nil.
func (f *Frontier) Kept(name string) []byte { return (*Store)(f).Kept(name) }

// Keep registers value under name (a later call replaces it): each commit
// of a group of steps writes what value returns with them, unless it
// returns nil. The crawler keeps its counters, its trap rules' verdicts
// and its seeds' hosts so.
func (s *Store) Keep(name string, value func() []byte) {
	for i := range s.kept {
		if s.kept[i].name == name {
			s.kept[i].value = value
			return
		}
	}
	s.kept = append(s.kept, kept{name, value})
}

// Kept returns the value last committed under name, or nil.
func (s *Store) Kept(name string) []byte {
	v, closer, err := s.db.Get(keptKey(name))
	if err != nil {
		if !errors.Is(err, pebble.ErrNotFound) {
			s.write(err)
		}
		return nil
	}
	defer closer.Close()
	return bytes.Clone(v)
}

// writeKept writes the kept values that changed in the group in progress.
func (s *Store) writeKept() {
	for _, k := range s.kept {
		if v := k.value(); v != nil {
			s.set(keptKey(k.name), v)
		}
	}
}

func keptKey(name string) []byte { return append([]byte{prefixKept}, name...) }
