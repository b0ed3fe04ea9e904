package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
)

// DefaultMaxBlockBytes is the largest block a [Reader] reads unless its
// MaxBlockBytes says otherwise: 1 GiB.
const DefaultMaxBlockBytes = 1 << 30

// maxHeaderBytes bounds a record's header, all its lines together.
const maxHeaderBytes = 1 << 20

// Errors of [Reader.Next], wrapped with the offset of the record at fault
// and what is wrong; test with [errors.Is].
var (
	// ErrMalformed: the input is not a WARC record where one should
	// start: a bad version line, a header line without a colon, a
	// missing or invalid Content-Length, a block shorter than its
	// Content-Length (then the error also wraps io.ErrUnexpectedEOF), a
	// block not followed by CRLF CRLF.
	ErrMalformed = errors.New("warc: malformed record")
	// ErrTooLarge: a record's Content-Length exceeds the Reader's
	// MaxBlockBytes, or its header exceeds 1 MiB.
	ErrTooLarge = errors.New("warc: record too large")
)

// Reader reads WARC records, one at a time, from a WARC file: gzip
// compressed, a record per gzip member as [Writer] writes them (or
// several records per member, or the whole file as one), or
// uncompressed. The first bytes tell which.
//
// A Reader is not safe for concurrent use. Besides some 200 KiB of
// buffers, it allocates a block as its bytes arrive, in proportion to
// those read, so a lying Content-Length costs nothing; a Content-Length
// above MaxBlockBytes stops it.
type Reader struct {
	// MaxBlockBytes bounds a record's block: a record whose
	// Content-Length is larger stops the Reader with [ErrTooLarge]. 0
	// means [DefaultMaxBlockBytes]; negative means no bound. Set it
	// before the first call to Next.
	MaxBlockBytes int64

	// Start is the offset in its file of the Reader's input, when the
	// input is part of a file (read from the offset a CDX index gives,
	// say): it is added to the offsets that records, errors and Offset
	// give. Set it before the first call to Next.
	Start int64

	src        counter
	raw        *bufio.Reader // the input
	zr         *gzip.Reader  // the current member, when compressed
	dr         *bufio.Reader // what records are parsed from: raw, or over zr
	started    bool
	compressed bool
	inMember   bool  // zr is in a member not yet read to its end
	memberOff  int64 // offset of the current member
	at         int64 // offset of the record Next last returned or failed on
	err        error // sticky
}

// NewReader returns a Reader of the WARC file r. It reads r through a
// buffer, so it may read past the last record it returns.
func NewReader(r io.Reader) *Reader {
	rd := &Reader{}
	rd.src.r = r
	rd.raw = bufio.NewReaderSize(&rd.src, 64<<10)
	return rd
}

// Reset makes r read the WARC file src from its start, as a new Reader
// of src would, keeping its buffers and MaxBlockBytes; Start is 0 again.
// A Reader reset for each record read at an offset (a CDX index's)
// spares the 200 KiB of buffers a new one allocates.
func (r *Reader) Reset(src io.Reader) {
	dr := r.dr
	if dr == r.raw { // uncompressed: not a buffer of its own
		dr = nil
	}
	*r = Reader{MaxBlockBytes: r.MaxBlockBytes, raw: r.raw, zr: r.zr, dr: dr}
	r.src.r = src
	r.raw.Reset(&r.src)
}

// Offset returns where the record that Next last returned starts (its
// Offset), or after an error, where the record or gzip member it failed
// on starts: the place to report, and past which to look for the next
// record. After io.EOF it is the input's end; before the first Next, 0
// (or Start).
func (r *Reader) Offset() int64 {
	if !r.started {
		return r.Start
	}
	return r.at
}

// counter counts the bytes read from r.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Next returns the next record, or io.EOF after the last one. Any other
// error ends the reading: Next keeps returning it. A file cut short (a
// crawl killed while writing) gives its whole records, then an error
// wrapping io.ErrUnexpectedEOF.
func (r *Reader) Next() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	rec, err := r.next()
	if err != nil {
		r.err = err
		return nil, err
	}
	return rec, nil
}

// All returns the records that Next returns, in order, for a range loop;
// an error other than io.EOF is its last pair, (nil, err). The sequence
// is single-use: it reads on from where r is.
func (r *Reader) All() iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		for {
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			if !yield(rec, err) || err != nil {
				return
			}
		}
	}
}

func (r *Reader) next() (*Record, error) {
	if !r.started {
		r.started = true
		r.src.n = r.Start
		r.at = r.Start
		b, _ := r.raw.Peek(2)
		r.compressed = len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b
		if !r.compressed {
			r.dr = r.raw
		}
	}
	for {
		if r.compressed && !r.inMember {
			if err := r.openMember(); err != nil {
				return nil, err
			}
		}
		if !r.compressed {
			r.at = r.rawOffset()
		}
		if err := r.skipNewlines(); err != nil {
			return nil, err
		}
		if !r.compressed {
			r.at = r.rawOffset()
		}
		if _, err := r.dr.Peek(1); err == io.EOF {
			if !r.compressed {
				return nil, io.EOF
			}
			r.inMember = false // a member holding only line ends
			continue
		} else if err != nil {
			return nil, r.inputError(err)
		}
		break
	}
	off := r.at
	rec, err := r.readRecord(off)
	if err != nil {
		return nil, err
	}
	if r.compressed {
		// Read the member to its end now, so that its checksum is
		// checked before the record is returned and the next record's
		// offset is the next member's.
		if err := r.skipNewlines(); err != nil {
			return nil, err
		}
		if _, err := r.dr.Peek(1); err == io.EOF {
			r.inMember = false
		} else if err != nil {
			return nil, r.inputError(err)
		}
	}
	return rec, nil
}

// openMember starts reading the next gzip member; io.EOF if there is none.
func (r *Reader) openMember() error {
	r.memberOff = r.rawOffset()
	r.at = r.memberOff
	if _, err := r.raw.Peek(1); err == io.EOF {
		return io.EOF
	}
	var err error
	if r.zr == nil {
		r.zr, err = gzip.NewReader(r.raw)
	} else {
		err = r.zr.Reset(r.raw)
	}
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // part of a gzip header
		}
		return fmt.Errorf("warc: gzip member at offset %d: %w", r.memberOff, err)
	}
	r.zr.Multistream(false)
	if r.dr == nil {
		r.dr = bufio.NewReaderSize(r.zr, 64<<10)
	} else {
		r.dr.Reset(r.zr)
	}
	r.inMember = true
	return nil
}

// boundary reports the offset just past the last record returned, if it
// ends a gzip member (or, uncompressed, wherever it ends): where a file
// may be cut without tearing a record.
func (r *Reader) boundary() (int64, bool) {
	if r.compressed && r.inMember {
		return 0, false
	}
	return r.rawOffset(), true
}

// rawOffset returns the offset in the input of the next byte r.raw gives.
func (r *Reader) rawOffset() int64 { return r.src.n - int64(r.raw.Buffered()) }

// inputError wraps an error of the input or of its decompression.
func (r *Reader) inputError(err error) error {
	if r.compressed {
		return fmt.Errorf("warc: gzip member at offset %d: %w", r.memberOff, err)
	}
	return fmt.Errorf("warc: %w", err)
}

// skipNewlines skips CR and LF bytes, which some writers put between
// records.
func (r *Reader) skipNewlines() error {
	for {
		b, err := r.dr.Peek(1)
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return r.inputError(err)
		}
		if b[0] != '\r' && b[0] != '\n' {
			return nil
		}
		r.dr.Discard(1)
	}
}

func (r *Reader) malformed(off int64, format string, args ...any) error {
	return fmt.Errorf("%w at offset %d: %s", ErrMalformed, off, fmt.Sprintf(format, args...))
}

// readRecord reads one record, which starts at the next byte of r.dr.
func (r *Reader) readRecord(off int64) (*Record, error) {
	budget := maxHeaderBytes
	line, err := r.readLine(off, &budget)
	if err != nil {
		return nil, err
	}
	version, ok := parseVersion(line)
	if !ok {
		return nil, r.malformed(off, "bad version line %q", clip(line))
	}
	rec := &Record{Version: version, Offset: off}
	for {
		line, err := r.readLine(off, &budget)
		if err != nil {
			return nil, err
		}
		line = trimEOL(line)
		if len(line) == 0 {
			break
		}
		if line[0] == ' ' || line[0] == '\t' { // folded: continues the field before
			if len(rec.Fields) == 0 {
				return nil, r.malformed(off, "header starts with a continuation line")
			}
			f := &rec.Fields[len(rec.Fields)-1]
			if v := bytes.Trim(line, " \t"); len(v) > 0 {
				if f.Value != "" {
					f.Value += " "
				}
				f.Value += string(v)
			}
			continue
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isToken(line[:colon]) {
			return nil, r.malformed(off, "bad header line %q", clip(line))
		}
		rec.Fields = append(rec.Fields, Field{
			Name:  string(line[:colon]),
			Value: string(bytes.Trim(line[colon+1:], " \t")),
		})
	}
	cl := rec.Get("Content-Length")
	if cl == "" {
		return nil, r.malformed(off, "missing Content-Length")
	}
	if !allDigitString(cl) {
		return nil, r.malformed(off, "bad Content-Length %q", clip([]byte(cl)))
	}
	n, err := strconv.ParseInt(cl, 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("%w at offset %d: Content-Length %s", ErrTooLarge, off, clip([]byte(cl)))
		}
		return nil, r.malformed(off, "bad Content-Length %q", clip([]byte(cl)))
	}
	limit := r.MaxBlockBytes
	if limit == 0 {
		limit = DefaultMaxBlockBytes
	}
	if limit > 0 && n > limit {
		return nil, fmt.Errorf("%w at offset %d: Content-Length %d exceeds %d", ErrTooLarge, off, n, limit)
	}
	rec.Block, err = readBlock(r.dr, n)
	if err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return nil, fmt.Errorf("%w at offset %d: block ends after %d of %d bytes: %w",
				ErrMalformed, off, len(rec.Block), n, io.ErrUnexpectedEOF)
		}
		return nil, r.inputError(err)
	}
	var end [4]byte
	if k, err := io.ReadFull(r.dr, end[:]); err != nil || string(end[:]) != "\r\n\r\n" {
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return nil, r.inputError(err)
		}
		return nil, r.malformed(off, "block of %d bytes not followed by CRLF CRLF (got %q)", n, end[:k])
	}
	return rec, nil
}

// readLine returns the next line, with its line end, charging its length
// to budget. The line is valid until the next read of r.dr.
func (r *Reader) readLine(off int64, budget *int) ([]byte, error) {
	var long []byte // a line longer than r.dr's buffer
	for {
		frag, err := r.dr.ReadSlice('\n')
		*budget -= len(frag)
		if *budget < 0 {
			return nil, fmt.Errorf("%w at offset %d: header exceeds %d bytes", ErrTooLarge, off, maxHeaderBytes)
		}
		switch {
		case err == bufio.ErrBufferFull:
			long = append(long, frag...)
			continue
		case err == io.EOF:
			return nil, fmt.Errorf("%w at offset %d: input ends inside the header: %w", ErrMalformed, off, io.ErrUnexpectedEOF)
		case err != nil:
			return nil, r.inputError(err)
		}
		if long != nil {
			return append(long, frag...), nil
		}
		return frag, nil
	}
}

// readBlock reads n bytes, growing its buffer as they arrive.
func readBlock(r io.Reader, n int64) ([]byte, error) {
	const first = 64 << 10
	b := make([]byte, 0, min(n, first))
	for int64(len(b)) < n {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // let append choose the growth
			if int64(cap(b)) > n {
				b = b[:len(b):n]
			}
		}
		k, err := io.ReadFull(r, b[len(b):cap(b)])
		b = b[:len(b)+k]
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// parseVersion parses a version line, "WARC/1.1" and a line end, and
// returns "1.1".
func parseVersion(line []byte) (string, bool) {
	line = trimEOL(line)
	v, ok := bytes.CutPrefix(line, []byte("WARC/"))
	if !ok {
		return "", false
	}
	major, minor, ok := bytes.Cut(v, []byte("."))
	if !ok || !allDigits(major) || !allDigits(minor) {
		return "", false
	}
	return string(v), true
}

func allDigits(b []byte) bool {
	if len(b) == 0 || len(b) > 4 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func trimEOL(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

// isToken reports whether b is a field name: an RFC 9110 token.
func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// clip shortens b for an error message.
func clip(b []byte) string {
	b = trimEOL(b)
	if len(b) > 64 {
		return string(b[:64]) + "…"
	}
	return string(b)
}
