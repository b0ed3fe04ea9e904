package crawler_test

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"crawler"
	"crawler/crawlertest"
)

// heapPeak samples the bytes of heap objects (live, and dead but not yet
// swept: what the heap holds) every interval until stop is called, which
// returns the highest sample.
func heapPeak(interval time.Duration) (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	var peak atomic.Uint64
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-t.C:
			case <-done:
				return
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-exited
		return peak.Load()
	}
}

// countPages is a Handler that keeps nothing but a count, so that what
// the heap holds is the crawler's.
type countPages struct{ n atomic.Int64 }

func (c *countPages) Handle(context.Context, *crawler.Page) error {
	c.n.Add(1)
	return nil
}

// TestFaultMemory crawls the worst pages of the fault server (the gzip
// bomb, the endless body, a million links, a 1 MiB attribute, a tag of
// 524,288 attributes, a 1 MiB header, a Content-Length of 1 GiB), each
// on three hosts, with the default caps and 16 workers, and checks that
// the heap of the test process (crawler and server) never holds more
// than memoryBound, sampled every millisecond.
//
// Measured peaks: 120-160 MiB; 175-220 MiB with the former readBody,
// whose buffer doubled past the body cap; 285-300 MiB when x/net/html's
// Tokenizer buffered whole tokens and MaxLinksPerPage was not there. A
// worker holds at most about 30 MiB: a body of MaxBodyBytes (10 MiB) and
// 8 MiB more during its last doubling, and MaxLinksPerPage links (link
// extraction reads the body in place).
func TestFaultMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector slows 10 MiB pages tenfold and changes GC pacing; .ci/run runs this test without -race")
	}
	const memoryBound = 256 << 20
	s := crawlertest.NewFaultServer(crawlertest.FaultConfig{})
	defer s.Close()
	var pages countPages
	c, f := faultCrawler(s, &pages)
	defer f.CloseIdleConnections()
	c.Workers = 0 // DefaultWorkers
	c.Scope = seedsOnly

	// Each fault on several hosts (PerHost is 1), so that all workers
	// face a worst page at once.
	worst := []struct {
		fault crawlertest.Fault
		path  string
	}{
		{crawlertest.GzipBomb, "/"},
		{crawlertest.EndlessBody, "/"},
		{crawlertest.ManyLinks, "/"},
		{crawlertest.HugeAttribute, "/"},
		{crawlertest.HugeAttribute, "/attrs"},
		{crawlertest.HugeHeader, "/"},
		{crawlertest.LyingLength, "/over"},
	}
	var seeds []string
	for i := range 3 {
		for _, w := range worst {
			seeds = append(seeds, fmt.Sprintf("http://w%d.%s.faults.test%s", i, w.fault, w.path))
		}
	}

	runtime.GC()
	stop := heapPeak(time.Millisecond)
	start := time.Now()
	err := c.Run(context.Background(), seeds...)
	peak := stop()
	if err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	t.Logf("%d workers, %d pages in %v: peak heap %.1f MiB (bound %d MiB); truncated %d, links truncated %d, errors %s",
		crawler.DefaultWorkers, pages.n.Load(), time.Since(start).Round(time.Millisecond), float64(peak)/(1<<20), memoryBound>>20,
		st.Truncated, st.LinksTruncated, st.ErrorSummary())
	if peak > memoryBound {
		t.Errorf("peak heap %.1f MiB, over the bound of %d MiB", float64(peak)/(1<<20), memoryBound>>20)
	}
	// The worst pages were served as such: bodies cut at the cap (bomb,
	// endless, links), links cut short (the million links).
	if pages.n.Load() != int64(len(seeds)) || st.Truncated != 3*3 || st.LinksTruncated != 3 {
		t.Errorf("%d pages handled, %d truncated, %d with links truncated; want %d, 9, 3",
			pages.n.Load(), st.Truncated, st.LinksTruncated, len(seeds))
	}
}
