package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"crawler/warc"
)

// archive is a WARC file open for reading, up to the size it had when
// opened (a live crawl may be appending to it).
type archive struct {
	name string
	f    *os.File
	size int64
}

// open opens the WARC file name.
func open(name string) (*archive, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if info.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: is a directory (give its *.warc.gz files)", name)
	}
	return &archive{name: name, f: f, size: info.Size()}, nil
}

func (a *archive) Close() error { return a.f.Close() }

// live reports whether the file is named as a crawl names the file it is
// writing: its last record may be incomplete.
func (a *archive) live() bool { return strings.HasSuffix(a.name, ".open") }

// reader returns a Reader of the file from offset off.
func (a *archive) reader(off int64) *warc.Reader {
	r := warc.NewReader(io.NewSectionReader(a.f, off, a.size-off))
	r.Start = off
	return r
}

// failure is a place where a file could not be read.
type failure struct {
	off  int64 // where the record or gzip member at fault starts
	err  error
	tail bool // nothing readable follows: the file ends in it
}

// incomplete reports whether f is the cut-short last record of a file
// being written, which is no fault.
func (f failure) incomplete(a *archive) bool {
	return a.live() && f.tail && errors.Is(f.err, io.ErrUnexpectedEOF)
}

// walk reads the records of a in order, calling each with every whole
// record, until each returns false or the file ends. Where the file
// cannot be read, it calls bad, then reads on from the next place after
// it where a record can be read (see nextStart). It returns an error only
// if the file itself cannot be read.
func walk(a *archive, each func(*warc.Record) bool, bad func(failure)) error {
	r := a.reader(0)
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			at := r.Offset()
			var ioErr error
			r, rec, ioErr = a.resync(at + 1)
			if ioErr != nil {
				return ioErr
			}
			bad(failure{off: at, err: err, tail: rec == nil})
			if rec == nil {
				return nil
			}
		}
		if !each(rec) {
			return nil
		}
	}
}

// resync finds the first place at or after from where a record can be
// read, and returns a Reader there and the record it read; a nil record
// if there is none.
func (a *archive) resync(from int64) (*warc.Reader, *warc.Record, error) {
	for {
		c, err := a.nextStart(from)
		if err != nil || c < 0 {
			return nil, nil, err
		}
		r := a.reader(c)
		if rec, err := r.Next(); err == nil {
			return r, rec, nil
		}
		from = c + 1
	}
}

// magics begin what could be a record: a gzip member (deflate) or a WARC
// record's version line.
var magics = [][]byte{{0x1f, 0x8b, 8}, []byte("WARC/")}

// nextStart returns the offset of the first place at or after from that
// begins with a magic, or -1 if there is none.
func (a *archive) nextStart(from int64) (int64, error) {
	const chunk = 64 << 10
	const overlap = 4 // the longest magic, less a byte
	buf := make([]byte, chunk+overlap)
	for off := from; off < a.size; off += chunk {
		n, err := a.f.ReadAt(buf[:min(int64(len(buf)), a.size-off)], off)
		if err != nil && err != io.EOF {
			return 0, fmt.Errorf("%s: %w", a.name, err)
		}
		best := -1
		for _, m := range magics {
			if i := bytes.Index(buf[:n], m); i >= 0 && (best < 0 || i < best) {
				best = i
			}
		}
		if best >= 0 {
			return off + int64(best), nil
		}
	}
	return -1, nil
}
