package store_test

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"crawler/frontier"
)

// frontier.KeepJSON and KeptJSON against the store: a value is written
// with the commits in which its version moved, and read back decoded;
// a value that does not decode is an error.
func TestKeepJSON(t *testing.T) {
	t.Parallel()
	fs := vfs.NewMem()
	st := restart(t, fs, nil)
	value, version := []string{"a"}, uint64(1)
	frontier.KeepJSON(st.Frontier(), "test/value", 0, func() uint64 { return version }, func() []string { return value })
	st = restart(t, fs, st) // version 1, not 0: written
	var got []string
	if found, err := frontier.KeptJSON(st.Frontier(), "test/value", &got); !found || err != nil || len(got) != 1 || got[0] != "a" {
		t.Fatalf("KeptJSON = %v, %v, %q; want [a]", found, err, got)
	}
	value = []string{"b"} // the version stays: not written
	frontier.KeepJSON(st.Frontier(), "test/value", 1, func() uint64 { return version }, func() []string { return value })
	st = restart(t, fs, st)
	if _, err := frontier.KeptJSON(st.Frontier(), "test/value", &got); err != nil || got[0] != "a" {
		t.Errorf("after a change without a new version, kept %q, %v; want [a] still", got, err)
	}
	frontier.KeepJSON(st.Frontier(), "test/every", 0, nil, func() int { return 7 }) // nil version: always
	st.Frontier().Keep("test/bad", func() []byte { return []byte("{") })
	st = restart(t, fs, st)
	var n int
	if found, err := frontier.KeptJSON(st.Frontier(), "test/every", &n); !found || err != nil || n != 7 {
		t.Errorf("a value kept with no version: %v, %v, %d; want 7", found, err, n)
	}
	if _, err := frontier.KeptJSON(st.Frontier(), "test/bad", &n); err == nil {
		t.Error("KeptJSON of a value that does not decode: no error")
	}
	if found, err := frontier.KeptJSON(st.Frontier(), "test/none", &n); found || err != nil {
		t.Errorf("KeptJSON of nothing kept = %v, %v; want false, nil", found, err)
	}
}
