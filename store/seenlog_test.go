package store

import (
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// The seen-set's new fingerprints go to its log, one record a commit
// group, and are merged into the table of seen keys in batches of
// MergeURLs, off the crawler's goroutine; Open merges what log is left.
// Every fingerprint is seen throughout.
func TestSeenLogMerges(t *testing.T) {
	t.Parallel()
	fs := vfs.NewMem()
	o := Options{FS: fs, ExpectedURLs: -1, CachedURLs: -1, SyncInterval: -1, MergeURLs: 10}
	s, err := Open("crawl", o)
	if err != nil {
		t.Fatal(err)
	}
	count := func(s *Store, prefix byte) (n int) {
		t.Helper()
		if err := s.scan(prefix, func(_, _ []byte) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const urls = 200
	for fp := uint64(1); fp <= urls; fp++ {
		if !s.Seen().Add(fp) {
			t.Fatalf("Add(%d) of a new fingerprint = false", fp)
		}
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
		s.finishMerge(true) // one merge started, if 10 were committed: wait for it
		if s.Seen().Add(fp) {
			t.Fatalf("Add(%d) again = true", fp)
		}
	}
	merged := count(s, prefixSeen)
	if merged < urls-2*o.MergeURLs || s.recent.Len() != urls-merged || s.mergingFPs != nil {
		t.Errorf("%d seen keys merged and %d fingerprints in memory, of %d added", merged, s.recent.Len(), urls)
	}
	for fp := uint64(1); fp <= urls+10; fp++ {
		if got := s.Seen().Contains(fp); got != (fp <= urls) {
			t.Errorf("Contains(%d) = %v", fp, got)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open("crawl", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, logged := count(s, prefixSeen), count(s, prefixSeenLog); n != urls || logged != 0 || s.recent.Len() != 0 || s.Seen().Len() != urls {
		t.Errorf("reopened: %d seen keys, %d log records, %d in memory, Len %d; want %d, 0, 0, %d", n, logged, s.recent.Len(), s.Seen().Len(), urls, urls)
	}
	for fp := uint64(1); fp <= urls+10; fp++ {
		if got := s.Seen().Contains(fp); got != (fp <= urls) {
			t.Errorf("reopened: Contains(%d) = %v", fp, got)
		}
	}
}

// While a merge runs, the store finds its fingerprints in the merge's
// sorted slice: they are in no set any more, and not yet in the database.
func TestSeenFoundWhileMerging(t *testing.T) {
	t.Parallel()
	o := Options{FS: vfs.NewMem(), ExpectedURLs: -1, CachedURLs: -1, SyncInterval: -1, MergeURLs: 10}
	s, err := Open("crawl", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var added []uint64
	for i := uint64(1); s.merging == nil; i++ {
		if i > 100 {
			t.Fatal("no merge started after 100 commits of a new fingerprint")
		}
		fp := i * 0x9E3779B97F4A7C15 // out of order
		if !s.Seen().Add(fp) {
			t.Fatalf("Add(%#x) of a new fingerprint = false", fp)
		}
		added = append(added, fp)
		if err := s.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.mergingFPs) < o.MergeURLs || !slices.IsSorted(s.mergingFPs) {
		t.Fatalf("merging %d fingerprints, sorted: %v; want at least %d, sorted", len(s.mergingFPs), slices.IsSorted(s.mergingFPs), o.MergeURLs)
	}
	inSlice := 0
	for _, fp := range added {
		if !s.recent.Contains(fp) {
			inSlice++
		}
		if !s.Seen().Contains(fp) {
			t.Errorf("Contains(%#x) = false while it is merged", fp)
		}
	}
	if inSlice < o.MergeURLs {
		t.Errorf("%d of the fingerprints added are only in the merge's slice; want at least %d", inSlice, o.MergeURLs)
	}
	for i := uint64(1); i <= 100; i++ {
		if fp := i*0x9E3779B97F4A7C15 + 1; s.Seen().Contains(fp) {
			t.Errorf("Contains(%#x) of a fingerprint never added = true", fp)
		}
	}
	s.finishMerge(true)
	for _, fp := range added {
		if !s.Seen().Contains(fp) {
			t.Errorf("Contains(%#x) = false once merged", fp)
		}
	}
}
