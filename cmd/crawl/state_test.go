package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"crawler/crawlertest"
)

// stateWeb serves a small crawlertest web that the binary reaches through
// HTTP_PROXY (a proxy is trusted, so its loopback address is allowed).
func stateWeb(t *testing.T, latency time.Duration) *crawlertest.Web {
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 9, Hosts: 8, PagesPerHost: 25, Latency: latency})
	t.Cleanup(w.Close)
	return w
}

// crawlState starts the binary on w with -state dir and args.
func crawlState(ctx context.Context, w *crawlertest.Web, dir string, args ...string) *exec.Cmd {
	args = append([]string{"-state", dir, "-delay", "-1s", "-delay-factor", "-1", "-progress", "-1s"}, args...)
	cmd := crawlCommand(ctx, append(args, w.Seeds()...)...)
	cmd.Env = append(cmd.Env, "HTTP_PROXY="+w.ProxyURL().String())
	return cmd
}

// seenLineRE matches the line a durable crawl ends with, about its seen-set.
var seenLineRE = regexp.MustCompile(`crawl: seen-set: (\d+) tests, [\d.]+% answered by the cache \([\d.]+% of the \d+ the Bloom filter passed\), [\d.]+% new by the filter, \d+ reads of the store`)

// A crawl with -state resumes when the command runs again: with -max-pages
// raised by 100 each run (it counts the pages of every run), every page is
// fetched once; a spent budget and a finished crawl say so and exit 0;
// -stats reads the state; another crawl's seeds are refused.
func TestStateResumes(t *testing.T) {
	t.Parallel()
	w := stateWeb(t, 0)
	dir := filepath.Join(t.TempDir(), "state")
	want := w.Depths(w.Seeds()...)
	for run := 1; ; run++ {
		if run > 20 {
			t.Fatal("the crawl never finished")
		}
		args := []string{"-max-pages", fmt.Sprint(100 * run)}
		if run == 1 {
			args = append(args, "-v") // the seen-set line is -v's
		}
		before := w.TotalRequests()
		cmd := crawlState(t.Context(), w, dir, args...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, out)
		}
		resuming := regexp.MustCompile(`crawl: resuming the crawl in \S+: (\d+) page requests made, \d+ URLs seen, \d+ waiting, \d+ hosts`).FindStringSubmatch(string(out))
		switch {
		case run == 1 && resuming != nil:
			t.Errorf("run 1 says it resumes:\n%s", out)
		case run > 1 && (resuming == nil || resuming[1] != fmt.Sprint(before)):
			t.Errorf("run %d: no line saying it resumes after %d page requests:\n%s", run, before, out)
		case run > 1 && seenLineRE.Match(out):
			t.Errorf("run %d without -v prints the seen-set line:\n%s", run, out)
		}
		if strings.Contains(string(out), "is finished") {
			break
		}
		if n := w.TotalRequests(); n < 100*run && n == len(want) {
			continue // done: the next run says so
		} else if n != 100*run {
			t.Fatalf("after run %d with -max-pages %d: %d page requests in all", run, 100*run, n)
		}
		if run == 1 {
			// The seen-set's tests, and how they were answered.
			if m := seenLineRE.FindStringSubmatch(string(out)); m == nil || m[1] == "0" {
				t.Errorf("run 1: no seen-set line with its tests in\n%s", out)
			}
			out, err := crawlState(t.Context(), w, dir, "-max-pages", "100").CombinedOutput()
			if err != nil || !regexp.MustCompile(`spent its -max-pages budget: 100 page requests made; [1-9]\d* URLs wait`).Match(out) ||
				strings.Contains(string(out), "frontier 0, seen 0") || w.TotalRequests() != 100 {
				t.Fatalf("the same budget again: %v, %d requests\n%s", err, w.TotalRequests(), out)
			}
		}
	}
	counts := w.RequestCounts()
	for u := range want {
		if counts[u] != 1 {
			t.Errorf("%s requested %d times over the runs, want once", u, counts[u])
		}
	}
	if n := w.TotalRequests(); n != len(want) {
		t.Errorf("%d page requests, want %d", n, len(want))
	}

	for _, h := range w.Hosts() {
		if n := w.RobotsRequests(h); n > 1 {
			t.Errorf("%s/robots.txt fetched %d times over the runs, want once: the state keeps it", h, n)
		}
	}

	r := runCrawl(t, nil, "-state", dir, "-stats")
	var state struct {
		Done    bool `json:"finished"`
		Waiting int  `json:"waiting"`
		Total   struct {
			Requests int   `json:"requests"`
			Bytes    int64 `json:"bytes"`
		} `json:"total"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &state); r.code != 0 || err != nil || !state.Done || state.Waiting != 0 ||
		state.Total.Requests != len(want) || state.Total.Bytes <= 0 {
		t.Errorf("-stats: exit %d, %v: %+v, want finished, nothing waiting, %d requests and their bytes\n%s%s",
			r.code, err, state, len(want), r.stdout, r.stderr)
	}
	r = runCrawl(t, nil, "-state", dir, "-delay", "-1s", "http://other.test/")
	if r.code != 2 || !strings.Contains(r.stderr, "holds another crawl") {
		t.Errorf("another crawl's seeds on the state: exit %d, stderr %q; want refused", r.code, r.stderr)
	}
	r = runCrawl(t, nil, append([]string{"-state", dir, "-delay", "-1s", "-same-host"}, w.Seeds()...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "holds another crawl") {
		t.Errorf("the same seeds in another scope (-same-host): exit %d, stderr %q; want refused", r.code, r.stderr)
	}
}

// -max-bytes with -state counts the body bytes of every run, as
// -max-pages counts the pages: a run after the budget is spent fetches
// nothing and says so.
func TestStateByteBudget(t *testing.T) {
	t.Parallel()
	w := stateWeb(t, 0)
	dir := filepath.Join(t.TempDir(), "state")
	if out, err := crawlState(t.Context(), w, dir, "-max-bytes", "20000").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	n := w.TotalRequests()
	out, err := crawlState(t.Context(), w, dir, "-max-bytes", "20000").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "spent its -max-bytes budget") || w.TotalRequests() != n {
		t.Errorf("the same byte budget again: %v, %d more requests\n%s", err, w.TotalRequests()-n, out)
	}
	if n == 0 || n >= len(w.Depths(w.Seeds()...)) {
		t.Errorf("the first run made %d requests: the budget of 20,000 bytes did not stop it", n)
	}
}

// kill -9 at three moments, then the same command to the end: no page is
// lost, the pages fetched twice are at most those in flight or in the
// last unsynced commit group at each kill, and robots.txt is obeyed.
func TestStateSurvivesKill9(t *testing.T) {
	t.Parallel()
	for _, order := range []string{"fifo", "aopic"} {
		t.Run(order, func(t *testing.T) { testKill9(t, "-frontier", order) })
	}
}

// testKill9 is TestStateSurvivesKill9 with the flags flags. It returns
// the web crawled.
func testKill9(t *testing.T, flags ...string) *crawlertest.Web {
	w := stateWeb(t, 2*time.Millisecond)
	dir := filepath.Join(t.TempDir(), "state")
	const workers, kills = 4, 3
	want := w.Depths(w.Seeds()...)
	for kill := 1; kill <= kills; kill++ {
		var second func()
		if kill == 1 { // a second process on the state is refused while the first runs
			second = func() {
				out, err := crawlState(t.Context(), w, dir, flags...).CombinedOutput()
				if err == nil || !strings.Contains(string(out), "in use by another crawl") {
					t.Errorf("a second crawl on the state in use: %v\n%s", err, out)
				}
			}
		}
		killAfter(t, w, dir, len(want)/(kills+2), second, append([]string{"-workers", "4"}, flags...)...)
		t.Logf("kill %d after %d page requests", kill, w.TotalRequests())
	}
	out, err := crawlState(t.Context(), w, dir, append([]string{"-workers", "4"}, flags...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("the last run: %v\n%s", err, out)
	}
	lost, twice := w.Coverage()
	for u := range w.RequestCounts() {
		if w.RobotsDisallows(u) {
			t.Errorf("%s requested, which robots.txt disallows", u)
		}
	}
	t.Logf("%d pages: %d lost, %d extra fetches over %d kills", len(want), lost, twice, kills)
	if lost != 0 {
		t.Errorf("%d of %d pages never fetched", lost, len(want))
	}
	// In flight at a kill: at most workers. In the commit groups not yet
	// written (the one gathering, 10 ms, and those syncing, usually one): at
	// 2 ms a page and 4 workers, about 40.
	if bound := kills * (workers + 44); twice > bound {
		t.Errorf("%d pages fetched again over %d kills, want at most %d", twice, kills, bound)
	}
	if _, err := os.Stat(filepath.Join(dir, "LOCK")); err != nil {
		t.Errorf("the state directory has no lock file: %v", err)
	}
	return w
}

// kill -9 three times, each run started again at once: no host is asked
// sooner than -delay after its last request ended, by the server's own
// log, across the kills too (the requests in flight at a kill, asked
// again, were never recorded in the state).
func TestStateKeepsPaceAcrossKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("four runs paced at 100 ms a request: about 10 s")
	}
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 9, Hosts: 4, PagesPerHost: 10, Latency: 2 * time.Millisecond, Log: true})
	t.Cleanup(w.Close)
	dir := filepath.Join(t.TempDir(), "state")
	const delay = 100 * time.Millisecond
	for range 3 {
		killAfter(t, w, dir, 6, nil, "-delay", delay.String())
	}
	if out, err := crawlState(t.Context(), w, dir, "-delay", delay.String()).CombinedOutput(); err != nil {
		t.Fatalf("the last run: %v\n%s", err, out)
	}
	if lost, _ := w.Coverage(); lost != 0 {
		t.Errorf("%d pages never fetched", lost)
	}
	last := map[string]crawlertest.LoggedRequest{}
	for _, l := range w.Log() {
		if p, ok := last[l.Host]; ok && l.Start.Sub(p.End) < delay {
			t.Errorf("%s asked %v after its last request ended (%s, then %s)", l.Host, l.Start.Sub(p.End), p.URL, l.URL)
		}
		last[l.Host] = l
	}
}

// killAfter starts the CLI on w with its state in dir and flags, and kills
// it with SIGKILL once the web has served n more requests (or 20 s have
// passed), after calling during, if set, while it runs.
func killAfter(t *testing.T, w *crawlertest.Web, dir string, n int, during func(), flags ...string) {
	t.Helper()
	cmd := crawlState(t.Context(), w, dir, flags...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	until := w.TotalRequests() + n
	deadline := time.Now().Add(20 * time.Second)
	for w.TotalRequests() < until && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if during != nil {
		during()
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
}
