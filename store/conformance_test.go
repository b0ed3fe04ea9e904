package store_test

import (
	"testing"

	"crawler/frontier"
	"crawler/store"
	"crawler/store/storetest"
)

var (
	_ frontier.Waker = (*store.Frontier)(nil)
	_ frontier.Waker = (*store.AOPIC)(nil)
)

// The store keeps the contract of every durable store, on the operating
// system's file system. A small Bloom filter and cache keep the many
// stores the suite opens light.
func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, dir string) storetest.State {
		st, err := store.Open(dir, store.Options{ExpectedURLs: 10_000, CachedURLs: 1024})
		if err != nil {
			t.Fatal(err)
		}
		return storetest.State{Seen: st.Seen(), Frontier: st.Frontier(), Close: st.Close}
	})
}

// The store's AOPIC frontier keeps it too, ordering each host's entries
// by importance.
func TestConformanceAOPIC(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T, dir string) storetest.State {
		st, err := store.Open(dir, store.Options{ExpectedURLs: 10_000, CachedURLs: 1024})
		if err != nil {
			t.Fatal(err)
		}
		f, err := st.AOPIC(new(frontier.AOPIC))
		if err != nil {
			st.Close()
			t.Fatal(err)
		}
		return storetest.State{Seen: st.Seen(), Frontier: f, Close: st.Close, OwnOrder: true}
	})
}
