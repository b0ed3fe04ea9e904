package warc

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/flate"

	"crawler/fetch"
)

// DefaultMaxFileBytes is the size at which a [Writer] starts a new file
// unless its Options say otherwise: 1 GiB, about the 1 GB the WARC
// standard suggests.
const DefaultMaxFileBytes = 1 << 30

// DefaultPrefix begins the name of a [Writer]'s files unless its Options
// say otherwise.
const DefaultPrefix = "crawl"

// Software is what a [Writer]'s warcinfo records give as "software".
const Software = "crawler/0.1"

// ErrClosed is returned by [Writer.Record] and [Writer.Sync] after Close.
var ErrClosed = errors.New("warc: writer closed")

// Options configure a [Writer]. The zero value is ready to use.
type Options struct {
	// Prefix begins each file's name: PREFIX-YYYYMMDDhhmmss-NNNNN.warc.gz
	// (see the package doc). "" means [DefaultPrefix]. It must not hold a
	// path separator.
	Prefix string

	// MaxFileBytes is the size a file may reach: an exchange that would
	// take the current file past it goes into a new file (an exchange
	// larger than it alone goes into a file of its own, whatever its
	// size). 0 means [DefaultMaxFileBytes]; negative means one file,
	// never rotated.
	MaxFileBytes int64

	// Info are fields for each file's warcinfo record, written after
	// "software: crawler/0.1", "format: WARC File Format 1.1" and
	// "conformsTo: <the WARC 1.1 URL>"; a field named like one of those
	// replaces it. Typical are "operator", "robots" ("obey"),
	// "http-header-user-agent", "isPartOf" (the crawl's name) and
	// "description". Names must be tokens and values one line.
	Info []Field

	// Compressors is how many goroutines compress records beside the
	// callers of Record (see [Writer.Record]). 0 means
	// [DefaultCompressors]; negative means none: each Record compresses
	// and writes its exchange before it returns.
	Compressors int
}

// DefaultCompressors is how many goroutines compress a [Writer]'s records
// unless its Options say otherwise: GOMAXPROCS, at most 4.
func DefaultCompressors() int { return min(runtime.GOMAXPROCS(0), 4) }

// queuedPerCompressor is how many exchanges may be taken and not yet
// written, for each compressor, before Record blocks: enough that a burst
// of fetchers finishing at once seldom waits (at 5 ms a page, 4 held the
// crawl back). It bounds those waiting in the queue and those compressed
// and waiting for their turn to be written alike.
const queuedPerCompressor = 32

// maxQueuedBytes is the largest exchange Record queues; a larger one is
// compressed on the caller's goroutine, so that what waits in the queue
// stays bounded: queuedPerCompressor × Compressors × 256 KiB, 16 MiB with
// two compressors, a few hundred KiB for pages of some KiB.
const maxQueuedBytes = 256 << 10

// bufferBytes is how many bytes of records a Writer holds before it
// writes them to its file in one write: fewer, larger writes, where one a
// page, made under the Writer's lock, held the compressors back.
const bufferBytes = 64 << 10

// maxStale bounds how long a record waits in a Writer's buffer, so that
// the records of a slow crawl reach the file soon too.
const maxStale = 100 * time.Millisecond

// Writer writes the exchanges of a fetcher to WARC 1.1 files in a
// directory, as request and response (or revisit) records. It is a
// [fetch.Recorder]: set it as a fetcher's Recorder.
//
// A Writer is safe for concurrent use. It opens its first file at the
// first Record and a new one on rotation, and starts its compressors at
// the first Record; the caller must call Close (which syncs, and stops
// them) when done.
type Writer struct {
	dir      string
	prefix   string
	maxBytes int64 // negative: never rotate
	info     []byte

	queue       chan job      // to the compressors; nil if there are none
	slots       chan struct{} // one for each queued exchange not yet written: the bound of the queue and of ready
	compressors int
	start       sync.Once
	workers     sync.WaitGroup

	flushMu sync.Mutex // held by flush and Close, so that each waits for the records before it
	qmu     sync.Mutex // guards the fields below to err; never held while taking mu
	nextSeq uint64
	pending *sync.WaitGroup // the records taken since the last flush began, until written
	closing bool
	err     error // the first write error: every later call fails with it

	mu        sync.Mutex
	f         *os.File               // current file, named path+openSuffix; nil before the first and after rotation
	path      string                 // the current file's name once closed
	size      int64                  // bytes in f and buf
	buf       []byte                 // records placed in turn, not yet written to f; empty when f is nil
	stale     *time.Timer            // drains buf maxStale after it was last empty; nil until first needed
	exchanges int                    // exchanges in f and buf
	infoID    atomic.Pointer[string] // the warcinfo record ID of f, or of the next file if f is nil; set under mu, read by encode without it
	seq       int                    // the next file's sequence number
	files     []string
	dirDirty  bool // files created since the directory was last synced
	closed    bool
	next      uint64            // the sequence number of the next exchange to write
	ready     map[uint64]encJob // exchanges encoded before their turn
}

// A job is an exchange taken by Record, numbered in the order Record took
// it: the Writer writes exchanges in that order.
type job struct {
	x       *fetch.Exchange
	seq     uint64
	pending *sync.WaitGroup // done once written (or dropped)
	slot    bool            // it holds one of the Writer's slots, given back once written (or dropped)
	done    chan error      // if not nil, given the write's error, for a Record that waits
}

// An encJob is a job with its records encoded, in out, for the file of
// warcinfo record infoID.
type encJob struct {
	job
	out    *bytes.Buffer
	infoID string
}

// outBufs holds the buffers of encJobs. A compressor keeps its encoder (a
// flate.Writer is costly to make) and hands on a copy of its output.
var outBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

var _ fetch.Recorder = (*Writer)(nil)

// NewWriter returns a Writer of files in dir, which must exist. It
// creates no file yet. Its files are numbered after the highest number
// of the files with the same prefix already in dir, so a resumed crawl
// adds files; no file is ever overwritten. A file of the prefix that a
// crashed Writer left named ".open" is repaired ([Repair]) and named (see
// the package doc on crashes).
func NewWriter(dir string, opts Options) (*Writer, error) {
	prefix := opts.Prefix
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if strings.ContainsAny(prefix, `/\`) || prefix == "." || prefix == ".." || prefix != filepath.Base(prefix) {
		return nil, fmt.Errorf("warc: Prefix %q is not a file name", prefix)
	}
	maxBytes := opts.MaxFileBytes
	if maxBytes == 0 {
		maxBytes = DefaultMaxFileBytes
	}
	info, err := infoBlock(opts.Info)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("warc: %w", err)
	}
	seq := 0
	repaired := false
	for _, e := range entries {
		name, open := strings.CutSuffix(e.Name(), openSuffix)
		n, ok := fileSeq(name, prefix)
		if !ok {
			continue
		}
		if n >= seq {
			seq = n + 1
		}
		if open {
			done, err := closeAbandoned(filepath.Join(dir, name))
			if err != nil {
				return nil, err
			}
			repaired = repaired || done
		}
	}
	if repaired {
		if err := syncDir(dir); err != nil {
			return nil, err
		}
	}
	w := &Writer{dir: dir, prefix: prefix, maxBytes: maxBytes, info: info, seq: seq,
		pending: new(sync.WaitGroup), ready: map[uint64]encJob{}}
	w.compressors = opts.Compressors
	if w.compressors == 0 {
		w.compressors = DefaultCompressors()
	}
	if w.compressors > 0 {
		w.queue = make(chan job, queuedPerCompressor*w.compressors)
		w.slots = make(chan struct{}, cap(w.queue))
	}
	w.newInfoID()
	return w, nil
}

// infoBlock returns the block of the warcinfo records: our fields, then
// the caller's.
func infoBlock(extra []Field) ([]byte, error) {
	fields := []Field{
		{"software", Software},
		{"format", "WARC File Format 1.1"},
		{"conformsTo", "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
	}
	for _, f := range extra {
		if !isToken([]byte(f.Name)) {
			return nil, fmt.Errorf("warc: Info field name %q is not a token", f.Name)
		}
		if strings.ContainsAny(f.Value, "\r\n") {
			return nil, fmt.Errorf("warc: Info field %s: value holds a line break", f.Name)
		}
		i := 0
		for i < len(fields) && !strings.EqualFold(fields[i].Name, f.Name) {
			i++
		}
		if i < 3 {
			fields[i] = f
		} else {
			fields = append(fields, f)
		}
	}
	var b []byte
	for _, f := range fields {
		b = append(b, f.Name...)
		b = append(b, ": "...)
		b = append(b, f.Value...)
		b = append(b, "\r\n"...)
	}
	return b, nil
}

// fileSeq returns the sequence number of a file name
// PREFIX-YYYYMMDDhhmmss-NNNNN.warc.gz (or .warc), if it is one.
func fileSeq(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix+"-")
	if !ok {
		return 0, false
	}
	if r, ok := strings.CutSuffix(rest, ".warc.gz"); ok {
		rest = r
	} else if r, ok := strings.CutSuffix(rest, ".warc"); ok {
		rest = r
	} else {
		return 0, false
	}
	stamp, num, ok := strings.Cut(rest, "-")
	if !ok || len(stamp) != 14 || !allDigitString(stamp) || len(num) < 5 || !allDigitString(num) {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil
}

func allDigitString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Files returns the paths of the files the Writer has created, oldest
// first, the one being written (if any) last: that one is named so once
// it is closed, and until then with ".open" added. It first waits for the
// exchanges that Record took before it to be written to the file (a
// write that fails is the Writer's error, which Sync returns).
func (w *Writer) Files() []string {
	w.flush()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.drain()
	return append([]string(nil), w.files...)
}

// Record writes x as a request record and a response record, linked to
// each other by WARC-Concurrent-To; a 304 response is written as a
// revisit record instead (see the package doc). Both records go to the
// same file, each as its own gzip member, both in one write. Exchanges
// are written in the order Record takes them.
//
// Record checks x and hands it to the Writer's compressors, which digest
// and compress it beside the caller and add its records, in turn, to the
// Writer's buffer: x is taken when Record returns, and Sync, Files and
// Close wait for what was taken before them. x's slices must not change
// until its records are in the buffer. The buffer is written to the file
// in one write once it holds 64 KiB, at most 100 ms after a record
// entered it empty, and at once on Sync, Files, Close and rotation.
// Record blocks while the compressors' queue is full. An exchange larger
// than 256 KiB, or any exchange of a Writer without compressors, is
// compressed on the caller's goroutine and written to the file (after the
// buffer) before Record returns.
//
// Record returns ctx's cause without taking x if ctx is done (or becomes
// done while Record waits for room in the queue), a "warc:" error for an
// exchange it cannot write, and [ErrClosed] after Close. A write that
// fails leaves the records it held out of the files (x's, or the
// buffer's: those of exchanges whose Record returned nil), but for a
// failed write that could not be taken back: then a partial gzip member
// ends that file, as after a crash. The Writer then stops: its error is
// returned by that exchange's Record if it waits, else by the next Record,
// and by every later Record and Sync (so a caller that calls Sync before
// it counts pages done counts none whose records were lost); the
// exchanges queued behind it are dropped.
func (w *Writer) Record(ctx context.Context, x *fetch.Exchange) error {
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	if err := checkExchange(x); err != nil {
		return err
	}
	queued := w.queue != nil && len(x.Request)+len(x.Response) <= maxQueuedBytes
	if queued { // a slot before a place in the order, so that no exchange taken waits for one
		select {
		case w.slots <- struct{}{}:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	w.qmu.Lock()
	err := w.err
	if w.closing {
		err = ErrClosed
	}
	if err != nil {
		w.qmu.Unlock()
		if queued {
			<-w.slots
		}
		return err
	}
	j := job{x: x, seq: w.nextSeq, pending: w.pending, slot: queued}
	w.nextSeq++
	j.pending.Add(1)
	w.qmu.Unlock()

	if !queued {
		j.done = make(chan error, 1)
		e := encoders.Get().(*encoder)
		ej := w.encode(e, j)
		e.release()
		w.write(ej)
		return <-j.done
	}
	w.start.Do(w.startCompressors)
	w.queue <- j // never blocks: the queue holds as many as there are slots
	return nil
}

// startCompressors starts the Writer's compressors.
func (w *Writer) startCompressors() {
	for range w.compressors {
		w.workers.Go(func() {
			e := encoders.Get().(*encoder)
			defer e.release()
			for j := range w.queue {
				w.write(w.encode(e, j))
			}
		})
	}
}

// encode encodes j's records with e for the current file.
func (w *Writer) encode(e *encoder, j job) encJob {
	e.prepare(j.x)
	id := *w.infoID.Load()
	e.encode(id)
	out := outBufs.Get().(*bytes.Buffer)
	out.Write(e.out.Bytes())
	e.x, e.respBlock = nil, nil
	return encJob{j, out, id}
}

// write writes ej's records once the exchanges taken before it are
// written, and those after it that are encoded already.
func (w *Writer) write(ej encJob) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ej.seq != w.next {
		w.ready[ej.seq] = ej
		return
	}
	w.writeOne(ej)
	for {
		ej, ok := w.ready[w.next]
		if !ok {
			return
		}
		delete(w.ready, w.next)
		w.writeOne(ej)
	}
}

// writeOne writes ej's records, unless the Writer has failed, and marks
// its job done; w.mu must be held.
func (w *Writer) writeOne(ej encJob) {
	w.next++
	w.qmu.Lock()
	err := w.err
	w.qmu.Unlock()
	if err == nil {
		if err = w.writeLocked(ej); err != nil {
			w.fail(err)
		}
	}
	if ej.out.Cap() <= keepBytes {
		ej.out.Reset()
		outBufs.Put(ej.out)
	}
	if ej.done != nil {
		ej.done <- err
	}
	if ej.slot {
		<-w.slots
	}
	ej.pending.Done()
}

// writeLocked adds ej's records to the buffer of the current file,
// rotating it first if they would take it past its size, and encoding
// them again if the file changed since they were; w.mu must be held. It
// writes the buffer once it holds bufferBytes; a job that waits (or one of
// bufferBytes or more) it writes at once, after the buffer.
func (w *Writer) writeLocked(ej encJob) error {
	if w.closed {
		return ErrClosed
	}
	if w.f != nil && w.maxBytes >= 0 && w.exchanges > 0 && w.size+int64(ej.out.Len()) > w.maxBytes {
		if err := w.closeFile(); err != nil {
			return err
		}
	}
	if w.f == nil {
		if err := w.openFile(); err != nil {
			return err
		}
	}
	if id := *w.infoID.Load(); id != ej.infoID { // the file changed since ej was encoded
		e := encoders.Get().(*encoder)
		e.prepare(ej.x)
		e.encode(id)
		ej.out.Reset()
		ej.out.Write(e.out.Bytes())
		e.release()
	}
	b := ej.out.Bytes()
	if ej.done == nil && len(b) < bufferBytes {
		if len(w.buf) == 0 {
			w.armStale()
		}
		w.buf = append(w.buf, b...)
		w.size += int64(len(b))
		w.exchanges++
		if len(w.buf) >= bufferBytes {
			return w.drain()
		}
		return nil
	}
	if err := w.drain(); err != nil {
		return err
	}
	if err := w.writeFile(b, w.size); err != nil {
		return err
	}
	w.size += int64(len(b))
	w.exchanges++
	return nil
}

// armStale starts the timer that drains the buffer maxStale from now;
// w.mu must be held, and the buffer empty.
func (w *Writer) armStale() {
	if w.stale == nil {
		w.stale = time.AfterFunc(maxStale, w.drainStale)
		return
	}
	w.stale.Reset(maxStale)
}

// drainStale writes the buffer, for the timer of armStale.
func (w *Writer) drainStale() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.drain()
}

// drain writes the buffer to the current file, if it holds records; w.mu
// must be held. A write that fails is taken back (see writeFile) and
// becomes the Writer's error, which drain returns.
func (w *Writer) drain() error {
	if len(w.buf) == 0 {
		return nil
	}
	b := w.buf
	w.buf = w.buf[:0] // under 2·bufferBytes, it stays (see writeLocked)
	before := w.size - int64(len(b))
	if err := w.writeFile(b, before); err != nil {
		w.size = before
		w.fail(err)
		return err
	}
	return nil
}

// writeFile writes b to the current file, which holds size bytes; w.mu
// must be held, and the buffer empty. If the write fails, it takes back
// what was written (the file is in append mode, so the next write
// follows), or leaves the file, its end now a partial member as after a
// crash, and closes it.
func (w *Writer) writeFile(b []byte, size int64) error {
	n, err := w.f.Write(b)
	if err == nil {
		return nil
	}
	if n > 0 {
		if terr := w.f.Truncate(size); terr != nil {
			w.closeFile()
		}
	}
	return fmt.Errorf("warc: %w", err)
}

// fail makes err the Writer's error, unless it has one.
func (w *Writer) fail(err error) {
	w.qmu.Lock()
	defer w.qmu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

// flush waits until the exchanges taken before it are written, and
// returns the Writer's error, or ErrClosed after Close.
func (w *Writer) flush() error {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.qmu.Lock()
	if w.closing {
		w.qmu.Unlock()
		return ErrClosed
	}
	pending := w.pending
	w.pending = new(sync.WaitGroup)
	w.qmu.Unlock()
	pending.Wait()
	w.qmu.Lock()
	defer w.qmu.Unlock()
	return w.err
}

// openFile creates the next file and writes its warcinfo record.
func (w *Writer) openFile() error {
	for tries := 0; ; tries++ {
		name := fmt.Sprintf("%s-%s-%05d.warc.gz", w.prefix, time.Now().UTC().Format("20060102150405"), w.seq)
		w.seq++
		path := filepath.Join(w.dir, name)
		if _, err := os.Lstat(path); err == nil && tries < 1000 {
			continue // another writer's, closed: take the next number
		}
		f, err := os.OpenFile(path+openSuffix, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) && tries < 1000 {
			continue // another writer's: take the next number
		}
		if err != nil {
			return fmt.Errorf("warc: %w", err)
		}
		lockFile(f) // so that no other Writer takes it for abandoned; where locks are not supported, none does
		w.dirDirty = true
		e := encoders.Get().(*encoder)
		e.encodeInfo(*w.infoID.Load(), name, w.info)
		n, err := f.Write(e.out.Bytes())
		e.release()
		if err != nil {
			f.Close()
			os.Remove(path + openSuffix)
			return fmt.Errorf("warc: %w", err)
		}
		w.f, w.path, w.size, w.exchanges = f, path, int64(n), 0
		w.files = append(w.files, path)
		return nil
	}
}

// newInfoID gives the next file a new warcinfo record ID; w.mu must be
// held, but for a new Writer.
func (w *Writer) newInfoID() {
	id := newID()
	w.infoID.Store(&id)
}

// closeFile writes the buffer, syncs and closes the current file and
// gives it its name without openSuffix; the next file will have a new
// warcinfo record ID. A buffer that could not be written is the Writer's
// error, and closeFile's; the file is closed all the same.
func (w *Writer) closeFile() error {
	derr := w.drain()
	f := w.f
	if f == nil { // the failed write could not be taken back, and closed it
		return derr
	}
	w.f = nil
	w.newInfoID()
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(w.path+openSuffix, w.path)
		w.dirDirty = true
	}
	if err != nil {
		return errors.Join(derr, fmt.Errorf("warc: %w", err))
	}
	return derr
}

// closeAbandoned repairs and names path, a file that a Writer left named
// path+openSuffix, if no live Writer holds it; it reports whether it did.
// Where files cannot be locked, it cannot tell, and leaves it.
func closeAbandoned(path string) (bool, error) {
	f, err := os.OpenFile(path+openSuffix, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // closed meanwhile by its Writer
	}
	if err != nil {
		return false, fmt.Errorf("warc: %w", err)
	}
	defer f.Close()
	if lockFile(f) != nil {
		return false, nil // being written, or no locks here
	}
	if _, err := os.Lstat(path); err == nil {
		return false, fmt.Errorf("warc: %s and %s both exist", path+openSuffix, filepath.Base(path))
	}
	if _, err := repair(f); err != nil {
		return false, err
	}
	if err := os.Rename(path+openSuffix, path); err != nil {
		return false, fmt.Errorf("warc: %w", err)
	}
	return true, nil
}

// Sync commits the exchanges Record took before it to stable storage: it
// waits for their records to be in the buffer, writes the buffer to the
// current file, then syncs that file and, if files were created since the
// last Sync, the directory. Files closed on rotation were synced then.
// Records are added to the buffer, and written, while Sync waits for the
// disk. It returns the Writer's error if a write failed, this one's or
// an earlier one's.
func (w *Writer) Sync() error {
	if err := w.flush(); err != nil {
		return err
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	if err := w.drain(); err != nil {
		w.mu.Unlock()
		return err
	}
	f, dirDirty := w.f, w.dirDirty
	w.dirDirty = false
	w.mu.Unlock()

	var err error
	if f != nil {
		// A file rotated meanwhile was synced before it was closed.
		if serr := f.Sync(); serr != nil && !errors.Is(serr, os.ErrClosed) {
			err = fmt.Errorf("warc: %w", serr)
		}
	}
	if dirDirty && err == nil {
		err = syncDir(w.dir)
	}
	if err != nil && dirDirty {
		w.mu.Lock()
		w.dirDirty = true // try again at the next Sync
		w.mu.Unlock()
	}
	return err
}

// sync syncs the current file and, if files were created since, the
// directory; w.mu must be held.
func (w *Writer) sync() error {
	if w.f != nil {
		if err := w.f.Sync(); err != nil {
			return fmt.Errorf("warc: %w", err)
		}
	}
	if w.dirDirty {
		if err := syncDir(w.dir); err != nil {
			return err
		}
		w.dirDirty = false
	}
	return nil
}

// syncDir syncs the directory dir, so that the files created in it are
// found after a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("warc: %w", err)
	}
	err = d.Sync()
	d.Close()
	if err != nil {
		return fmt.Errorf("warc: sync %s: %w", dir, err)
	}
	return nil
}

// Close waits for the exchanges Record took to be written (their records
// in the buffer, then the buffer to the file), stops the compressors,
// syncs and closes the current file and syncs the directory.
// It returns the Writer's error if a write failed, and any error of its
// own. After Close, Record and Sync return [ErrClosed]; Close again
// returns nil.
func (w *Writer) Close() error {
	w.flushMu.Lock()
	w.qmu.Lock()
	if w.closing {
		w.qmu.Unlock()
		w.flushMu.Unlock()
		return nil
	}
	w.closing = true
	pending := w.pending
	w.qmu.Unlock()
	pending.Wait()
	w.flushMu.Unlock()
	w.start.Do(func() {}) // none are started after this
	if w.queue != nil {
		close(w.queue)
	}
	w.workers.Wait()

	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if w.stale != nil {
		w.stale.Stop()
	}
	w.drain() // a failed write is the Writer's error, below
	w.qmu.Lock()
	errs := []error{w.err}
	w.qmu.Unlock()
	if w.f != nil {
		errs = append(errs, w.closeFile())
	}
	errs = append(errs, w.sync())
	return errors.Join(errs...)
}

// newID returns a new record ID, "<urn:uuid:…>" with a version 4 UUID.
func newID() string {
	var b [idLen]byte
	var r [16]byte
	rand.Read(r[:])
	appendID(b[:0], r)
	return string(b[:])
}

const idLen = len("<urn:uuid:") + 36 + len(">")

// appendID appends the record ID of UUID u (made version 4) to b.
func appendID(b []byte, u [16]byte) []byte {
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // variant RFC 9562
	const hexDigits = "0123456789abcdef"
	b = append(b, "<urn:uuid:"...)
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return append(b, '>')
}

// An encoder turns an exchange into its two gzip members. Encoders are
// pooled; their buffers are kept unless a large exchange grew them.
type encoder struct {
	fw     *flate.Writer // BestSpeed
	out    bytes.Buffer  // the gzip members
	hdr    []byte        // a record header being built
	sha    hash.Hash
	sumBuf [sha1.Size]byte

	// the exchange being encoded, set by prepare
	x          *fetch.Exchange
	uri        []byte // WARC-Target-URI
	date       []byte // WARC-Date
	reqID      [idLen]byte
	respID     [idLen]byte
	reqDigest  [digestLen]byte
	respDigest [digestLen]byte
	payDigest  [digestLen]byte
	hasPayload bool
	revisit    bool
	respBlock  []byte // x.Response, or its header for a revisit
	storeFrom  int    // where in respBlock to stop compressing

	small   smallDeflater
	scratch []byte // a small member's bytes, for small
}

// maxSmallMember is the largest record deflated with appendSmall (see
// member).
const maxSmallMember = 2 << 10

const digestLen = len("sha1:") + 32

var crlfcrlf = []byte("\r\n\r\n")

// keepBytes bounds the buffers an encoder keeps for reuse.
const keepBytes = 1 << 20

var encoders = sync.Pool{New: func() any {
	e := &encoder{sha: sha1.New()}
	e.fw, _ = flate.NewWriter(&e.out, flate.BestSpeed)
	return e
}}

func (e *encoder) release() {
	e.x, e.respBlock = nil, nil
	if e.out.Cap() > keepBytes || cap(e.hdr) > keepBytes || cap(e.uri) > keepBytes {
		return // let a large exchange's buffers go
	}
	e.out.Reset()
	encoders.Put(e)
}

// checkExchange returns an error if x cannot be written.
func checkExchange(x *fetch.Exchange) error {
	if x == nil {
		return errors.New("warc: nil Exchange")
	}
	if x.URL == "" {
		return errors.New("warc: Exchange without URL")
	}
	if x.IP != "" {
		if _, err := netip.ParseAddr(x.IP); err != nil {
			return fmt.Errorf("warc: Exchange of %s: bad IP %q", x.URL, x.IP)
		}
	}
	if x.Truncated != "" && !isToken([]byte(x.Truncated)) {
		return fmt.Errorf("warc: Exchange of %s: bad Truncated %q", x.URL, x.Truncated)
	}
	return nil
}

// prepare computes what the records of x, checked, hold but the warcinfo
// ID.
func (e *encoder) prepare(x *fetch.Exchange) {
	e.x = x
	e.uri = appendURI(e.uri[:0], x.URL)
	d := x.Date
	if d.IsZero() {
		d = time.Now()
	}
	e.date = d.UTC().AppendFormat(e.date[:0], "2006-01-02T15:04:05.000000Z")
	var r [32]byte
	rand.Read(r[:])
	appendID(e.reqID[:0], [16]byte(r[:16]))
	appendID(e.respID[:0], [16]byte(r[16:]))

	e.sum(&e.reqDigest, x.Request)
	e.respBlock = x.Response
	e.storeFrom = len(x.Response)
	e.revisit, e.hasPayload = false, false
	end := httpHeaderEnd(x.Response)
	if end < 0 {
		e.sum(&e.respDigest, x.Response) // not HTTP as we know it: no payload
		return
	}
	header := x.Response[:end]
	if httpStatus(header) == 304 {
		e.revisit = true
		e.respBlock = header
		e.storeFrom = len(header)
		e.sum(&e.respDigest, header)
		return
	}
	if httpCompressed(header) {
		e.storeFrom = end
	}
	e.sum(&e.respDigest, x.Response)
	body := x.Response[end:]
	e.sha.Reset()
	if httpChunked(header) {
		if dechunk(body, e.sha) == dechunkMalformed {
			return // no entity we can name: no payload digest
		}
	} else {
		e.sha.Write(body)
	}
	e.hasPayload = true
	e.digest(&e.payDigest)
}

// sum puts the digest of b in d.
func (e *encoder) sum(d *[digestLen]byte, b []byte) {
	e.sha.Reset()
	e.sha.Write(b)
	e.digest(d)
}

// digest puts the digest in e.sha in d, as "sha1:" and base32.
func (e *encoder) digest(d *[digestLen]byte) {
	copy(d[:], "sha1:")
	base32.StdEncoding.Encode(d[len("sha1:"):], e.sha.Sum(e.sumBuf[:0]))
}

// encode writes the exchange's two records, as gzip members, to e.out.
func (e *encoder) encode(infoID string) {
	e.out.Reset()
	h := e.start("request", e.reqID[:], infoID)
	h = appendField(h, "WARC-Concurrent-To", e.respID[:])
	h = appendField(h, "Content-Type", "application/http;msgtype=request")
	h = appendField(h, "WARC-Block-Digest", e.reqDigest[:])
	e.member(h, e.x.Request, len(e.x.Request))

	typ := "response"
	if e.revisit {
		typ = "revisit"
	}
	h = e.start(typ, e.respID[:], infoID)
	h = appendField(h, "WARC-Concurrent-To", e.reqID[:])
	if e.revisit {
		h = appendField(h, "WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/server-not-modified")
		h = appendField(h, "WARC-Refers-To-Target-URI", e.uri)
	}
	h = appendField(h, "Content-Type", "application/http;msgtype=response")
	h = appendField(h, "WARC-Block-Digest", e.respDigest[:])
	if e.hasPayload {
		h = appendField(h, "WARC-Payload-Digest", e.payDigest[:])
	}
	if e.x.Truncated != "" && !e.revisit {
		h = appendField(h, "WARC-Truncated", e.x.Truncated)
	}
	e.member(h, e.respBlock, e.storeFrom)
}

// start begins the header of an exchange's record in e.hdr.
func (e *encoder) start(typ string, id []byte, infoID string) []byte {
	h := append(e.hdr[:0], "WARC/1.1\r\n"...)
	h = appendField(h, "WARC-Type", typ)
	h = appendField(h, "WARC-Record-ID", id)
	h = appendField(h, "WARC-Date", e.date)
	h = appendField(h, "WARC-Target-URI", e.uri)
	if e.x.IP != "" {
		h = appendField(h, "WARC-IP-Address", e.x.IP)
	}
	return appendField(h, "WARC-Warcinfo-ID", infoID)
}

// member ends header h with the block's Content-Length and writes the
// record as a gzip member to e.out: compressed, but for the block from
// offset store on, which is stored as it is (the body of a response whose
// bytes are compressed already, which deflate would spend its time on
// for nothing). A record of at most maxSmallMember bytes is deflated by
// appendSmall, in codes made once, larger ones by flate at BestSpeed.
func (e *encoder) member(h, block []byte, store int) {
	h = append(h, "Content-Length: "...)
	h = strconv.AppendInt(h, int64(len(block)), 10)
	h = append(h, "\r\n\r\n"...)
	e.hdr = h
	crc := crc32.Update(0, crc32.IEEETable, h)
	crc = crc32.Update(crc, crc32.IEEETable, block)
	crc = crc32.Update(crc, crc32.IEEETable, crlfcrlf)
	n := len(h) + len(block) + len(crlfcrlf)
	size := uint32(n) // mod 2^32, as gzip has it

	e.out.Write(gzipHeader)
	switch {
	case n <= maxSmallMember && store == len(block):
		e.scratch = append(append(append(e.scratch[:0], h...), block...), crlfcrlf...)
		e.out.Write(e.small.appendSmall(e.out.AvailableBuffer(), e.scratch))
	case store == len(block):
		e.fw.Reset(&e.out)
		e.fw.Write(h)
		e.fw.Write(block)
		e.fw.Write(crlfcrlf)
		e.fw.Close()
	default:
		e.fw.Reset(&e.out)
		e.fw.Write(h)
		e.fw.Write(block[:store])
		// End the compressed blocks on a byte boundary (Flush ends them
		// with an empty stored block), then store the rest in stored
		// blocks of at most 65535 bytes, the last one final.
		e.fw.Flush()
		for rest := block[store:]; len(rest) > 0; {
			n := min(len(rest), 0xffff)
			e.storedBlock(rest[:n], false)
			rest = rest[n:]
		}
		e.storedBlock(crlfcrlf, true)
	}
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], crc)
	binary.LittleEndian.PutUint32(trailer[4:], size)
	e.out.Write(trailer[:])
}

// gzipHeader begins a gzip member: deflate, no flags, no time, unknown OS.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

// storedBlock writes b (at most 65535 bytes) as a stored deflate block
// (RFC 1951 3.2.4), which starts on a byte boundary: a byte of BFINAL
// and BTYPE 00, then LEN and its complement NLEN, then the bytes.
func (e *encoder) storedBlock(b []byte, final bool) {
	var hdr [5]byte
	if final {
		hdr[0] = 1
	}
	binary.LittleEndian.PutUint16(hdr[1:3], uint16(len(b)))
	binary.LittleEndian.PutUint16(hdr[3:5], ^uint16(len(b)))
	e.out.Write(hdr[:])
	e.out.Write(b)
}

// encodeInfo writes a file's warcinfo record, as a gzip member, to e.out.
func (e *encoder) encodeInfo(id, filename string, block []byte) {
	e.out.Reset()
	h := append(e.hdr[:0], "WARC/1.1\r\n"...)
	h = appendField(h, "WARC-Type", "warcinfo")
	h = appendField(h, "WARC-Record-ID", id)
	h = appendField(h, "WARC-Date", time.Now().UTC().AppendFormat(e.date[:0], "2006-01-02T15:04:05.000000Z"))
	h = appendField(h, "WARC-Filename", filename)
	h = appendField(h, "Content-Type", "application/warc-fields")
	e.sum(&e.reqDigest, block)
	h = appendField(h, "WARC-Block-Digest", e.reqDigest[:])
	e.member(h, block, len(block))
}

func appendField[V string | []byte](h []byte, name string, value V) []byte {
	h = append(h, name...)
	h = append(h, ": "...)
	h = append(h, value...)
	return append(h, "\r\n"...)
}

// appendURI appends u to b with its control characters and spaces
// percent-encoded, which a header field cannot hold and a URI should not.
func appendURI(b []byte, u string) []byte {
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(u); i++ {
		c := u[i]
		if c <= ' ' || c == 0x7f {
			b = append(b, '%', hexDigits[c>>4], hexDigits[c&0xf])
		} else {
			b = append(b, c)
		}
	}
	return b
}
