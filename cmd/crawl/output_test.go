package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// openDevFull opens /dev/full, where every write fails with ENOSPC, or
// skips the test where there is none.
func openDevFull(t *testing.T) *os.File {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Output that cannot be written fails the command (exit 1) with the
// reason, naming the flag: -out, -host-stats and -json, to a file or to
// stdout; the summary is still printed where it can be.
func TestUnwritableOutput(t *testing.T) {
	full := openDevFull(t)
	for _, tc := range []struct {
		name   string
		args   []string
		stdout *os.File
		want   string
	}{
		{"-out, small crawl: fails at the last flush", []string{"-out", "/dev/full", "-max-pages", "5"}, nil, "crawl: -out: write /dev/full: no space left on device"},
		{"-out - to a full stdout", []string{"-out", "-", "-max-pages", "5"}, full, "crawl: -out: write /dev/stdout: no space left on device"},
		{"-host-stats", []string{"-host-stats", "/dev/full", "-max-pages", "5"}, nil, "crawl: -host-stats: write /dev/full: no space left on device"},
		{"-host-stats - to a full stdout", []string{"-host-stats", "-", "-max-pages", "5"}, full, "crawl: -host-stats: write /dev/stdout: no space left on device"},
		{"-json to a full stdout", []string{"-json", "-max-pages", "5"}, full, "crawl: -json: write /dev/stdout: no space left on device"},
	} {
		r := runCrawl(t, tc.stdout, append([]string{"-demo"}, tc.args...)...)
		if r.code != 1 || !strings.HasSuffix(r.stderr, tc.want+"\n") {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 1, ending with %q", tc.name, r.code, r.stderr, tc.want)
		}
		if !strings.Contains(tc.name, "-json") && !strings.Contains(r.stderr, "crawl: fetched 5 ") {
			t.Errorf("%s: no summary on stderr:\n%s", tc.name, r.stderr)
		}
	}
}

// A write error of -out stops the crawl at once, rather than when the
// crawl ends: here after the first buffer of lines, a few dozen pages
// into a crawl of 5,000.
func TestUnwritableOutputStopsCrawl(t *testing.T) {
	openDevFull(t)
	r := runCrawl(t, nil, "-demo", "-out", "/dev/full", "-json")
	var s summary
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatalf("summary: %v\n%s", err, r.stdout)
	}
	if r.code != 1 || !s.Interrupted || s.Requests > 1000 || !strings.HasSuffix(r.stderr, "crawl: -out: write /dev/full: no space left on device\n") {
		t.Errorf("exit %d, summary %+v, stderr:\n%s\nwant exit 1, the crawl interrupted early, the reason", r.code, s, r.stderr)
	}
}
