package replay

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"crawler/canon"
	"crawler/fetch"
	"crawler/warc"
)

// KindNotArchived is the kind ([fetch.ErrorKind]) of a [*NotArchivedError].
const KindNotArchived = fetch.KindNotArchived

// NotArchivedError is the error of a fetch that an [Archive] without
// Live cannot answer: its URL has no capture in the archive, or the
// request has a body. It wraps [fetch.ErrNotSent]: nothing was sent.
type NotArchivedError struct {
	Dir string // the archive's directory
}

func (e *NotArchivedError) Error() string { return "replay: not archived in " + e.Dir }

// ErrorKind returns [KindNotArchived].
func (e *NotArchivedError) ErrorKind() string { return KindNotArchived }

// Unwrap returns [fetch.ErrNotSent].
func (e *NotArchivedError) Unwrap() error { return fetch.ErrNotSent }

// DamageError is a place where a WARC file of the archive could not be
// read: its records before Offset are replayed, and those from Resumed
// on, if Resumed is not negative.
type DamageError struct {
	File    string // the file's path
	Offset  int64  // where the record (or gzip member) at fault starts
	Resumed int64  // where the next record that reads starts; -1: none does
	Err     error  // what is wrong (package warc's error)
}

func (e *DamageError) Error() string {
	after := "nothing after it reads"
	if e.Resumed >= 0 {
		after = fmt.Sprintf("the records from offset %d on are replayed", e.Resumed)
	}
	return fmt.Sprintf("replay: %s: damaged at offset %d: %v; the records before it are replayed, %s", e.File, e.Offset, e.Err, after)
}

// Unwrap returns Err.
func (e *DamageError) Unwrap() error { return e.Err }

// Options configure an [Archive]. The zero value is ready to use.
type Options struct {
	// Canon makes the URLs of requests and records canonical, to match
	// them: the crawl's canonicalizer. Nil: canon's defaults.
	Canon *canon.Canonicalizer
	// Live, if not nil, fetches the requests the archive cannot answer
	// (see the package doc on misses). Nil: they fail with a
	// [*NotArchivedError].
	Live fetch.Fetcher
	// MaxBodyBytes caps bodies when the Request names no cap, as
	// [fetch.HTTPFetcher.MaxBodyBytes] does: 0 means
	// [fetch.DefaultMaxBodyBytes]; negative, no cap.
	MaxBodyBytes int64
}

// Archive is a [fetch.Fetcher] that answers from the WARC files of a
// directory (see the package doc). It is safe for concurrent use; Close
// it when done.
type Archive struct {
	dir     string
	opts    Options
	files   []*os.File
	sizes   []int64
	caps    []capture     // sorted by fingerprint, then date
	refs    map[int32]loc // of the revisits of caps, by index: the record each refers to
	damage  []*DamageError
	rebuilt bool
}

var _ fetch.Fetcher = (*Archive)(nil)

// capture is one record of the index in memory: 32 bytes.
type capture struct {
	fp   uint64 // canon.Fingerprint of the canonical URL
	date int64  // Unix microseconds
	off  int64
	file uint32
	skip uint16
	kind uint8
}

func (c *capture) loc() loc { return loc{file: c.file, skip: c.skip, off: c.off} }

// Open indexes the WARC files of dir, using and keeping the index file
// [IndexName] there (see the package doc), and returns an Archive that
// answers from them. A damaged file is no error: see [Archive.Damage].
func Open(dir string, opts Options) (*Archive, error) {
	files, err := listFiles(dir)
	if err != nil {
		return nil, err
	}
	a := &Archive{dir: dir, opts: opts}
	lines, damage, ok := readIndex(dir, files)
	if !ok {
		if lines, damage, err = scan(dir, files, opts.Canon); err != nil {
			return nil, err
		}
		a.rebuilt = true
		writeIndex(dir, files, lines, damage) // best effort: a read-only directory is read again next time
	}
	a.damage = damage
	for _, fi := range files {
		f, err := os.Open(filepath.Join(dir, fi.name))
		if err != nil {
			a.Close()
			return nil, fmt.Errorf("replay: %w", err)
		}
		a.files, a.sizes = append(a.files, f), append(a.sizes, fi.size)
	}
	type withRef struct {
		capture
		ref loc
	}
	all := make([]withRef, 0, len(lines))
	for _, l := range lines {
		if l.kind != kindResponse && !l.hasRef {
			continue // a revisit of nothing the archive holds
		}
		cn, err := opts.Canon.Canonical(l.uri)
		if err != nil {
			continue
		}
		all = append(all, withRef{capture{fp: canon.Fingerprint(cn), date: l.date, off: l.at.off, file: l.at.file, skip: l.at.skip, kind: l.kind}, l.ref})
	}
	lines = nil
	slices.SortStableFunc(all, func(x, y withRef) int {
		return cmp.Or(cmp.Compare(x.fp, y.fp), cmp.Compare(x.date, y.date))
	})
	a.caps = make([]capture, len(all))
	a.refs = map[int32]loc{}
	for i, c := range all {
		a.caps[i] = c.capture
		if c.kind != kindResponse {
			a.refs[int32(i)] = c.ref
		}
	}
	return a, nil
}

// Len returns how many records the archive answers from: captures of
// URLs, revisits included.
func (a *Archive) Len() int { return len(a.caps) }

// Rebuilt reports whether Open read the files, the index file being
// missing or stale, rather than the index file.
func (a *Archive) Rebuilt() bool { return a.rebuilt }

// Damage returns the places where files of the archive could not be read,
// in file order; nil if none. The slice is the caller's.
func (a *Archive) Damage() []*DamageError { return slices.Clone(a.damage) }

// Close closes the archive's files.
func (a *Archive) Close() error {
	var errs []error
	for _, f := range a.files {
		errs = append(errs, f.Close())
	}
	a.files = nil
	return errors.Join(errs...)
}

// Replays reports whether a GET of url is answered from the archive,
// nothing sent: it holds a capture of url, or url is a robots.txt it
// lacks and Live is nil (see the package doc on misses). A crawler that
// paces a host by its robots.txt request, which it makes through a
// function that returns no [fetch.Response], asks it to know that the
// request was replayed.
func (a *Archive) Replays(url string) bool {
	cn, err := a.opts.Canon.Canonical(url)
	if err != nil {
		return false
	}
	if lo, hi := a.captures(cn); lo < hi {
		return true
	}
	return a.opts.Live == nil && isRobots(url)
}

// captures returns the range of a.caps of the canonical URL cn.
func (a *Archive) captures(cn string) (lo, hi int) {
	fp := canon.Fingerprint(cn)
	lo, _ = slices.BinarySearchFunc(a.caps, fp, func(c capture, fp uint64) int { return cmp.Compare(c.fp, fp) })
	hi = lo
	for hi < len(a.caps) && a.caps[hi].fp == fp {
		hi++
	}
	return lo, hi
}

// isRobots reports whether u is the URL of a robots.txt.
func isRobots(u string) bool {
	p, err := url.Parse(u)
	return err == nil && p.Path == "/robots.txt" && p.RawQuery == ""
}

// Fetch answers req from the archive, or as a miss (see the package doc).
func (a *Archive) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, &fetch.FetchError{Op: "replay", URL: req.URL, Err: context.Cause(ctx)}
	}
	start := time.Now()
	cn, err := a.opts.Canon.Canonical(req.URL)
	if err != nil || req.Body != nil {
		return a.miss(ctx, req)
	}
	lo, hi := a.captures(cn)
	if lo == hi {
		return a.miss(ctx, req)
	}
	i := hi - 1 // the latest
	c := &a.caps[i]
	at, check := c.loc(), true
	if c.kind != kindResponse {
		conditional := req.ETag != "" || req.LastModified != ""
		if c.kind != kindNotModified || !conditional {
			at, check = a.refs[int32(i)], false
		}
	}
	rec, err := a.read(at)
	if err != nil {
		return nil, &fetch.FetchError{Op: "replay", URL: req.URL, Err: err}
	}
	if check {
		if rcn, _ := a.opts.Canon.Canonical(warcURI(rec.Get("WARC-Target-URI"))); rcn != cn {
			return a.miss(ctx, req) // another URL of the same fingerprint
		}
	}
	resp, err := a.answer(req, rec)
	if err != nil {
		return nil, &fetch.FetchError{Op: "replay", URL: req.URL, Err: fmt.Errorf("%s offset %d: %w", a.files[at.file].Name(), at.off, err)}
	}
	resp.Duration = time.Since(start)
	return resp, nil
}

// miss answers req, which the archive cannot: see the package doc.
func (a *Archive) miss(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	if a.opts.Live != nil {
		return a.opts.Live.Fetch(ctx, req)
	}
	if isRobots(req.URL) && req.Body == nil {
		return &fetch.Response{URL: req.URL, Status: http.StatusNotFound, Header: http.Header{}, Body: []byte{}, Replayed: true}, nil
	}
	return nil, &fetch.FetchError{Op: "replay", URL: req.URL, Err: &NotArchivedError{Dir: a.dir}}
}

// readers are the Readers of read, reset for each record: each holds
// some 200 KiB of buffers.
var readers = sync.Pool{New: func() any { return warc.NewReader(nil) }}

// read reads the record at at.
func (a *Archive) read(at loc) (*warc.Record, error) {
	f := a.files[at.file]
	size := a.sizes[at.file]
	if at.off > size {
		return nil, fmt.Errorf("replay: %s: offset %d past the end (%d bytes): the index is stale", f.Name(), at.off, size)
	}
	r := readers.Get().(*warc.Reader)
	defer readers.Put(r)
	r.Reset(io.NewSectionReader(f, at.off, size-at.off))
	r.Start = at.off
	for range at.skip {
		if _, err := r.Next(); err != nil {
			return nil, fmt.Errorf("replay: %s: %w", f.Name(), err)
		}
	}
	rec, err := r.Next()
	if err != nil {
		return nil, fmt.Errorf("replay: %s: %w", f.Name(), err)
	}
	return rec, nil
}

// answer returns the response rec recorded, as the live fetcher would
// have returned it for req (see the package doc).
func (a *Archive) answer(req *fetch.Request, rec *warc.Record) (*fetch.Response, error) {
	br := bufio.NewReader(bytes.NewReader(rec.Block))
	get := &http.Request{Method: http.MethodGet}
	var resp *http.Response
	for {
		var err error
		if resp, err = http.ReadResponse(br, get); err != nil {
			return nil, fmt.Errorf("the recorded response does not parse: %w", err)
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
		// 1xx: interim, as the transport skips it
	}
	var body io.Reader = resp.Body
	// The transport of fetch.HTTPFetcher asks for gzip and decodes it
	// unless the request names its own Accept-Encoding (or a Range).
	transparent := req.Header.Get("Accept-Encoding") == "" && req.Header.Get("Range") == ""
	if transparent && resp.ContentLength != 0 && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		body = &gunzip{body: body}
	}
	limit := cmp.Or(req.MaxBytes, a.opts.MaxBodyBytes, fetch.DefaultMaxBodyBytes)
	if limit < 0 {
		limit = math.MaxInt64 - 1
	}
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	truncated := rec.Get("WARC-Truncated") != "" || err != nil // cut when recorded: what arrived
	if int64(len(data)) > limit {
		data, truncated = data[:limit], true
	}
	return &fetch.Response{
		URL:       req.URL,
		Status:    resp.StatusCode,
		Header:    resp.Header,
		Body:      data,
		Truncated: truncated,
		Replayed:  true,
	}, nil
}

// gunzip decodes a gzip body as net/http's transport does, starting at
// the first Read: an empty body reads as empty.
type gunzip struct {
	body io.Reader
	zr   *gzip.Reader
	err  error
}

func (g *gunzip) Read(p []byte) (int, error) {
	if g.zr == nil && g.err == nil {
		g.zr, g.err = gzip.NewReader(g.body)
	}
	if g.err != nil {
		return 0, g.err
	}
	return g.zr.Read(p)
}
