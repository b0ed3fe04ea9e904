package store_test

import (
	"flag"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/zeebo/xxh3"

	"crawler/frontier"
	"crawler/store"
)

var benchURLs = flag.Int("store.urls", 1_000_000, "URLs BenchmarkURLs pushes (10M for the issue's figure)")

// BenchmarkURLs pushes -store.urls URLs of 10,000 hosts through the store,
// on disk, as a crawl would: each page done finds 10 new URLs, seen-set
// and frontier written in one step; then it reopens the store. It reports
// the time per URL, the bytes on disk per URL, the peak Go heap, and the
// time to reopen. One op is the whole run.
//
//	go test -run '^$' -bench URLs -benchtime 1x ./store -args -store.urls 10000000
func BenchmarkURLs(b *testing.B) {
	for b.Loop() {
		dir := b.TempDir()
		st, err := store.Open(dir, &store.Options{ExpectedURLs: *benchURLs})
		if err != nil {
			b.Fatal(err)
		}
		f, s := st.Frontier(), st.Seen()
		var peak uint64
		var ms runtime.MemStats
		start := time.Now()
		pushed := 0
		push := func() {
			fp := xxh3.HashString(fmt.Sprint(pushed))
			host := fmt.Sprintf("h%d.example", pushed%10_000)
			if s.Add(fp) {
				f.Push(frontier.Entry{URL: fmt.Sprintf("http://%s/page/%d", host, pushed), FP: fp, Host: host, Depth: 3,
					Referrer: "http://" + host + "/"})
			}
			pushed++
		}
		for range 1000 {
			push()
		}
		now := time.Unix(0, 0)
		for pushed < *benchURLs {
			e, ok, _ := f.Next(now)
			if !ok {
				b.Fatal("the frontier ran dry")
			}
			for range 10 {
				push()
			}
			f.Done(e, frontier.Result{Requested: true})
			if err := f.Commit(); err != nil {
				b.Fatal(err)
			}
			if pushed%100_000 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
		elapsed := time.Since(start)
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
		var size int64
		filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if info, err := d.Info(); err == nil {
					size += info.Size()
				}
			}
			return nil
		})
		start = time.Now()
		st, err = store.Open(dir, &store.Options{ExpectedURLs: *benchURLs})
		if err != nil {
			b.Fatal(err)
		}
		reopen := time.Since(start)
		st.Close()
		b.ReportMetric(float64(elapsed.Nanoseconds())/float64(pushed), "ns/URL")
		b.ReportMetric(float64(size)/float64(pushed), "disk-B/URL")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(reopen.Seconds(), "reopen-s")
	}
}
