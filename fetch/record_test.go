package fetch_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"crawler/fetch"
)

// exchanges is a fetch.Recorder that keeps what it is given.
type exchanges struct {
	mu   sync.Mutex
	list []fetch.Exchange
	err  error // returned by Record
}

func (e *exchanges) Record(_ context.Context, x *fetch.Exchange) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, *x)
	return e.err
}

// rawServer serves, on loopback, each request of a keep-alive connection
// with the next of responses, byte for byte, and records the requests'
// bytes as read.
func rawServer(t *testing.T, responses ...string) (addr string, requests func() []string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var got []string
	go func() {
		next := 0
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			br := bufio.NewReader(c)
			for {
				var req bytes.Buffer
				for { // a GET has no body: its header ends the request
					line, err := br.ReadString('\n')
					req.WriteString(line)
					if err != nil || line == "\r\n" {
						break
					}
				}
				mu.Lock()
				if req.Len() == 0 || next == len(responses) {
					mu.Unlock()
					break
				}
				got = append(got, req.String())
				resp := responses[next]
				next++
				mu.Unlock()
				if _, err := io.WriteString(c, resp); err != nil {
					break
				}
			}
			c.Close()
		}
	}()
	return ln.Addr().String(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// The exchange recorded is the bytes that crossed the connection: the
// response's header names as the server wrote them, its chunked and
// gzipped body undecoded, and the request as the server read it, once per
// fetch on a kept-alive connection.
func TestRecorderRecordsTheWire(t *testing.T) {
	gz := gzipped(t, "<p>hello, archive</p>")
	chunked := "HTTP/1.1 200 OK\r\ncontent-TYPE: text/html\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\nx-odd-Case:  two  spaces\r\n\r\n" +
		chunkedBody(gz, 7) + "0\r\n\r\n"
	plain := "HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\nContent-Type: text/plain\r\n\r\ngone"
	addr, requests := rawServer(t, chunked, plain)

	rec := &exchanges{}
	f := &fetch.HTTPFetcher{Addresses: testLoopback, Recorder: rec}
	defer f.CloseIdleConnections()
	resp, err := f.Fetch(context.Background(), &fetch.Request{URL: "http://" + addr + "/a"})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "<p>hello, archive</p>" {
		t.Fatalf("body %q: the fetch still decodes", resp.Body)
	}
	if _, err := f.Fetch(context.Background(), &fetch.Request{URL: "http://" + addr + "/b"}); err != nil {
		t.Fatal(err)
	}

	sent := requests()
	if len(rec.list) != 2 || len(sent) != 2 {
		t.Fatalf("%d exchanges recorded, %d requests served; want 2 and 2", len(rec.list), len(sent))
	}
	for i, want := range []string{chunked, plain} {
		x := rec.list[i]
		if string(x.Response) != want {
			t.Errorf("exchange %d: response recorded\n%q\nwant, as sent,\n%q", i, x.Response, want)
		}
		if string(x.Request) != sent[i] {
			t.Errorf("exchange %d: request recorded\n%q\nwant, as read,\n%q", i, x.Request, sent[i])
		}
		if x.IP != "127.0.0.1" || x.Date.IsZero() || x.Truncated != "" || x.URL != "http://"+addr+[]string{"/a", "/b"}[i] {
			t.Errorf("exchange %d: URL %q IP %q Date %v Truncated %q", i, x.URL, x.IP, x.Date, x.Truncated)
		}
	}
	if !strings.HasPrefix(sent[0], "GET /a HTTP/1.1\r\n") || !strings.Contains(sent[0], "Accept-Encoding: gzip\r\n") {
		t.Errorf("request sent: %q", sent[0])
	}
}

// A body cut at the cap is recorded as far as it was read, and marked.
func TestRecorderTruncated(t *testing.T) {
	body := strings.Repeat("x", 64<<10)
	addr, _ := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 65536\r\n\r\n"+body)
	rec := &exchanges{}
	f := &fetch.HTTPFetcher{Addresses: testLoopback, Recorder: rec}
	defer f.CloseIdleConnections()
	resp, err := f.Fetch(context.Background(), &fetch.Request{URL: "http://" + addr + "/", MaxBytes: 1000})
	if err != nil || !resp.Truncated {
		t.Fatalf("fetch: %v, truncated %v", err, resp != nil && resp.Truncated)
	}
	x := rec.list[0]
	if x.Truncated != "length" || !bytes.HasPrefix(x.Response, []byte("HTTP/1.1 200 OK\r\n")) || len(x.Response) < 1000 {
		t.Errorf("recorded %d bytes, Truncated %q", len(x.Response), x.Truncated)
	}
}

// Over TLS the exchange is recorded in the clear, over HTTP/1.1.
func TestRecorderTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Proto", r.Proto)
		io.WriteString(w, "secret page")
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	tr := fetch.NewTransport()
	tr.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig
	rec := &exchanges{}
	f := &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}, Addresses: testLoopback, Recorder: rec}
	defer f.CloseIdleConnections()
	resp, err := f.Fetch(context.Background(), &fetch.Request{URL: srv.URL + "/s"})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Header.Get("X-Proto"); got != "HTTP/1.1" {
		t.Errorf("protocol %q, want HTTP/1.1 when recording", got)
	}
	x := rec.list[0]
	if !bytes.HasPrefix(x.Request, []byte("GET /s HTTP/1.1\r\n")) || !bytes.HasSuffix(x.Response, []byte("\r\n\r\nsecret page")) {
		t.Errorf("recorded request %q, response %q", x.Request, x.Response)
	}
}

// A Recorder's error fails the fetch, and a transport the fetcher cannot
// record through is refused with a clear error.
func TestRecorderErrors(t *testing.T) {
	addr, _ := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	diskFull := errors.New("disk full")
	f := &fetch.HTTPFetcher{Addresses: testLoopback, Recorder: &exchanges{err: diskFull}}
	defer f.CloseIdleConnections()
	if _, err := f.Fetch(context.Background(), &fetch.Request{URL: "http://" + addr + "/"}); !errors.Is(err, diskFull) {
		t.Errorf("recorder failing: %v, want the recorder's error", err)
	}

	other := &fetch.HTTPFetcher{Client: &http.Client{Transport: roundTripperFunc(http.DefaultTransport.RoundTrip)}, Recorder: &exchanges{}}
	_, err := other.Fetch(context.Background(), &fetch.Request{URL: "http://" + addr + "/"})
	if err == nil || !strings.Contains(err.Error(), "needs the Client's Transport to be an *http.Transport") {
		t.Errorf("other transport: %v", err)
	}
}

// An https request through a proxy's CONNECT tunnel is TLS the transport
// does itself, over the recorded connection: it fails as unrecordable
// rather than recording ciphertext.
func TestRecorderProxyTunnel(t *testing.T) {
	target := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer target.Close()
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		up, err := net.Dial("tcp", r.Host)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
		c, brw, _ := http.NewResponseController(w).Hijack()
		go func() { io.Copy(up, brw); up.Close() }()
		io.Copy(c, up)
		c.Close()
	}))
	defer proxy.Close()
	tr := fetch.NewTransport()
	tr.TLSClientConfig = target.Client().Transport.(*http.Transport).TLSClientConfig
	proxyURL, _ := url.Parse(proxy.URL)
	tr.Proxy = http.ProxyURL(proxyURL)
	f := &fetch.HTTPFetcher{Client: &http.Client{Transport: tr}, Addresses: testLoopback, Recorder: &exchanges{}}
	defer f.CloseIdleConnections()
	if _, err := f.Fetch(context.Background(), &fetch.Request{URL: target.URL + "/"}); !errors.Is(err, fetch.ErrUnrecordable) {
		t.Errorf("https through a proxy: %v, want ErrUnrecordable", err)
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// chunkedBody writes b in chunks of n bytes, without the last chunk.
func chunkedBody(b []byte, n int) string {
	var s strings.Builder
	for len(b) > 0 {
		c := b[:min(n, len(b))]
		b = b[len(c):]
		s.WriteString(strings.ToUpper(strconv.FormatInt(int64(len(c)), 16)) + "\r\n" + string(c) + "\r\n")
	}
	return s.String()
}

// gzipped returns s compressed with gzip.
func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := io.WriteString(zw, s); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
