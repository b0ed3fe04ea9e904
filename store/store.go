package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"crawler/frontier"
	"crawler/politeness"
	"crawler/seen"
)

// Defaults of [Options].
const (
	// DefaultExpectedURLs sizes the Bloom filter in front of the seen-set:
	// about 1.15% false "maybe seen" answers at 10M URLs, in 12 MiB.
	DefaultExpectedURLs = 10_000_000
	// DefaultCachedURLs is the size of the cache of seen fingerprints:
	// 7*2^18, 2^18 sets of 7 in 16 MiB. Of the seen tests of a crawl of
	// 300k pages of 20,000 hosts that the Bloom filter could not answer,
	// Mercator's 2^18 answered 57%, 2^20 79%, 2^21 93% (reads of the
	// store: 482k -> 170k; four ways a set then), for 6% more pages/s than
	// 2^20 with the memtable halved to keep RSS.
	DefaultCachedURLs = 7 << 18
	// DefaultSyncInterval is the longest a step waits, in its commit
	// group, to be committed and synced: 10 ms, not 5. Each group costs a
	// sync (160 a second at 5 ms: 3.7% of a durable crawl's CPU), a write
	// of Pebble's log, a sort and the values kept (see Keep). At 5 ms
	// latency, 16 workers, alternating: 4 of 6 runs of 300k pages faster
	// and 2 even (median 2104 pages/s against 2090), 2 of 2 of 100k
	// faster (4-5%); 20 ms was no faster than 10.
	DefaultSyncInterval = 10 * time.Millisecond
	// DefaultBlockCache is the size of Pebble's cache of table blocks: 32
	// MiB, not Pebble's 8. Every seek of a frontier refill or a seen-set
	// read opens each table of level 0 (up to 12, see l0Compaction) and one
	// of each level below, so their index blocks and the data blocks read
	// must stay cached; at 8 MiB (less the memtables, which Pebble
	// reserves in it) they did not, and a crawl of 300k pages spent
	// 0.41-0.43 ms of CPU a page, at 32 MiB 0.26-0.30 (see the README).
	DefaultBlockCache = 32 << 20
)

// l0Compaction is how many files gather in Pebble's level 0 before they
// are compacted: 12, not 4, so that a crawl's stream of new URLs is merged
// down less often (measured: 8.9k -> 9.2k pages/s at 300k pages, three
// runs each; the reads it makes dearer are few behind the cache).
const l0Compaction = 12

// formatVersion is written in a new store and checked on open. 2: queue
// entries keep their URLs without "http(s)://"+host; 3: the seen-set's
// new fingerprints are logged ("l" keys) and merged; 4: a host's record
// keeps its wait too. A store of format 2 or 3 is opened (its hosts' waits
// unknown), and marked 4.
const formatVersion = 4

// headMax is how many waiting entries of a host are kept in memory.
const headMax = 4

// memTableSize is Pebble's memtable size: 8 MiB, not its 4 MiB, so that a
// queue entry pushed and done soon after, and the duplicate writes of a
// crawl, are more often merged in memory than compacted on disk; not 16,
// which was no faster with the larger fingerprint cache, and took 16 MiB
// more RSS with two memtables. Tables are not compressed: a crawl on 2
// cores spends its CPU better on pages than on compactions (measured: 9.1k
// pages/s uncompressed, 7.6k with snappy, at 100k pages of a 20,000-host
// web).
const memTableSize = 8 << 20

// Errors of Open and Claim.
var (
	// ErrVersion is wrapped by the error of Open for a directory written by
	// an incompatible version of this package.
	ErrVersion = errors.New("store: state written by an incompatible version")
	// ErrOtherCrawl is wrapped by the error of Claim for a store that holds
	// another crawl.
	ErrOtherCrawl = errors.New("store: state of another crawl")
	// ErrLocked is wrapped by the error of Open for a directory that another
	// Store holds, in this process or another.
	ErrLocked = errors.New("store: state in use by another crawl (its directory is locked)")
	// ErrNotState is wrapped by the error of Open for a directory that
	// holds files but no store: Open writes nothing among them.
	ErrNotState = errors.New("store: directory holds files but no crawl state")
)

// Options configure a Store. As everywhere in this SDK, a number's 0 means
// its default and a negative value switches it off.
type Options struct {
	// ExpectedURLs sizes the in-memory Bloom filter that answers "new" for
	// most new URLs without reading the disk. 0: DefaultExpectedURLs;
	// negative: no filter, every test reads the store.
	ExpectedURLs int
	// CachedURLs is how many seen fingerprints are cached in memory (8
	// bytes each), so that a link to a popular page costs no read. 0:
	// DefaultCachedURLs; negative: 7, next to none.
	CachedURLs int
	// SyncInterval is how long the steps of a commit group may gather
	// before they are committed as one batch, synced while the next groups
	// gather: a crash, of the process or the machine, loses at most the
	// group gathering and those syncing (SyncInterval, plus a sync). 0:
	// DefaultSyncInterval; negative: each step is committed and synced
	// alone, before Commit returns.
	SyncInterval time.Duration
	// PerHost is how many entries of a host may be handed out at once.
	// 0: 1; negative: no limit.
	PerHost int
	// LongestFirst hands out, among the hosts ready, first the one with the
	// smallest share of its page requests done (a host with none done first
	// of all), so the most left first, where the breadth-first frontier
	// hands out the oldest entry. A host's requests left are its entries
	// waiting times the share of its entries done so far that were requested
	// (frontier.Result.Requested; an entry robots.txt disallows is not), and
	// its requests in all never fewer than a typical host's would be: its
	// entries waiting alone would rank first the hosts whose queues hold
	// most URLs their robots.txt keeps the crawler from, and last those not
	// yet crawled, whose links are found as they are. When ready hosts
	// outnumber the workers, the largest hosts then never wait behind small
	// ones, and a crawl of a bounded web ends with its largest host (longest
	// processing time first) rather than after it: a node of a cluster,
	// whose end is the crawl's, sets it. Small hosts may wait long while
	// larger ones are ready. Each host's entries keep their order; the
	// shares are not kept (a store opened again learns them anew).
	LongestFirst bool
	// CheckpointPages is the fewest pages done between two checkpoints of
	// an AOPIC frontier's credits ([Store.AOPIC]). 0:
	// DefaultCheckpointPages; negative: a checkpoint only at Close.
	CheckpointPages int
	// BlockCache is the size in bytes of Pebble's cache of table blocks.
	// Pebble allocates it, and its memtables, with C's malloc when cgo is
	// on: under glibc, a program for which RSS matters limits malloc's
	// arenas (MALLOC_ARENA_MAX=2 in the environment, or mallopt, as
	// cmd/crawl does), or the memory the cache frees stays spread over one
	// arena per thread (measured: 36 MB more peak RSS with 32 MiB). 0:
	// DefaultBlockCache; negative: Pebble's default, 8 MiB.
	BlockCache int
	// BeforeCommit, if set, is called before each commit group is
	// applied, off the crawler's goroutines, and its error fails the
	// commit as a write would. It makes what the crawl keeps elsewhere
	// durable first: with (*warc.Writer).Sync, the archive records of the
	// pages a group marks done are synced before the group is.
	BeforeCommit func() error
	// OnDone, if set, is called by the frontier's Done (of [Store.Frontier]
	// or [Store.AOPIC]) with its arguments, on the crawler's goroutine,
	// in the step Done begins. It keeps what the crawl writes elsewhere in
	// step with the state: an output that writes a page's record in OnDone
	// (nothing for r.Retry), registers its size with Keep and makes its
	// file durable in BeforeCommit holds, after a crash, exactly the pages
	// committed once it is cut back to the size Kept returns.
	OnDone func(e frontier.Entry, r frontier.Result)
	// MergeURLs is how many new URLs the seen-set gathers in its log (a
	// record of each commit group's) before it merges them into its table,
	// as one sorted file that Pebble links in rather than as one memtable
	// insert each; until then it looks them up in memory (20 to 30 bytes
	// each). 0: DefaultMergeURLs; negative: once any group is committed.
	MergeURLs int
	// FS is the file system the database lives in. Nil: the operating
	// system's. Tests use Pebble's vfs.NewCrashableMem.
	FS vfs.FS
}

// Store is the durable state of a crawl, in a Pebble database: the URL-seen
// set ([Store.Seen]) and a breadth-first frontier with one queue per host
// ([Store.Frontier]), whose host ready times survive too. The crawler
// writes both in steps (the seeds; a page's outcome, the removal of its
// queue entry, its new links and its host's next time) and commits each
// step as one batch ([Store.Commit]), so that a crash keeps a step whole or
// not at all: a URL is never seen without being queued, nor queued twice.
// Handing a URL out writes nothing, so after a crash the URLs in flight are
// handed out again.
//
// A Store is used by one goroutine (the crawler's scheduler), but for its
// [Store.Robots], which the crawler's workers share; Close must be called,
// after the crawl, to release the directory, which only one Store may hold.
type Store struct {
	db    *pebble.DB
	batch *pebble.Batch // the step in progress: not indexed, see the overlays below
	// committing are the groups committed and not yet known synced, oldest
	// first, at most maxCommitting: each is applied and synced by a
	// goroutine of its own, in order, while the next groups gather.
	committing   []committing
	sorters      sync.Pool                             // of *sorter, for the groups committing
	syncInterval time.Duration                         // 0: every step is its own group
	beforeCommit func() error                          // Options.BeforeCommit
	onDone       func(frontier.Entry, frontier.Result) // Options.OnDone
	perHost      int                                   // entries of a host out at once (frontier.PerHostLimit)
	limit        func(host string) int                 // see Frontier.LimitHosts; nil: perHost for every host
	checkpoint   int                                   // pages done between AOPIC checkpoints; <= 0: none but at Close
	err          error                                 // the first write error: the store takes no more

	queueReads reader // fill's
	seenReads  reader // Prepare's

	bloom     *blockFilter // nil: none
	cache     *fpCache
	absent    map[uint64]struct{} // not seen, as Prepare read them; until the next Prepare
	found     map[uint64]struct{} // seen, as Prepare read them, and cached: their next test is no cache hit
	kbuf      []byte              // a key being written or read (the scheduler's)
	vbuf      []byte              // a value being written (the scheduler's)
	need      []uint64            // Prepare's buffer
	nSeen     int
	seenStats SeenStats

	hosts     map[string]*hostQueue
	lastHosts [2]*hostQueue // the two hosts host last returned, the last first
	nextID    uint32
	seq       uint64 // of the next entry pushed
	n         int    // entries waiting
	done      int    // entries done in this process, not retried (Options.LongestFirst's estimates)
	requests  int64  // page requests, in every run
	out       map[uint64]handedOut
	ready     hostHeap // by the seq of their first entry, or their requests left (Options.LongestFirst)
	waiting   hostHeap // by ready time

	kept   []kept     // values kept with the steps (see Keep)
	robots keptRobots // the origins whose robots.txt is kept (see Robots)
	aopic  *AOPIC     // the store's frontier, if an AOPIC (see Store.AOPIC)

	// The overlays: what reads of the database must see of the groups not
	// yet applied to it (the one gathering, generation gen, and those
	// committing), until they are. The batch is not indexed and the
	// groups are applied off the scheduler's goroutine, so that their
	// memtable inserts (a third of the scheduler's time) run beside it.
	gen     uint64
	touched []*hostQueue // hosts with writes in hostQueue.writes
	spare   [][]write    // emptied hostQueue.writes, for reuse (see spareWrites)

	// The seen-set's log (see seenlog.go).
	recent       *seen.Exact // the fingerprints added since the last merge began
	mergingFPs   []uint64    // those of the merge under way, sorted, or nil
	fresh        []uint64    // the fingerprints added in the gathering group
	spareFPs     []uint64    // the fps of a group synced, for the next fresh
	synced       []uint64    // those of the groups synced since the last merge began
	syncedGen    uint64      // the last group known synced, if any is
	mergeURLs    int         // Options.MergeURLs
	merging      chan error
	mergedUpTo   uint64 // the last group the merge under way covers
	fs           vfs.FS
	mergePath    string
	tableOptions sstable.WriterOptions

	closed  bool
	closing bool      // Close is flushing: every kept value is written
	opened  time.Time // when the commit group in the batch began; zero if none
}

// hostQueue is one host's queue: its first entries in memory, the rest on
// disk.
type hostQueue struct {
	name     string
	id       uint32
	head     []queued // the first waiting entries, in order
	count    int      // entries waiting, head included
	loaded   uint64   // the seq after which to load more
	inflight int
	done     int // entries done in this process, not retried: see requestsLeft
	fetched  int // of those, the ones requested
	limit    int // entries out at once: Store.hostLimit's
	readyAt  time.Time
	wait     time.Duration // the wait readyAt ends: from a Done to its Result.Next
	heap     *hostHeap     // the heap it is in, or nil
	index    int
	writes   []write // the writes to its queue of the groups not yet applied, by seq (see fill)
}

// requestsLeft estimates the page requests h's entries waiting will
// take: its count times the share of its entries done that were
// requested, with one requested and one not counted before any is done
// (Laplace's rule of succession), so that the share starts at a half
// for every host and moves to its own as its entries are done.
func (h *hostQueue) requestsLeft() float64 {
	return float64(h.count) * float64(h.fetched+1) / float64(h.done+2)
}

// doneShare returns the share of h's requests, as estimated, done in
// this process: fetched over its requests in all, fetched plus
// requestsLeft, or, if more, its share requested of typical entries,
// those of a host of the crawl on average (entries waiting and done over
// hosts): a host whose links are found as it is crawled has few entries
// waiting until it is, and seen alone they would rank it as nearly done.
// 0 before any request.
func (h *hostQueue) doneShare(typical float64) float64 {
	if h.fetched == 0 {
		return 0
	}
	all := float64(h.fetched) + h.requestsLeft()
	return float64(h.fetched) / max(all, typical*float64(h.fetched+1)/float64(h.done+2))
}

// queued is an entry waiting, kept encoded (appendEntry) until it is handed
// out: about half the memory of the decoded entry and its strings, which,
// at four for each of 20,000 hosts, were 20 MiB of a crawl's heap.
type queued struct {
	seq uint64
	enc []byte
}

// fp returns the fingerprint of q's entry.
func (q queued) fp() uint64 { return binary.BigEndian.Uint64(q.enc[1:]) }

// write is a write to a host's queue of a group not yet applied: an entry
// set at its seq, or deleted.
type write struct {
	queued
	deleted bool
	gen     uint64 // its group's
}

type handedOut struct {
	host *hostQueue
	seq  uint64
}

// Keys. Fingerprints and sequence numbers are big-endian, so that keys sort
// as numbers.
const (
	prefixMeta  = 'm' // "m": the format version
	prefixSeen  = 's' // "s" fp: a seen URL
	prefixQueue = 'q' // "q" host id seq: a waiting entry
	prefixHost  = 'h' // "h" name: host id, ready time, wait
	// prefixKept 'k' and prefixRecord 'r' are in keep.go and records.go.
)

var (
	metaKey     = []byte{prefixMeta}
	crawlKey    = []byte{prefixMeta, 'c'} // the crawl's identity (see Claim)
	requestsKey = []byte{prefixMeta, 'r'} // page requests so far (see Requests)
)

// Open opens the store in dir, making it if needed. A store written by an
// incompatible version is refused with an error wrapping ErrVersion; one
// another process holds is refused too, and a directory that holds other
// files, with ErrNotState.
func Open(dir string, o Options) (*Store, error) {
	if err := checkDir(cmp.Or[vfs.FS](o.FS, vfs.Default), dir); err != nil {
		return nil, err
	}
	po := &pebble.Options{FS: o.FS, Logger: quiet{}, MemTableSize: memTableSize,
		L0CompactionThreshold: l0Compaction, L0StopWritesThreshold: 4 * l0Compaction,
		CacheSize: int64(politeness.Or(o.BlockCache, DefaultBlockCache))}
	for i := range po.Levels {
		po.Levels[i].Compression = func() *sstable.CompressionProfile { return sstable.NoCompression }
		po.Levels[i].FilterPolicy = seenFilter{}
	}
	po.EnsureDefaults()
	db, err := pebble.Open(dir, po)
	if err != nil {
		if locked(err) {
			return nil, fmt.Errorf("%w: %s: %w", ErrLocked, dir, err)
		}
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	s := &Store{
		db:           db,
		syncInterval: politeness.Or(o.SyncInterval, DefaultSyncInterval),
		beforeCommit: o.BeforeCommit,
		onDone:       o.OnDone,
		perHost:      frontier.PerHostLimit(o.PerHost),
		checkpoint:   politeness.Or(o.CheckpointPages, DefaultCheckpointPages),
		hosts:        map[string]*hostQueue{},
		out:          map[uint64]handedOut{},
		absent:       map[uint64]struct{}{},
		found:        map[uint64]struct{}{},
		recent:       seen.NewExact(0),
		mergeURLs:    max(1, politeness.Or(o.MergeURLs, DefaultMergeURLs)),
		fs:           po.FS,
		mergePath:    po.FS.PathJoin(dir, mergeFile),
		tableOptions: po.MakeWriterOptions(0, db.TableFormat()),
	}
	s.waiting.byReadyAt, s.ready.byLeft = true, o.LongestFirst
	s.sorters.New = func() any { return new(sorter) }
	if n := politeness.Or(o.ExpectedURLs, DefaultExpectedURLs); n > 0 {
		s.bloom = newBlockFilter(n, func(words int) []uint64 { return offHeapWords(s, words) })
	}
	s.cache = newFPCache(politeness.Or(o.CachedURLs, DefaultCachedURLs))
	if err := s.load(); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", dir, err)
	}
	s.batch = db.NewBatch()
	return s, nil
}

// load reads what the crawl had: the version, the seen-set into the Bloom
// filter, the hosts and the heads of their queues.
func (s *Store) load() error {
	opened := time.Now()
	v, closer, err := s.db.Get(metaKey)
	switch {
	case errors.Is(err, pebble.ErrNotFound):
		if err := s.db.Set(metaKey, []byte{formatVersion}, pebble.Sync); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		version := bytes.Clone(v)
		closer.Close()
		if len(version) != 1 || version[0] < 2 || version[0] > formatVersion {
			return fmt.Errorf("%w: format %v, want %d", ErrVersion, version, formatVersion)
		}
		if version[0] != formatVersion { // 2 has no seen-set log, 3 no waits: they read as 4
			if err := s.db.Set(metaKey, []byte{formatVersion}, pebble.Sync); err != nil {
				return err
			}
		}
	}
	if v, closer, err := s.db.Get(requestsKey); err == nil {
		if len(v) == 8 {
			s.requests = int64(binary.BigEndian.Uint64(v))
		}
		closer.Close()
	}
	byID := map[uint32]*hostQueue{}
	err = s.scan(prefixHost, func(k, v []byte) error {
		if len(v) != 12 && len(v) != 20 { // 12: format 3, no wait
			return fmt.Errorf("host %q: a record of %d bytes", k[1:], len(v))
		}
		h := &hostQueue{name: string(k[1:]), id: binary.BigEndian.Uint32(v), index: -1}
		h.limit = s.hostLimit(h.name)
		if nanos := int64(binary.BigEndian.Uint64(v[4:])); nanos != 0 {
			h.readyAt = time.Unix(0, nanos)
		}
		if len(v) == 20 {
			h.wait = time.Duration(binary.BigEndian.Uint64(v[12:]))
		}
		// The request in flight when the process before died, if any,
		// went unrecorded: the host waits its wait again from now.
		if again := opened.Add(h.wait); h.wait > 0 && again.After(h.readyAt) {
			h.readyAt = again
		}
		s.hosts[h.name], byID[h.id] = h, h
		s.nextID = max(s.nextID, h.id+1)
		return nil
	})
	if err != nil {
		return err
	}
	err = s.scan(prefixRobots, func(k, _ []byte) error {
		s.robots.add(string(k[1:]))
		return nil
	})
	if err != nil {
		return err
	}
	if err := s.mergeLog(); err != nil {
		return err
	}
	err = s.scan(prefixSeen, func(k, _ []byte) error {
		if len(k) != 9 {
			return fmt.Errorf("seen key of %d bytes", len(k))
		}
		if s.bloom != nil {
			s.bloom.add(binary.BigEndian.Uint64(k[1:]))
		}
		s.nSeen++
		return nil
	})
	if err != nil {
		return err
	}
	err = s.scan(prefixQueue, func(k, v []byte) error {
		if len(k) != 13 {
			return fmt.Errorf("queue key of %d bytes", len(k))
		}
		h := byID[binary.BigEndian.Uint32(k[1:])]
		if h == nil {
			return fmt.Errorf("queue entry of unknown host %d", binary.BigEndian.Uint32(k[1:]))
		}
		seq := binary.BigEndian.Uint64(k[5:])
		s.seq = max(s.seq, seq+1)
		h.count++
		s.n++
		if len(h.head) < headMax {
			if _, err := decodeEntry(v, h.name); err != nil {
				return fmt.Errorf("queue entry %d of %s: %w", seq, h.name, err)
			}
			h.head = append(h.head, queued{seq, bytes.Clone(v)})
			h.loaded = seq + 1
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, h := range s.hosts {
		s.schedule(h)
	}
	return nil
}

// locked reports whether err is Pebble's for a directory whose lock file is
// held: by another process (flock's EAGAIN), or by this one (Pebble's own
// check, which has no sentinel error; its message is matched).
func locked(err error) bool {
	return errors.Is(err, syscall.EAGAIN) || strings.Contains(err.Error(), "lock held by current process")
}

// scan calls f with every key of prefix p and its value, in order.
func (s *Store) scan(p byte, f func(k, v []byte) error) error {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{p}, UpperBound: []byte{p + 1}})
	if err != nil {
		return err
	}
	for it.First(); it.Valid(); it.Next() {
		if err := f(it.Key(), it.Value()); err != nil {
			it.Close()
			return err
		}
	}
	return errors.Join(it.Error(), it.Close())
}

// Claim records id as the identity of the crawl the store holds (its
// seeds, say), or, if one is recorded, checks that it is id: a store is
// never silently shared by two crawls. Claim syncs.
func (s *Store) Claim(id string) error {
	v, closer, err := s.db.Get(crawlKey)
	switch {
	case errors.Is(err, pebble.ErrNotFound):
		if err := s.db.Set(crawlKey, []byte(id), pebble.Sync); err != nil {
			return fmt.Errorf("store: claim: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("store: claim: %w", err)
	}
	defer closer.Close()
	if string(v) != id {
		return fmt.Errorf("%w: %q, not %q", ErrOtherCrawl, v, id)
	}
	return nil
}

// Hosts reports the number of hosts the crawl has queued URLs of. O(1).
func (s *Store) Hosts() int { return len(s.hosts) }

// Requests reports how many page requests the crawl has made, in every
// run, as of the step in progress (frontier.Result.Requested): what a
// budget of pages across runs counts. It is committed with the steps.
func (s *Store) Requests() int64 { return s.requests }

// Commit ends a step. Steps are committed in groups, as one batch, when
// the group is SyncInterval old (or large); a group is applied and synced
// while the next groups gather, and Commit waits only when maxCommitting
// groups are still being synced. So a crash of the process or the machine
// loses at most the steps of the group gathering and those being synced
// (at most maxCommitting, a sync's time), and each step whole or not at
// all. With a negative SyncInterval every step is its own group, synced
// before Commit returns. After a write error every call returns that
// error, and the crawl should stop.
func (s *Store) Commit() error {
	if s.err != nil {
		return s.err
	}
	if s.batch.Empty() && len(s.fresh) == 0 {
		s.opened = time.Time{}
		return nil
	}
	if s.opened.IsZero() {
		s.opened = time.Now()
	}
	if s.syncInterval > 0 && time.Since(s.opened) < s.syncInterval && s.batch.Len()+8*len(s.fresh) < maxGroupBytes {
		return nil
	}
	return s.commitGroup(s.syncInterval <= 0)
}

// maxGroupBytes bounds a commit group's batch.
const maxGroupBytes = 4 << 20

// maxCommitting is how many commit groups may be applied and synced at
// once. A sync usually takes less than a group's SyncInterval, but on a
// busy machine one can take several: the crawl goes on meanwhile, and
// Pebble syncs the groups that gathered behind it with one write.
const maxCommitting = 4

// committing is a commit group being applied and synced.
type committing struct {
	gen     uint64
	fps     []uint64     // the fingerprints it added
	applied <-chan error // reports once, when it is applied or has failed, to the group after it
	done    chan error   // reports once, when it is synced or has failed
}

// Flush commits the steps ended and not yet committed, and waits until
// every step committed is synced to disk. The crawler calls it before it
// waits with nothing in flight, and at the end of a Run.
func (s *Store) Flush() error { return s.commitGroup(true) }

// commitGroup commits the group in the batch, if any, once fewer than
// maxCommitting groups are being committed; with wait, it waits until
// every group is synced.
func (s *Store) commitGroup(wait bool) error {
	if s.err != nil {
		return s.err
	}
	s.opened = time.Time{}
	s.finishMerge(false)
	s.logSeen()
	if !s.batch.Empty() || s.closing {
		s.writeKept()
	}
	if !s.batch.Empty() {
		s.set(requestsKey, binary.BigEndian.AppendUint64(nil, uint64(s.requests)))
		if err := s.reap(maxCommitting - 1); err != nil {
			return err
		}
		s.startMerge()
		var prev <-chan error // nil if every group before is synced
		if n := len(s.committing); n > 0 {
			prev = s.committing[n-1].applied
		}
		applied := make(chan error, 1)
		c := committing{gen: s.gen, fps: s.fresh, applied: applied, done: make(chan error, 1)}
		go commit(s.db, s.batch, &s.sorters, s.beforeCommit, prev, applied, c.done)
		s.committing = append(s.committing, c)
		s.fresh, s.spareFPs = s.spareFPs, nil
		s.batch = s.db.NewBatch()
		s.gen++
	}
	if wait {
		return s.reap(0)
	}
	return nil
}

// commit sorts b (with a sorter of sorters), waits until the group before
// it is applied (prev reports it, unless nil), calls before, if set,
// applies b to db and reports on applied; then it syncs b, and reports on
// done. If the group before failed, so does this one, unapplied: a group
// may undo what the one before it did, or build on it. Pebble's pipelined
// commit (ApplyNoSyncWait, which CockroachDB uses the same way; its API is
// marked experimental, and the version is pinned by go.mod and checked by
// TestCrash and TestModel) lets the groups after one apply while it syncs,
// and syncs them with one write.
func commit(db *pebble.DB, b *pebble.Batch, sorters *sync.Pool, before func() error, prev <-chan error, applied, done chan<- error) {
	var err error
	applying := true
	defer func() {
		if applying {
			applied <- err
		}
		done <- err
	}()
	defer recoverFatal(&err)
	t := sorters.Get().(*sorter)
	b, err = t.sorted(db, b)
	sorters.Put(t)
	if err != nil {
		err = fmt.Errorf("store: commit: %w", err)
		return
	}
	if prev != nil {
		if err = <-prev; err != nil {
			return // reported by the group before
		}
	}
	if before != nil {
		if err = before(); err != nil {
			err = fmt.Errorf("store: before commit: %w", err)
			return
		}
	}
	if err = db.ApplyNoSyncWait(b, pebble.Sync); err != nil {
		err = fmt.Errorf("store: commit: %w", err)
		return
	}
	applying = false
	applied <- nil
	if err = b.SyncWait(); err != nil {
		err = fmt.Errorf("store: commit: %w", err)
		return
	}
	err = b.Close()
}

// sorter sorts the batches of commit groups (sorted), keeping its buffers
// from one group to the next: the Store keeps its sorters in a pool, one
// for each group being sorted at once.
type sorter struct {
	ops   []op
	order []opOrder
}

// op is a write of a batch being sorted.
type op struct {
	kind       pebble.InternalKeyKind
	key, value []byte
}

// sorted returns the writes of b, which it closes, as a new batch in key
// order (the writes to one key in the order they were made). Pebble inserts
// a batch's keys into its memtable's skiplist one by one, each search
// starting where the last one ended if that still brackets the key: in key
// order, most searches are short. A crawl's writes (fingerprints, host ids)
// come in no order.
func (t *sorter) sorted(db *pebble.DB, b *pebble.Batch) (*pebble.Batch, error) {
	ops, order := t.ops[:0], t.order[:0]
	defer func() {
		clear(ops) // keeps nothing of b's
		t.ops, t.order = ops[:0], order[:0]
	}()
	for r := b.Reader(); ; {
		kind, key, value, ok, err := r.Next()
		if err != nil {
			return nil, errors.Join(err, b.Close())
		}
		if !ok {
			break
		}
		order = append(order, opOrder{keyPrefix(key), uint32(len(ops))})
		ops = append(ops, op{kind, key, value})
	}
	slices.SortFunc(order, func(x, y opOrder) int {
		if c := cmp.Compare(x.prefix, y.prefix); c != 0 {
			return c
		}
		if c := bytes.Compare(ops[x.i].key, ops[y.i].key); c != 0 {
			return c
		}
		return cmp.Compare(x.i, y.i)
	})
	out := db.NewBatchWithSize(len(b.Repr()))
	for _, k := range order {
		o := ops[k.i]
		var err error
		switch o.kind {
		case pebble.InternalKeyKindSet:
			err = out.Set(o.key, o.value, nil)
		case pebble.InternalKeyKindDelete:
			err = out.Delete(o.key, nil)
		case pebble.InternalKeyKindRangeDelete:
			err = out.DeleteRange(o.key, o.value, nil)
		default:
			err = fmt.Errorf("a write of kind %v", o.kind)
		}
		if err != nil {
			return nil, errors.Join(err, out.Close(), b.Close())
		}
	}
	return out, b.Close()
}

// opOrder is a write of a batch being sorted: its key's first 8 bytes as a
// number, which decide most comparisons (they hold a fingerprint's first
// bytes, a host id), and its place in the batch, which orders the writes
// to one key. Sorting these, not the writes, moves 16 bytes a swap.
type opOrder struct {
	prefix uint64
	i      uint32
}

// keyPrefix returns the first 8 bytes of key as a big-endian number, padded
// with zeros: keys compare as their prefixes do, where those differ.
func keyPrefix(key []byte) uint64 {
	var b [8]byte
	copy(b[:], key)
	return binary.BigEndian.Uint64(b[:])
}

// reap takes in the groups committed that are synced, oldest first,
// waiting until at most keep are not; it drops their writes from the
// overlays, since reads of the database see them now.
func (s *Store) reap(keep int) error {
	n := 0 // groups taken in
reaping:
	for ; n < len(s.committing); n++ {
		c := s.committing[n]
		var err error
		if len(s.committing)-n > keep {
			err = <-c.done
		} else {
			select {
			case err = <-c.done:
			default:
				break reaping
			}
		}
		if err != nil {
			s.committing = s.committing[n+1:]
			s.err = err
			return err
		}
		s.synced = append(s.synced, c.fps...)
		s.syncedGen = c.gen
		if cap(c.fps) > cap(s.spareFPs) {
			s.spareFPs = c.fps[:0] // for the next group's fresh
		}
	}
	if n == 0 {
		return nil
	}
	s.committing = slices.Delete(s.committing, 0, n)
	// The readers' iterators may not see the groups taken in, whose writes
	// leave the overlays; and they hold the memtables they saw.
	s.write(errors.Join(s.queueReads.stale(), s.seenReads.stale()))
	kept := s.touched[:0]
	for _, h := range s.touched {
		h.writes = slices.DeleteFunc(h.writes, func(w write) bool { return w.gen <= s.syncedGen })
		if len(h.writes) > 0 {
			kept = append(kept, h)
		} else {
			s.spareWrites(h)
		}
	}
	clear(s.touched[len(kept):])
	s.touched = kept
	return nil
}

// record keeps w, a write of the gathering group to h's queue, for fill,
// in place of one at the same seq.
func (s *Store) record(h *hostQueue, w write) {
	w.gen = s.gen
	if len(h.writes) == 0 {
		s.touched = append(s.touched, h)
		if n := len(s.spare); h.writes == nil && n > 0 {
			h.writes, s.spare = s.spare[n-1], s.spare[:n-1]
		}
	}
	i, found := slices.BinarySearchFunc(h.writes, w.seq, bySeq)
	if found {
		h.writes[i] = w
	} else {
		h.writes = slices.Insert(h.writes, i, w)
	}
}

// spareWrites takes h's emptied writes from it, for record to give to the
// next host it writes to: most hosts are touched now and then, and would
// keep their capacity for nothing, while a slice made for each host
// touched was a twentieth of a crawl's allocations.
func (s *Store) spareWrites(h *hostQueue) {
	if cap(h.writes) <= maxSpareWrites && len(s.spare) < maxSpare {
		s.spare = append(s.spare, h.writes[:0]) // zeroed by DeleteFunc: keeps no entry
	}
	h.writes = nil
}

// At most maxSpare slices of at most maxSpareWrites writes are kept spare.
const maxSpare, maxSpareWrites = 1024, 64

func bySeq(w write, seq uint64) int { return cmp.Compare(w.seq, seq) }

// ErrClosed is the error of a second Close.
var ErrClosed = errors.New("store: closed")

// Close commits the step in progress, syncs, and closes the database. The
// Store must not be used after. After a fatal error of Pebble (a full disk)
// it returns that error and leaves the database to the end of the process,
// which holds its lock until then.
func (s *Store) Close() error {
	if s.closed {
		return ErrClosed
	}
	s.closed, s.closing = true, true
	s.finishMerge(true)
	err := s.Flush()
	return errors.Join(err, s.closeDB())
}

// closeDB closes the database, releasing its lock. After a fatal error
// Pebble cannot be closed ("the commit pipeline will be horked"): its
// files stay as the last commit left them, and the lock goes with the
// process, which should end.
func (s *Store) closeDB() (err error) {
	if _, fatal := errors.AsType[fatalError](s.err); fatal {
		return nil
	}
	for _, c := range s.committing { // groups after one that failed, or not waited for
		if err := <-c.done; err != nil {
			if _, fatal := errors.AsType[fatalError](err); fatal {
				return nil
			}
		}
	}
	if s.merging != nil { // a merge under way, after an error
		<-s.merging
	}
	defer recoverFatal(&err)
	s.batch.Close()
	return errors.Join(s.queueReads.stale(), s.seenReads.stale(), s.db.Close())
}

// set writes key in the step in progress, unless the store has failed.
func (s *Store) set(key, value []byte) {
	if s.err == nil {
		s.write(s.batch.Set(key, value, nil))
	}
}

// del deletes key in the step in progress, unless the store has failed.
func (s *Store) del(key []byte) {
	if s.err == nil {
		s.write(s.batch.Delete(key, nil))
	}
}

// write keeps the first error of a write.
func (s *Store) write(err error) {
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("store: %w", err)
	}
}

// setEntry writes e at seq in the queue of the host of id, in the step in
// progress, encoded in the store's buffers (the batch copies them), and
// returns it queued.
func (s *Store) setEntry(id uint32, seq uint64, e frontier.Entry) queued {
	s.kbuf = appendQueueKey(s.kbuf[:0], id, seq)
	s.vbuf = appendEntry(s.vbuf[:0], e)
	s.set(s.kbuf, s.vbuf)
	return queued{seq, bytes.Clone(s.vbuf)}
}

// delEntry deletes the entry at seq of the queue of the host of id, in
// the step in progress.
func (s *Store) delEntry(id uint32, seq uint64) {
	s.kbuf = appendQueueKey(s.kbuf[:0], id, seq)
	s.del(s.kbuf)
}

func appendSeenKey(dst []byte, fp uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, prefixSeen), fp)
}

func appendQueueKey(dst []byte, host uint32, seq uint64) []byte {
	dst = binary.BigEndian.AppendUint32(append(dst, prefixQueue), host)
	return binary.BigEndian.AppendUint64(dst, seq)
}

func appendHostKey(dst []byte, name string) []byte { return append(append(dst, prefixHost), name...) }

// quiet is a pebble.Logger that keeps Pebble's information to itself; its
// errors reach the Store's callers as errors.
type quiet struct{}

func (quiet) Infof(string, ...any)  {}
func (quiet) Errorf(string, ...any) {}
func (quiet) Fatalf(format string, args ...any) {
	panic(fatalError{fmt.Errorf(format, args...)})
}

// fatalError is the panic of quiet.Fatalf: Pebble's report of an error it
// cannot go on from, such as a write to a full disk. The Store recovers it
// as its sticky error, and takes no more writes.
type fatalError struct{ err error }

func (e fatalError) Error() string { return "store: " + e.err.Error() }

// recoverFatal turns a fatalError panic into *err.
func recoverFatal(err *error) {
	if v := recover(); v != nil {
		f, ok := v.(fatalError)
		if !ok {
			panic(v)
		}
		*err = f
	}
}

// checkDir refuses dir, with ErrNotState, if it holds files and none of
// them is one of Pebble's: a store is written only in a new or empty
// directory, or in one a store was written in.
func checkDir(fs vfs.FS, dir string) error {
	names, err := fs.List(dir)
	if err != nil || len(names) == 0 {
		return nil // missing: Open makes it (or says why it cannot)
	}
	for _, name := range names {
		if name == "CURRENT" || name == "LOCK" || strings.HasPrefix(name, "OPTIONS-") ||
			strings.HasPrefix(name, "MANIFEST-") || strings.HasPrefix(name, "marker.") {
			return nil
		}
	}
	slices.Sort(names)
	held := names[0]
	if len(names) > 1 {
		held = fmt.Sprintf("%d files: %s, ...", len(names), names[0])
	}
	return fmt.Errorf("%w: %s holds %s; give a new or empty directory", ErrNotState, dir, held)
}
