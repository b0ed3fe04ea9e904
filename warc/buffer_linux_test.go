package warc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// A write of the buffer that fails (here past the file size limit,
// RLIMIT_FSIZE, as on a full disk: the write is cut, then fails) is taken
// back, leaving the file's records whole, and stops the Writer: the next
// Sync and Record fail, so that a crawl that syncs before it counts pages
// done counts none whose records were lost. The buffer is written by
// Sync, by the exchange that fills it, or by the timer of maxStale.
//
// The limit is the process's: the test must not run in parallel.
func TestBufferWriteError(t *testing.T) {
	for _, c := range []struct {
		name  string
		write func(t *testing.T, w *Writer) // writes the buffer, which holds two exchanges
	}{
		{"Sync", func(t *testing.T, w *Writer) {
			if err := w.Sync(); !errors.Is(err, syscall.EFBIG) {
				t.Errorf("Sync = %v, want the write's EFBIG", err)
			}
		}},
		{"full", func(t *testing.T, w *Writer) {
			for i := range 4 { // each a bit more than a quarter of the buffer
				if err := w.Record(context.Background(), bufferExchange(fmt.Sprintf("/full/%d", i), bufferBytes/4)); err != nil {
					t.Fatalf("Record of exchange %d, before the buffer was written: %v", i, err)
				}
			}
			synctest.Wait()
		}},
		{"stale", func(t *testing.T, w *Writer) {
			time.Sleep(maxStale)
			synctest.Wait()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w, err := NewWriter(t.TempDir(), Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				if err := w.Record(context.Background(), bufferExchange("/0", 100)); err != nil {
					t.Fatal(err)
				}
				if err := w.Sync(); err != nil {
					t.Fatal(err)
				}
				path := w.Files()[0] + openSuffix
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				for i := 1; i <= 2; i++ {
					if err := w.Record(context.Background(), bufferExchange(fmt.Sprintf("/%d", i), 1000)); err != nil {
						t.Fatal(err)
					}
				}
				synctest.Wait()

				var old syscall.Rlimit
				if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
					t.Fatal(err)
				}
				limited := old
				limited.Cur = uint64(fi.Size()) + 100 // the write is cut, then fails
				if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limited); err != nil {
					t.Skipf("RLIMIT_FSIZE: %v", err)
				}
				c.write(t, w)
				if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
					t.Fatal(err)
				}

				if after, err := os.Stat(path); err != nil || after.Size() != fi.Size() {
					t.Errorf("file of %d bytes after the failed write (%v), want %d, as before it", after.Size(), err, fi.Size())
				}
				wantRecords(t, path, 3, "after the failed write")
				if err := w.Sync(); !errors.Is(err, syscall.EFBIG) {
					t.Errorf("Sync after the failed write = %v, want its EFBIG", err)
				}
				if err := w.Record(context.Background(), bufferExchange("/after", 100)); !errors.Is(err, syscall.EFBIG) {
					t.Errorf("Record after the failed write = %v, want its EFBIG", err)
				}
				if err := w.Close(); !errors.Is(err, syscall.EFBIG) {
					t.Errorf("Close after the failed write = %v, want its EFBIG", err)
				}
				if _, err := os.Stat(w.Files()[0]); err != nil {
					t.Errorf("file not named at Close: %v", err)
				}
			})
		})
	}
}
