package warc_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strconv"
	"testing"

	"crawler/warc"
)

// FuzzReader reads arbitrary input. Invariants: no panic; every record
// read has a block of its Content-Length; a record written back out
// (uncompressed) reads back the same; Verify does not panic; an error is
// sticky.
func FuzzReader(f *testing.F) {
	dir := f.TempDir()
	w, err := warc.NewWriter(dir, warc.Options{})
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range testCases(f) {
		if len(c.x.Response) > 500 {
			continue // small seeds fuzz and minimize faster
		}
		if err := w.Record(context.Background(), &c.x); err != nil {
			f.Fatal(err)
		}
	}
	w.Close()
	file := readBytes(f, w.Files()[0])
	f.Add(file)
	f.Add(file[:len(file)/2])
	var plain bytes.Buffer
	r := warc.NewReader(bytes.NewReader(file))
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		writeRecord(&plain, rec)
	}
	f.Add(plain.Bytes())
	f.Add(plain.Bytes()[:plain.Len()/3])
	f.Add([]byte(record("WARC-Type: resource\r\nX: a\r\n\tfolded\r\n", "hello")))
	f.Add([]byte("WARC/1.0\r\nContent-Length: 5\r\n\r\nabc"))
	f.Add([]byte("WARC/1.1\r\nContent-Length: 999999999999\r\n\r\n"))
	f.Add(gzipped(f, record("WARC-Type: resource\r\n", "a")+record("WARC-Type: resource\r\n", "b")))

	f.Fuzz(fuzzReader)
}

// fuzzReader checks FuzzReader's invariants on data.
func fuzzReader(t *testing.T, data []byte) {
	if len(data) > 1<<20 {
		return
	}
	r := warc.NewReader(bytes.NewReader(data))
	r.MaxBlockBytes = 1 << 20
	for range 1000 {
		rec, err := r.Next()
		if err != nil {
			if _, again := r.Next(); again != err {
				t.Fatalf("Next after %v: %v", err, again)
			}
			return
		}
		if n, err := strconv.ParseInt(rec.Get("Content-Length"), 10, 64); err != nil || n != int64(len(rec.Block)) {
			t.Fatalf("Content-Length %q, block %d bytes", rec.Get("Content-Length"), len(rec.Block))
		}
		if rec.Version == "" {
			t.Fatal("no version")
		}
		if err := rec.Verify(); err != nil && !errors.Is(err, warc.ErrBlockDigest) &&
			!errors.Is(err, warc.ErrPayloadDigest) && !errors.Is(err, warc.ErrDigestFormat) {
			t.Fatalf("Verify: unexpected error %v", err)
		}
		var out bytes.Buffer
		writeRecord(&out, rec)
		again, err := warc.NewReader(&out).Next()
		if err != nil {
			t.Fatalf("record written back out: %v\n%q", err, out.Bytes())
		}
		if again.Version != rec.Version || !slices.Equal(again.Fields, rec.Fields) || !bytes.Equal(again.Block, rec.Block) {
			t.Fatalf("record written back out reads\n%+v\nwas\n%+v", again, rec)
		}
	}
}

// writeRecord writes rec as an uncompressed record.
func writeRecord(w io.Writer, rec *warc.Record) {
	io.WriteString(w, "WARC/"+rec.Version+"\r\n")
	for _, f := range rec.Fields {
		io.WriteString(w, f.Name+": "+f.Value+"\r\n")
	}
	io.WriteString(w, "\r\n")
	w.Write(rec.Block)
	io.WriteString(w, "\r\n\r\n")
}
