package warc_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"crawler/fetch"
	"crawler/warc"
)

// Digests computed outside Go (coreutils: sha1sum, xxd -r -p, base32).
const (
	sha1Empty      = "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ" // ""
	sha1HelloWorld = "sha1:FKXGYNOJJ7H3IFO35FPUBC445EPOQRXN" // "hello world"
	sha1Hello      = "sha1:VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N" // "hello"
)

var (
	idPattern   = regexp.MustCompile(`^<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}>$`)
	namePattern = regexp.MustCompile(`^(\w+)-(\d{14})-(\d{5,})\.warc\.gz$`)
)

// sha1Of returns the WARC digest of b, computed here.
func sha1Of(b []byte) string {
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

func gzipped(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// chunked encodes b in the chunked transfer-coding, in chunks of n bytes.
func chunked(b []byte, n int) []byte {
	var out []byte
	for len(b) > 0 {
		k := min(n, len(b))
		out = fmt.Appendf(out, "%x\r\n", k)
		out = append(out, b[:k]...)
		out = append(out, "\r\n"...)
		b = b[k:]
	}
	return append(out, "0\r\n\r\n"...)
}

func get(url string) []byte {
	host := strings.TrimPrefix(strings.TrimPrefix(url, "http://"), "https://")
	host, _, _ = strings.Cut(host, "/")
	return []byte("GET " + url + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: crawler-test\r\nAccept-Encoding: gzip\r\n\r\n")
}

// testCase is an exchange and what its response record should hold.
type testCase struct {
	name    string
	x       fetch.Exchange
	typ     string // response or revisit
	payload string // WARC-Payload-Digest; "" for none
}

func testCases(t testing.TB) []testCase {
	date := time.Date(2026, 11, 26, 3, 15, 0, 123456789, time.UTC)
	gz := gzipped(t, strings.Repeat("<p>compressed and chunked</p>\n", 200))
	long := strings.Repeat("0123456789", 1000)
	cutChunked := chunked([]byte(long), 4096)[:5000] // in the second chunk
	var cases []testCase
	add := func(name, url, ip, response, truncated, typ, payload string) {
		cases = append(cases, testCase{name, fetch.Exchange{
			URL: url, IP: ip, Date: date.Add(time.Duration(len(cases)) * time.Second),
			Request: get(url), Response: []byte(response), Truncated: truncated,
		}, typ, payload})
	}
	add("plain", "http://example.com/", "192.0.2.1",
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world",
		"", "response", sha1HelloWorld)
	add("chunked", "http://example.com/chunked", "2001:db8::1",
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"+
			"5\r\nhello\r\n6;name=value\r\n world\r\n0\r\nTrailer: x\r\n\r\n",
		"", "response", sha1HelloWorld)
	add("gzip+chunked", "https://example.com/gz", "192.0.2.2",
		"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\ntransfer-encoding:  Chunked\r\n\r\n"+
			string(chunked(gz, 100)),
		"", "response", sha1Of(gz))
	add("304", "http://example.com/same", "192.0.2.1",
		"HTTP/1.1 304 Not Modified\r\nETag: \"abc\"\r\nDate: Thu, 26 Nov 2026 03:15:00 GMT\r\n\r\n",
		"", "revisit", "")
	add("truncated", "http://example.com/big", "192.0.2.1",
		"HTTP/1.1 200 OK\r\nContent-Length: 10000\r\n\r\n"+long[:3000],
		"length", "response", sha1Of([]byte(long[:3000])))
	add("truncated chunked", "http://example.com/bigchunks", "",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"+string(cutChunked),
		"length", "response", sha1Of([]byte(long[:5000-len("1000\r\n")-len("\r\n1000\r\n")])))
	add("no content", "http://example.com/204", "192.0.2.1",
		"HTTP/1.1 204 No Content\r\n\r\n",
		"", "response", sha1Empty)
	add("bare LF", "http://example.com/lf", "192.0.2.1",
		"HTTP/1.0 200 OK\nContent-Type: text/plain\n\nhello",
		"", "response", sha1Hello)
	png := exchange("x", 150000).Response // 150 KB of letters, said to be a PNG
	png = png[bytes.Index(png, []byte("\r\n\r\n"))+4:]
	add("image", "http://example.com/big.png", "192.0.2.1",
		"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 150000\r\n\r\n"+string(png),
		"", "response", sha1Of(png))
	add("unparsable", "http://example.com/junk", "192.0.2.1",
		"\x00\x01 not HTTP at all, no header end",
		"", "response", "")
	add("empty", "http://example.com/empty", "192.0.2.1", "", "", "response", "")
	return cases
}

func newWriter(t testing.TB, dir string, opts warc.Options) *warc.Writer {
	t.Helper()
	w, err := warc.NewWriter(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// readFile reads every record of a WARC file, failing on any error.
func readFile(t testing.TB, path string) []*warc.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []*warc.Record
	r := warc.NewReader(f)
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs
		}
		if err != nil {
			t.Fatalf("%s: record %d: %v", filepath.Base(path), len(recs), err)
		}
		recs = append(recs, rec)
	}
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	info := []warc.Field{{"operator", "crawl-ops@example.com"}, {"robots", "obey"}, {"http-header-user-agent", "crawler-test"}}
	w := newWriter(t, dir, warc.Options{Prefix: "test", Info: info})
	cases := testCases(t)
	for _, c := range cases {
		if err := w.Record(context.Background(), &c.x); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := w.Files()
	if len(files) != 1 {
		t.Fatalf("files %q, want 1", files)
	}
	if !namePattern.MatchString(filepath.Base(files[0])) || filepath.Dir(files[0]) != dir {
		t.Errorf("file %s: not %s/%s", files[0], dir, namePattern)
	}
	recs := readFile(t, files[0])
	if len(recs) != 1+2*len(cases) {
		t.Fatalf("%d records, want %d", len(recs), 1+2*len(cases))
	}

	wi := recs[0]
	checkFields(t, "warcinfo", wi, map[string]string{
		"WARC-Type":     "warcinfo",
		"WARC-Filename": filepath.Base(files[0]),
		"Content-Type":  "application/warc-fields",
	})
	wantInfo := "software: crawler/0.1\r\nformat: WARC File Format 1.1\r\n" +
		"conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n" +
		"operator: crawl-ops@example.com\r\nrobots: obey\r\nhttp-header-user-agent: crawler-test\r\n"
	if string(wi.Block) != wantInfo {
		t.Errorf("warcinfo block:\n%s\nwant:\n%s", wi.Block, wantInfo)
	}

	ids := map[string]bool{}
	for _, rec := range recs {
		if rec.Version != "1.1" {
			t.Errorf("version %q", rec.Version)
		}
		id := rec.Get("WARC-Record-ID")
		if !idPattern.MatchString(id) || ids[id] {
			t.Errorf("record ID %q: malformed or repeated", id)
		}
		ids[id] = true
		if got, want := rec.Get("Content-Length"), strconv.Itoa(len(rec.Block)); got != want {
			t.Errorf("%s: Content-Length %s, block %s bytes", id, got, want)
		}
		if _, err := time.Parse(time.RFC3339Nano, rec.Get("WARC-Date")); err != nil {
			t.Errorf("%s: WARC-Date: %v", id, err)
		}
		if err := rec.Verify(); err != nil {
			t.Errorf("Verify: %v", err)
		}
	}

	for i, c := range cases {
		req, resp := recs[1+2*i], recs[2+2*i]
		date := c.x.Date.Truncate(time.Microsecond).Format("2006-01-02T15:04:05.000000Z")
		common := map[string]string{
			"WARC-Target-URI":  c.x.URL,
			"WARC-Date":        date,
			"WARC-IP-Address":  c.x.IP,
			"WARC-Warcinfo-ID": wi.Get("WARC-Record-ID"),
		}
		checkFields(t, c.name+" request", req, common)
		checkFields(t, c.name+" request", req, map[string]string{
			"WARC-Type":           "request",
			"Content-Type":        "application/http;msgtype=request",
			"WARC-Concurrent-To":  resp.Get("WARC-Record-ID"),
			"WARC-Block-Digest":   sha1Of(c.x.Request),
			"WARC-Payload-Digest": "",
			"WARC-Truncated":      "",
		})
		if !bytes.Equal(req.Block, c.x.Request) {
			t.Errorf("%s: request block %q, want %q", c.name, req.Block, c.x.Request)
		}
		checkFields(t, c.name+" response", resp, common)
		checkFields(t, c.name+" response", resp, map[string]string{
			"WARC-Type":           c.typ,
			"Content-Type":        "application/http;msgtype=response",
			"WARC-Concurrent-To":  req.Get("WARC-Record-ID"),
			"WARC-Payload-Digest": c.payload,
			"WARC-Truncated":      c.x.Truncated,
		})
		block := c.x.Response
		if c.typ == "revisit" {
			block = block[:bytes.Index(block, []byte("\r\n\r\n"))+4]
			checkFields(t, c.name+" revisit", resp, map[string]string{
				"WARC-Profile":              "http://netpreserve.org/warc/1.1/revisit/server-not-modified",
				"WARC-Refers-To-Target-URI": c.x.URL,
			})
		}
		if !bytes.Equal(resp.Block, block) {
			t.Errorf("%s: response block %q, want %q", c.name, resp.Block, block)
		}
		if got, want := resp.Get("WARC-Block-Digest"), sha1Of(block); got != want {
			t.Errorf("%s: WARC-Block-Digest %s, want %s", c.name, got, want)
		}
	}
}

// checkFields checks that rec's fields hold want ("" meaning absent).
func checkFields(t *testing.T, what string, rec *warc.Record, want map[string]string) {
	t.Helper()
	for name, v := range want {
		if got := rec.Get(name); got != v {
			t.Errorf("%s: %s %q, want %q", what, name, got, v)
		}
	}
}

func TestKnownDigests(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", sha1Empty},
		{"hello world", sha1HelloWorld},
		{"hello", sha1Hello},
	} {
		if got := sha1Of([]byte(c.in)); got != c.want {
			t.Errorf("sha1Of(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	// and as the Writer computes them: a warcinfo-less check through
	// a record whose payload is empty
	dir := t.TempDir()
	w := newWriter(t, dir, warc.Options{})
	x := &fetch.Exchange{URL: "http://example.com/", Request: []byte{}, Response: []byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")}
	if err := w.Record(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	w.Close()
	recs := readFile(t, w.Files()[0])
	if got := recs[1].Get("WARC-Block-Digest"); got != sha1Empty {
		t.Errorf("empty request block digest %s, want %s", got, sha1Empty)
	}
	if got := recs[2].Get("WARC-Payload-Digest"); got != sha1Empty {
		t.Errorf("empty payload digest %s, want %s", got, sha1Empty)
	}
}

// exchange returns an exchange of url whose body is n bytes that do not
// compress.
func exchange(url string, n int) *fetch.Exchange {
	body := make([]byte, n)
	s := uint64(len(url))*0x9e3779b97f4a7c15 + uint64(n)
	for i := range body {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		body[i] = 'a' + byte(s%26)
	}
	resp := fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", n)
	return &fetch.Exchange{URL: url, IP: "192.0.2.9", Date: time.Now(), Request: get(url), Response: append(resp, body...)}
}

// checkFiles reads files and checks that each starts with its only
// warcinfo record, followed by request and response pairs linked to each
// other and to it, which all verify. It returns the URLs of the pairs.
func checkFiles(t *testing.T, files []string) []string {
	t.Helper()
	var urls []string
	infoIDs := map[string]bool{}
	for _, path := range files {
		recs := readFile(t, path)
		name := filepath.Base(path)
		if len(recs) == 0 || recs[0].Type() != "warcinfo" {
			t.Fatalf("%s: does not start with a warcinfo record", name)
		}
		infoID := recs[0].Get("WARC-Record-ID")
		if infoIDs[infoID] {
			t.Errorf("%s: warcinfo ID %s already seen", name, infoID)
		}
		infoIDs[infoID] = true
		if recs[0].Get("WARC-Filename") != name {
			t.Errorf("%s: WARC-Filename %s", name, recs[0].Get("WARC-Filename"))
		}
		if (len(recs)-1)%2 != 0 {
			t.Errorf("%s: %d records after the warcinfo: not pairs", name, len(recs)-1)
		}
		for i := 1; i+1 < len(recs); i += 2 {
			req, resp := recs[i], recs[i+1]
			if req.Type() != "request" || resp.Type() != "response" {
				t.Fatalf("%s: records %d, %d are %s, %s", name, i, i+1, req.Type(), resp.Type())
			}
			if req.Get("WARC-Concurrent-To") != resp.Get("WARC-Record-ID") ||
				resp.Get("WARC-Concurrent-To") != req.Get("WARC-Record-ID") ||
				req.Get("WARC-Target-URI") != resp.Get("WARC-Target-URI") {
				t.Errorf("%s: records %d, %d are not one exchange", name, i, i+1)
			}
			for _, rec := range recs[i : i+2] {
				if rec.Get("WARC-Warcinfo-ID") != infoID {
					t.Errorf("%s: record %s: WARC-Warcinfo-ID %s, want %s", name,
						rec.Get("WARC-Record-ID"), rec.Get("WARC-Warcinfo-ID"), infoID)
				}
				if err := rec.Verify(); err != nil {
					t.Error(err)
				}
			}
			urls = append(urls, req.Get("WARC-Target-URI"))
		}
	}
	return urls
}

func TestRotation(t *testing.T) {
	dir := t.TempDir()
	const max = 8 << 10
	w := newWriter(t, dir, warc.Options{MaxFileBytes: max})
	var want []string
	for i := range 40 {
		n := 500
		if i == 20 {
			n = 3 * max // alone in its file
		}
		x := exchange(fmt.Sprintf("http://example.com/%d", i), n)
		if err := w.Record(context.Background(), x); err != nil {
			t.Fatal(err)
		}
		want = append(want, x.URL)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := w.Files()
	if len(files) < 4 {
		t.Fatalf("%d files, want several", len(files))
	}
	if got := checkFiles(t, files); !slices.Equal(got, want) {
		t.Errorf("exchanges read %q, want %q", got, want)
	}
	for i, path := range files {
		m := namePattern.FindStringSubmatch(filepath.Base(path))
		if m == nil || m[3] != fmt.Sprintf("%05d", i) {
			t.Errorf("file %d: %s: want sequence number %05d", i, filepath.Base(path), i)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(readFile(t, path)); fi.Size() > max && n != 3 {
			t.Errorf("%s: %d bytes (over %d) in %d records", filepath.Base(path), fi.Size(), max, n)
		}
	}
}

// A file's size counts its warcinfo record: two exchanges that fit in
// MaxFileBytes only without it go into two files.
func TestRotationCountsWarcinfo(t *testing.T) {
	x := exchange("http://example.com/", 3000)
	size := func(n int) int64 { // of a file of n exchanges x
		w := newWriter(t, t.TempDir(), warc.Options{})
		for range n {
			if err := w.Record(context.Background(), x); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(w.Files()[0])
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	one, two := size(1), size(2)
	info := one - (two - one) // the warcinfo record
	max := two - info/2
	w := newWriter(t, t.TempDir(), warc.Options{MaxFileBytes: max})
	for range 2 {
		if err := w.Record(context.Background(), x); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if files := w.Files(); len(files) != 2 {
		t.Errorf("%d files of %d bytes at most, want 2: files of one exchange are %d bytes, of two %d", len(files), max, one, two)
	}
}

func TestNoRotation(t *testing.T) {
	dir := t.TempDir()
	w := newWriter(t, dir, warc.Options{MaxFileBytes: -1})
	for i := range 10 {
		if err := w.Record(context.Background(), exchange(fmt.Sprintf("http://example.com/%d", i), 4000)); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if files := w.Files(); len(files) != 1 || len(checkFiles(t, files)) != 10 {
		t.Errorf("files %q, want one of 10 exchanges", files)
	}
}

// A resumed crawl adds files to the directory and changes none.
func TestResume(t *testing.T) {
	dir := t.TempDir()
	opts := warc.Options{Prefix: "job", MaxFileBytes: 4 << 10}
	// someone else's file, and one of ours numbered high
	os.WriteFile(filepath.Join(dir, "other-20260101000000-00099.warc.gz"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "job-20200101000000-00007.warc.gz"), []byte("y"), 0o644)
	var before []string
	for run := range 2 {
		w := newWriter(t, dir, opts)
		for i := range 5 {
			if err := w.Record(context.Background(), exchange(fmt.Sprintf("http://example.com/%d/%d", run, i), 3000)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		files := w.Files()
		for i, path := range files {
			m := namePattern.FindStringSubmatch(filepath.Base(path))
			if m == nil || m[1] != "job" {
				t.Fatalf("%s: not a job file", path)
			}
			want := 8 + len(before) + i
			if n, _ := strconv.Atoi(m[3]); n != want {
				t.Errorf("run %d: %s: sequence number %d, want %d", run, filepath.Base(path), n, want)
			}
		}
		if run == 0 {
			before = files
			continue
		}
		// the first run's files are unchanged
		for _, path := range before {
			if len(readFile(t, path)) == 0 {
				t.Errorf("%s: emptied", path)
			}
		}
		if len(checkFiles(t, before))+len(checkFiles(t, files)) != 10 {
			t.Error("exchanges lost")
		}
	}
	for name, want := range map[string]string{"other-20260101000000-00099.warc.gz": "x", "job-20200101000000-00007.warc.gz": "y"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s overwritten", name)
		}
	}
}

func TestConcurrentRecord(t *testing.T) {
	dir := t.TempDir()
	w := newWriter(t, dir, warc.Options{MaxFileBytes: 32 << 10})
	const goroutines, each = 16, 40
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				x := exchange(fmt.Sprintf("http://example.com/%d/%d", g, i), 200+(g*each+i)%1500)
				if err := w.Record(context.Background(), x); err != nil {
					errs <- err
					return
				}
				if i%10 == 0 {
					if err := w.Sync(); err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	files := make(chan []string)
	go func() { files <- w.Files() }() // Files, concurrent with Record
	<-files
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := checkFiles(t, w.Files())
	if len(w.Files()) < 2 {
		t.Errorf("%d files: no rotation", len(w.Files()))
	}
	var want []string
	for g := range goroutines {
		for i := range each {
			want = append(want, fmt.Sprintf("http://example.com/%d/%d", g, i))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("read %d exchanges, want %d, or not the same", len(got), len(want))
	}
}

// Exchanges are written in the order Record takes them, by the
// compressors or (over 1 MiB) by Record itself, and Sync returns once
// those taken before it are in the file.
func TestRecordOrderAndSync(t *testing.T) {
	for _, compressors := range []int{-1, 1, 4} {
		t.Run(fmt.Sprintf("compressors=%d", compressors), func(t *testing.T) {
			var xs []*fetch.Exchange
			for i := range 60 {
				n := 2000 + i*37
				switch {
				case i%20 == 10:
					n = 3 << 19 // 1.5 MiB: not queued
				case i%25 >= 11:
					n = 250 << 10 // queued, long to compress, just before a Sync
				}
				xs = append(xs, exchange(fmt.Sprintf("http://example.com/%d", i), n))
			}
			w := newWriter(t, t.TempDir(), warc.Options{Compressors: compressors})
			var want []string
			var path string // of the file, named when the first exchange is written
			for i, x := range xs {
				if err := w.Record(context.Background(), x); err != nil {
					t.Fatal(err)
				}
				want = append(want, x.URL)
				if i == 0 {
					path = w.Files()[0] + ".open"
				}
				if i%25 == 24 {
					if err := w.Sync(); err != nil {
						t.Fatal(err)
					}
					if got := len(readFile(t, path)); got != 1+2*len(want) {
						t.Errorf("after Sync: %d records in the file, want %d", got, 1+2*len(want))
					}
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if got := checkFiles(t, w.Files()); !slices.Equal(got, want) {
				t.Errorf("exchanges read %q, want %q", got, want)
			}
		})
	}
}

// A write that fails stops the Writer: Sync, the next Record and Close
// return its error.
func TestWriteErrorStops(t *testing.T) {
	for _, compressors := range []int{-1, 2} {
		t.Run(fmt.Sprintf("compressors=%d", compressors), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "gone")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			w := newWriter(t, dir, warc.Options{Compressors: compressors})
			if err := os.Remove(dir); err != nil { // so the first file cannot be created
				t.Fatal(err)
			}
			err := w.Record(context.Background(), exchange("http://example.com/1", 100))
			if compressors < 0 && err == nil {
				t.Fatal("Record without compressors: no error")
			}
			if err := w.Sync(); err == nil || !strings.HasPrefix(err.Error(), "warc: ") {
				t.Errorf("Sync = %v, want the write's warc: error", err)
			}
			if err := w.Record(context.Background(), exchange("http://example.com/2", 100)); err == nil {
				t.Error("Record after a failed write: no error")
			}
			if err := w.Close(); err == nil {
				t.Error("Close after a failed write: no error")
			}
		})
	}
}

func TestVerifyDetectsFlippedByte(t *testing.T) {
	dir := t.TempDir()
	w := newWriter(t, dir, warc.Options{})
	c := testCases(t)[2] // gzip + chunked
	if err := w.Record(context.Background(), &c.x); err != nil {
		t.Fatal(err)
	}
	w.Close()
	resp := readFile(t, w.Files()[0])[2]
	if err := resp.Verify(); err != nil {
		t.Fatal(err)
	}
	header := bytes.Index(resp.Block, []byte("\r\n\r\n")) + 4
	for _, c := range []struct {
		name           string
		at             int
		block, payload bool
	}{
		{"in the HTTP header", 20, true, false},
		{"in the body", header + 30, true, true},
		{"last byte", len(resp.Block) - 1, true, false}, // the CRLF ending the last chunk
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := *resp
			rec.Block = bytes.Clone(resp.Block)
			rec.Block[c.at] ^= 0x01
			err := rec.Verify()
			if errors.Is(err, warc.ErrBlockDigest) != c.block || errors.Is(err, warc.ErrPayloadDigest) != c.payload {
				t.Errorf("Verify = %v; want block mismatch %v, payload mismatch %v", err, c.block, c.payload)
			}
			if err != nil && !strings.Contains(err.Error(), resp.Get("WARC-Record-ID")) {
				t.Errorf("error %q does not name the record", err)
			}
		})
	}
}

func TestVerifyForeignDigests(t *testing.T) {
	body := "hello world"
	chunkedBody := "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
	block := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedBody
	for _, c := range []struct {
		name, typ, ctype, block, payload string
		want                             error
	}{
		// hex, lower-case base32, sha256: as other tools write them
		{"hex", "response", "application/http; msgtype=response", block,
			"sha1:2aae6c35c94fcfb415dbe95f408b9ce91ee846ed", nil},
		{"lower base32", "response", "application/http;msgtype=response", block,
			strings.ToLower(sha1HelloWorld), nil},
		{"sha256", "response", "application/http", block,
			"sha256:b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9", nil},
		{"transfer coding kept", "response", "application/http", block,
			sha1Of([]byte(chunkedBody)), nil},
		{"resource", "resource", "text/plain", body, sha1HelloWorld, nil},
		{"revisit: not checked", "revisit", "application/http", block, sha1Empty, nil},
		{"wrong", "response", "application/http", block, sha1Empty, warc.ErrPayloadDigest},
		{"unknown algorithm", "response", "application/http", block, "crc32:12345678", warc.ErrDigestFormat},
		{"bad value", "response", "application/http", block, "sha1:!!!!", warc.ErrDigestFormat},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := &warc.Record{Version: "1.1", Block: []byte(c.block), Fields: []warc.Field{
				{"WARC-Type", c.typ}, {"Content-Type", c.ctype},
				{"WARC-Block-Digest", sha1Of([]byte(c.block))}, {"WARC-Payload-Digest", c.payload},
			}}
			if err := rec.Verify(); !errors.Is(err, c.want) || (err == nil) != (c.want == nil) {
				t.Errorf("Verify = %v, want %v", err, c.want)
			}
		})
	}
}

func TestCrashCut(t *testing.T) {
	whole := wholeFile(t, 3)
	// a kill -9 during the last write: its members are cut anywhere
	for _, cut := range []int{len(whole) - 1, len(whole) - 9, len(whole) - 1000, len(whole) - 2100} {
		n := 0
		var err error
		for rec, recErr := range warc.NewReader(bytes.NewReader(whole[:cut])).All() {
			if err = recErr; err == nil && rec != nil {
				n++
			}
		}
		if n < 4 || n > 6 || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("cut at %d of %d: %d records, then %v; want 4 or 5, then io.ErrUnexpectedEOF", cut, len(whole), n, err)
		}
	}
}

// TestAllStops checks that All ends with the file, and that a loop that
// breaks reads no further.
func TestAllStops(t *testing.T) {
	whole := wholeFile(t, 3)
	r := warc.NewReader(bytes.NewReader(whole))
	n := 0
	for _, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 2 {
			break
		}
	}
	rest := 0
	for _, err := range r.All() { // reads on from the third record
		if err != nil {
			t.Fatal(err)
		}
		rest++
	}
	if n != 2 || rest < 2 {
		t.Errorf("%d records, then %d more; want 2, then the rest", n, rest)
	}
	if rec, err := r.Next(); rec != nil || err != io.EOF {
		t.Errorf("Next after All = %v, %v; want io.EOF", rec, err)
	}
}

func TestWriterErrors(t *testing.T) {
	dir := t.TempDir()
	for _, opts := range []warc.Options{
		{Prefix: "a/b"},
		{Prefix: ".."},
		{Info: []warc.Field{{"bad name", "v"}}},
		{Info: []warc.Field{{"name", "two\r\nlines"}}},
	} {
		if _, err := warc.NewWriter(dir, opts); err == nil || !strings.HasPrefix(err.Error(), "warc: ") {
			t.Errorf("NewWriter(%+v) = %v, want a warc: error", opts, err)
		}
	}
	if _, err := warc.NewWriter(filepath.Join(dir, "missing"), warc.Options{}); err == nil {
		t.Error("NewWriter of a missing directory: no error")
	}

	w := newWriter(t, dir, warc.Options{})
	ok := exchange("http://example.com/", 10)
	for _, x := range []*fetch.Exchange{
		nil,
		{Request: ok.Request, Response: ok.Response},
		{URL: ok.URL, IP: "192.0.2.1:80", Response: ok.Response},
		{URL: ok.URL, Truncated: "length\r\nX: y", Response: ok.Response},
	} {
		if err := w.Record(context.Background(), x); err == nil || !strings.HasPrefix(err.Error(), "warc: ") {
			t.Errorf("Record(%+v) = %v, want a warc: error", x, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Record(ctx, ok); !errors.Is(err, context.Canceled) {
		t.Errorf("Record with a cancelled context = %v", err)
	}
	if len(w.Files()) != 0 {
		t.Errorf("files %q after failed Records", w.Files())
	}
	if err := w.Sync(); err != nil { // nothing to sync
		t.Error(err)
	}
	if err := w.Close(); err != nil {
		t.Error(err)
	}
	if err := w.Record(context.Background(), ok); !errors.Is(err, warc.ErrClosed) {
		t.Errorf("Record after Close = %v", err)
	}
	if err := w.Sync(); !errors.Is(err, warc.ErrClosed) {
		t.Errorf("Sync after Close = %v", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestTargetURIEscaped(t *testing.T) {
	dir := t.TempDir()
	w := newWriter(t, dir, warc.Options{})
	x := exchange("http://example.com/a b\r\nWARC-Type: x", 10)
	if err := w.Record(context.Background(), x); err != nil {
		t.Fatal(err)
	}
	w.Close()
	recs := readFile(t, w.Files()[0])
	if got, want := recs[1].Get("WARC-Target-URI"), "http://example.com/a%20b%0D%0AWARC-Type:%20x"; got != want {
		t.Errorf("WARC-Target-URI %q, want %q", got, want)
	}
	if recs[1].Type() != "request" {
		t.Errorf("type %q", recs[1].Type())
	}
}

// record is a WARC record in text, for the reader tests.
func record(fields, block string) string {
	return "WARC/1.1\r\n" + fields + "Content-Length: " + strconv.Itoa(len(block)) + "\r\n\r\n" + block + "\r\n\r\n"
}

func TestReaderUncompressed(t *testing.T) {
	in := "\r\n" + record("WARC-Type: resource\r\nWARC-Target-URI: http://example.com/\r\n  folded\r\n", "hello") +
		"\r\n" + // a stray line end between records
		strings.Replace(record("WARC-Type: metadata\r\n", "a: b\r\n"), "WARC/1.1", "WARC/1.0", 1)
	r := warc.NewReader(strings.NewReader(in))
	a, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("third Next: %v, want io.EOF", err)
	}
	if a.Version != "1.1" || a.Type() != "resource" || string(a.Block) != "hello" || a.Offset != 2 ||
		a.Get("warc-target-uri") != "http://example.com/ folded" {
		t.Errorf("first record %+v", a)
	}
	if b.Version != "1.0" || b.Type() != "metadata" || string(b.Block) != "a: b\r\n" || b.Offset != int64(2+len(record("WARC-Type: resource\r\nWARC-Target-URI: http://example.com/\r\n  folded\r\n", "hello"))+2) {
		t.Errorf("second record %+v", b)
	}
}

func TestReaderOneMember(t *testing.T) {
	// a whole file compressed as one gzip member, as some tools write
	in := gzipped(t, record("WARC-Type: resource\r\n", "a")+record("WARC-Type: resource\r\n", "bc"))
	r := warc.NewReader(bytes.NewReader(in))
	var blocks []string
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Offset != 0 {
			t.Errorf("offset %d, want 0 (the member's)", rec.Offset)
		}
		blocks = append(blocks, string(rec.Block))
	}
	if !slices.Equal(blocks, []string{"a", "bc"}) {
		t.Errorf("blocks %q", blocks)
	}
}

func TestReaderMalformed(t *testing.T) {
	ok := record("WARC-Type: resource\r\n", "hello")
	for _, c := range []struct {
		name string
		in   string
		max  int64
		want []error
	}{
		{"missing Content-Length", "WARC/1.1\r\nWARC-Type: resource\r\n\r\n", 0, []error{warc.ErrMalformed}},
		{"bad version", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n\r\n\r\n", 0, []error{warc.ErrMalformed}},
		{"bad version number", "WARC/one\r\nContent-Length: 0\r\n\r\n\r\n\r\n", 0, []error{warc.ErrMalformed}},
		{"short block", "WARC/1.1\r\nContent-Length: 10\r\n\r\nabc", 0, []error{warc.ErrMalformed, io.ErrUnexpectedEOF}},
		{"cut header", "WARC/1.1\r\nContent-Len", 0, []error{warc.ErrMalformed, io.ErrUnexpectedEOF}},
		{"negative length", "WARC/1.1\r\nContent-Length: -1\r\n\r\n", 0, []error{warc.ErrMalformed}},
		{"signed length", "WARC/1.1\r\nContent-Length: +1\r\n\r\na\r\n\r\n", 0, []error{warc.ErrMalformed}},
		{"minus zero", "WARC/1.1\r\nContent-Length: -0\r\n\r\n\r\n\r\n", 0, []error{warc.ErrMalformed}},
		{"text length", "WARC/1.1\r\nContent-Length: ten\r\n\r\n", 0, []error{warc.ErrMalformed}},
		{"huge length", "WARC/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", 0, []error{warc.ErrTooLarge}},
		{"over the default cap", "WARC/1.1\r\nContent-Length: 1073741825\r\n\r\nabc", 0, []error{warc.ErrTooLarge}},
		{"over a set cap", ok, 4, []error{warc.ErrTooLarge}},
		{"no CRLF CRLF after the block", "WARC/1.1\r\nContent-Length: 1\r\n\r\nab\r\n\r\n", 0, []error{warc.ErrMalformed}},
		{"line without colon", "WARC/1.1\r\nWARC-Type resource\r\nContent-Length: 0\r\n\r\n\r\n\r\n", 0, []error{warc.ErrMalformed}},
		{"leading continuation", "WARC/1.1\r\n folded\r\nContent-Length: 0\r\n\r\n\r\n\r\n", 0, []error{warc.ErrMalformed}},
		{"header too long", "WARC/1.1\r\nX: " + strings.Repeat("x", 1<<20) + "\r\n", 0, []error{warc.ErrTooLarge}},
		{"garbage after a gzip member", string(gzipped(t, ok)) + "junk", 0, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := warc.NewReader(strings.NewReader(c.in))
			r.MaxBlockBytes = c.max
			var err error
			for range 3 {
				if _, err = r.Next(); err != nil {
					break
				}
			}
			if err == nil || err == io.EOF || !strings.HasPrefix(err.Error(), "warc: ") {
				t.Fatalf("Next = %v, want a warc: error", err)
			}
			for _, want := range c.want {
				if !errors.Is(err, want) {
					t.Errorf("Next = %v, want %v", err, want)
				}
			}
			if _, again := r.Next(); again != err {
				t.Errorf("Next after an error = %v, want it again", again)
			}
		})
	}
}

func TestReaderEmpty(t *testing.T) {
	for _, in := range []string{"", "\r\n"} {
		if _, err := warc.NewReader(strings.NewReader(in)).Next(); err != io.EOF {
			t.Errorf("Next of %q = %v, want io.EOF", in, err)
		}
	}
}

// A lying Content-Length costs no more than the bytes that came.
func TestReaderAllocatesAsDataArrives(t *testing.T) {
	in := "WARC/1.1\r\nContent-Length: 1000000000\r\n\r\nabc"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := warc.NewReader(strings.NewReader(in)).Next()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Next = %v, want io.ErrUnexpectedEOF", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Errorf("reading a 3-byte block that claims 1 GB allocated %d bytes", d)
	}
}

func readBytes(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// A Reader reset reads its new input from the start, whatever it read
// before: compressed after uncompressed and back, after an error, from
// an offset (Start), without allocating its buffers again.
func TestReaderReset(t *testing.T) {
	plain := record("WARC-Type: resource\r\n", "plain")
	members := gzipped(t, record("WARC-Type: resource\r\n", "one"))
	second := len(members)
	members = append(members, gzipped(t, record("WARC-Type: resource\r\n", "two"))...)
	r := warc.NewReader(strings.NewReader("not WARC"))
	if _, err := r.Next(); err == nil {
		t.Fatal("no error for input that is not WARC")
	}
	for _, c := range []struct {
		in    []byte
		start int64
		want  string
	}{
		{[]byte(plain), 0, "plain"},
		{members, 0, "one"},
		{[]byte(plain), 0, "plain"},
		{members[second:], int64(second), "two"},
		{members, 0, "one"},
	} {
		r.Reset(bytes.NewReader(c.in))
		r.Start = c.start
		rec, err := r.Next()
		if err != nil || string(rec.Block) != c.want || rec.Offset != c.start {
			t.Fatalf("after Reset: %v, %+v; want %q at %d", err, rec, c.want, c.start)
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		r.Reset(bytes.NewReader(members))
		r.Next()
	}
	runtime.ReadMemStats(&after)
	if b := (after.TotalAlloc - before.TotalAlloc) / 10; b > 16<<10 {
		t.Errorf("%d bytes allocated to read a small record after Reset", b)
	}
}
