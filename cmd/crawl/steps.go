package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"crawler/frontier"
	"crawler/store"
)

// steps keeps the output files of a -state crawl (-out and -graph) in step
// with its state, so that across kills and restarts each holds every page
// the state counts as done exactly once:
//   - a page's records are not written when its Handler runs, but held
//     until the state takes the page's outcome (store.Options.OnDone), and
//     written then, in the order of the state's steps; a page the crawler
//     will fetch again (a retry) writes nothing;
//   - each commit group of the state keeps each file's size as of its
//     last step (frontier.Keeper), and the files are synced before the
//     group is (store.Options.BeforeCommit);
//   - a crawl that resumes cuts each file back to the size its state
//     kept, dropping the records of pages whose outcome was not committed
//     (they are fetched again), and appends.
//
// Its methods are safe for concurrent use.
type steps struct {
	mu      sync.Mutex
	pending map[string][]func() error // by page URL: the writes of its records
	files   []*stepFile
	first   firstError
}

// newSteps returns a steps whose first write error stops the crawl with
// fail.
func newSteps(fail func(error)) *steps {
	return &steps{pending: map[string][]func() error{}, first: firstError{fail: fail}}
}

// hold holds write, which writes the records of the page at url, until the
// state takes the page's outcome.
func (s *steps) hold(url string, write func() error) {
	s.mu.Lock()
	s.pending[url] = append(s.pending[url], write)
	s.mu.Unlock()
}

// done writes the records of e's page, in the step of the state that takes
// its outcome r; for a retry it drops them (store.Options.OnDone).
func (s *steps) done(e frontier.Entry, r frontier.Result) {
	s.mu.Lock()
	writes := s.pending[e.URL]
	delete(s.pending, e.URL)
	s.mu.Unlock()
	if r.Retry {
		return
	}
	for _, w := range writes {
		if err := w(); err != nil {
			s.first.keep(err)
		}
	}
}

// sync makes what every file holds durable, and returns the first write
// error (store.Options.BeforeCommit): a group whose records could not all
// be written is not committed.
func (s *steps) sync() error {
	if s == nil {
		return nil
	}
	errs := []error{s.first.closed(nil)}
	for _, f := range s.files {
		errs = append(errs, f.sync())
	}
	return errors.Join(errs...)
}

// stepFile is one output file kept in step with the state: written in the
// order of its steps, its size kept with them.
type stepFile struct {
	flag, path string

	mu   sync.Mutex
	file *os.File
	w    *bufio.Writer
	size int64 // bytes written, those buffered included
	kept int64 // the size last given to the state
	err  error // the first write error
}

// keptSize is what the state keeps of a stepFile.
type keptSize struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
}

// openStepFile opens the output file of the flag called name at path for a
// crawl with state st, and registers its size with st. If st kept a size
// for the same file, the file is cut back to it and appended to
// (resumed is true); otherwise it is created or truncated, a new file for
// the pages from this run on.
func openStepFile(st *store.Store, s *steps, name, path string) (f *stepFile, resumed bool, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, false, fmt.Errorf("-%s: %w", name, err)
	}
	key := "cmd/crawl -" + name
	var k keptSize
	if b := st.Kept(key); b != nil {
		if err := json.Unmarshal(b, &k); err != nil {
			return nil, false, fmt.Errorf("-%s: the state's record of the file is damaged: %w", name, err)
		}
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if k.Path == abs {
		fi, err := os.Stat(abs)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, false, fmt.Errorf("-%s %s: the file is gone, with the %d bytes the crawl's earlier runs wrote; give another path (it starts with this run) or restore it", name, path, k.Size)
		case err != nil:
			return nil, false, fmt.Errorf("-%s: %w", name, err)
		case fi.Size() < k.Size:
			return nil, false, fmt.Errorf("-%s %s: the file holds %d bytes, fewer than the %d the crawl's earlier runs wrote: it was cut or replaced; give another path (it starts with this run) or restore it", name, path, fi.Size(), k.Size)
		}
		if err := os.Truncate(abs, k.Size); err != nil {
			return nil, false, fmt.Errorf("-%s: %w", name, err)
		}
		flags = os.O_WRONLY | os.O_APPEND
	} else {
		k = keptSize{Path: abs}
	}
	file, err := os.OpenFile(abs, flags, 0o644)
	if err != nil {
		return nil, false, fmt.Errorf("-%s: %w", name, err)
	}
	f = &stepFile{flag: name, path: path, file: file, w: bufio.NewWriterSize(file, 64<<10), size: k.Size, kept: -1}
	st.Keep(key, f.keep)
	s.files = append(s.files, f)
	return f, flags&os.O_APPEND != 0, nil
}

// Write writes p at the end of the file (buffered). After an error it
// writes nothing and returns that error.
func (f *stepFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.w.Write(p)
	f.size += int64(n)
	if err != nil {
		f.err = fmt.Errorf("-%s %s: %w", f.flag, f.path, err)
	}
	return n, f.err
}

// keep returns the file's size to keep with the state's commit group, or
// nil if it did not change (frontier.Keeper).
func (f *stepFile) keep() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.size == f.kept || f.err != nil {
		return nil
	}
	f.kept = f.size
	b, _ := json.Marshal(keptSize{Path: f.file.Name(), Size: f.size})
	return b
}

// sync writes what is buffered and syncs the file to disk.
func (f *stepFile) sync() error {
	f.mu.Lock()
	if f.err == nil {
		if err := f.w.Flush(); err != nil {
			f.err = fmt.Errorf("-%s %s: %w", f.flag, f.path, err)
		}
	}
	err := f.err
	f.mu.Unlock()
	if err != nil {
		return err
	}
	if err := f.file.Sync(); err != nil {
		return fmt.Errorf("-%s %s: %w", f.flag, f.path, err)
	}
	return nil
}

// Close writes what is buffered and closes the file. It does not sync: the
// state's last commit did.
func (f *stepFile) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	err := f.err
	if err == nil {
		if err = f.w.Flush(); err != nil {
			err = fmt.Errorf("-%s %s: %w", f.flag, f.path, err)
		}
	}
	if cerr := f.file.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("-%s %s: %w", f.flag, f.path, cerr)
	}
	return err
}

// reader returns a reader of the file's bytes as resumed, for the graph
// Writer to go on from.
func (f *stepFile) reader() (io.ReadCloser, error) {
	r, err := os.Open(f.file.Name())
	if err != nil {
		return nil, fmt.Errorf("-%s: %w", f.flag, err)
	}
	return r, nil
}
