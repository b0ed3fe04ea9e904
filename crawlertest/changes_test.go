package crawlertest_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"crawler/crawlertest"
)

// With Config.ChangeInterval, a page's text shows its version, which the
// ground truth brackets; a conditional request answers 304 with no body
// exactly while the version is unchanged; pages that never change keep
// version 0.
func TestChangingPages(t *testing.T) {
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 4, Hosts: 2, PagesPerHost: 10,
		ChangeInterval: func(h, n int) time.Duration {
			if h == 0 && n < 5 {
				return 30 * time.Millisecond
			}
			return 0
		}})
	defer w.Close()
	c := w.Client()
	get := func(u, etag, lastMod string) (status int, version int, header http.Header) {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		if lastMod != "" {
			req.Header.Set("If-Modified-Since", lastMod)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		version = -1
		if _, after, ok := strings.Cut(string(body), `<p class="version">version `); ok {
			version, _ = strconv.Atoi(strings.TrimRight(after[:strings.IndexByte(after, '<')], "\n"))
		}
		if resp.StatusCode == http.StatusNotModified && len(body) != 0 {
			t.Errorf("304 with a body of %d bytes", len(body))
		}
		return resp.StatusCode, version, resp.Header
	}

	u := w.URL(0, 1)
	notModified, modified := 0, 0
	for range 40 {
		before := time.Now()
		status, v, h := get(u, "", "")
		after := time.Now()
		lo, _ := w.Version(u, before)
		hi, _ := w.Version(u, after)
		if status != 200 || v < lo || v > hi {
			t.Fatalf("version %d (status %d), want between %d and %d", v, status, lo, hi)
		}
		time.Sleep(10 * time.Millisecond)
		at := time.Now()
		status, _, _ = get(u, h.Get("ETag"), "")
		now, _ := w.Version(u, at)
		switch {
		case status == 304:
			notModified++
			if end, _ := w.Version(u, time.Now()); v < now || v > end {
				t.Errorf("304 for version %d, but the page was at %d to %d", v, now, end)
			}
		case status == 200:
			modified++
			if end, _ := w.Version(u, time.Now()); now == v && end == v {
				t.Errorf("200 for an unchanged page (version %d)", v)
			}
		}
	}
	if notModified == 0 || modified == 0 {
		t.Errorf("%d answers 304 and %d 200 for a page changing every 30 ms, probed 10 ms apart: want both", notModified, modified)
	}

	still := w.URL(1, 3)
	status, v, h := get(still, "", "")
	if status != 200 || v != 0 || h.Get("ETag") == "" || h.Get("Last-Modified") == "" {
		t.Errorf("a page that never changes: %d, version %d, validators %q %q", status, v, h.Get("ETag"), h.Get("Last-Modified"))
	}
	if status, _, _ := get(still, "", h.Get("Last-Modified")); status != 304 {
		t.Errorf("If-Modified-Since on a page that never changes: %d, want 304", status)
	}
	if status, _, _ := get(still, `"other"`, h.Get("Last-Modified")); status != 200 {
		t.Errorf("a stale ETag with a current date: %d, want 200 (If-None-Match wins)", status)
	}
	if _, ok := w.Version(w.URL(1, 3)+"?q", time.Now()); ok {
		t.Error("Version of a URL that is no page")
	}
	off := crawlertest.NewWeb(crawlertest.Config{Seed: 4, Hosts: 2, PagesPerHost: 10})
	defer off.Close()
	if _, ok := off.Version(off.URL(0, 1), time.Now()); ok {
		t.Error("Version without Config.ChangeInterval")
	}
}
