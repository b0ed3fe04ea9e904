package replay_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"crawler/fetch"
	"crawler/replay"
	"crawler/warc"
)

var loopback = fetch.AddressPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}

// origin is a web site of the cases a replay must answer as the live
// fetcher did: plain, gzip-encoded, chunked, a redirect, an error, a long
// body, cookies, no content, a conditional request.
func origin(t *testing.T, version *int) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/plain":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<html><title>plain %d</title><a href="/gzip">g</a></html>`, *version)
		case "/gzip":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			fmt.Fprint(zw, strings.Repeat("<p>compressed</p>", 200))
			zw.Close()
		case "/chunked":
			w.Header().Set("Content-Type", "text/plain")
			for i := range 5 {
				fmt.Fprintf(w, "chunk %d\n", i)
				w.(http.Flusher).Flush()
			}
		case "/redirect":
			http.Redirect(w, r, "/plain", http.StatusMovedPermanently)
		case "/missing":
			http.NotFound(w, r)
		case "/long":
			w.Write(bytes.Repeat([]byte("x"), 100_000))
		case "/cookie":
			http.SetCookie(w, &http.Cookie{Name: "a", Value: "1"})
			http.SetCookie(w, &http.Cookie{Name: "b", Value: "2"})
			fmt.Fprint(w, "cookies")
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		case "/etag":
			w.Header().Set("ETag", `"v1"`)
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			fmt.Fprint(w, "tagged")
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

var paths = []string{"/plain", "/gzip", "/chunked", "/redirect", "/missing", "/long", "/cookie", "/empty", "/etag", "/robots.txt"}

// record fetches the paths of s live, recording into a Writer of dir,
// and returns the live responses by URL.
func record(t *testing.T, s *httptest.Server, dir string, paths []string, req func(*fetch.Request)) map[string]*fetch.Response {
	t.Helper()
	w, err := warc.NewWriter(dir, warc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := &fetch.HTTPFetcher{Addresses: loopback, Recorder: w, MaxBodyBytes: 50_000}
	live := map[string]*fetch.Response{}
	for _, p := range paths {
		r := &fetch.Request{URL: s.URL + p}
		if req != nil {
			req(r)
		}
		resp, err := f.Fetch(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		live[r.URL] = resp
	}
	f.CloseIdleConnections()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return live
}

// same reports how got, replayed, differs from want, fetched live.
func same(t *testing.T, u string, got, want *fetch.Response) {
	t.Helper()
	if got.Status != want.Status || !reflect.DeepEqual(got.Header, want.Header) || !bytes.Equal(got.Body, want.Body) ||
		got.Truncated != want.Truncated || got.URL != want.URL || !got.Replayed || want.Replayed {
		t.Errorf("%s: replayed %d %v %d bytes truncated=%v replayed=%v\nlive %d %v %d bytes truncated=%v",
			u, got.Status, got.Header, len(got.Body), got.Truncated, got.Replayed, want.Status, want.Header, len(want.Body), want.Truncated)
	}
}

func open(t testing.TB, dir string, opts replay.Options) *replay.Archive {
	t.Helper()
	a, err := replay.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// Every response is replayed as the live fetcher returned it: status,
// header, body (de-chunked, gunzipped), truncation; a redirect as itself.
func TestReplayAsLive(t *testing.T) {
	version := 1
	s := origin(t, &version)
	dir := t.TempDir()
	live := record(t, s, dir, paths, nil)
	s.Close() // nothing is sent from here on
	a := open(t, dir, replay.Options{MaxBodyBytes: 50_000})
	if a.Len() != len(paths) || !a.Rebuilt() || len(a.Damage()) != 0 {
		t.Errorf("%d captures (rebuilt %v, damage %v), want %d, rebuilt", a.Len(), a.Rebuilt(), a.Damage(), len(paths))
	}
	for u, want := range live {
		got, err := a.Fetch(t.Context(), &fetch.Request{URL: u})
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		same(t, u, got, want)
	}
	// Many at once, as a crawl's workers ask (run with -race).
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				for u, want := range live {
					if got, err := a.Fetch(t.Context(), &fetch.Request{URL: u}); err != nil || !bytes.Equal(got.Body, want.Body) {
						t.Errorf("%s, concurrently: %v", u, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if r := live[s.URL+"/redirect"]; r.Status != 301 || r.Header.Get("Location") != "/plain" {
		t.Errorf("live redirect %d %q", r.Status, r.Header.Get("Location"))
	}
	if r := live[s.URL+"/long"]; !r.Truncated || len(r.Body) != 50_000 {
		t.Errorf("live /long: %d bytes, truncated %v", len(r.Body), r.Truncated)
	}
	// A smaller cap cuts the replayed body; without one, it is what the
	// record holds (the live fetch read a little past its cap), truncated.
	for _, c := range []struct {
		max  int64
		want int
	}{{1000, 1000}, {-1, 50_000}} {
		got, err := a.Fetch(t.Context(), &fetch.Request{URL: s.URL + "/long", MaxBytes: c.max})
		if err != nil || len(got.Body) < c.want || c.max > 0 && len(got.Body) != c.want || !got.Truncated {
			t.Errorf("/long, cap %d: %v, %d bytes, truncated %v; want %d, truncated", c.max, err, len(got.Body), got.Truncated, c.want)
		}
	}
	// With its own Accept-Encoding, the request gets the body as sent, as live.
	got, err := a.Fetch(t.Context(), &fetch.Request{URL: s.URL + "/gzip", Header: http.Header{"Accept-Encoding": {"gzip"}}})
	if err != nil || got.Header.Get("Content-Encoding") != "gzip" || !bytes.HasPrefix(got.Body, []byte{0x1f, 0x8b}) {
		t.Errorf("/gzip with Accept-Encoding: %v, %v", err, got.Header)
	}
}

// A miss fails as not-archived and sends nothing; robots.txt is 404; with
// Live, a miss is fetched and recorded.
func TestMiss(t *testing.T) {
	version := 1
	s := origin(t, &version)
	dir := t.TempDir()
	record(t, s, dir, []string{"/plain"}, nil)
	a := open(t, dir, replay.Options{})
	_, err := a.Fetch(t.Context(), &fetch.Request{URL: s.URL + "/chunked"})
	var nae *replay.NotArchivedError
	if fetch.ErrorKind(err) != replay.KindNotArchived || !errors.Is(err, fetch.ErrNotSent) || !errors.As(err, &nae) || nae.Dir != dir {
		t.Errorf("miss: %v, kind %q", err, fetch.ErrorKind(err))
	}
	if _, err := a.Fetch(t.Context(), &fetch.Request{URL: s.URL + "/plain", Method: "POST", Body: []byte("a=1")}); fetch.ErrorKind(err) != replay.KindNotArchived {
		t.Errorf("a request with a body: %v", err)
	}
	robots, err := a.Fetch(t.Context(), &fetch.Request{URL: s.URL + "/robots.txt"})
	if err != nil || robots.Status != 404 || !robots.Replayed {
		t.Errorf("robots.txt not archived: %v %+v", err, robots)
	}
	if !a.Replays(s.URL+"/plain") || !a.Replays(s.URL+"/robots.txt") || a.Replays(s.URL+"/chunked") {
		t.Errorf("Replays /plain %v, /robots.txt %v, /chunked %v; want true, true, false",
			a.Replays(s.URL+"/plain"), a.Replays(s.URL+"/robots.txt"), a.Replays(s.URL+"/chunked"))
	}

	dir2 := t.TempDir()
	w, err := warc.NewWriter(dir2, warc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	liveF := &fetch.HTTPFetcher{Addresses: loopback, Recorder: w}
	b := open(t, dir, replay.Options{Live: liveF})
	if b.Replays(s.URL+"/robots.txt") || b.Replays(s.URL+"/chunked") {
		t.Error("with Live, a URL not archived is said to be replayed")
	}
	got, err := b.Fetch(t.Context(), &fetch.Request{URL: s.URL + "/chunked"})
	if err != nil || got.Replayed || got.Status != 200 || !strings.Contains(string(got.Body), "chunk 4") {
		t.Errorf("live miss: %v %+v", err, got)
	}
	got, err = b.Fetch(t.Context(), &fetch.Request{URL: s.URL + "/plain"})
	if err != nil || !got.Replayed {
		t.Errorf("archived, with Live: %v %+v", err, got)
	}
	liveF.CloseIdleConnections()
	w.Close()
	c := open(t, dir2, replay.Options{})
	if _, err := c.Fetch(t.Context(), &fetch.Request{URL: s.URL + "/chunked"}); err != nil || c.Len() != 1 {
		t.Errorf("the live miss, recorded: %v, %d captures", err, c.Len())
	}
}

// Of several captures the latest answers; a revisit (a recrawl's 304)
// answers as the response it refers to, or as itself to a conditional
// request.
func TestLatestAndRevisit(t *testing.T) {
	version := 1
	s := origin(t, &version)
	dir := t.TempDir()
	record(t, s, dir, []string{"/plain", "/etag"}, nil)
	version = 2
	record(t, s, dir, []string{"/plain"}, nil)
	record(t, s, dir, []string{"/etag"}, func(r *fetch.Request) { r.ETag = `"v1"` }) // a 304: a revisit record
	a := open(t, dir, replay.Options{})
	got, err := a.Fetch(t.Context(), &fetch.Request{URL: s.URL + "/plain"})
	if err != nil || !strings.Contains(string(got.Body), "plain 2") {
		t.Errorf("latest of two: %v %q", err, got.Body)
	}
	got, err = a.Fetch(t.Context(), &fetch.Request{URL: s.URL + "/etag"})
	if err != nil || got.Status != 200 || string(got.Body) != "tagged" {
		t.Errorf("a revisit: %v %+v", err, got)
	}
	got, err = a.Fetch(t.Context(), &fetch.Request{URL: s.URL + "/etag", ETag: `"v1"`})
	if err != nil || got.Status != 304 || len(got.Body) != 0 {
		t.Errorf("a revisit, asked conditionally: %v %+v", err, got)
	}
}

// The index file is used while the files are as it says, and rebuilt when
// one is added or changed.
func TestIndexFile(t *testing.T) {
	version := 1
	s := origin(t, &version)
	dir := t.TempDir()
	record(t, s, dir, []string{"/plain", "/redirect"}, nil)
	a := open(t, dir, replay.Options{})
	b := open(t, dir, replay.Options{})
	if !a.Rebuilt() || b.Rebuilt() || b.Len() != 2 {
		t.Errorf("first Open rebuilt %v, second %v with %d captures", a.Rebuilt(), b.Rebuilt(), b.Len())
	}
	idx, err := os.ReadFile(filepath.Join(dir, replay.IndexName))
	if err != nil || !bytes.Contains(idx, []byte(s.URL+"/redirect ")) || !bytes.Contains(idx, []byte(" response 301 ")) {
		t.Errorf("index file: %v\n%s", err, idx)
	}
	record(t, s, dir, []string{"/chunked"}, nil)
	c := open(t, dir, replay.Options{})
	if !c.Rebuilt() || c.Len() != 3 {
		t.Errorf("after a file was added: rebuilt %v, %d captures", c.Rebuilt(), c.Len())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	os.Chtimes(files[0], time.Now(), time.Now().Add(time.Hour))
	if d := open(t, dir, replay.Options{}); !d.Rebuilt() {
		t.Error("a file changed, the index not rebuilt")
	}
	// A garbled index file is rebuilt too.
	os.WriteFile(filepath.Join(dir, replay.IndexName), []byte("!replay-index 1\n!file x 1 1\n"), 0o644)
	if d := open(t, dir, replay.Options{}); !d.Rebuilt() || d.Len() != 3 {
		t.Errorf("a garbled index: rebuilt %v, %d captures", d.Rebuilt(), d.Len())
	}
}

// A file damaged in the middle: the error names the file and the offset,
// the records before and after the damage are replayed, those in it are
// not archived; the index file keeps the damage.
func TestDamaged(t *testing.T) {
	version := 1
	s := origin(t, &version)
	dir := t.TempDir()
	var ps []string
	for i := range 20 {
		ps = append(ps, fmt.Sprintf("/page/%d", i))
	}
	record(t, s, dir, ps, nil)
	files, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	name := files[0]
	// Find the offset of the response record of /page/10, and spoil its member.
	var at int64 = -1
	f, _ := os.Open(name)
	for rec, err := range warc.NewReader(f).All() {
		if err != nil {
			t.Fatal(err)
		}
		if rec.Type() == "response" && rec.Get("WARC-Target-URI") == s.URL+"/page/10" {
			at = rec.Offset
		}
	}
	f.Close()
	b, _ := os.ReadFile(name)
	copy(b[at+20:], bytes.Repeat([]byte{0xff}, 40))
	os.WriteFile(name, b, 0o644)

	for _, round := range []string{"scan", "index file"} {
		a := open(t, dir, replay.Options{})
		d := a.Damage()
		if len(d) != 1 || d[0].File != name || d[0].Offset != at || d[0].Resumed <= at ||
			!strings.Contains(d[0].Error(), fmt.Sprintf("%s: damaged at offset %d", name, at)) {
			t.Fatalf("%s: damage %v, want one at offset %d of %s", round, d, at, name)
		}
		t.Logf("%s: %v", round, d[0])
		for i, p := range ps {
			_, err := a.Fetch(t.Context(), &fetch.Request{URL: s.URL + p})
			if (err != nil) != (i == 10) || i == 10 && fetch.ErrorKind(err) != replay.KindNotArchived {
				t.Errorf("%s: %s: %v", round, p, err)
			}
		}
	}
}

// The file a crawl killed left named .open is replayed up to its torn
// end, which is reported as damage.
func TestOpenFile(t *testing.T) {
	version := 1
	s := origin(t, &version)
	dir := t.TempDir()
	record(t, s, dir, []string{"/plain", "/chunked", "/gzip"}, nil)
	files, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	b, _ := os.ReadFile(files[0])
	os.Remove(files[0])
	os.WriteFile(files[0]+".open", b[:len(b)-100], 0o644) // the last record torn
	a := open(t, dir, replay.Options{})
	if d := a.Damage(); len(d) != 1 || d[0].File != files[0]+".open" || d[0].Resumed != -1 {
		t.Errorf("damage %v, want the torn end of %s.open", d, files[0])
	}
	for _, p := range []string{"/plain", "/chunked"} {
		if _, err := a.Fetch(t.Context(), &fetch.Request{URL: s.URL + p}); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := a.Fetch(t.Context(), &fetch.Request{URL: s.URL + "/gzip"}); fetch.ErrorKind(err) != replay.KindNotArchived {
		t.Errorf("/gzip, in the torn record: %v", err)
	}
}
