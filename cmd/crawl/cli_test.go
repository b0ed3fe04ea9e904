package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// crawlBin is the path of the crawl binary that TestMain builds for the
// tests that run the command as a user does.
var crawlBin string

// TestMain builds the command once (with the race detector when the tests
// have it) into a temporary directory, for runCrawl.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "crawl-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	crawlBin = filepath.Join(dir, "crawl")
	args := []string{"build", "-o", crawlBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	if out, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is what a run of the binary left: its exit status and output.
type result struct {
	code           int
	stdout, stderr string
}

// runCrawl runs the built binary with args, its stdout going to stdout
// (captured in the result if nil), and returns when it exits, within 30 s.
func runCrawl(t *testing.T, stdout io.Writer, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := crawlCommand(ctx, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if stdout != nil {
		cmd.Stdout = stdout
	}
	err := cmd.Run()
	if err != nil && !errors.As(err, new(*exec.ExitError)) {
		t.Fatalf("crawl %q: %v", args, err)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}
}

// crawlCommand returns the command that runs the built binary with args.
// A binary built with the race detector exits at once rather than after
// its usual second, and with status 66 if it found a race.
func crawlCommand(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, crawlBin, args...)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	return cmd
}

// site is a small web site on 127.0.0.1 that counts the requests it gets:
// a home page linking to two pages.
type site struct {
	*httptest.Server
	requests atomic.Int64
}

// newSite starts a site, closed when the test ends.
func newSite(t *testing.T) *site {
	s := &site{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><a href="/a">a</a> <a href="/b">b</a></html>`)
	}))
	t.Cleanup(s.Close)
	return s
}

// addr is the site's address and port, as -allow takes it.
func (s *site) addr() string { return s.Listener.Addr().String() }

// -help says what goes to stdout and what to stderr, with examples, and
// the exit statuses, on stdout; it is not an error.
func TestHelpExplainsOutput(t *testing.T) {
	t.Parallel()
	r := runCrawl(t, nil, "-help")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("crawl -help: exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
	}
	for _, want := range []string{"stdout  only what you ask for", "stderr  everything for people", "crawl -out - ", "crawl -json ",
		"Exit status", "130 or 143", "-seen-size", "(0: the default; negative: an error) (default 10000000)", "-per-host", "negative: no limit but -workers",
		"-delay value", "(0: none; -demo: none unless set) (default 1s)", "-max-retries int", "(0: none) (default 2)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("crawl -help does not say %q:\n%s", want, r.stdout)
		}
	}
}

// A crawl none of whose seeds yields a page fails (exit 1) with the
// library's error, crawler.ErrNoPages, saying why for each seed; here,
// robots.txt disallows it.
func TestNoPagesFails(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /\n")
	}))
	defer srv.Close()
	r := runCrawl(t, nil, "-allow", srv.Listener.Addr().String(), "-delay", "-1s", srv.URL+"/")
	want := "crawl: crawler: no seed yielded a page: " + srv.URL + "/: crawler: disallowed by robots.txt\n"
	if r.code != 1 || !strings.HasSuffix(r.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant 1, ending %q", r.code, r.stderr, want)
	}
}
