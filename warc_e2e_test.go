package crawler_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"crawler"
	"crawler/fetch"
	"crawler/revisit"
	"crawler/warc"
)

// A recrawl recorded by a warc.Writer: every request the server answered
// has its response record, or for a 304 to a conditional revisit a
// revisit record of the server-not-modified profile, and every record's
// digests verify.
func TestWARCRecrawl(t *testing.T) {
	modified := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var requests, notModified atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Type", "text/html")
		rec := &statusRecorder{ResponseWriter: w}
		http.ServeContent(rec, r, "", modified, strings.NewReader(`<html><body><a href="/a">a</a> <a href="/b">b</a></body></html>`))
		if rec.status == http.StatusNotModified {
			notModified.Add(1)
		}
	}))
	defer srv.Close()

	dir := t.TempDir()
	archive, err := warc.NewWriter(dir, warc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := fast(crawler.HandlerFunc(func(context.Context, *crawler.Page) error { return nil }))
	c.Fetcher = &fetch.HTTPFetcher{Addresses: testLoopback, Recorder: archive}
	c.Recrawl = &revisit.Config{Rate: 40, MinInterval: 50 * time.Millisecond}
	c.MaxPages = 30 // the budget, not a context, ends the Run: no fetch is cut short
	if err := c.Run(context.Background(), srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if err := archive.Close(); err != nil {
		t.Fatal(err)
	}

	counts := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		r := warc.NewReader(f)
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := rec.Verify(); err != nil {
				t.Errorf("%s record: %v", rec.Type(), err)
			}
			counts[rec.Type()]++
			if rec.Type() == "revisit" && !strings.HasSuffix(rec.Get("WARC-Profile"), "/revisit/server-not-modified") {
				t.Errorf("revisit record of profile %q", rec.Get("WARC-Profile"))
			}
		}
		f.Close()
	}
	st := c.Stats()
	t.Logf("records %v; server: %d requests, %d answered 304; crawl: %d revisits, %d not modified", counts, requests.Load(), notModified.Load(), st.Revisits, st.NotModified)
	if counts["warcinfo"] != len(files) || counts["response"]+counts["revisit"] != int(requests.Load()) ||
		counts["request"] != int(requests.Load()) || counts["revisit"] != int(notModified.Load()) || notModified.Load() == 0 ||
		st.NotModified != notModified.Load() {
		t.Errorf("records %v in %d files; want a warcinfo per file, a request and a response or revisit per request (%d), a revisit per 304 (%d)",
			counts, len(files), requests.Load(), notModified.Load())
	}
}

// statusRecorder notes the status a handler writes.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}
