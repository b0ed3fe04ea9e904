package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
	t.Parallel()
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
	t.Parallel()
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

// A crawl stopped by SIGINT or SIGTERM writes its complete output (every
// line of -out whole) and the summary, then exits 130 or 143.
func TestSignalExitStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		json bool
	}{
		{syscall.SIGINT, 130, false},
		{syscall.SIGTERM, 143, true},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "pages.jsonl")
			args := []string{"-demo", "-delay", "100ms", "-workers", "2", "-out", out, "-progress", "-1s"}
			if tc.json {
				args = append(args, "-json")
			}
			var stdout, stderr bytes.Buffer
			cmd := crawlCommand(t.Context(), args...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			waitForOutput(t, out)
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			lines := len(readJSONLines(t, out))
			if tc.json {
				var s summary
				if err := json.Unmarshal(stdout.Bytes(), &s); err != nil || !s.Interrupted || s.Fetched < int64(lines)/2 {
					t.Errorf("summary %+v (%v) after %d lines of -out; want an interrupted crawl's", s, err, lines)
				}
			} else if want := "crawl: interrupted (interrupt signal received)"; !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), "crawl: fetched ") {
				t.Errorf("stderr:\n%s\nwant %q and the summary", stderr.String(), want)
			}
		})
	}
}

// waitForOutput waits, for at most 10 s, until the file at path holds
// something: the crawl writing it is under way.
func waitForOutput(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
			return
		}
	}
	t.Fatalf("%s still empty after 10 s", path)
}

// readJSONLines checks that every line of the -out file at path is a
// whole record, the last one ended, and returns the records.
func readJSONLines(t *testing.T, path string) []record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatalf("-out does not end with a whole line: ...%q", data[max(0, len(data)-100):])
	}
	var rs []record
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.URL == "" {
			t.Fatalf("line %d of -out: %v: %s", len(rs)+1, err, sc.Text())
		}
		rs = append(rs, r)
	}
	return rs
}
