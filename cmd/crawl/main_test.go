package main

import (
	"bufio"
	"bytes"
	"context"
	"crawler/politeness"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"crawler"
	"crawler/traps"
)

// -demo crawls its own web: -max-pages requests, one -out record each, and
// a -json summary that says so.
func TestDemoCrawl(t *testing.T) {
	t.Parallel()
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
	lines, urls, titled, noFollow := 0, map[string]bool{}, 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d: %v: %s", lines+1, err, sc.Text())
		}
		if r.URL == "" || r.Status == 0 || urls[r.URL] {
			t.Errorf("line %d: bad or duplicate record %+v", lines+1, r)
		}
		if strings.HasPrefix(r.ContentType, "text/html") && r.Status == 200 && !strings.HasPrefix(r.Title, "Host ") {
			t.Errorf("line %d: an HTML page without its title: %+v", lines+1, r)
		}
		if r.Title != "" {
			titled++
		}
		noFollow += r.NoFollow
		urls[r.URL] = true
		lines++
	}
	if lines != 300 || titled == 0 || noFollow == 0 {
		t.Errorf("%d records in -out, %d with a title, %d nofollow links; want 300, and titles and nofollow links", lines, titled, noFollow)
	}
}

// Each -seen set crawls the demo.
func TestSeenSets(t *testing.T) {
	t.Parallel()
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

// demoByFrontier crawls 200 pages of the demo with -frontier name and one
// worker, and returns the -out records in order.
func demoByFrontier(t *testing.T, name string) []record {
	t.Helper()
	out := filepath.Join(t.TempDir(), "pages.jsonl")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-demo", "-frontier", name, "-workers", "1", "-max-pages", "200", "-out", out, "-json"}, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var records []record
	for line := range strings.Lines(string(data)) {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		records = append(records, r)
	}
	return records
}

// -frontier aopic crawls most important first and records each page's
// importance; the seed, holding all the credit, comes first with 1.
func TestFrontierAOPIC(t *testing.T) {
	t.Parallel()
	records := demoByFrontier(t, "aopic")
	if len(records) != 200 {
		t.Fatalf("%d records, want 200", len(records))
	}
	for i, r := range records {
		if i == 0 && (r.Importance != 1 || r.Depth != 0) {
			t.Errorf("first record %+v: want the seed with importance 1", r)
		}
		if r.Importance <= 0 || r.Importance > 1 {
			t.Errorf("record %d: importance %v, want in (0, 1]", i, r.Importance)
		}
	}
}

// -frontier priority records each page's I(P): the seed, a home page
// without backlinks, comes first with its URL score 1; pages linked from
// several pages come with more.
func TestFrontierPriority(t *testing.T) {
	t.Parallel()
	records := demoByFrontier(t, "priority")
	linked := 0
	for i, r := range records {
		if i == 0 && (r.Importance != 1 || r.Depth != 0) {
			t.Errorf("first record %+v: want the seed with importance 1", r)
		}
		if r.Importance >= 2 {
			linked++
		}
	}
	if len(records) != 200 || linked == 0 {
		t.Errorf("%d records, %d with importance 2 or more (two backlinks); want 200 and some", len(records), linked)
	}
}

// A crawl whose context ends is not an error for run, which prints the
// summary of an interrupted crawl.
func TestInterruptPrintsSummary(t *testing.T) {
	t.Parallel()
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

// Bad command lines are usage errors (exit status 2), found before the
// crawl starts (nothing written).
func TestBadArguments(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"-max-pages", "x"}, {"ftp://example.invalid/"}, {"-demo", "-seen", "cuckoo"}, {"-demo", "-frontier", "dfs"}} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		if !errors.As(err, new(usageError)) || stdout.Len()+stderr.Len() != 0 {
			t.Errorf("run(%q) = %v, wrote %q and %q; want a usage error and nothing written", args, err, stdout.String(), stderr.String())
		}
	}
}

// Each pacing flag sets its field of politeness.Pacing. A flag's default
// is the library's, written out; 0 is taken literally: none, no cap, never,
// which in the library is a negative value.
func TestPacingFlags(t *testing.T) {
	t.Parallel()
	o, _, err := parseFlags([]string{"-delay-factor", "-1", "-max-retry-after", "0", "-backoff", "2s", "-max-backoff", "1m",
		"-max-host-failures", "0", "-max-retries", "7", "-rate", "3.5", "-max-crawl-delay", "4s", "-max-adaptive-delay", "9s", "http://x.test/"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := politeness.Pacing{Delay: politeness.DefaultDelay, DelayFactor: -1, MaxRetryAfter: -1, Backoff: 2 * time.Second, MaxBackoff: time.Minute,
		MaxFailures: -1, MaxCrawlDelay: 4 * time.Second, MaxAdaptiveDelay: 9 * time.Second}
	if o.pacing != want || o.maxRetries != 7 || o.rate != 3.5 {
		t.Errorf("flags gave pacing %+v, retries %d, rate %v; want %+v, 7, 3.5", o.pacing, o.maxRetries, o.rate, want)
	}

	// The flags' defaults are the library's.
	o, _, _ = parseFlags([]string{"http://x.test/"}, io.Discard)
	pacing := politeness.Pacing{Delay: politeness.DefaultDelay, MaxCrawlDelay: politeness.DefaultMaxCrawlDelay,
		DelayFactor: politeness.DefaultDelayFactor, MaxAdaptiveDelay: politeness.DefaultMaxAdaptiveDelay,
		MaxRetryAfter: politeness.DefaultMaxRetryAfter, Backoff: politeness.DefaultBackoff, MaxBackoff: politeness.DefaultMaxBackoff,
		MaxFailures: politeness.DefaultMaxFailures}
	wantTraps := traps.Config{MaxURLLength: traps.DefaultMaxURLLength, MaxPathDepth: traps.DefaultMaxPathDepth,
		MaxSegmentRepeats: traps.DefaultMaxSegmentRepeats, MaxPagesPerHost: -1, MaxQueryValues: -1,
		DuplicatePages: traps.DefaultDuplicatePages, DuplicateWindow: traps.DefaultDuplicateWindow}
	if o.pacing != pacing || o.traps != wantTraps ||
		o.maxRetries != crawler.DefaultMaxRetries || o.rate != 0 || o.workers != crawler.DefaultWorkers || o.perHost != 1 {
		t.Errorf("default flags gave pacing %+v, traps %+v, retries %d, rate %v, workers %d, per-host %d; want the library's defaults",
			o.pacing, o.traps, o.maxRetries, o.rate, o.workers, o.perHost)
	}
	// 0 is none, as a negative value is.
	o, _, _ = parseFlags([]string{"-delay", "0", "-max-retries", "0", "-max-url-length", "0", "-duplicate-pages", "0", "http://x.test/"}, io.Discard)
	if o.pacing.Delay >= 0 || o.maxRetries >= 0 || o.traps.MaxURLLength >= 0 || o.traps.DuplicatePages >= 0 {
		t.Errorf("0 values gave delay %v, retries %d, traps %+v; want each off (negative)", o.pacing.Delay, o.maxRetries, o.traps)
	}
	// -demo crawls its own loopback web without delay, unless -delay says.
	if o, _, _ = parseFlags([]string{"-demo"}, io.Discard); o.pacing.Delay >= 0 {
		t.Errorf("-demo: Delay %v, want negative (none)", o.pacing.Delay)
	}
	if o, _, _ = parseFlags([]string{"-demo", "-delay", "200ms"}, io.Discard); o.pacing.Delay != 200*time.Millisecond {
		t.Errorf("-demo -delay 200ms: Delay %v", o.pacing.Delay)
	}
	// A duration without a unit says so; a flag after a seed says where flags go.
	_, _, err = parseFlags([]string{"-delay", "5", "http://x.test/"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "5 has no unit: a duration is written like 5s, 5ms") {
		t.Errorf("-delay 5: %v, want a hint at the unit", err)
	}
	_, _, err = parseFlags([]string{"http://x.test/", "-max-pages", "10"}, io.Discard)
	if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "flag -max-pages after the seed URL http://x.test/: flags go before the seeds") {
		t.Errorf("a flag after the seed: %v", err)
	}
}

// -rate bounds the demo crawl's requests per second, and -host-stats
// writes one line per host that adds up to the summary.
func TestRateAndHostStats(t *testing.T) {
	t.Parallel()
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

// Each trap flag sets its field of traps.Config.
func TestTrapFlags(t *testing.T) {
	t.Parallel()
	o, _, err := parseFlags([]string{"-max-url-length", "-1", "-max-path-depth", "7", "-max-segment-repeats", "-1",
		"-max-pages-per-host", "100", "-max-query-values", "50", "-duplicate-pages", "-1", "-duplicate-window", "4096", "http://x.test/"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := traps.Config{MaxURLLength: -1, MaxPathDepth: 7, MaxSegmentRepeats: -1, MaxPagesPerHost: 100, MaxQueryValues: 50, DuplicatePages: -1, DuplicateWindow: 4096}
	if o.traps != want {
		t.Errorf("flags gave %+v, want %+v", o.traps, want)
	}
}

// -duration stops the crawl after that long: the summary says why, and
// the exit status is 0.
func TestDuration(t *testing.T) {
	t.Parallel()
	// One request per host per second: the crawl cannot finish in time.
	r := runCrawl(t, nil, "-demo", "-delay", "1s", "-duration", "500ms")
	if r.code != 0 || !strings.Contains(r.stderr, "interrupted (-duration 500ms elapsed)") || !strings.Contains(r.stderr, "fetched") {
		t.Errorf("exit %d, stderr %q; want 0 and the summary of a crawl stopped by -duration", r.code, r.stderr)
	}
}

// -recrawl on the demo web, whose pages change under it: the crawl keeps
// revisiting until -duration, unchanged pages answer 304, and -out says
// which lines are revisits.
func TestRecrawl(t *testing.T) {
	t.Parallel()
	r := runCrawl(t, nil, "-demo", "-recrawl", "-rate", "400", "-recrawl-min", "200ms", "-duration", "3s", "-out", "-", "-json")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var sum struct {
		Requests, Revisits, NotModified, Unchanged int64
		Revisiting                                 int
		Interrupted                                bool
	}
	i := slices.IndexFunc(lines, func(l string) bool { return l == "{" })
	if i < 0 {
		t.Fatalf("no summary on stdout:\n%s", r.stdout)
	}
	if err := json.Unmarshal([]byte(strings.ReplaceAll(strings.Join(lines[i:], "\n"), "not_modified", "notmodified")), &sum); err != nil {
		t.Fatal(err)
	}
	revisits, unchanged := 0, 0
	for _, l := range lines[:i] {
		var rec struct{ Revisit, Unchanged bool }
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("-out line %q: %v", l, err)
		}
		if rec.Revisit {
			revisits++
		}
		if rec.Unchanged {
			unchanged++
		}
	}
	if !sum.Interrupted || sum.Revisits == 0 || sum.NotModified == 0 || sum.Revisiting == 0 ||
		int64(revisits) != sum.Revisits || int64(unchanged) != sum.Unchanged {
		t.Errorf("summary %+v; -out: %d revisits, %d unchanged; want revisits, 304s, and -out lines that agree", sum, revisits, unchanged)
	}
}

// -recrawl revisits the demo web's HTML pages, not its images, which
// wait for -recrawl-max; -recrawl-resources revisits them as pages.
func TestRecrawlResources(t *testing.T) {
	t.Parallel()
	for _, resources := range []bool{false, true} {
		t.Run("resources="+strconv.FormatBool(resources), func(t *testing.T) {
			t.Parallel()
			args := []string{"-demo", "-recrawl", "-rate", "400", "-recrawl-min", "200ms", "-duration", "3s", "-out", "-"}
			if resources {
				args = append(args, "-recrawl-resources")
			}
			r := runCrawl(t, nil, args...)
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
			}
			pages, images := 0, 0
			for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
				var rec struct {
					URL     string
					Revisit bool
				}
				if err := json.Unmarshal([]byte(l), &rec); err != nil {
					t.Fatalf("-out line %q: %v", l, err)
				}
				switch {
				case !rec.Revisit:
				case strings.HasSuffix(rec.URL, ".png"):
					images++
				default:
					pages++
				}
			}
			t.Logf("revisits: %d pages, %d images", pages, images)
			if pages == 0 || resources != (images > 0) {
				t.Errorf("revisits: %d pages, %d images; want pages, and images only with -recrawl-resources", pages, images)
			}
		})
	}
}
