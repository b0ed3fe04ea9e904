package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"crawler/fetch"
	"crawler/warc"
)

// FuzzWalk reads arbitrary bytes as a WARC file, through walk and the
// list and verify commands. Invariants: no panic; records and failures
// come in order of offsets, each inside the file, and after a failure
// the offset grows, so reading on after a failure ends; a file read without failure verifies
// and lists with exit status 0 or 1 (bad digests), never a usage error.
func FuzzWalk(f *testing.F) {
	dir := f.TempDir()
	w, err := warc.NewWriter(dir, warc.Options{})
	if err != nil {
		f.Fatal(err)
	}
	for _, resp := range []string{
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"HTTP/1.1 304 Not Modified\r\n\r\n",
	} {
		err := w.Record(f.Context(), &fetch.Exchange{URL: "http://example.com/", Date: time.Unix(0, 0),
			Request: []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"), Response: []byte(resp)})
		if err != nil {
			f.Fatal(err)
		}
	}
	w.Close()
	file, err := os.ReadFile(w.Files()[0])
	if err != nil {
		f.Fatal(err)
	}
	f.Add(file)
	f.Add(file[:len(file)*2/3])
	flipped := bytes.Clone(file)
	flipped[len(file)/2] ^= 1
	f.Add(flipped)
	f.Add([]byte("WARC/1.1\r\nContent-Length: 3\r\n\r\nabc\r\n\r\nxxWARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 0\r\n\r\n\r\n\r\n"))
	f.Add([]byte("\x1f\x8b\x08junk\x1f\x8b\x08"))

	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		name := filepath.Join(t.TempDir(), "f.warc")
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		last, lastFailure := int64(-1), int64(-1)
		next := func(off int64, failed bool) {
			// Records of a gzip member share its offset, and a failure
			// inside a member has it too; reading on starts after it.
			if off < last || off <= lastFailure || off >= int64(len(data)) {
				t.Fatalf("failure %v at offset %d, after %d (last failure at %d), in %d bytes", failed, off, last, lastFailure, len(data))
			}
			last = off
			if failed {
				lastFailure = off
			}
		}
		failures := 0
		err = walk(a, func(rec *warc.Record) bool {
			next(rec.Offset, false)
			return true
		}, func(f failure) {
			next(f.off, true)
			failures++
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"list", "verify"} {
			res := runCommand(cmd, name)
			if res.err != nil && (res.err != errReported || failures == 0 && cmd == "list") {
				t.Fatalf("%s: %v after %d failures\n%s%s", cmd, res.err, failures, res.stdout, res.stderr)
			}
		}
	})
}
