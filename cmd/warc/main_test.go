package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"crawler"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/warc"
)

// site is what the test server serves, by path.
type site struct {
	url    string
	chunks []string // /chunked's body, sent in these flushes (so chunked)
	html   string   // /gz's body, before gzip
	image  []byte   // /img.png
}

// crawlArchive crawls a small site on loopback with a warc.Writer as the
// fetcher's recorder, files rotated at maxFileBytes, and returns the
// files and the site. The site has HTML pages, a chunked response, a
// gzip-encoded one, a 30 KB image (stored, not deflated, in its gzip
// member) and a 404.
func crawlArchive(t *testing.T, maxFileBytes int64) ([]string, *site) {
	t.Helper()
	s := &site{
		chunks: []string{"<html><body><p>first part</p>", "<p>second part</p>", "</body></html>"},
		html:   `<html><body><a href="/a">back</a>` + strings.Repeat("<p>compressed</p>", 100) + `</body></html>`,
		image:  make([]byte, 30000),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range s.image {
		s.image[i] = byte(rng.Uint32())
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			io.WriteString(w, `<html><body><a href="/a">a</a> <a href="/chunked">c</a> <a href="/gz">g</a> <a href="/img.png">i</a> <a href="/missing">m</a></body></html>`)
		case "/a":
			io.WriteString(w, `<html><body><a href="/">home</a> `+strings.Repeat("<p>a page of text</p>", 50)+`</body></html>`)
		case "/chunked":
			w.Header().Set("Content-Type", "text/html")
			for _, c := range s.chunks {
				io.WriteString(w, c)
				w.(http.Flusher).Flush()
			}
		case "/gz":
			if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				t.Errorf("/gz requested without Accept-Encoding gzip")
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			io.WriteString(zw, s.html)
			zw.Close()
		case "/img.png":
			w.Header().Set("Content-Type", "image/png")
			w.Header().Set("Content-Length", strconv.Itoa(len(s.image)))
			w.Write(s.image)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL

	dir := t.TempDir()
	archive, err := warc.NewWriter(dir, warc.Options{MaxFileBytes: maxFileBytes})
	if err != nil {
		t.Fatal(err)
	}
	c := &crawler.Crawler{
		Handler: crawler.HandlerFunc(func(context.Context, *crawler.Page) error { return nil }),
		Pacing:  politeness.Pacing{Delay: -1, DelayFactor: -1, Backoff: -1},
		Workers: 2,
		Robots:  &politeness.RobotsCache{ErrorTTL: time.Millisecond},
		Fetcher: &fetch.HTTPFetcher{Recorder: archive,
			Addresses: fetch.AddressPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}},
	}
	if err := c.Run(t.Context(), srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if err := archive.Close(); err != nil {
		t.Fatal(err)
	}
	return archive.Files(), s
}

// readRecords reads every record of a WARC file with the warc package.
func readRecords(t *testing.T, name string) []*warc.Record {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []*warc.Record
	for rec, err := range warc.NewReader(f).All() {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// find returns the file and record of the response to url.
func find(t *testing.T, files []string, url string) (string, *warc.Record) {
	t.Helper()
	for _, name := range files {
		for _, rec := range readRecords(t, name) {
			if rec.Type() == "response" && rec.Get("WARC-Target-URI") == url {
				return name, rec
			}
		}
	}
	t.Fatalf("no response record of %s", url)
	return "", nil
}

// result is what a run of the command gave.
type result struct {
	stdout, stderr string
	err            error
}

func runCommand(args ...string) result {
	var out, errOut bytes.Buffer
	err := run(args, &out, &errOut)
	return result{out.String(), errOut.String(), err}
}

// list prints a line per record, as the warc package reads them, with
// their offsets, types, dates, lengths, URIs, and for responses the HTTP
// status and content type; -json the same as JSON Lines; each offset
// extracts its record.
func TestList(t *testing.T) {
	files, s := crawlArchive(t, 16<<10)
	if len(files) < 2 {
		t.Fatalf("%d files; want several (rotation at 16 KiB)", len(files))
	}
	var want []*warc.Record
	wantFile := map[*warc.Record]string{}
	for _, name := range files {
		for _, rec := range readRecords(t, name) {
			want = append(want, rec)
			wantFile[rec] = name
		}
	}

	res := runCommand(append([]string{"list"}, files...)...)
	if res.err != nil || res.stderr != "" {
		t.Fatalf("list: %v, stderr %q", res.err, res.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines for %d records:\n%s", len(lines), len(want), res.stdout)
	}
	statuses := map[string]string{}
	for i, l := range lines {
		cols := strings.Split(l, "\t")
		rec := want[i]
		if len(cols) != 8 || cols[0] != wantFile[rec] || cols[1] != strconv.FormatInt(rec.Offset, 10) || cols[2] != rec.Type() ||
			cols[3] != rec.Get("WARC-Date") || cols[4] != strconv.Itoa(len(rec.Block)) || cols[7] != orDash(rec.Get("WARC-Target-URI")) {
			t.Errorf("line %d: %q; want file, offset %d, type %s, date, length %d, status, content type, URI", i, l, rec.Offset, rec.Type(), len(rec.Block))
			continue
		}
		if rec.Type() == "response" {
			statuses[strings.TrimPrefix(cols[7], s.url)] = cols[5] + " " + cols[6]
		} else if cols[5] != "-" {
			t.Errorf("line %d: %q: a status for a %s record", i, l, rec.Type())
		}
	}
	for path, want := range map[string]string{
		"/": "200 text/html; charset=utf-8", "/missing": "404 text/plain; charset=utf-8", "/robots.txt": "404 text/plain; charset=utf-8",
		"/img.png": "200 image/png", "/gz": "200 text/html; charset=utf-8", "/chunked": "200 text/html",
	} {
		if statuses[path] != want {
			t.Errorf("%s: status and content type %q, want %q", path, statuses[path], want)
		}
	}

	// one file: no file column
	res = runCommand("list", files[0])
	if first := strings.SplitN(res.stdout, "\n", 2)[0]; res.err != nil || !strings.HasPrefix(first, "0\twarcinfo\t") {
		t.Errorf("list of one file: %v, first line %q, want 0, warcinfo, ...", res.err, first)
	}

	res = runCommand(append([]string{"list", "-json"}, files...)...)
	if res.err != nil {
		t.Fatal(res.err)
	}
	dec := json.NewDecoder(strings.NewReader(res.stdout))
	for i := 0; dec.More(); i++ {
		var e entry
		if err := dec.Decode(&e); err != nil {
			t.Fatal(err)
		}
		rec := want[i]
		if e.File != wantFile[rec] || e.Offset != rec.Offset || e.RecordID != rec.Get("WARC-Record-ID") || e.Length != len(rec.Block) ||
			e.PayloadDigest != rec.Get("WARC-Payload-Digest") {
			t.Errorf("JSON line %d: %+v; want record %s at %d", i, e, rec.Get("WARC-Record-ID"), rec.Offset)
		}
		// every offset listed extracts its record
		got := runCommand("extract", e.File, strconv.FormatInt(e.Offset, 10))
		if got.err != nil || got.stdout != string(rec.Block) {
			t.Errorf("extract %s %d: %v, %d bytes; want the block of %s (%d bytes)", e.File, e.Offset, got.err, len(got.stdout), e.RecordID, len(rec.Block))
		}
	}
}

// verify passes a crawl's files, and reports each corrupted record with
// its file and offset (a payload byte changed under a valid gzip member:
// the digests; a stored byte changed: the gzip checksum), reading on
// after it; exit status 1.
func TestVerify(t *testing.T) {
	files, s := crawlArchive(t, -1)
	if len(files) != 1 {
		t.Fatalf("%d files, want 1", len(files))
	}
	name := files[0]
	recs := readRecords(t, name)
	res := runCommand("verify", name)
	if want := fmt.Sprintf("1 file, %d records: %d verified, 0 without digests, 0 bad\n", len(recs), len(recs)); res.err != nil || res.stdout != want {
		t.Fatalf("verify: %v\n%s; want %q", res.err, res.stdout, want)
	}

	file, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	memberEnd := func(rec *warc.Record) int64 {
		for i, r := range recs {
			if r.Offset == rec.Offset && i+1 < len(recs) {
				return recs[i+1].Offset
			}
		}
		return int64(len(file))
	}
	bad := filepath.Join(t.TempDir(), "bad.warc.gz")
	verifyBad := func(what string, corrupted []byte, offset int64, reason ...string) {
		t.Helper()
		if err := os.WriteFile(bad, corrupted, 0o644); err != nil {
			t.Fatal(err)
		}
		res := runCommand("verify", bad)
		summary := fmt.Sprintf("1 file, %d records: %d verified, 0 without digests, 1 bad\n", len(recs), len(recs)-1)
		lines := strings.SplitAfter(res.stdout, "\n")
		if !errors.Is(res.err, errReported) || len(lines) != 3 || lines[1] != summary ||
			!strings.HasPrefix(lines[0], fmt.Sprintf("%s: offset %d: ", bad, offset)) {
			t.Errorf("%s: verify: %v\n%s\nwant exit 1, the record at offset %d, and %q", what, res.err, res.stdout, offset, summary)
			return
		}
		for _, r := range reason {
			if !strings.Contains(lines[0], r) {
				t.Errorf("%s: %q does not say %q", what, lines[0], r)
			}
		}
	}

	// A byte of /a's body changed, in a member recompressed: gzip is
	// content, the digests are not.
	_, page := find(t, files, s.url+"/a")
	member := file[page.Offset:memberEnd(page)]
	zr, err := gzip.NewReader(bytes.NewReader(member))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(plain, []byte("a page of text"))
	plain[at] ^= 0x20 // "A page of text"
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(plain)
	zw.Close()
	spliced := append(append(append([]byte{}, file[:page.Offset]...), z.Bytes()...), file[memberEnd(page):]...)
	verifyBad("payload byte", spliced, page.Offset, "response "+s.url+"/a", "block digest mismatch", "payload digest mismatch")

	// A byte of the image, which its member stores as it is: the gzip
	// checksum fails.
	_, img := find(t, files, s.url+"/img.png")
	flipped := bytes.Clone(file)
	i := bytes.Index(flipped, s.image[10000:10100]) + 50
	flipped[i] ^= 0xff
	verifyBad("stored byte", flipped, img.Offset, "unreadable", "checksum")

	// An uncompressed copy with a payload byte changed.
	var plainFile bytes.Buffer
	var offset int64
	for _, rec := range recs {
		if rec.Offset == page.Offset {
			offset = int64(plainFile.Len())
		}
		fmt.Fprintf(&plainFile, "WARC/%s\r\n", rec.Version)
		for _, f := range rec.Fields {
			fmt.Fprintf(&plainFile, "%s: %s\r\n", f.Name, f.Value)
		}
		plainFile.WriteString("\r\n")
		plainFile.Write(rec.Block)
		plainFile.WriteString("\r\n\r\n")
	}
	b := plainFile.Bytes()
	b[offset+int64(bytes.Index(b[offset:], []byte("a page of text")))] ^= 0x20
	verifyBad("uncompressed", b, offset, "payload digest mismatch")
}

// A file cut short is reported at the record it cuts, with exit status
// 1, by list and verify; named .open, as the file a crawl is writing,
// its cut last record is noted, not an error.
func TestTruncated(t *testing.T) {
	files, _ := crawlArchive(t, -1)
	recs := readRecords(t, files[0])
	file, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	last := recs[len(recs)-1]
	dir := t.TempDir()
	for _, cut := range []int64{last.Offset + 1, last.Offset + 15, int64(len(file)) - 1} {
		cutFile := filepath.Join(dir, "cut.warc.gz")
		open := cutFile + ".open"
		for _, name := range []string{cutFile, open} {
			if err := os.WriteFile(name, file[:cut], 0o644); err != nil {
				t.Fatal(err)
			}
		}
		at := fmt.Sprintf("offset %d: ", last.Offset)

		res := runCommand("list", cutFile)
		if !errors.Is(res.err, errReported) || strings.Count(res.stdout, "\n") != len(recs)-1 || !strings.Contains(res.stderr, at) {
			t.Errorf("cut at %d: list: %v, %d lines, stderr %q; want exit 1, %d lines, an error at %d", cut, res.err,
				strings.Count(res.stdout, "\n"), res.stderr, len(recs)-1, last.Offset)
		}
		res = runCommand("verify", cutFile)
		if !errors.Is(res.err, errReported) || !strings.Contains(res.stdout, at+"unreadable: ") ||
			!strings.Contains(res.stdout, fmt.Sprintf("%d records: %d verified, 0 without digests, 1 bad", len(recs), len(recs)-1)) {
			t.Errorf("cut at %d: verify: %v\n%s", cut, res.err, res.stdout)
		}

		res = runCommand("list", open)
		if res.err != nil || strings.Count(res.stdout, "\n") != len(recs)-1 || !strings.Contains(res.stderr, at+"incomplete last record") {
			t.Errorf("cut at %d: list .open: %v, stderr %q; want exit 0 and a note", cut, res.err, res.stderr)
		}
		res = runCommand("verify", open)
		if res.err != nil || !strings.Contains(res.stdout, fmt.Sprintf("%d records: %[1]d verified, 0 without digests, 0 bad", len(recs)-1)) {
			t.Errorf("cut at %d: verify .open: %v\n%s", cut, res.err, res.stdout)
		}
	}
}

// A live crawl's file, still named .open and held by its Writer, lists
// and verifies.
func TestLiveFile(t *testing.T) {
	dir := t.TempDir()
	w, err := warc.NewWriter(dir, warc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = w.Record(t.Context(), &fetch.Exchange{URL: "http://example.com/", Date: time.Now(),
		Request:  []byte("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"),
		Response: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello")})
	if err != nil {
		t.Fatal(err)
	}
	open := w.Files()[0] + ".open"
	res := runCommand("list", open)
	if res.err != nil || strings.Count(res.stdout, "\n") != 3 || !strings.Contains(res.stdout, "\tresponse\t") {
		t.Errorf("list of a live file: %v\n%s", res.err, res.stdout)
	}
	if res := runCommand("verify", open); res.err != nil || !strings.HasSuffix(res.stdout, "3 records: 3 verified, 0 without digests, 0 bad\n") {
		t.Errorf("verify of a live file: %v\n%s", res.err, res.stdout)
	}
}

// extract writes a record's block, or with -payload its payload, found by
// offset or by URI; it says how the payload was decoded, and reports a
// record it cannot find.
func TestExtract(t *testing.T) {
	files, s := crawlArchive(t, 16<<10)
	gzFile, gz := find(t, files, s.url+"/gz")
	res := runCommand("extract", gzFile, strconv.FormatInt(gz.Offset, 10))
	if res.err != nil || res.stdout != string(gz.Block) || !strings.HasPrefix(res.stdout, "HTTP/1.1 200 OK\r\n") {
		t.Errorf("extract of the block: %v, %q", res.err, res.stdout[:min(100, len(res.stdout))])
	}
	res = runCommand("extract", "-payload", gzFile, strconv.FormatInt(gz.Offset, 10))
	if res.err != nil || !strings.Contains(res.stderr, "Content-Encoding gzip kept") {
		t.Fatalf("extract -payload: %v, stderr %q", res.err, res.stderr)
	}
	zr, err := gzip.NewReader(strings.NewReader(res.stdout))
	if err != nil {
		t.Fatal(err)
	}
	if body, err := io.ReadAll(zr); err != nil || string(body) != s.html {
		t.Errorf("-payload of /gz, gunzipped: %v, %q; want the page served", err, body)
	}

	all := runCommand(append([]string{"extract", "-payload", "-uri", s.url + "/chunked"}, files...)...)
	chunkedFile, chunked := find(t, files, s.url+"/chunked")
	if all.err != nil || all.stdout != strings.Join(s.chunks, "") || !strings.Contains(all.stderr, "chunked transfer-coding removed") ||
		!strings.Contains(all.stderr, fmt.Sprintf("%s: offset %d: response", chunkedFile, chunked.Offset)) {
		t.Errorf("extract -payload -uri /chunked: %v, %q, stderr %q", all.err, all.stdout, all.stderr)
	}
	if !bytes.Contains(chunked.Block, []byte("Transfer-Encoding: chunked")) {
		t.Error("/chunked was not sent chunked: the test tests nothing")
	}
	res = runCommand(append([]string{"extract", "-payload", "-uri", s.url + "/img.png"}, files...)...)
	if res.err != nil || res.stdout != string(s.image) || !strings.Contains(res.stderr, "the HTTP body as it came") {
		t.Errorf("extract -payload -uri /img.png: %v, %d bytes, stderr %q", res.err, len(res.stdout), res.stderr)
	}
	res = runCommand(append([]string{"extract", "-type", "request", "-uri", s.url + "/img.png"}, files...)...)
	if res.err != nil || !strings.HasPrefix(res.stdout, "GET /img.png HTTP/1.1\r\n") {
		t.Errorf("extract -type request: %v, %q", res.err, res.stdout)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-uri", s.url + "/nowhere"}, "no response record of " + s.url + "/nowhere"},
		{[]string{gzFile, strconv.FormatInt(gz.Offset+3, 10)}, fmt.Sprintf("%s: no record at offset %d", gzFile, gz.Offset+3)},
		{[]string{gzFile, "99999999"}, "beyond the file's end"},
		{[]string{filepath.Join(t.TempDir(), "none.warc.gz"), "0"}, "no such file"},
	} {
		args := append([]string{"extract"}, c.args...)
		if c.args[0] == "-uri" {
			args = append(args, files...)
		}
		res := runCommand(args...)
		if res.err == nil || errors.As(res.err, new(usageError)) || !strings.Contains(res.err.Error(), c.want) || res.stdout != "" {
			t.Errorf("%q: %v, stdout %d bytes; want an error saying %q", c.args, res.err, len(res.stdout), c.want)
		}
	}
}

// Bad command lines are usage errors (exit status 2); -h prints each
// command's usage on stdout.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{}, {"frobnicate"}, {"list"}, {"verify"}, {"extract"}, {"extract", "f"}, {"extract", "f", "-1"},
		{"extract", "f", "ten"}, {"extract", "-uri", "http://x/"}, {"list", "-bogus", "f"},
	} {
		if res := runCommand(args...); !errors.As(res.err, new(usageError)) {
			t.Errorf("%q: %v, want a usage error", args, res.err)
		}
	}
	for args, want := range map[string]string{
		"-h": "usage: warc list", "list -h": "OFFSET  TYPE  DATE", "verify -h": "WARC-Payload-Digest",
		"extract -h": "-payload",
	} {
		res := runCommand(strings.Fields(args)...)
		if res.err != nil || !strings.Contains(res.stdout, want) || !strings.Contains(res.stdout, "Exit status") && args != "list -h" {
			t.Errorf("%s: %v, %q; want usage naming %q", args, res.err, res.stdout, want)
		}
	}
}
