package fetch_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"crawler/fetch"
)

// A request with the validators of an earlier response is conditional:
// the server answers 304 with no body while its copy is unchanged, and
// 200 with the new body once it changed.
func TestConditionalGet(t *testing.T) {
	version, modified := "v1", time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	var sawINM, sawIMS []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawINM = append(sawINM, r.Header.Get("If-None-Match"))
		sawIMS = append(sawIMS, r.Header.Get("If-Modified-Since"))
		w.Header().Set("ETag", `"`+version+`"`)
		http.ServeContent(w, r, "page.html", modified, strings.NewReader("<p>"+version))
	}))
	defer srv.Close()
	f := &fetch.HTTPFetcher{Addresses: testLoopback}
	get := func(req fetch.Request) *fetch.Response {
		t.Helper()
		req.URL = srv.URL + "/page"
		resp, err := f.Fetch(context.Background(), &req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	first := get(fetch.Request{})
	etag, lastMod := first.Header.Get("ETag"), first.Header.Get("Last-Modified")
	if first.Status != 200 || etag != `"v1"` || lastMod == "" || sawINM[0] != "" || sawIMS[0] != "" {
		t.Fatalf("first fetch: %d, ETag %q, Last-Modified %q; sent %q %q", first.Status, etag, lastMod, sawINM[0], sawIMS[0])
	}
	for _, req := range []fetch.Request{{ETag: etag}, {LastModified: lastMod}, {ETag: etag, LastModified: lastMod}} {
		if r := get(req); r.Status != http.StatusNotModified || len(r.Body) != 0 {
			t.Errorf("unchanged, %+v: %d with %d bytes, want 304 and none", req, r.Status, len(r.Body))
		}
	}
	if sawINM[1] != `"v1"` || sawIMS[2] != lastMod {
		t.Errorf("headers sent: If-None-Match %q, If-Modified-Since %q", sawINM[1], sawIMS[2])
	}

	version, modified = "v2", modified.Add(time.Hour)
	if r := get(fetch.Request{ETag: etag, LastModified: lastMod}); r.Status != 200 || string(r.Body) != "<p>v2" {
		t.Errorf("changed: %d %q, want 200 and the new body", r.Status, r.Body)
	}
}

// A Request's Header is sent, each name once with its values, over the
// fetcher's own headers; names in any case are canonical.
func TestRequestHeader(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
	}))
	defer srv.Close()
	f := &fetch.HTTPFetcher{Addresses: testLoopback}
	h := http.Header{"X-Api-Version": {"2"}, "accept": {"application/json"}, "X-Two": {"a", "b"}}
	if _, err := f.Fetch(context.Background(), &fetch.Request{URL: srv.URL + "/", UserAgent: "bot/1", Header: h}); err != nil {
		t.Fatal(err)
	}
	if got.Get("X-Api-Version") != "2" || got.Get("User-Agent") != "bot/1" {
		t.Errorf("headers %v; want X-Api-Version 2 and the User-Agent", got)
	}
	if a := got.Values("Accept"); len(a) != 1 || a[0] != "application/json" {
		t.Errorf("Accept %q; want the Request's alone", a)
	}
	if v := got.Values("X-Two"); len(v) != 2 {
		t.Errorf("X-Two %q; want both values", v)
	}
}

// A Request with a Method and a Body is sent as such, and is not
// recorded: it carries credentials.
func TestRequestMethodAndBody(t *testing.T) {
	var method, body, ctype string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		method, body, ctype = r.Method, string(b), r.Header.Get("Content-Type")
	}))
	defer srv.Close()
	rec := &exchanges{}
	f := &fetch.HTTPFetcher{Addresses: testLoopback, Recorder: rec}
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	if _, err := f.Fetch(context.Background(), &fetch.Request{URL: srv.URL + "/login", Method: "POST", Body: []byte("user=a&password=b"), Header: h}); err != nil {
		t.Fatal(err)
	}
	if method != "POST" || body != "user=a&password=b" || ctype != "application/x-www-form-urlencoded" {
		t.Errorf("server saw %s %q (%s)", method, body, ctype)
	}
	if _, err := f.Fetch(context.Background(), &fetch.Request{URL: srv.URL + "/page"}); err != nil {
		t.Fatal(err)
	}
	if len(rec.list) != 1 || !strings.HasSuffix(rec.list[0].URL, "/page") {
		t.Errorf("recorded %d exchanges; want the GET of /page alone", len(rec.list))
	}
}

type loginFailed struct{}

func (loginFailed) Error() string     { return "login failed" }
func (loginFailed) ErrorKind() string { return "login-failed" }

// ErrorKind returns the kind a Kinded error in the chain names.
func TestErrorKindKinded(t *testing.T) {
	err := fmt.Errorf("host retired: %w", loginFailed{})
	if k := fetch.ErrorKind(err); k != "login-failed" {
		t.Errorf("ErrorKind = %q; want login-failed", k)
	}
}
