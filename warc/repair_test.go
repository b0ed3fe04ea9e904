package warc_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"crawler/warc"
)

// wholeFile returns the bytes of a closed file of n exchanges (2n+1
// records).
func wholeFile(t *testing.T, n int) []byte {
	t.Helper()
	w := newWriter(t, t.TempDir(), warc.Options{})
	for i := range n {
		if err := w.Record(context.Background(), exchange(fmt.Sprintf("http://example.com/%d", i), 2000)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return readBytes(t, w.Files()[0])
}

// A file is named .open while its Writer writes it, and takes its name at
// rotation or Close.
func TestOpenWhileWritten(t *testing.T) {
	dir := t.TempDir()
	w := newWriter(t, dir, warc.Options{})
	if err := w.Record(context.Background(), exchange("http://example.com/", 100)); err != nil {
		t.Fatal(err)
	}
	path := w.Files()[0]
	if _, err := os.Stat(path + ".open"); err != nil {
		t.Errorf("while written: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists before its Writer closed it (%v)", filepath.Base(path), err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".open"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the .open file is still there after Close (%v)", err)
	}
	if n := len(readFile(t, path)); n != 3 {
		t.Errorf("%d records, want 3", n)
	}
}

// A file a crashed Writer left (named .open, locked by no one) is cut
// after its last whole record and named by the next NewWriter in its
// directory, whatever its tail: a record cut anywhere by kill -9, or
// zeros a power loss left past the data.
func TestNewWriterRepairsAbandoned(t *testing.T) {
	whole := wholeFile(t, 3) // 7 records
	const name = "crawl-20260101000000-00003.warc.gz"
	tails := map[string][]byte{
		"whole":         whole,
		"zeros after":   append(bytes.Clone(whole), make([]byte, 4096)...),
		"last byte cut": whole[:len(whole)-1],
		"trailer cut":   whole[:len(whole)-9],
		"block cut":     whole[:len(whole)-1000],
		"2 records cut": whole[:len(whole)-2100],
	}
	for what, data := range tails {
		t.Run(what, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, name+".open"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			w := newWriter(t, dir, warc.Options{})
			defer w.Close()
			if _, err := os.Stat(filepath.Join(dir, name+".open")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the .open file is still there (%v)", err)
			}
			path := filepath.Join(dir, name)
			recs := readFile(t, path) // fails on anything but whole records
			for _, r := range recs {
				if err := r.Verify(); err != nil {
					t.Errorf("%s record: %v", r.Type(), err)
				}
			}
			got := readBytes(t, path)
			if !bytes.HasPrefix(whole, got) || len(recs) < 4 || what == "whole" && len(recs) != 7 || what == "zeros after" && !bytes.Equal(got, whole) {
				t.Errorf("%d bytes kept of %d, in %d records: want a prefix of the file, its whole records", len(got), len(data), len(recs))
			}
			// The next file is numbered after it.
			if err := w.Record(context.Background(), exchange("http://example.com/next", 10)); err != nil {
				t.Fatal(err)
			}
			if next := filepath.Base(w.Files()[0]); next[len(next)-len("00004.warc.gz"):] != "00004.warc.gz" {
				t.Errorf("next file %s, want number 00004", next)
			}
		})
	}
}

// A file another Writer is writing is left alone.
func TestNewWriterLeavesLiveFile(t *testing.T) {
	dir := t.TempDir()
	w1 := newWriter(t, dir, warc.Options{})
	if err := w1.Record(context.Background(), exchange("http://example.com/1", 100)); err != nil {
		t.Fatal(err)
	}
	w2 := newWriter(t, dir, warc.Options{})
	if err := w2.Record(context.Background(), exchange("http://example.com/2", 100)); err != nil {
		t.Fatal(err)
	}
	if err := w1.Record(context.Background(), exchange("http://example.com/3", 100)); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(w1.Close(), w2.Close()); err != nil {
		t.Fatal(err)
	}
	f1, f2 := w1.Files()[0], w2.Files()[0]
	if f1 == f2 || len(readFile(t, f1)) != 5 || len(readFile(t, f2)) != 3 {
		t.Errorf("files %s and %s: want two, of 5 and 3 records", filepath.Base(f1), filepath.Base(f2))
	}
}

// Repair cuts only what cannot be a record, and refuses a record larger
// than it reads.
func TestRepair(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	whole := wholeFile(t, 2)
	if cut, err := warc.Repair(write("whole.warc.gz", whole)); cut != 0 || err != nil {
		t.Errorf("whole file: cut %d, %v; want 0, nil", cut, err)
	}
	first := record("WARC-Type: resource\r\n", "abc")
	plain := first + record("WARC-Type: resource\r\n", "defg")
	path := write("plain.warc", []byte(plain[:len(plain)-3]))
	want := int64(len(plain) - 3 - len(first)) // the second record, torn
	if cut, err := warc.Repair(path); err != nil || cut != want || len(readFile(t, path)) != 1 {
		t.Errorf("uncompressed, torn: cut %d, %v; want %d, and one record", cut, err, want)
	}
	huge := "WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 2000000000\r\n\r\nabc"
	path = write("huge.warc", []byte(huge))
	if cut, err := warc.Repair(path); err == nil || !errors.Is(err, warc.ErrTooLarge) || cut != 0 || len(readBytes(t, path)) != len(huge) {
		t.Errorf("a record beyond the bound: cut %d, %v; want an error wrapping ErrTooLarge, nothing cut", cut, err)
	}
	if _, err := warc.Repair(filepath.Join(dir, "missing.warc")); err == nil {
		t.Error("Repair of a missing file: no error")
	}
}
