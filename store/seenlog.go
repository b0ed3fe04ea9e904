package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"crawler/seen"
)

// The seen-set's new fingerprints are not written one key each, which
// would cost one insert each into Pebble's memtable (a skiplist search of
// some twenty cache misses, a tenth of a durable crawl's CPU for the seen
// keys and the queue entries together). A commit group writes the
// fingerprints added in it as one record of its log, "l"+gen, with the
// group's other writes, so that they are as durable and as atomic as
// before. Once Options.MergeURLs of them are applied, a goroutine writes
// them, sorted, as one table of "s"+fingerprint keys and ingests it into
// the database (Pebble links the file in: no memtable, no write-ahead
// log); the next group deletes the log records it covered. Until then the
// store finds them in memory (Store.recent, Store.mergingFPs). A crash
// between the ingestion and the deletion leaves fingerprints in both,
// which is harmless: Open merges what log it finds before anything else.

// prefixSeenLog is the prefix of the seen-set's log: "l" gen, the
// fingerprints a commit group added (8 bytes each, big-endian).
const prefixSeenLog = 'l'

// DefaultMergeURLs is how many new URLs gather in the seen-set's log
// before they are merged into its table (see Options.MergeURLs).
const DefaultMergeURLs = 1 << 17

func seenLogKey(gen uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{prefixSeenLog}, gen)
}

// mergeFile is where a merge writes its table, under the store's
// directory, before Pebble links it in.
const mergeFile = "merge.sst"

// logSeen writes the fingerprints added in the gathering group as its
// record of the seen-set's log.
func (s *Store) logSeen() {
	if len(s.fresh) == 0 {
		return
	}
	s.vbuf = s.vbuf[:0]
	for _, fp := range s.fresh {
		s.vbuf = binary.BigEndian.AppendUint64(s.vbuf, fp)
	}
	s.set(seenLogKey(s.gen), s.vbuf)
}

// unmerged reports whether fp was added and is not yet merged into the
// database.
func (s *Store) unmerged(fp uint64) bool {
	if s.recent.Contains(fp) {
		return true
	}
	_, merging := slices.BinarySearch(s.mergingFPs, fp)
	return merging
}

// startMerge starts merging the fingerprints of the groups synced, if
// there are enough of them and no merge is under way. Those of the groups
// still committing and of the one gathering stay in the log, and in
// Store.recent.
func (s *Store) startMerge() {
	if s.merging != nil || len(s.synced) < s.mergeURLs || s.err != nil || s.closing {
		return
	}
	// The next slice and set grow from nothing: 4% of a durable crawl's
	// garbage, but made at their full size, or kept from the last merge,
	// they would hold more memory while a merge runs (the slice merging
	// and the next, both full), and the Go heap's target doubles what it
	// holds at its peak.
	fps := s.synced
	s.synced = nil
	s.mergedUpTo = s.syncedGen
	// The merge's fingerprints are sorted here, not by the merge, so that
	// unmerged finds them there by binary search while it runs: 11 ms of
	// the store's goroutine for each MergeURLs new URLs (2^17), where a set
	// of them (the last recent) held 2-4 MiB more of the heap.
	slices.Sort(fps)
	s.mergingFPs, s.recent = fps, seen.NewExact(0)
	for _, c := range s.committing {
		for _, fp := range c.fps {
			s.recent.Add(fp)
		}
	}
	for _, fp := range s.fresh {
		s.recent.Add(fp)
	}
	done := make(chan error, 1)
	s.merging = done
	go func() { done <- mergeSeen(s.db, s.fs, s.mergePath, s.tableOptions, fps) }()
}

// finishMerge ends the merge under way, if it has ended (with wait, once
// it has): the fingerprints merged are read from the database from now on,
// and the gathering group deletes the log records they came from.
func (s *Store) finishMerge(wait bool) {
	if s.merging == nil {
		return
	}
	var err error
	if wait {
		err = <-s.merging
	} else {
		select {
		case err = <-s.merging:
		default:
			return
		}
	}
	s.merging = nil
	if err != nil {
		s.write(err)
		return
	}
	s.mergingFPs = nil
	s.write(s.seenReads.stale()) // it may not see the fingerprints merged
	if s.err == nil {
		s.write(s.batch.DeleteRange(seenLogKey(0), seenLogKey(s.mergedUpTo+1), nil))
	}
}

// mergeSeen writes fps as a table of seen keys at path and ingests it into
// db. fps must be sorted and distinct.
func mergeSeen(db *pebble.DB, fs vfs.FS, path string, o sstable.WriterOptions, fps []uint64) (err error) {
	defer recoverFatal(&err)
	f, err := fs.Create(path, vfs.WriteCategoryUnspecified)
	if err != nil {
		return fmt.Errorf("store: merge the seen-set: %w", err)
	}
	w := sstable.NewWriter(objstorageprovider.NewFileWritable(f), o)
	key := []byte{prefixSeen, 0, 0, 0, 0, 0, 0, 0, 0}
	for _, fp := range fps {
		binary.BigEndian.PutUint64(key[1:], fp)
		if err := w.Set(key, nil); err != nil {
			return fmt.Errorf("store: merge the seen-set: %w", errors.Join(err, w.Close()))
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("store: merge the seen-set: %w", err)
	}
	if err := db.Ingest(context.Background(), []string{path}); err != nil { // it removes path
		return fmt.Errorf("store: merge the seen-set: %w", err)
	}
	return nil
}

// mergeLog merges what the seen-set's log holds, at Open, and deletes it.
func (s *Store) mergeLog() error {
	var fps []uint64
	err := s.scan(prefixSeenLog, func(k, v []byte) error {
		if len(k) != 9 || len(v)%8 != 0 {
			return fmt.Errorf("a seen-set log record of %d bytes, key of %d", len(v), len(k))
		}
		for ; len(v) > 0; v = v[8:] {
			fps = append(fps, binary.BigEndian.Uint64(v))
		}
		return nil
	})
	if err != nil || len(fps) == 0 {
		return err
	}
	slices.Sort(fps)
	if err := mergeSeen(s.db, s.fs, s.mergePath, s.tableOptions, slices.Compact(fps)); err != nil {
		return err
	}
	return s.db.DeleteRange([]byte{prefixSeenLog}, []byte{prefixSeenLog + 1}, pebble.Sync)
}
