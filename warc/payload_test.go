package warc_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"crawler/warc"
)

// The payload Payload returns is the one the Writer digested: for every
// response record of the test cases, its digest is the record's
// WARC-Payload-Digest; chunked bodies come dechunked, a gzip
// content-coding kept; a block with no HTTP header has none.
func TestPayload(t *testing.T) {
	w := newWriter(t, t.TempDir(), warc.Options{})
	cases := testCases(t)
	for _, c := range cases {
		if err := w.Record(context.Background(), &c.x); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	recs := readFile(t, w.Files()[0])
	for i, c := range cases {
		rec := recs[2+2*i] // after the warcinfo record and the request
		t.Run(c.name, func(t *testing.T) {
			p, dechunked, err := rec.Payload()
			switch {
			case c.name == "unparsable" || c.name == "empty":
				if !errors.Is(err, warc.ErrNoPayload) {
					t.Errorf("Payload = %q, %v; want ErrNoPayload", p, err)
				}
				return
			case err != nil:
				t.Fatal(err)
			case c.typ == "revisit":
				if len(p) != 0 {
					t.Errorf("revisit payload %q, want none", p)
				}
				return
			}
			if got := sha1Of(p); got != c.payload {
				t.Errorf("payload digest %s, want %s", got, c.payload)
			}
			if want := strings.Contains(c.name, "chunked"); dechunked != want {
				t.Errorf("dechunked %v, want %v", dechunked, want)
			}
		})
	}
	if p, _, _ := recs[2+2*2].Payload(); !bytes.Equal(p, gzipped(t, strings.Repeat("<p>compressed and chunked</p>\n", 200))) {
		t.Error("gzip+chunked: payload is not the gzip stream: the content-coding must be kept")
	}
}

// Payload follows the digest a foreign record declares: the body still
// chunked when that is what it digested; a block not HTTP is its own
// payload; broken chunked framing gives the body as it came.
func TestPayloadForeign(t *testing.T) {
	chunkedBody := "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
	block := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody
	for _, c := range []struct {
		name, ctype, block, digest string
		want                       string
		dechunked                  bool
	}{
		{"digest of the dechunked body", "application/http;msgtype=response", block, sha1HelloWorld, "hello world", true},
		{"digest of the chunked body", "application/http; msgtype=response", block, sha1Of([]byte(chunkedBody)), chunkedBody, false},
		{"no digest", "application/http", block, "", "hello world", true},
		{"wrong digest", "application/http", block, sha1Empty, "hello world", true},
		{"broken framing", "application/http", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello", "", "zz\r\nhello", false},
		{"resource", "text/plain", "hello world", sha1HelloWorld, "hello world", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &warc.Record{Version: "1.1", Block: []byte(c.block), Fields: []warc.Field{
				{"WARC-Type", "response"}, {"Content-Type", c.ctype}, {"WARC-Payload-Digest", c.digest},
			}}
			p, dechunked, err := rec.Payload()
			if err != nil || string(p) != c.want || dechunked != c.dechunked {
				t.Errorf("Payload = %q, %v, %v; want %q, %v", p, dechunked, err, c.want, c.dechunked)
			}
		})
	}
}

// A Reader started at a record's offset in the middle of a file (Start
// set) reads that record, with the file's offsets; Offset says where the
// last record returned starts, and after an error where the record that
// failed does, in gzip and uncompressed files.
func TestReaderStartAndOffset(t *testing.T) {
	gz := wholeFile(t, 3)
	var plain bytes.Buffer
	for _, rec := range readAll(t, gz) {
		writeRecord(&plain, rec)
	}
	for name, file := range map[string][]byte{"gzip": gz, "uncompressed": plain.Bytes()} {
		t.Run(name, func(t *testing.T) {
			recs := readAll(t, file)
			r := warc.NewReader(bytes.NewReader(file))
			if r.Offset() != 0 {
				t.Errorf("Offset before Next = %d", r.Offset())
			}
			for _, want := range recs {
				rec, err := r.Next()
				if err != nil || r.Offset() != want.Offset || rec.Offset != want.Offset {
					t.Fatalf("Next: %v, Offset %d; want record at %d", err, r.Offset(), want.Offset)
				}
			}
			if _, err := r.Next(); err != io.EOF || r.Offset() != int64(len(file)) {
				t.Errorf("at the end: %v, Offset %d; want io.EOF at %d", err, r.Offset(), len(file))
			}

			for _, want := range recs[1:] {
				r := warc.NewReader(bytes.NewReader(file[want.Offset:]))
				r.Start = want.Offset
				rec, err := r.Next()
				if err != nil || rec.Offset != want.Offset || rec.Get("WARC-Record-ID") != want.Get("WARC-Record-ID") {
					t.Fatalf("from %d: %v, record at %d; want %s", want.Offset, err, rec.Offset, want.Get("WARC-Record-ID"))
				}
			}

			// cut inside the fifth record: four read, then an error at the fifth
			cut := recs[4].Offset + 40
			r = warc.NewReader(bytes.NewReader(file[recs[2].Offset:cut]))
			r.Start = recs[2].Offset
			for range 2 {
				if _, err := r.Next(); err != nil {
					t.Fatal(err)
				}
			}
			_, err := r.Next()
			if !errors.Is(err, io.ErrUnexpectedEOF) || r.Offset() != recs[4].Offset {
				t.Errorf("cut: %v at Offset %d; want io.ErrUnexpectedEOF at %d", err, r.Offset(), recs[4].Offset)
			}
		})
	}
}

// readAll reads every record of file, failing on any error.
func readAll(t *testing.T, file []byte) []*warc.Record {
	t.Helper()
	var recs []*warc.Record
	r := warc.NewReader(bytes.NewReader(file))
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
}
