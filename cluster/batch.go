package cluster

import (
	"encoding/binary"
	"errors"
	"time"

	"crawler/canon"
	"crawler/frontier"
)

// batchVersion is the first byte of every batch of links: a node of
// another version refuses it rather than misread it.
const batchVersion = 1

// appendLink appends e to a batch (started with batchVersion) as whether
// it was queued, its URL, depth, hops, tries and referrer. The receiver
// recomputes the URL's fingerprint and host, which are functions of the
// URL. A queued entry was in a node's frontier, past the URL-seen test
// (handed over with its partition): the receiver queues it as it is. A
// link was not tested yet.
func appendLink(b []byte, e frontier.Entry, queued bool) []byte {
	if len(b) == 0 {
		b = append(b, batchVersion)
	}
	flag := byte(0)
	if queued {
		flag = 1
	}
	b = append(b, flag)
	b = binary.AppendUvarint(b, uint64(len(e.URL)))
	b = append(b, e.URL...)
	b = binary.AppendUvarint(b, uint64(e.Depth))
	b = binary.AppendUvarint(b, uint64(e.Hops))
	b = binary.AppendUvarint(b, uint64(e.Tries))
	b = binary.AppendUvarint(b, uint64(len(e.Referrer)))
	return append(b, e.Referrer...)
}

// appendSeen appends to a batch the fingerprint of a URL a node has seen
// in a partition it hands over: the receiver marks it seen.
func appendSeen(b []byte, fp uint64) []byte {
	if len(b) == 0 {
		b = append(b, batchVersion)
	}
	b = append(b, 2)
	return binary.BigEndian.AppendUint64(b, fp)
}

// appendHold appends to a batch a host of a partition handed over and the
// time before which it may not be contacted: its pacing goes with it.
func appendHold(b []byte, host string, at time.Time) []byte {
	if len(b) == 0 {
		b = append(b, batchVersion)
	}
	b = append(b, 3)
	b = binary.AppendUvarint(b, uint64(len(host)))
	b = append(b, host...)
	return binary.BigEndian.AppendUint64(b, uint64(at.UnixNano()))
}

// hold is a host's pacing, handed over.
type hold struct {
	host string
	at   time.Time
}

var errBatch = errors.New("cluster: malformed batch of links")

// batchMark is where a batch's contents end: undo removes what was
// decoded after it.
type batchMark struct{ links, queued, seen, holds int }

// batch is a decoded batch: links to test, entries to queue, fingerprints
// to mark seen.
type batch struct {
	links, queued []frontier.Entry
	seen          []uint64
	holds         []hold
}

// mark returns where d's contents end.
func (d *batch) mark() batchMark {
	return batchMark{len(d.links), len(d.queued), len(d.seen), len(d.holds)}
}

// undo removes the contents decoded after m.
func (d *batch) undo(m batchMark) {
	d.links, d.queued, d.seen, d.holds = d.links[:m.links], d.queued[:m.queued], d.seen[:m.seen], d.holds[:m.holds]
}

// decode appends the contents of batch b to d; on an error, d is
// unchanged.
func (d *batch) decode(b []byte) error {
	if len(b) == 0 || b[0] != batchVersion {
		return errBatch
	}
	links, queued, seen, holds := d.links, d.queued, d.seen, d.holds
	b = b[1:]
	num := func() (int, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > 1<<31 {
			return 0, false
		}
		b = b[n:]
		return int(v), true
	}
	str := func() (string, bool) {
		n, ok := num()
		if !ok || n > len(b) {
			return "", false
		}
		s := string(b[:n])
		b = b[n:]
		return s, true
	}
	for len(b) > 0 {
		flag := b[0]
		b = b[1:]
		if flag == 3 {
			n, k := binary.Uvarint(b)
			if k <= 0 || n > uint64(len(b)-k) || len(b)-k-int(n) < 8 {
				return errBatch
			}
			host := string(b[k : k+int(n)])
			b = b[k+int(n):]
			holds = append(holds, hold{host, time.Unix(0, int64(binary.BigEndian.Uint64(b)))})
			b = b[8:]
			continue
		}
		if flag == 2 {
			if len(b) < 8 {
				return errBatch
			}
			seen = append(seen, binary.BigEndian.Uint64(b))
			b = b[8:]
			continue
		}
		var e frontier.Entry
		var ok [5]bool
		e.URL, ok[0] = str()
		e.Depth, ok[1] = num()
		e.Hops, ok[2] = num()
		e.Tries, ok[3] = num()
		e.Referrer, ok[4] = str()
		if ok != [5]bool{true, true, true, true, true} || e.URL == "" || flag > 1 {
			return errBatch
		}
		e.FP, e.Host = canon.Fingerprint(e.URL), canon.Host(e.URL)
		if flag == 1 {
			queued = append(queued, e)
		} else {
			links = append(links, e)
		}
	}
	d.links, d.queued, d.seen, d.holds = links, queued, seen, holds
	return nil
}
