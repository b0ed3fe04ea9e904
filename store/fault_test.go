package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"crawler"
	"crawler/crawlertest"
	"crawler/store"
)

// A disk that fills up stops the crawl, and loses nothing: the store
// reopened holds the crawl as of its last commit group, and the crawl
// resumed from it fetches every page. When the full disk meets a commit,
// the crawl stops cleanly with the error; when it meets Pebble starting a
// new log, Pebble panics (it cannot go on), which ends the process with the
// files as last synced. The crawl runs in a child process (this test
// binary again) so that both can happen.
func TestDiskFull(t *testing.T) {
	t.Parallel()
	if dir := os.Getenv("STORE_TEST_DISKFULL_DIR"); dir != "" {
		diskFullChild(dir, os.Getenv("STORE_TEST_DISKFULL_WEB"))
		return
	}
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 10, Hosts: 10, PagesPerHost: 15})
	defer w.Close()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestDiskFull$")
	cmd.Env = append(os.Environ(), "STORE_TEST_DISKFULL_DIR="+dir, "STORE_TEST_DISKFULL_WEB="+w.Addr())
	out, err := cmd.CombinedOutput()
	switch {
	case strings.Contains(string(out), "stopped cleanly:") && strings.Contains(string(out), syscall.ENOSPC.Error()):
		t.Logf("the crawl stopped cleanly on the full disk")
	case strings.Contains(string(out), "pebble") && err != nil:
		t.Logf("Pebble ended the process on the full disk: %v", err)
	default:
		t.Fatalf("the crawl on a full disk: %v\n%s", err, out)
	}

	if err := resume(w, vfs.Default, dir); err != nil {
		t.Fatalf("resumed crawl: %v", err)
	}
	lost, again := w.Coverage()
	t.Logf("%d pages: %d lost, %d fetched again", len(w.Depths()), lost, again)
	if lost != 0 {
		t.Errorf("%d pages lost", lost)
	}
}

// diskFullChild is TestDiskFull's crawl: a store in dir whose log's
// writes fail with ENOSPC after 100 pages, a crawl of the web at addr. It
// prints how the crawl stopped.
func diskFullChild(dir, addr string) {
	var full atomic.Bool
	fs := errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		switch op.Kind {
		case errorfs.OpFileWrite, errorfs.OpFileWriteAt, errorfs.OpFileSync:
			if full.Load() && strings.HasSuffix(op.Path, ".log") {
				return syscall.ENOSPC
			}
		}
		return nil
	}))
	st, err := store.Open(dir, store.Options{FS: fs, ExpectedURLs: 10_000, MergeURLs: 50})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	var pages atomic.Int64
	c := newCrawler(webClient(addr), st)
	c.Handler = crawler.HandlerFunc(func(context.Context, *crawler.Page) error {
		if pages.Add(1) == 100 {
			full.Store(true)
		}
		return nil
	})
	err = c.Run(context.Background(), "http://h0.crawler.test/")
	closeErr := st.Close()
	if err == nil || closeErr == nil {
		fmt.Println("not stopped:", err, closeErr)
		os.Exit(3)
	}
	fmt.Println("stopped cleanly:", err) // Pebble reports a failed log write in text only
	os.Exit(0)
}

// webClient returns a client that reaches the crawlertest web listening
// at addr, whatever host a URL names.
func webClient(addr string) *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}}
}

// A corrupt state directory, whichever of its files is damaged, never
// panics: a damaged table or live manifest is an error from Open; a file
// Pebble can do without (an old manifest, a marker, the log's tail, which a
// crash may cut too) leaves a store that resumes from a consistent earlier
// state, as after a crash.
func TestCorruptFiles(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 11, Hosts: 5, PagesPerHost: 10})
	defer w.Close()
	fs := vfs.NewCrashableMem()
	crawlSteps(t, w, fs, 40, false) // a finished crawl, its state on fs
	names, err := fs.List("crawl")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if name == "LOCK" {
			continue
		}
		for _, damage := range []string{"truncated", "garbage"} {
			c := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 100, RNG: rand.New(rand.NewPCG(1, 2))})
			f, err := c.Create(c.PathJoin("crawl", name), vfs.WriteCategoryUnspecified)
			if err != nil {
				t.Fatal(err)
			}
			if damage == "garbage" {
				f.Write(bytes.Repeat([]byte{0xa5}, 4096))
			}
			f.Close()
			err = resume(w, c, "crawl")
			t.Logf("%s %s: %v", name, damage, err)
			if strings.HasSuffix(name, ".sst") && err == nil {
				t.Errorf("a %s table %s: no error", damage, name)
			}
		}
	}
}

// resume opens the store in dir on fs and runs a crawl of w from it,
// returning the first error. A panic fails the test.
func resume(w *crawlertest.Web, fs vfs.FS, dir string) error {
	st, err := store.Open(dir, store.Options{FS: fs, ExpectedURLs: -1})
	if err != nil {
		return err
	}
	err = newCrawler(w.Client(), st).Run(context.Background(), w.Seeds()...)
	return errors.Join(err, st.Close())
}
