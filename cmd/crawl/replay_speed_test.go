package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"crawler/crawlertest"
)

// TestReplaySpeed compares the wall time of a crawl of a web that
// answers in 5 ms with that of its replay, in alternating runs, and
// wants the replay 5 times as fast. It is a measurement, not a check
// for every run: it runs when CRAWL_REPLAY_SPEED is set, to the crawl's
// pacing flags ("-delay 100ms", say; "default" for none):
//
//	CRAWL_REPLAY_SPEED='-delay -1s -delay-factor -1' go test -run TestReplaySpeed -v ./cmd/crawl/
func TestReplaySpeed(t *testing.T) {
	flags := os.Getenv("CRAWL_REPLAY_SPEED")
	if flags == "" {
		t.Skip("CRAWL_REPLAY_SPEED unset: a measurement, run on an idle machine (see the doc comment)")
	}
	if flags == "default" {
		flags = ""
	}
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 3, Hosts: 20, PagesPerHost: 50, Latency: 5 * time.Millisecond})
	t.Cleanup(w.Close)
	dir := t.TempDir()
	archive := filepath.Join(dir, "warc")
	crawl := func(extra ...string) time.Duration {
		args := append(strings.Fields(flags), "-progress", "-1s", "-out", filepath.Join(dir, "out.jsonl"))
		cmd := crawlCommand(t.Context(), append(append(args, extra...), w.Seeds()[0])...)
		cmd.Env = append(cmd.Env, "HTTP_PROXY="+w.ProxyURL().String())
		start := time.Now()
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%q: %v\n%s", extra, err, b)
		}
		return time.Since(start)
	}
	crawl("-warc", archive)
	t.Logf("%d requests a crawl", w.TotalRequests())
	crawl("-replay", archive) // builds the index
	var live, replayed []time.Duration
	for range 3 {
		live = append(live, crawl())
		replayed = append(replayed, crawl("-replay", archive))
	}
	slices.Sort(live)
	slices.Sort(replayed)
	ratio := float64(live[1]) / float64(replayed[1])
	t.Logf("flags %q: live %v, replayed %v (medians of 3, alternating): %.1fx", flags, live, replayed, ratio)
	if ratio < 5 {
		t.Errorf("replay %.1fx the live crawl's speed, want 5x or more", ratio)
	}
}
