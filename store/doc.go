// Package store keeps a crawl's state on disk, in a Pebble database, so
// that a crawl survives the end of its process, kill -9 included, and
// holds more URLs than fit in memory.
//
//	st, err := store.Open(dir, nil)
//	defer st.Close()
//	c := &crawler.Crawler{Seen: st.Seen(), Frontier: st.Frontier(), ...}
//	err = c.Run(ctx, seeds...) // the same program run again resumes
//
// The crawler writes the seen-set and the frontier in steps, one for its
// seeds and one for each page done (its outcome, its queue entry removed,
// its new links, its host's next time), and commits each step as one
// Pebble batch; a committer syncs them every few milliseconds (group
// commit). A crash of the process loses no committed step, a crash of the
// machine at most Options.SyncInterval of them, and every crash keeps each
// step whole or not at all. Entries handed out are written nowhere, so
// after a crash the pages in flight are fetched again (at least once).
//
// Keys: "m" the format version; "s"+fingerprint a seen URL; "q"+host
// id+seq a waiting entry (FP, depth, hops, tries, URL, referrer); "h"+host
// the host's id and next allowed time, so a restarted crawl keeps each
// host's pace.
package store
