package replay_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"crawler/fetch"
	"crawler/replay"
	"crawler/warc"
)

// archiveOf writes n exchanges of pages of about 4 KiB to a Writer in a
// temporary directory, and returns the directory and the pages' URLs.
func archiveOf(tb testing.TB, n int) (string, []string) {
	dir := tb.TempDir()
	w, err := warc.NewWriter(dir, warc.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	body := "<html><title>page</title>" + strings.Repeat(`<p>some text of a page <a href="/p/1">a link</a></p>`, 70) + "</html>"
	urls := make([]string, n)
	for i := range n {
		urls[i] = fmt.Sprintf("http://h%d.example/p/%d", i%100, i)
		x := &fetch.Exchange{URL: urls[i], IP: "192.0.2.1", Date: time.Now(),
			Request:  []byte("GET /p/" + fmt.Sprint(i) + " HTTP/1.1\r\nHost: h.example\r\n\r\n"),
			Response: []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body)),
		}
		if err := w.Record(context.Background(), x); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return dir, urls
}

// BenchmarkFetch replays pages of about 4 KiB from an archive of 10,000.
func BenchmarkFetch(b *testing.B) {
	dir, urls := archiveOf(b, 10_000)
	a := open(b, dir, replay.Options{})
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := a.Fetch(ctx, &fetch.Request{URL: urls[i%len(urls)]}); err != nil {
			b.Fatal(err)
		}
		i += 7919
	}
}

// BenchmarkOpen opens an archive of 10,000 records from its index file,
// and reports the heap the index keeps, per record.
func BenchmarkOpen(b *testing.B) {
	const n = 10_000
	dir, _ := archiveOf(b, n)
	open(b, dir, replay.Options{}) // writes the index file
	var before, after runtime.MemStats
	var kept *replay.Archive
	b.ReportAllocs()
	for b.Loop() {
		runtime.GC()
		runtime.ReadMemStats(&before)
		a, err := replay.Open(dir, replay.Options{})
		if err != nil || a.Rebuilt() {
			b.Fatal(err, a.Rebuilt())
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		a.Close()
		kept = a
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heap-B/record")
	runtime.KeepAlive(kept)
}
