package store

import (
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"crawler/frontier"
)

// The tables' filters hold the seen keys alone: every key written stays
// found, a seen key through its table's filter and the others past it, in
// tables flushed and merged, and a fingerprint never added is not seen.
func TestSeenFilter(t *testing.T) {
	t.Parallel()
	o := Options{FS: vfs.NewMem(), ExpectedURLs: -1, CachedURLs: -1, SyncInterval: -1, MergeURLs: 10}
	s, err := Open("crawl", o)
	if err != nil {
		t.Fatal(err)
	}
	s.Keep("value", func() []byte { return []byte("kept") })
	const urls = 100
	for fp := uint64(1); fp <= urls; fp++ {
		s.Seen().Add(fp << 32)
		s.Frontier().Push(frontier.Entry{URL: "http://a.test/", FP: fp << 32, Host: "a.test"})
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		s.finishMerge(true)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Flush(); err != nil { // the queue, host and kept keys to a table
		t.Fatal(err)
	}
	check := func(s *Store) {
		t.Helper()
		tables, err := s.db.SSTables(pebble.WithProperties())
		if err != nil {
			t.Fatal(err)
		}
		filtered := 0
		for _, level := range tables {
			for _, table := range level {
				if table.Properties.FilterPolicyName == (seenFilter{}).Name() {
					filtered++
				}
			}
		}
		if filtered < 2 {
			t.Errorf("%d tables with seenFilter's filter, want the merges' and the flush's", filtered)
		}
		if v := s.Kept("value"); string(v) != "kept" {
			t.Errorf("Kept = %q past the filter", v)
		}
		var fps []uint64
		for fp := uint64(1); fp <= 2*urls; fp++ {
			fps = append(fps, fp<<32)
		}
		s.Seen().Prepare(fps)
		for _, fp := range fps {
			if got := s.Seen().Contains(fp); got != (fp <= urls<<32) {
				t.Errorf("Contains(%#x) after Prepare = %v", fp, got)
			}
		}
		for _, fp := range fps {
			if got := s.Seen().Contains(fp); got != (fp <= urls<<32) {
				t.Errorf("Contains(%#x) = %v", fp, got)
			}
		}
	}
	check(s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open("crawl", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check(s)
	if s.Frontier().Len() != urls {
		t.Errorf("%d entries waiting after reopening, want %d", s.Frontier().Len(), urls)
	}
}
