package warc

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"crawler/fetch"
)

// bufferExchange returns an exchange of a response of n bytes of body
// that deflate cannot shrink, so that a few of them fill the buffer.
func bufferExchange(path string, n int) *fetch.Exchange {
	body := make([]byte, n)
	seed := uint32(len(path)) + 1
	for i := range body {
		seed = seed*1664525 + 1013904223
		body[i] = byte(seed >> 24)
	}
	return &fetch.Exchange{URL: "http://example.com" + path, IP: "192.0.2.1", Date: time.Now(),
		Request:  []byte("GET " + path + " HTTP/1.1\r\nHost: example.com\r\n\r\n"),
		Response: append([]byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", n)), body...)}
}

// countRecords returns how many whole records the file at path holds,
// and the error that ended them (nil at the end of the file).
func countRecords(t *testing.T, path string) (int, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	r := NewReader(f)
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if err := rec.Verify(); err != nil {
			return n, err
		}
		n++
	}
}

// wantRecords fails the test unless the file at path holds n whole
// records and nothing after them.
func wantRecords(t *testing.T, path string, n int, when string) {
	t.Helper()
	if got, err := countRecords(t, path); got != n || err != nil {
		t.Errorf("%s: %d records, then %v; want %d, then the end", when, got, err, n)
	}
}

// An exchange's records wait in the buffer at most maxStale: they reach
// the file without Sync, and not before (the buffer is far from full).
func TestBufferStale(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, err := NewWriter(t.TempDir(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		for i := range 2 {
			if err := w.Record(context.Background(), bufferExchange(fmt.Sprintf("/%d", i), 100)); err != nil {
				t.Fatal(err)
			}
			synctest.Wait() // the compressors have put its records in the buffer
			w.mu.Lock()
			path := w.path + openSuffix
			w.mu.Unlock()
			wantRecords(t, path, 1+2*i, fmt.Sprintf("exchange %d, buffered", i))
			time.Sleep(maxStale - time.Nanosecond)
			synctest.Wait()
			wantRecords(t, path, 1+2*i, fmt.Sprintf("exchange %d, just before maxStale", i))
			time.Sleep(time.Nanosecond)
			synctest.Wait()
			wantRecords(t, path, 3+2*i, fmt.Sprintf("exchange %d, at maxStale", i))
		}
	})
}

// Sync, Files and Close write the buffer to the file; so does an exchange
// that fills it, or one whose Record waits (over maxQueuedBytes), which
// goes after the buffered ones.
func TestBufferWritten(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(w *Writer) error
		n     int // records in the file after it, the warcinfo record's included
	}{
		{"Sync", (*Writer).Sync, 5},
		{"Files", func(w *Writer) error { w.Files(); return nil }, 5},
		{"Close", (*Writer).Close, 5},
		{"full", func(w *Writer) error { // four exchanges of a bit more than a quarter of it
			for i := range 4 {
				if err := w.Record(context.Background(), bufferExchange(fmt.Sprintf("/full/%d", i), bufferBytes/4)); err != nil {
					return err
				}
			}
			synctest.Wait()
			return nil
		}, 5 + 2*4},
		{"large", func(w *Writer) error {
			return w.Record(context.Background(), bufferExchange("/large", maxQueuedBytes+1))
		}, 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w, err := NewWriter(t.TempDir(), Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				for i := range 2 {
					if err := w.Record(context.Background(), bufferExchange(fmt.Sprintf("/%d", i), 100)); err != nil {
						t.Fatal(err)
					}
				}
				synctest.Wait()
				w.mu.Lock()
				path := w.path
				w.mu.Unlock()
				wantRecords(t, path+openSuffix, 1, "buffered")
				if err := c.write(w); err != nil {
					t.Fatal(err)
				}
				if c.name != "Close" { // which names the file
					path += openSuffix
				}
				wantRecords(t, path, c.n, "after "+c.name)
			})
		})
	}
}
