package crawler_test

import (
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"crawler/store"
)

// reopen closes st, if not nil, and opens the store on fs again, as a
// program run again would. The tests of crawls resumed from a store are in
// package store (crawl_e2e_test.go); this is left for the root's last
// tests over a store (recrawl_e2e_test.go, sitemap_e2e_test.go), and goes
// with them.
func reopen(t *testing.T, fs vfs.FS, st *store.Store) *store.Store {
	t.Helper()
	if st != nil {
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open("crawl", &store.Options{FS: fs, ExpectedURLs: 1000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
