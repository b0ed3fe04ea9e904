package revisit

import (
	"encoding/binary"
	"errors"
	"math"
	"time"
)

// The record of a page revisited: a format byte, flags (1: queued, 2: a
// resource; a record of a build before resources has no 2), the
// depth, the URL and validators (uvarint lengths), the content
// fingerprint, the due and last visit times (Unix milliseconds, varint),
// and the visits kept: uvarint(interval in ms << 1 | changed) each, the
// interval 1 ms or more.
const visitedFormat = 1

func encodeVisited(p *visited, last time.Time, visits []Visit) []byte {
	b := make([]byte, 0, 48+len(p.url)+len(p.etag)+len(p.lastModified)+3*len(visits))
	flags := byte(0)
	if p.queued {
		flags |= 1
	}
	if p.resource {
		flags |= 2
	}
	b = append(b, visitedFormat, flags)
	b = binary.AppendUvarint(b, uint64(p.depth))
	for _, s := range []string{p.url, p.etag, p.lastModified} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.BigEndian.AppendUint64(b, p.content)
	b = binary.AppendVarint(b, p.due.UnixMilli())
	b = binary.AppendVarint(b, last.UnixMilli())
	n := 0
	for _, vis := range visits {
		if vis.Interval.Milliseconds() > 0 {
			n++
		}
	}
	b = binary.AppendUvarint(b, uint64(n))
	for _, vis := range visits {
		if vis.Interval.Milliseconds() <= 0 {
			continue // a first visit's age, or an interval below the record's millisecond: not kept
		}
		x := uint64(vis.Interval.Milliseconds()) << 1
		if vis.Changed {
			x |= 1
		}
		b = binary.AppendUvarint(b, x)
	}
	return b
}

var errBadRecord = errors.New("not a valid record")

// maxVisit is the largest visit a record holds: the longest
// time.Duration, in milliseconds, shifted for the changed bit.
const maxVisit = uint64(math.MaxInt64/int64(time.Millisecond))<<1 | 1

func decodeVisited(b []byte) (p *visited, last time.Time, visits []Visit, err error) {
	if len(b) < 2 || b[0] != visitedFormat || b[1] > 3 {
		return nil, time.Time{}, nil, errBadRecord
	}
	d := decoder{b: b[2:]}
	p = &visited{queued: b[1]&1 != 0, resource: b[1]&2 != 0}
	p.depth = int(d.uvarint(math.MaxInt32))
	p.url, p.etag, p.lastModified = d.string(), d.string(), d.string()
	p.content = d.uint64()
	p.due = time.UnixMilli(d.varint())
	last = time.UnixMilli(d.varint())
	n := d.uvarint(math.MaxInt32)
	if n > uint64(len(d.b)) { // each visit takes a byte at least
		d.bad, d.b, n = true, nil, 0
	}
	for range n {
		x := d.uvarint(maxVisit)
		if x>>1 == 0 {
			continue // no interval: not a visit (a build before kept those below a millisecond as 0)
		}
		visits = append(visits, Visit{Interval: time.Duration(x>>1) * time.Millisecond, Changed: x&1 == 1})
	}
	if d.bad || len(d.b) != 0 || p.url == "" {
		return nil, time.Time{}, nil, errBadRecord
	}
	return p, last, visits, nil
}

// decoder reads a record; bad says it was cut short or out of bounds.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint(limit uint64) uint64 {
	x, n := binary.Uvarint(d.b)
	if n <= 0 || x > limit {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) varint() int64 {
	x, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) string() string {
	n := d.uvarint(math.MaxInt32)
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) uint64() uint64 {
	if len(d.b) < 8 {
		d.bad, d.b = true, nil
		return 0
	}
	x := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return x
}
