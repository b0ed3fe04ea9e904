package store_test

import (
	"flag"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"syscall"
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
// the time per URL, the bytes on disk per URL, the peak Go heap and
// RSS, and the time to reopen. One op is the whole run.
//
//	go test -run '^$' -bench URLs -benchtime 1x ./store -args -store.urls 10000000
func BenchmarkURLs(b *testing.B) {
	for b.Loop() {
		dir := b.TempDir()
		st, err := store.Open(dir, store.Options{ExpectedURLs: *benchURLs})
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
		st, err = store.Open(dir, store.Options{ExpectedURLs: *benchURLs})
		if err != nil {
			b.Fatal(err)
		}
		reopen := time.Since(start)
		st.Close()
		b.ReportMetric(float64(elapsed.Nanoseconds())/float64(pushed), "ns/URL")
		b.ReportMetric(float64(size)/float64(pushed), "disk-B/URL")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(reopen.Seconds(), "reopen-s")
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MB") // the test process's, reopen included
	}
}

var benchPages = flag.Int("store.pages", 300_000, "pages BenchmarkPages crawls")

// BenchmarkPages plays the store's part of a crawl of -store.pages pages of
// 20,000 hosts, without the network: each page handed out links to 30
// URLs, 10 of them new (on random hosts), 18 popular (one of 100,000 URLs
// linked from everywhere, which the cache keeps) and 2 seen long ago (any
// URL discovered so far, which the cache may have let go), tested as one
// batch; the new ones are pushed, the page done and the step committed.
// Those are the shares of a crawl of bench's web (2.9M URLs discovered at
// 300k pages, 0.6 store reads a page). It reports the time and the CPU
// time (Pebble's compactions included) per page, the store's reads per
// page, and the share of the seen tests the Bloom filter could not answer
// that the cache answered.
//
//	go test -run '^$' -bench Pages -benchtime 1x -count 5 ./store
func BenchmarkPages(b *testing.B) {
	const hosts, popular = 20_000, 100_000
	for b.Loop() {
		st, err := store.Open(b.TempDir(), store.Options{})
		if err != nil {
			b.Fatal(err)
		}
		f, s := st.Frontier(), st.Seen()
		url := func(i int) (string, string, uint64) {
			host := fmt.Sprintf("h%d.crawler.test", uint64(i)*2654435761%hosts)
			u := fmt.Sprintf("http://%s/p/%d/index.html", host, i)
			return u, host, xxh3.HashString(u)
		}
		discovered := 0
		push := func(referrer string) {
			u, host, fp := url(discovered)
			discovered++
			if s.Add(fp) {
				f.Push(frontier.Entry{URL: u, FP: fp, Host: host, Depth: 3, Referrer: referrer})
			}
		}
		for range popular {
			push("")
		}
		if err := f.Commit(); err != nil {
			b.Fatal(err)
		}
		rng := uint64(1)
		random := func(n int) int { // xorshift: the benchmark's own, repeatable
			rng ^= rng << 13
			rng ^= rng >> 7
			rng ^= rng << 17
			return int(rng % uint64(n))
		}
		fps := make([]uint64, 0, 30)
		var before syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &before)
		start := time.Now()
		now := time.Unix(0, 0)
		for range *benchPages {
			e, ok, _ := f.Next(now)
			if !ok {
				b.Fatal("the frontier ran dry")
			}
			fps = fps[:0]
			for range 18 {
				_, _, fp := url(random(popular))
				fps = append(fps, fp)
			}
			for range 2 {
				_, _, fp := url(random(discovered))
				fps = append(fps, fp)
			}
			for i := range 10 {
				_, _, fp := url(discovered + i)
				fps = append(fps, fp)
			}
			s.Prepare(fps)
			for _, fp := range fps[:20] {
				if s.Add(fp) {
					b.Fatal("a seen URL was new")
				}
			}
			for range 10 {
				push(e.URL)
			}
			f.Done(e, frontier.Result{Requested: true, Next: now})
			if err := f.Commit(); err != nil {
				b.Fatal(err)
			}
		}
		elapsed := time.Since(start)
		var after syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		stats := s.Stats()
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
		cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
		b.ReportMetric(float64(elapsed.Nanoseconds())/float64(*benchPages), "ns/page")
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(*benchPages), "cpu-ns/page")
		b.ReportMetric(float64(stats.Reads)/float64(*benchPages), "reads/page")
		b.ReportMetric(100*float64(stats.CacheHits)/float64(stats.CacheHits+stats.Reads), "cache-hit-%")
		b.ReportMetric(float64(after.Maxrss)/1024, "peak-RSS-MB")
	}
}
