package store_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/store"
)

// A disk that fills up under the log stops the crawl with the error, and
// loses nothing:
// the store reopened holds the crawl as of its last commit group, and the
// crawl resumed from it fetches every page.
func TestDiskFull(t *testing.T) {
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 10, Hosts: 10, PagesPerHost: 15})
	defer w.Close()
	mem := vfs.NewCrashableMem()
	var full atomic.Bool
	// The log's writes fail: the commit path, where a crawl meets a full
	// disk. (A full disk when Pebble creates a new log panics inside
	// Pebble, which cannot go on; the files stay as last synced.)
	fs := errorfs.Wrap(mem, errorfs.InjectorFunc(func(op errorfs.Op) error {
		switch op.Kind {
		case errorfs.OpFileWrite, errorfs.OpFileWriteAt, errorfs.OpFileSync:
			if full.Load() && strings.HasSuffix(op.Path, ".log") {
				return syscall.ENOSPC
			}
		}
		return nil
	}))
	st, err := store.Open("crawl", &store.Options{FS: fs, ExpectedURLs: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	var pages atomic.Int64
	c := &crawler.Crawler{
		Fetcher:  &fetch.HTTPFetcher{Client: w.Client()},
		Seen:     st.Seen(),
		Frontier: st.Frontier(),
		Pacing:   politeness.Pacing{Delay: -1, DelayFactor: -1},
		Workers:  4,
		Handler: crawler.HandlerFunc(func(context.Context, *crawler.Page) error {
			if pages.Add(1) == 100 {
				full.Store(true)
			}
			return nil
		}),
	}
	err = c.Run(context.Background(), w.Seeds()...)
	// Pebble reports a failed WAL write in text only.
	if err == nil || !strings.Contains(err.Error(), syscall.ENOSPC.Error()) {
		t.Fatalf("Run on a full disk = %v, want an error saying %q", err, syscall.ENOSPC)
	}
	t.Logf("stopped after %d pages: %v", pages.Load(), err)
	if err := st.Close(); err == nil {
		t.Error("Close after a full disk reported no error")
	}
	// The process would end here, and its lock with it: the next one
	// reads the files as they are.
	want := w.Depths(w.Seeds()...)
	crawlSteps(t, w, mem.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 100, RNG: rand.New(rand.NewPCG(1, 1))}), 0, false)
	counts := w.RequestCounts()
	lost, twice := 0, 0
	for u := range want {
		if counts[u] == 0 {
			lost++
		}
		twice += max(counts[u]-1, 0)
	}
	t.Logf("%d pages: %d lost, %d fetched again", len(want), lost, twice)
	if lost != 0 {
		t.Errorf("%d of %d pages lost", lost, len(want))
	}
}

// A corrupt state directory, whichever of its files is damaged, never
// panics: a damaged table or live manifest is an error from Open; a file
// Pebble can do without (an old manifest, a marker, the log's tail, which a
// crash may cut too) leaves a store that resumes from a consistent earlier
// state, as after a crash.
func TestCorruptFiles(t *testing.T) {
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
			err = resume(w, c)
			t.Logf("%s %s: %v", name, damage, err)
			if strings.HasSuffix(name, ".sst") && err == nil {
				t.Errorf("a %s table %s: no error", damage, name)
			}
		}
	}
}

// resume opens the store on fs and runs a crawl of w from it, returning
// the first error. A panic fails the test.
func resume(w *crawlertest.Web, fs vfs.FS) error {
	st, err := store.Open("crawl", &store.Options{FS: fs, ExpectedURLs: -1})
	if err != nil {
		return err
	}
	c := &crawler.Crawler{Fetcher: &fetch.HTTPFetcher{Client: w.Client()}, Seen: st.Seen(), Frontier: st.Frontier(),
		Pacing: politeness.Pacing{Delay: -1, DelayFactor: -1}}
	err = c.Run(context.Background(), w.Seeds()...)
	return errors.Join(err, st.Close())
}
