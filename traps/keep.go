package traps

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/zeebo/xxh3"

	"crawler/frontier"
)

// Names of what a Guard keeps in a frontier.Keeper, and of the records it
// keeps in a frontier.Recorder. They name a durable crawl's state on disk:
// they do not change.
const (
	keptPatterns    = "crawler/traps"        // the patterns Config.DuplicatePages stopped
	keptHostURLs    = "crawler/host-urls"    // per host: the URLs it queued (MaxPagesPerHost)
	keptQueryValues = "crawler/query-values" // per host, parameter and value (MaxQueryValues)
)

// Restore reads what an earlier Run kept in k (the patterns stopped and,
// if k is a frontier.Recorder, the counts of the host budgets and of the
// query values) and registers, for this Run, what k is to keep: the
// patterns with each commit, the counts as Record writes them. The
// crawler's scheduler calls it before its loop, in each Run on a Keeper;
// a Guard reads the records once, the first time. A value k kept that
// does not decode is an error: the crawl's state is damaged, and guessing
// would spend a budget twice.
func (t *Guard) Restore(k frontier.Keeper) error {
	blocked := map[string][]string{}
	if _, err := frontier.KeptJSON(k, keptPatterns, &blocked); err != nil {
		return err
	}
	for host, pats := range blocked {
		for _, p := range pats {
			t.block(host, p)
		}
	}
	if rec, ok := k.(frontier.Recorder); ok && t.rec == nil {
		if err := t.restoreCounts(rec); err != nil {
			return err
		}
	}
	count := func() uint64 { return uint64(t.blockedCount()) }
	frontier.KeepJSON(k, keptPatterns, count(), count, t.blockedPatterns)
	return nil
}

// Record writes, with the step in progress of the frontier.Recorder that
// Restore was given, the counts that changed in the step. The crawler's
// scheduler calls it before each Commit. Without a Recorder it does
// nothing.
func (t *Guard) Record() {
	if t.rec == nil || len(t.dirty) == 0 {
		return
	}
	for host := range t.dirty {
		b := binary.AppendUvarint(nil, uint64(t.perHost[host]))
		t.rec.Record(keptHostURLs, xxh3.HashString(host), append(b, host...))
	}
	clear(t.dirty)
}

// queryValueRecord is the record of value hash v of the host and parameter
// name in key (host "\x00" name): v, big-endian, then key. Its id is its
// hash, so that writing it twice writes one record.
func queryValueRecord(key string, v uint64) []byte {
	return append(binary.BigEndian.AppendUint64(nil, v), key...)
}

// restoreCounts reads the counts rec kept, and has rec keep them from now
// on.
func (t *Guard) restoreCounts(rec frontier.Recorder) error {
	err := rec.Records(keptHostURLs, func(id uint64, b []byte) error {
		n, size := binary.Uvarint(b)
		if size <= 0 || size == len(b) || n > math.MaxInt32 {
			return fmt.Errorf("crawler: the frontier's record of a host's URLs (%x) is damaged", id)
		}
		t.perHost[string(b[size:])] = int(n)
		return nil
	})
	if err != nil {
		return err
	}
	err = rec.Records(keptQueryValues, func(id uint64, b []byte) error {
		if len(b) < 8 || !strings.Contains(string(b[8:]), "\x00") {
			return fmt.Errorf("crawler: the frontier's record of a query value (%x) is damaged", id)
		}
		key := string(b[8:])
		set := t.queryValues[key]
		if set == nil {
			set = map[uint64]struct{}{}
			t.queryValues[key] = set
		}
		set[binary.BigEndian.Uint64(b)] = struct{}{}
		return nil
	})
	if err != nil {
		return err
	}
	t.rec = rec
	return nil
}
