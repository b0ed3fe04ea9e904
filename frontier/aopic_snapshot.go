package frontier

import (
	"bytes"
	"crawler/internal/urlform"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"time"
)

// A snapshot of an AOPIC (AOPIC.AppendSnapshot) is, all integers uvarints
// unless said otherwise and all floats IEEE 754 bits as 8 little-endian
// bytes:
//
//	magic      "AOPC", then the version (1)
//	lambda, received  floats
//	hosts      count, then for each host, in order of first Push:
//	  name       length and bytes
//	  readyAt    byte 0 (zero time), or byte 1, varint Unix seconds and
//	             uvarint nanoseconds
//	  records    count, then that many records of its pages, in their
//	             order of Push, as aopicHost.keep writes them (a
//	             referrer given by a back reference is the one written
//	             last before it, in this list)
//	pages      count, then for each page, in order of first Push:
//	  flags      byte: state (0 waiting, 1 fetched, 2 redirect) |
//	             4 if credit follows | 8 if history follows
//	  FP         8 little-endian bytes
//	  host       index into hosts
//	  credit     float, if flagged (else 0); only a waiting page has any
//	  history    float, if flagged (else 0)
//	  target     8 little-endian bytes: the FP a redirect leads to
//
// A page handed out and not yet Done is saved as waiting, with its credit.
// Credits are the pages' own: the pots of the hosts and lambda's lift are
// folded into them before they are written, and restored as 0. Hosts'
// in-flight counts are not saved (nothing is out after a Restore), nor
// the settings PerHost and Tax.
const (
	snapshotMagic   = "AOPC"
	snapshotVersion = 1
)

// Values of the state in a page's flags in a snapshot, and the bits that
// say which floats follow.
const (
	snapWaiting  = 0
	snapFetched  = 1
	snapRedirect = 2
	snapState    = 3
	snapCredit   = 4
	snapHistory  = 8
)

// AppendSnapshot appends to dst the state of a, that matters for the order
// of its pages and their importance, and returns the extended slice, so
// that a crawl can checkpoint its credits and resume with them
// ([AOPIC.Restore]). A page handed out and not Done is saved as waiting:
// after a restart it must be fetched again. The encoding is versioned and
// compact: a page takes 11 to 28 bytes (36 for a redirect) and its record,
// its URL past the host and about 6 bytes; 36 bytes a page in all in
// BenchmarkAOPICSnapshot, written in about 90 ns a page.
//
// Before it writes, AppendSnapshot folds the credit that a host passes on
// to its waiting pages and lambda's spreads into each page's own (O(n) for
// n known pages, exact up to rounding), so that a and an AOPIC restored
// from the snapshot hold the same floats and, given the same calls, go on
// alike bit for bit, once a's pages out are given back.
func (a *AOPIC) AppendSnapshot(dst []byte) []byte {
	a.settle()
	size := len(snapshotMagic) + 1 + 16 + 28*len(a.pages)
	for _, h := range a.hosts {
		size += len(h.name) + len(h.records) + 16
	}
	dst = slices.Grow(dst, size)
	dst = append(dst, snapshotMagic...)
	dst = binary.AppendUvarint(dst, snapshotVersion)
	dst = appendFloat(dst, a.lambda)
	dst = appendFloat(dst, a.received)

	// The pages of each host, in order: byHost[start[h]:start[h+1]].
	start := make([]int, len(a.hosts)+1)
	for i := range a.pages {
		start[a.pages[i].host+1]++
	}
	for h := range a.hosts {
		start[h+1] += start[h]
	}
	byHost := make([]int32, len(a.pages))
	next := slices.Clone(start[:len(a.hosts)])
	for i := range a.pages {
		h := a.pages[i].host
		byHost[next[h]] = int32(i)
		next[h]++
	}

	dst = binary.AppendUvarint(dst, uint64(len(a.hosts)))
	for hi, h := range a.hosts {
		dst = appendString(dst, h.name)
		dst = appendTime(dst, h.readyAt)
		pages := byHost[start[hi]:start[hi+1]]
		dst = binary.AppendUvarint(dst, uint64(len(pages)))
		lastRef := -1
		for _, i := range pages {
			dst = copyRecord(dst, &lastRef, h.records, int(a.pages[i].rec))
		}
	}

	dst = binary.AppendUvarint(dst, uint64(len(a.pages)))
	for i := range a.pages {
		p := &a.pages[i]
		flags := byte(snapWaiting)
		var target uint64
		if p.fetched() {
			flags = snapFetched
			if t, ok := a.redirects[int32(i)]; ok {
				flags, target = snapRedirect, t
			}
		}
		if p.credit != 0 && !p.fetched() {
			flags |= snapCredit
		}
		if p.history != 0 {
			flags |= snapHistory
		}
		dst = append(dst, flags)
		dst = binary.LittleEndian.AppendUint64(dst, p.fp)
		dst = binary.AppendUvarint(dst, uint64(p.host))
		if flags&snapCredit != 0 {
			dst = appendFloat(dst, p.credit)
		}
		if flags&snapHistory != 0 {
			dst = appendFloat(dst, p.history)
		}
		if flags&snapState == snapRedirect {
			dst = binary.LittleEndian.AppendUint64(dst, target)
		}
	}
	return dst
}

// settle folds into the stored credit of every waiting page what its host's
// pot and lambda's lift hold for it, and sets pots and lift to 0: the state
// Restore makes. Rounding can make credits that differed equal, which ties
// break otherwise, so the heaps are built again. O(n + h).
func (a *AOPIC) settle() {
	for _, h := range a.hosts {
		lifted := a.lifted(h)
		for _, i := range h.pages {
			p := &a.pages[i]
			p.credit = p.credit + h.pot + lifted
		}
		h.pot, h.liftMark = 0, 0
		for k := len(h.pages)/2 - 1; k >= 0; k-- {
			a.pageDown(h, k)
		}
	}
	a.lift = 0
	heaps := []*aopicHostHeap{&a.waiting}
	for k := range a.ready {
		heaps = append(heaps, &a.ready[k])
	}
	for _, hh := range heaps {
		for k := hh.len()/2 - 1; k >= 0; k-- {
			a.hostDown(hh, k)
		}
	}
}

// copyRecord appends the record at src[off:], written by aopicHost.keep, to
// dst, as keep would have written it after the record whose referrer was
// written at dst[*lastRef:] (-1: none).
func copyRecord(dst []byte, lastRef *int, src []byte, off int) []byte {
	_, _, n := urlAt(src, off)
	m := n
	for range 3 {
		_, k := binary.Varint(src[m:])
		m += k
	}
	dst = append(dst, src[off:m]...) // URL, Depth, Hops, Tries
	d, k := binary.Uvarint(src[m:])
	ref := m + k
	if d > 0 {
		ref = m - int(d)
	}
	_, _, end := urlAt(src, ref)
	refURL := src[ref:end]
	if *lastRef >= 0 && bytes.HasPrefix(dst[*lastRef:], refURL) {
		return binary.AppendUvarint(dst, uint64(len(dst)-*lastRef))
	}
	dst = append(dst, 0)
	*lastRef = len(dst)
	return append(dst, refURL...)
}

// Restore makes a, empty, the AOPIC whose state b holds, as written by
// [AOPIC.AppendSnapshot], so that a resumed crawl keeps its credits: from
// then on a behaves as the snapshotted AOPIC would have had every page it
// had out been given back (Done with Retry): the same Len, Importance, Top
// and, given the same calls (their times not going back), the same
// entries from Next. a's PerHost, Tax and LimitHosts are its own: set
// them before (or call LimitHosts after).
// Hosts in flight are not restored; a host's readyAt is, by its wall
// clock. An error (a not empty, b truncated, corrupt or of another
// version) leaves a as it was.
//
// A store that keeps waiting URLs durably, and checkpoints credits less
// often, reconciles the two after a Restore: it Pushes every URL it holds
// waiting (Push ignores those already waiting), then calls
// [AOPIC.Reconcile] for the pages fetched since the checkpoint.
func (a *AOPIC) Restore(b []byte) error {
	if len(a.pages) > 0 || len(a.hosts) > 0 {
		return errors.New("frontier: AOPIC snapshot: Restore into an AOPIC that is not empty")
	}
	var r AOPIC
	waiting, err := r.decode(b)
	if err != nil {
		return fmt.Errorf("frontier: AOPIC snapshot: %w", err)
	}
	r.PerHost, r.Tax, r.limit = a.PerHost, a.Tax, a.limit
	for _, h := range r.hosts {
		h.limit = hostLimit(r.limit, h.name)
	}
	*a = r // before any heap points into a
	a.initHeaps()
	for _, i := range waiting {
		p := &a.pages[i]
		a.enqueue(i, p.credit, p.history)
	}
	return nil
}

// decode reads snapshot b into a, empty: everything but the heaps, and
// returns the waiting pages, whose credit and history are their pages'.
func (a *AOPIC) decode(b []byte) (waiting []int32, err error) {
	d := decoder{b: b}
	if !bytes.HasPrefix(b, []byte(snapshotMagic)) {
		return nil, errors.New("not a snapshot (no magic)")
	}
	d.off = len(snapshotMagic)
	if v := d.uvarint("version"); d.err == nil && v != snapshotVersion {
		return nil, fmt.Errorf("version %d, want %d", v, snapshotVersion)
	}
	a.lambda = d.float("lambda")
	a.received = d.float("received")

	// Hosts, and their records: recs[first[h]:first[h+1]] are the offsets
	// of host h's, to give its pages in order.
	nHosts := d.count("hosts", 3)
	a.byName = make(map[string]int32, nHosts)
	var recs []uint32
	first := make([]int, 0, nHosts+1)
	for hi := 0; hi < nHosts && d.err == nil; hi++ {
		h := &aopicHost{name: string(d.bytes("host name")), index: -1}
		if _, dup := a.byName[h.name]; dup && d.err == nil {
			return nil, fmt.Errorf("host %q twice", h.name)
		}
		a.byName[h.name] = int32(hi)
		h.readyAt = d.time("host readyAt")
		first = append(first, len(recs))
		n := d.count("records", 6)
		recs, h.records, h.lastRef = d.records(recs, n)
		a.hosts = append(a.hosts, h)
	}
	first = append(first, len(recs))
	used := make([]int, nHosts) // records given to pages, by host

	nPages := d.count("pages", 10)
	if nPages >= math.MaxInt32 {
		return nil, fmt.Errorf("%d pages, more than an AOPIC holds", nPages)
	}
	if d.err == nil {
		a.pages = make([]page, 0, nPages)
		a.seed = maphash.MakeSeed()
		a.index = make([]int32, max(1<<10, 1<<bitsFor(2*nPages)))
	}
	for i := int32(0); int(i) < nPages && d.err == nil; i++ {
		at := d.off
		flags := d.byte("page flags")
		p := page{fp: d.fixed64("page FP"), pos: posFetched}
		hi := d.uvarint("page host")
		if flags&snapCredit != 0 {
			p.credit = d.float("page credit")
		}
		if flags&snapHistory != 0 {
			p.history = d.float("page history")
		}
		if d.err != nil {
			break
		}
		state := flags & snapState
		switch {
		case flags&^(snapState|snapCredit|snapHistory) != 0 || state > snapRedirect:
			return nil, fmt.Errorf("page at byte %d: flags %#x", at, flags)
		case hi >= uint64(nHosts):
			return nil, fmt.Errorf("page at byte %d: host %d of %d", at, hi, nHosts)
		case state != snapWaiting && p.credit != 0:
			return nil, fmt.Errorf("page at byte %d: fetched, with credit", at)
		case used[hi] == first[hi+1]-first[hi]:
			return nil, fmt.Errorf("page at byte %d: more pages than records of host %q", at, a.hosts[hi].name)
		}
		if _, dup := a.find(p.fp); dup {
			return nil, fmt.Errorf("page at byte %d: FP %#x twice", at, p.fp)
		}
		p.host = int32(hi)
		p.rec = recs[first[hi]+used[hi]]
		used[hi]++
		switch state {
		case snapWaiting:
			waiting = append(waiting, i)
		case snapRedirect:
			if a.redirects == nil {
				a.redirects = map[int32]uint64{}
			}
			a.redirects[i] = d.fixed64("redirect target")
		}
		a.pages = append(a.pages, p)
		a.put(i)
	}
	if d.err != nil {
		return nil, d.err
	}
	for hi, h := range a.hosts {
		if used[hi] != first[hi+1]-first[hi] {
			return nil, fmt.Errorf("host %q: %d records, %d pages", h.name, first[hi+1]-first[hi], used[hi])
		}
	}
	if d.off != len(b) {
		return nil, fmt.Errorf("%d bytes after the pages", len(b)-d.off)
	}
	return waiting, nil
}

// bitsFor returns the number of bits that n takes: 1<<bitsFor(n) > n.
func bitsFor(n int) int {
	k := 0
	for n>>k > 0 {
		k++
	}
	return k
}

// initHeaps sets up the host heaps of a new AOPIC.
func (a *AOPIC) initHeaps() {
	a.waiting.byReadyAt = true
	for k := range a.ready {
		a.ready[k].group = k
	}
}

// Reconcile marks fetched every waiting page for which stillWaiting
// reports false, and reports how many it marked. It is for a crawl that
// resumes from a checkpoint of credits older than its durable queue (see
// [AOPIC.Restore]): stillWaiting reports whether the queue still holds
// fp, and a page it no longer holds was fetched after the checkpoint. Such
// a page's credit goes to lambda, as a page's without links would: the
// pages it linked to were pushed again by the store, with no credit, and
// lambda's spread gives them their share, so that credit still sums to the
// number of seeds. Its history stays. Pages handed out are left alone.
// stillWaiting must not call a's methods.
// Cost: O(n) calls of stillWaiting for n known pages, and O(log n + log h)
// for each page marked.
func (a *AOPIC) Reconcile(stillWaiting func(fp uint64) bool) int {
	marked := 0
	for i := range int32(len(a.pages)) {
		p := &a.pages[i]
		if !p.waiting() || stillWaiting(p.fp) {
			continue
		}
		h := a.hosts[p.host]
		if h.heap != nil {
			a.hostRemove(h.heap, h)
		}
		a.unweigh(h)
		a.lambda += p.credit + h.pot
		a.removePage(h, int(p.pos))
		p.credit, p.pos = 0, posFetched
		a.n--
		a.weigh(h)
		a.schedule(h)
		marked++
	}
	return marked
}

// removePage takes the page at position k out of h's heap.
func (a *AOPIC) removePage(h *aopicHost, k int) {
	last := len(h.pages) - 1
	if k != last {
		a.pageSwap(h, k, last)
	}
	h.pages = h.pages[:last]
	if k != last {
		a.pageDown(h, k)
		a.pageUp(h, k)
	}
}

func appendFloat(dst []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
}

// appendTime appends t as a snapshot keeps it: its wall clock only.
func appendTime(dst []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(dst, 0)
	}
	dst = append(dst, 1)
	dst = binary.AppendVarint(dst, t.Unix())
	return binary.AppendUvarint(dst, uint64(t.Nanosecond()))
}

// decoder reads a snapshot; its first error sticks, and later reads return
// zero values.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%s at byte %d: truncated or corrupt", what, d.off)
	}
}

func (d *decoder) byte(what string) byte {
	if d.err != nil || d.off >= len(d.b) {
		d.fail(what)
		return 0
	}
	d.off++
	return d.b[d.off-1]
}

func (d *decoder) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, k := binary.Uvarint(d.b[d.off:])
	if k <= 0 {
		d.fail(what)
		return 0
	}
	d.off += k
	return v
}

func (d *decoder) varint(what string) int64 {
	if d.err != nil {
		return 0
	}
	v, k := binary.Varint(d.b[d.off:])
	if k <= 0 {
		d.fail(what)
		return 0
	}
	d.off += k
	return v
}

func (d *decoder) fixed64(what string) uint64 {
	if d.err != nil || len(d.b)-d.off < 8 {
		d.fail(what)
		return 0
	}
	d.off += 8
	return binary.LittleEndian.Uint64(d.b[d.off-8:])
}

// float reads a credit or a history: finite, and not negative.
func (d *decoder) float(what string) float64 {
	at := d.off
	f := math.Float64frombits(d.fixed64(what))
	if d.err == nil && !(f >= 0 && f <= math.MaxFloat64) {
		d.err = fmt.Errorf("%s at byte %d: %v", what, at, f)
		return 0
	}
	return f
}

// count reads a count of items that each take at least size bytes, and
// checks that the rest of the snapshot can hold them, so that a corrupt
// count allocates nothing much.
func (d *decoder) count(what string, size int) int {
	n := d.uvarint(what)
	if d.err == nil && n > uint64((len(d.b)-d.off)/size) {
		d.err = fmt.Errorf("%s at byte %d: %d, more than the %d bytes left hold", what, d.off, n, len(d.b)-d.off)
		return 0
	}
	return int(n)
}

func (d *decoder) bytes(what string) []byte {
	n := d.uvarint(what)
	if d.err == nil && n > uint64(len(d.b)-d.off) {
		d.fail(what)
	}
	if d.err != nil {
		return nil
	}
	d.off += int(n)
	return d.b[d.off-int(n) : d.off]
}

func (d *decoder) time(what string) time.Time {
	switch d.byte(what) {
	case 0:
		return time.Time{}
	case 1:
		s := d.varint(what)
		ns := d.uvarint(what)
		if ns >= 1e9 {
			d.fail(what)
		}
		return time.Unix(s, int64(ns))
	}
	d.fail(what)
	return time.Time{}
}

// records reads n records, as aopicHost.keep writes them, appends their
// offsets to recs, and returns them with a copy of the records and the
// offset of the referrer written last (-1: none), which a back reference
// must point to.
func (d *decoder) records(recs []uint32, n int) ([]uint32, []byte, int) {
	start, lastRef := d.off, -1
	for range n {
		if d.err != nil {
			return recs, nil, -1
		}
		if d.off-start > math.MaxUint32 {
			d.err = fmt.Errorf("record at byte %d: a host's records pass 4 GiB", d.off)
			return recs, nil, -1
		}
		recs = append(recs, uint32(d.off-start))
		d.url("record URL")
		d.varint("record Depth")
		d.varint("record Hops")
		d.varint("record Tries")
		at := d.off
		back := d.uvarint("record Referrer")
		switch {
		case d.err != nil:
		case back == 0:
			lastRef = d.off - start
			d.url("record Referrer")
		case lastRef < 0 || back != uint64(at-start-lastRef):
			d.err = fmt.Errorf("record Referrer at byte %d: refers back %d bytes, not to the referrer written last", at, back)
		}
	}
	if d.err != nil {
		return recs, nil, -1
	}
	return recs, bytes.Clone(d.b[start:d.off]), lastRef
}

// url reads a URL as appendURL writes it.
func (d *decoder) url(what string) {
	if form := d.byte(what); form > urlform.HTTPS {
		d.fail(what)
	}
	d.bytes(what)
}
