package graph

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"sync"

	"github.com/zeebo/xxh3"
)

// writeBuffer is the Writer's buffer: a process that dies loses at most
// this much of the last records it wrote, unless it called Flush.
const writeBuffer = 64 << 10

// A Writer streams a crawl's link graph to a file, one record per fetched
// page or redirect, in the format described in the package documentation.
//
// URLs are taken as given: a Writer does not canonicalize, so two
// spellings of one page are two nodes. Pass canonical URLs (as
// crawler/canon returns). A Writer names each distinct URL once, the first
// time it sees it, and keeps its fingerprint to recognize it later: about
// 14 to 21 bytes of memory per distinct URL (an 8-byte fingerprint per ID,
// a 4-byte slot of an open-addressing table kept 3/8 to 3/4 full, and
// slice growth), whatever the length of the URLs.
//
// A Writer is safe for concurrent use: calls are serialized. Records reach
// the underlying writer when its 64 KiB buffer fills, on Flush and on
// Close. The zero Writer is not usable: use NewWriter or Create.
type Writer struct {
	mu      sync.Mutex
	bw      *bufio.Writer
	file    *os.File // set by Create, closed by Close
	ids     idTable
	names   []byte   // scratch: the names of the record being built
	body    []byte   // scratch: the record's body
	frame   []byte   // scratch: the framed record
	targets []uint32 // scratch: the page's target IDs
	nNames  int      // names in names
	err     error    // sticky: a write failed, or the writer is closed
}

// NewWriter returns a Writer that writes a new file to w, beginning with
// the header. Close flushes it but does not close w.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, writeBuffer)
	bw.WriteString(header) // into the empty buffer: it cannot fail
	return &Writer{bw: bw, ids: newIDTable()}
}

// Create creates (or truncates) the file at path and returns a Writer to
// it. Close flushes the Writer and closes the file.
func Create(path string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := NewWriter(f)
	w.file = f
	return w, nil
}

// Page records a fetched page at url and its out-links: the URLs of its
// followed links, already resolved against the page and canonicalized, in
// any order; repeated links are recorded once, and empty strings are
// skipped. A page recorded again (a revisit) replaces its out-links, or
// its redirect: the reader keeps the last record of each URL.
//
// Page refuses an empty url, and, with ErrTooLarge and nothing written, a
// page whose record could exceed MaxRecordBytes: when len(url) plus the
// sum over links of len(link)+11 exceeds MaxRecordBytes-32. After a write
// error, Page returns that error.
func (w *Writer) Page(url string, links []string) error {
	if url == "" {
		return errors.New("graph: Page with an empty URL")
	}
	if size := recordBound(url, links); size > MaxRecordBytes-32 {
		return fmt.Errorf("%w: page %.100q with %d links needs up to %d bytes", ErrTooLarge, url, len(links), size)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.names, w.nNames = w.names[:0], 0
	src, err := w.id(url)
	if err != nil {
		return err
	}
	w.targets = w.targets[:0]
	for _, l := range links {
		if l == "" {
			continue
		}
		id, err := w.id(l)
		if err != nil {
			return err
		}
		w.targets = append(w.targets, id)
	}
	slices.Sort(w.targets)
	w.targets = slices.Compact(w.targets)

	b := w.start(kindPage)
	b = binary.AppendUvarint(b, uint64(src))
	b = binary.AppendUvarint(b, uint64(len(w.targets)))
	for i, t := range w.targets {
		if i == 0 {
			b = binary.AppendUvarint(b, zigzag(int64(t)-int64(src)))
		} else {
			b = binary.AppendUvarint(b, uint64(t-w.targets[i-1]-1))
		}
	}
	return w.emit(b)
}

// Redirect records that fetching from answered with a redirect to to (a
// URL resolved against from and canonicalized). The reader resolves links
// to from, through any chain of redirects, to the page the chain ends at,
// as a browser would land there; a chain that loops or ends at a URL that
// was not fetched resolves to nothing. Like a page, a redirect recorded
// again replaces the earlier record of from, page or redirect.
func (w *Writer) Redirect(from, to string) error {
	if from == "" || to == "" {
		return errors.New("graph: Redirect with an empty URL")
	}
	if size := recordBound(from, []string{to}); size > MaxRecordBytes-32 {
		return fmt.Errorf("%w: redirect %.100q needs up to %d bytes", ErrTooLarge, from, size)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.names, w.nNames = w.names[:0], 0
	src, err := w.id(from)
	if err != nil {
		return err
	}
	dst, err := w.id(to)
	if err != nil {
		return err
	}
	b := w.start(kindRedirect)
	b = binary.AppendUvarint(b, uint64(src))
	b = binary.AppendUvarint(b, uint64(dst))
	return w.emit(b)
}

// Flush writes the buffered records to the underlying writer.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if err := w.bw.Flush(); err != nil {
		w.err = err
		return err
	}
	return nil
}

// Close flushes the Writer and, if Create made it, closes the file. It
// does not sync the file to stable storage. Later calls, Close included,
// return ErrClosed.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == ErrClosed {
		return ErrClosed
	}
	err := w.err
	if err == nil {
		err = w.bw.Flush()
	}
	if w.file != nil {
		if cerr := w.file.Close(); err == nil {
			err = cerr
		}
	}
	w.err = ErrClosed
	w.ids = idTable{} // release the fingerprints
	return err
}

// recordBound is an upper bound of the body of a record of url and links:
// each URL costs its bytes, a length varint and a target varint; the
// counts and the ID of url add at most 32 bytes.
func recordBound(url string, links []string) int {
	n := len(url) + 11
	for _, l := range links {
		n += len(l) + 11
	}
	return n
}

// id returns the ID of URL u, naming it in the current record if the
// writer has not seen it before.
func (w *Writer) id(u string) (uint32, error) {
	id, added, ok := w.ids.add(xxh3.HashString(u))
	if !ok {
		w.err = fmt.Errorf("%w: more than %d URLs", ErrTooLarge, maxNames)
		return 0, w.err
	}
	if added {
		w.names = binary.AppendUvarint(w.names, uint64(len(u)))
		w.names = append(w.names, u...)
		w.nNames++
	}
	return id, nil
}

// start begins a record's body of the given kind with the names collected
// by id, and returns it for the caller to append the rest.
func (w *Writer) start(kind byte) []byte {
	b := append(w.body[:0], kind)
	b = binary.AppendUvarint(b, uint64(w.nNames))
	return append(b, w.names...)
}

// emit frames body and writes it. Scratch space grown past 1 MiB by a
// huge page is let go.
func (w *Writer) emit(body []byte) error {
	w.body = body
	w.frame = appendRecord(w.frame[:0], body)
	_, err := w.bw.Write(w.frame)
	if cap(w.frame) > 1<<20 {
		w.names, w.body, w.frame, w.targets = nil, nil, nil, nil
	}
	if err != nil {
		w.err = err
		return err
	}
	return nil
}

// An idTable maps the fingerprints of the URLs a Writer has named to their
// IDs, 0, 1, 2, ... in naming order. It stores each fingerprint once, in
// fps, and an open-addressing table (linear probing) of ID+1 in slots, so
// it costs 8 + 4/load bytes per URL. Fingerprints are scattered over the
// slots by a random odd multiplier, so that URLs crafted to share their
// low fingerprint bits do not pile up.
type idTable struct {
	fps   []uint64
	slots []uint32 // ID+1, or 0 for an empty slot; a power of 2 long
	shift uint     // 64 - log2(len(slots))
	mul   uint64
}

func newIDTable() idTable {
	t := idTable{mul: rand.Uint64() | 1}
	t.resize(1 << 10)
	return t
}

// add returns the ID of fp, adding it if it is new (added). ok is false
// when the table is full (maxNames IDs) and fp is not in it.
func (t *idTable) add(fp uint64) (id uint32, added, ok bool) {
	id, slot, found := t.find(fp)
	if found {
		return id, false, true
	}
	if len(t.fps) >= maxNames {
		return 0, false, false
	}
	if 4*(len(t.fps)+1) > 3*len(t.slots) {
		t.resize(2 * len(t.slots))
		_, slot, _ = t.find(fp)
	}
	id = uint32(len(t.fps))
	t.fps = append(t.fps, fp)
	t.slots[slot] = id + 1
	return id, true, true
}

// find returns the ID of fp if it is in the table, or else the empty slot
// where it would go.
func (t *idTable) find(fp uint64) (id uint32, slot uint64, found bool) {
	mask := uint64(len(t.slots) - 1)
	for i := (fp * t.mul) >> t.shift; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return 0, i, false
		}
		if t.fps[s-1] == fp {
			return s - 1, i, true
		}
	}
}

// resize makes the table n slots long (a power of 2) and reinserts the IDs.
func (t *idTable) resize(n int) {
	t.slots = make([]uint32, n)
	t.shift = uint(64 - bits.Len(uint(n-1)))
	mask := uint64(n - 1)
	for id, fp := range t.fps {
		i := (fp * t.mul) >> t.shift
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = uint32(id) + 1
	}
}

// Resume returns a Writer that goes on with the file whose bytes so far
// prior holds: it names no URL prior named again, and writes no header,
// only the records that follow, to w, which must take them after prior's
// bytes (a file opened for appending, cut back to the end of prior). So a
// crawl that resumes adds to its graph file, and the file reads as if one
// Writer had written it all: the same bytes.
//
// prior must be a whole file, a header and whole records: one that ends
// within a record fails with ErrTruncated, and Read's other errors apply.
// Resume reads all of prior, and keeps its fingerprints as Page does.
func Resume(w io.Writer, prior io.Reader) (*Writer, error) {
	d := decoder{r: bufio.NewReaderSize(prior, 64<<10)}
	err := d.header()
	for err == nil {
		err = d.record()
	}
	if err != io.EOF {
		return nil, err
	}
	gw := &Writer{bw: bufio.NewWriterSize(w, writeBuffer), ids: newIDTable()}
	for _, fp := range d.fps {
		if _, added, ok := gw.ids.add(fp); !added || !ok {
			return nil, fmt.Errorf("%w: URL fingerprint %#x named twice", ErrCorrupt, fp)
		}
	}
	return gw, nil
}
