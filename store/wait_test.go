package store

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"crawler/frontier"
)

// A host's wait (from a Done to its Result.Next) is kept with its ready
// time, and a store opened again holds the host that long from its
// opening: the request in flight when the process before died, if any,
// was not recorded. A host's record of
// format 3, without a wait, is read as a wait unknown.
func TestHostWaitsAgainWhenOpened(t *testing.T) {
	t.Parallel()
	fs := vfs.NewMem()
	o := Options{FS: fs, ExpectedURLs: -1, SyncInterval: -1}
	s, err := Open("crawl", o)
	if err != nil {
		t.Fatal(err)
	}
	f := s.Frontier()
	for i := range 2 {
		f.Push(frontier.Entry{URL: "http://a.test/" + string(rune('a'+i)), FP: uint64(i + 1), Host: "a.test"})
	}
	e, ok, _ := f.Next(time.Now())
	if !ok {
		t.Fatal("nothing handed out")
	}
	next := time.Now().Add(time.Hour)
	f.Done(e, frontier.Result{Next: next, Requested: true}) // a wait of an hour, less the time Done took
	wait := time.Until(next)                                // no more than that wait
	// A host written by format 3: id and ready time only.
	s.set(appendHostKey(nil, "b.test"), binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(nil, 99), 0))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Set(metaKey, []byte{3}, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	time.Sleep(10 * time.Millisecond) // the opening comes well after the Done
	before := time.Now()
	s, err = Open("crawl", o)
	if err != nil {
		t.Fatalf("Open of a format-3 store: %v", err)
	}
	defer s.Close()
	// Held its wait from the opening: later than its ready time, next, by
	// the time from the Done to the opening.
	if _, ok, wake := s.Frontier().Next(time.Now()); ok || wake.Before(before.Add(wait)) {
		t.Errorf("reopened: a.test handed out %v, wakes at %v; want it held its wait (%v) from the opening (%v), past its ready time %v", ok, wake, wait, before, next)
	}
	if b := s.hosts["b.test"]; b == nil || b.id != 99 || b.wait != 0 || !b.readyAt.IsZero() {
		t.Errorf("b.test of format 3 read as %+v", b)
	}
	if v, closer, err := s.db.Get(metaKey); err != nil || len(v) != 1 || v[0] != formatVersion {
		t.Errorf("format after Open: %v, %v; want %d", v, err, formatVersion)
	} else {
		closer.Close()
	}
}
