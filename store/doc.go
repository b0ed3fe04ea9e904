// Package store keeps a crawl's state on disk, in a Pebble database, so
// that a crawl survives the end of its process, kill -9 included, and
// holds more URLs than fit in memory.
//
//	st, err := store.Open(dir, store.Options{})
//	defer st.Close()
//	c := &crawler.Crawler{Seen: st.Seen(), Frontier: st.Frontier(), ...}
//	err = c.Run(ctx, seeds...) // the same program run again resumes
//
// The crawler writes the seen-set and the frontier in steps, one for its
// seeds and one for each page done (its outcome, its queue entry removed,
// its new links, its host's next time), and commits each step as one
// Pebble batch, in groups: the steps of a few milliseconds
// (Options.SyncInterval) are committed together, applied and synced to
// disk by a goroutine of their own while the next groups gather (reads
// see the groups not yet applied through small in-memory overlays; the
// crawl waits only if four groups are still syncing). A crash, of the
// process or of the machine, loses at most the steps since the last sync
// that ended: the group gathering and those syncing (10 ms of steps and a
// sync's time, by default), and keeps each step whole or not at all.
// Entries handed out are written
// nowhere, so after a crash the pages in flight are fetched again (at
// least once).
//
// Durable: the seen-set; the breadth-first queues (one per host, on disk,
// four entries each in memory); each host's next allowed time, so a
// restarted crawl keeps each host's pace; since the request in flight at
// a crash is not recorded, each host also waits its last wait (its delay,
// adaptive or Crawl-delay, or its backoff: from a Done to the Next of its
// Result) again from the store's opening; the page requests of every run
// (Store.Requests, for a budget across runs); the robots.txt files fetched
// ([Store.Robots], for a [politeness.RobotsCache]'s Store); and what the
// crawler keeps in a [frontier.Keeper]: its counters' totals
// (crawler.Crawler.TotalStats), the path patterns its trap rules stopped,
// and its seeds' hosts (Scope.SameHost); and in records
// ([frontier.Recorder]) the visits of the pages it revisits and the counts
// of its trap rules' budgets (the URLs each host queued, the values each
// query parameter took). The frontier is breadth-first
// ([Store.Frontier]) or ordered by importance ([Store.AOPIC]: its URLs
// as durable, its credits checkpointed every 10,000 pages or more, and at
// Close; after a crash they lag by the pages done since).
//
// The seen-set answers most seen URLs from a CLOCK cache of 7*2^18
// fingerprints in 16 MiB (Mercator's idea, seven times its size; seven
// ways a set, in one cache line; in a crawl of 300k pages of 20,000
// hosts it answered 92.6% of the tests the filter below passes on, 43.6%
// of all tests, new URLs included, where Mercator's cache answered 66%;
// the store was read 0.035 times a test, against Mercator's 0.16 seeks),
// a new URL from an in-memory Bloom filter (blocked: one cache line a
// test; no read); the rest read the
// store. Its new fingerprints are written as one record a
// commit group (a log) and merged into its table 2^17 at a time, as a
// sorted file Pebble ingests (Options.MergeURLs): a memtable insert each
// would cost a tenth of a crawl's CPU. The frontier's refills seek every
// table of Pebble's level 0 and one of each level below; a read of the
// seen-set, only the table that holds its key, as each table keeps a Bloom
// filter of its seen keys (seenFilter). A block cache of 32 MiB
// (Options.BlockCache), not Pebble's 8, keeps their index and data blocks
// in memory; the Bloom filter and the fingerprint cache live outside the
// Go heap, where they do not swell the heap's target.
//
// Keys: "m" the format version, "mc" the crawl's identity (Claim), "mr"
// the page requests; "s"+fingerprint a seen URL; "l"+group the
// fingerprints a commit group added, until merged; "q"+host id+seq a
// waiting entry (FP, depth, hops, tries, URL, referrer); "h"+host the
// host's id and next allowed time; "r"+origin a robots.txt (status, time,
// body); "k"+name a value kept for the crawler (Keep).
package store
