package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crawler"
)

func TestDemoCrawl(t *testing.T) {
	out := filepath.Join(t.TempDir(), "pages.jsonl")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-demo", "-max-pages", "300", "-out", out, "-json"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	var s summary
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		t.Fatalf("summary is not JSON: %v\n%s", err, stdout.String())
	}
	if s.Requests != 300 || s.Fetched != 300 || s.Interrupted || s.Hosts < 2 || s.RobotsFetched < 1 {
		t.Errorf("summary = %+v", s)
	}

	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines, urls := 0, map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d: %v: %s", lines+1, err, sc.Text())
		}
		if r.URL == "" || r.Status == 0 || urls[r.URL] {
			t.Errorf("line %d: bad or duplicate record %+v", lines+1, r)
		}
		urls[r.URL] = true
		lines++
	}
	if lines != 300 {
		t.Errorf("%d records in -out, want 300", lines)
	}
}

func TestSeenSets(t *testing.T) {
	for _, set := range []string{"exact", "bloom", "bitmap"} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), []string{"-demo", "-max-pages", "200", "-json", "-seen", set, "-seen-size", "100000"}, &stdout, &stderr); err != nil {
			t.Fatalf("-seen %s: %v", set, err)
		}
		var s summary
		if err := json.Unmarshal(stdout.Bytes(), &s); err != nil || s.Fetched != 200 || s.Seen < 200 {
			t.Errorf("-seen %s: summary %+v, err %v", set, s, err)
		}
	}
}

// -frontier aopic crawls most important first and records each page's
// importance; the seed, holding all the credit, comes first with 1.
func TestFrontierAOPIC(t *testing.T) {
	out := filepath.Join(t.TempDir(), "pages.jsonl")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-demo", "-frontier", "aopic", "-workers", "1", "-max-pages", "200", "-out", out, "-json"}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 200 {
		t.Fatalf("%d records, want 200", len(lines))
	}
	for i, line := range lines {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if i == 0 && (r.Importance != 1 || r.Depth != 0) {
			t.Errorf("first record %+v: want the seed with importance 1", r)
		}
		if r.Importance <= 0 || r.Importance > 1 {
			t.Errorf("record %d: importance %v, want in (0, 1]", i, r.Importance)
		}
	}
}

func TestInterruptPrintsSummary(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var stdout, stderr bytes.Buffer
	// One request per host per second: the crawl cannot finish in time.
	if err := run(ctx, []string{"-demo", "-delay", "1s"}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v", err)
	}
	if !strings.Contains(stderr.String(), "interrupted") || !strings.Contains(stderr.String(), "fetched") {
		t.Errorf("stderr = %q, want an interrupted summary", stderr.String())
	}
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{{}, {"-max-pages", "x"}, {"ftp://example.invalid/"}, {"-demo", "-seen", "cuckoo"}, {"-demo", "-frontier", "dfs"}} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, &stdout, &stderr); err == nil {
			t.Errorf("run(%q) succeeded, want an error", args)
		}
	}
}

func TestPacingFlags(t *testing.T) {
	o, _, err := parseFlags([]string{"-delay-factor", "0", "-max-retry-after", "0", "-backoff", "2s", "-max-backoff", "1m",
		"-max-host-failures", "0", "-max-retries", "7", "-rate", "3.5", "-max-crawl-delay", "4s", "-max-adaptive-delay", "9s", "http://x.test/"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var c crawler.Crawler
	o.pacing.apply(&c)
	want := crawler.Crawler{DelayFactor: -1, MaxRetryAfter: -1, Backoff: 2 * time.Second, MaxBackoff: time.Minute,
		MaxHostFailures: -1, MaxRetries: 7, MaxRate: 3.5, MaxCrawlDelay: 4 * time.Second, MaxAdaptiveDelay: 9 * time.Second}
	if c.DelayFactor != want.DelayFactor || c.MaxRetryAfter != want.MaxRetryAfter || c.Backoff != want.Backoff ||
		c.MaxBackoff != want.MaxBackoff || c.MaxHostFailures != want.MaxHostFailures || c.MaxRetries != want.MaxRetries ||
		c.MaxRate != want.MaxRate || c.MaxCrawlDelay != want.MaxCrawlDelay || c.MaxAdaptiveDelay != want.MaxAdaptiveDelay {
		t.Errorf("flags gave factor %v, retry-after %v, backoff %v..%v, failures %d, retries %d, rate %v, crawl-delay %v, adaptive %v",
			c.DelayFactor, c.MaxRetryAfter, c.Backoff, c.MaxBackoff, c.MaxHostFailures, c.MaxRetries, c.MaxRate, c.MaxCrawlDelay, c.MaxAdaptiveDelay)
	}

	// The defaults are the library's.
	o, _, _ = parseFlags([]string{"http://x.test/"}, io.Discard)
	c = crawler.Crawler{}
	o.pacing.apply(&c)
	if c.DelayFactor != crawler.DefaultDelayFactor || c.Backoff != crawler.DefaultBackoff || c.MaxRetries != crawler.DefaultMaxRetries ||
		c.MaxHostFailures != crawler.DefaultMaxHostFailures || c.MaxRetryAfter != crawler.DefaultMaxRetryAfter || c.MaxRate != 0 {
		t.Errorf("default flags gave factor %v, backoff %v, retries %d, failures %d, retry-after %v, rate %v",
			c.DelayFactor, c.Backoff, c.MaxRetries, c.MaxHostFailures, c.MaxRetryAfter, c.MaxRate)
	}
}

// -rate bounds the demo crawl's requests per second, and -host-stats
// writes one line per host that adds up to the summary.
func TestRateAndHostStats(t *testing.T) {
	hosts := filepath.Join(t.TempDir(), "hosts.jsonl")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-demo", "-max-pages", "40", "-rate", "100", "-json", "-host-stats", hosts}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	var s summary
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	// 40 pages and their hosts' robots.txt at 100/s: at least 0.4 s.
	if s.Requests != 40 || s.ElapsedSec < float64(40+s.RobotsFetched-2)/100 {
		t.Errorf("summary %+v: faster than -rate 100 allows", s)
	}
	data, err := os.ReadFile(hosts)
	if err != nil {
		t.Fatal(err)
	}
	var requests, robots int64
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, l := range lines {
		var h hostRecord
		if err := json.Unmarshal([]byte(l), &h); err != nil || h.Host == "" {
			t.Fatalf("bad line %q: %v", l, err)
		}
		requests += h.Requests
		robots += h.RobotsRequests
	}
	if len(lines) == 0 || len(lines) > s.Hosts || requests != s.Requests || robots != s.RobotsFetched {
		t.Errorf("%d host lines with %d requests and %d robots.txt; summary says %d hosts, %d requests, %d robots.txt",
			len(lines), requests, robots, s.Hosts, s.Requests, s.RobotsFetched)
	}
}

func TestTrapFlags(t *testing.T) {
	o, _, err := parseFlags([]string{"-max-url-length", "0", "-max-path-depth", "7", "-max-segment-repeats", "0",
		"-max-pages-per-host", "100", "-max-query-values", "50", "-duplicate-pages", "0", "http://x.test/"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := crawler.Traps{MaxURLLength: -1, MaxPathDepth: 7, MaxSegmentRepeats: -1, MaxPagesPerHost: 100, MaxQueryValues: 50, DuplicatePages: -1}
	if got := o.traps.traps(); got != want {
		t.Errorf("flags gave %+v, want %+v", got, want)
	}
	o, _, _ = parseFlags([]string{"http://x.test/"}, io.Discard)
	want = crawler.Traps{MaxURLLength: crawler.DefaultMaxURLLength, MaxPathDepth: crawler.DefaultMaxPathDepth,
		MaxSegmentRepeats: crawler.DefaultMaxSegmentRepeats, DuplicatePages: crawler.DefaultDuplicatePages}
	if got := o.traps.traps(); got != want {
		t.Errorf("default flags gave %+v, want %+v", got, want)
	}
}
