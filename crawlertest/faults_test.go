package crawlertest

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestFaultOf(t *testing.T) {
	tests := []struct {
		host string
		want Fault // "" for none
	}{
		{"slow-body.faults.test", SlowBody},
		{"SLOW-BODY.Faults.Test:80", SlowBody},
		{"gzip-bomb.faults.test.", GzipBomb},
		{"w7.gzip-bomb.faults.test", GzipBomb},
		{"xn--bcher-kva.idn-hosts.faults.test", IDNHosts},
		{"[2001:db8::1]", IPv6Hosts},
		{"[2001:DB8::2]:80", IPv6Hosts},
		{"2001:db8::1", IPv6Hosts},
		{"[2001:db9::1]", ""},
		{"[::1]:80", ""},
		{"127.0.0.1", ""},
		{"faults.test", ""},
		{"nosuch.faults.test", ""},
		{"slow-body.faults.test.example.com", ""},
		{"example.com", ""},
	}
	for _, tt := range tests {
		got, ok := faultOf(tt.host)
		if ok != (tt.want != "") || got != tt.want && ok {
			t.Errorf("faultOf(%q) = %q, %v; want %q", tt.host, got, ok, tt.want)
		}
	}
}

func TestFaultServerDialsOnlyItself(t *testing.T) {
	s := NewFaultServer(FaultConfig{})
	defer s.Close()
	ctx := context.Background()
	for _, addr := range []string{"example.com:80", "127.0.0.1:1", "[::1]:80", "[2001:db9::1]:80", "faults.test:80"} {
		if c, err := s.DialContext(ctx, "tcp", addr); err == nil {
			c.Close()
			t.Errorf("DialContext(%s) connected, want it refused", addr)
		}
	}
	if _, err := s.DialContext(ctx, "udp", "gzip-bomb.faults.test:80"); err == nil {
		t.Error("DialContext over udp connected")
	}
	for _, addr := range []string{"gzip-bomb.faults.test:80", "w1.many-links.faults.test:443", "[2001:db8::1]:80", s.Addr()} {
		c, err := s.DialContext(ctx, "tcp", addr)
		if err != nil {
			t.Errorf("DialContext(%s): %v", addr, err)
			continue
		}
		c.Close()
	}
}

// get fetches u through s without following redirects, reading at most
// limit bytes of the body, within timeout.
func get(s *FaultServer, u string, limit int64, timeout time.Duration) (*http.Response, []byte, error) {
	tr := s.Transport()
	defer tr.CloseIdleConnections()
	tr.MaxResponseHeaderBytes = 256 << 10
	c := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	return resp, body, err
}

func TestFaultServer(t *testing.T) {
	s := NewFaultServer(FaultConfig{SlowInterval: 10 * time.Millisecond})
	defer s.Close()
	const limit = 32 << 20
	tests := []struct {
		fault Fault
		path  string
		check func(resp *http.Response, body []byte, err error) string // "" if as it should be
	}{
		{SlowBody, "/", func(_ *http.Response, body []byte, err error) string {
			if !errors.Is(err, context.DeadlineExceeded) || len(body) == 0 || len(body) > 60 {
				return "want a few bytes, then the deadline"
			}
			return ""
		}},
		{NoAnswer, "/", func(_ *http.Response, _ []byte, err error) string {
			if !errors.Is(err, context.DeadlineExceeded) {
				return "want no answer before the deadline"
			}
			return ""
		}},
		{ConnReset, "/", func(_ *http.Response, _ []byte, err error) string {
			if !errors.Is(err, syscall.ECONNRESET) {
				return "want a connection reset"
			}
			return ""
		}},
		{TruncatedBody, "/", func(_ *http.Response, body []byte, err error) string {
			if !errors.Is(err, io.ErrUnexpectedEOF) || len(body) == 0 {
				return "want part of a body, then an unexpected EOF"
			}
			return ""
		}},
		{LyingLength, "/over", func(resp *http.Response, body []byte, err error) string {
			if !errors.Is(err, io.ErrUnexpectedEOF) || resp.ContentLength != 1<<30 || len(body) > 2<<10 {
				return "want Content-Length 1 GiB, about 1 KiB, then an unexpected EOF"
			}
			return ""
		}},
		{LyingLength, "/under", func(resp *http.Response, body []byte, err error) string {
			if err != nil || resp.ContentLength != 16 || len(body) != 16 {
				return "want 16 bytes, as Content-Length says"
			}
			return ""
		}},
		{GzipBomb, "/", func(resp *http.Response, body []byte, err error) string {
			if err != nil || !resp.Uncompressed || len(body) != limit || !strings.Contains(string(body), `href="/inside"`) {
				return "want a gzip body inflating past 32 MiB, linking to /inside"
			}
			return ""
		}},
		{EndlessBody, "/", func(_ *http.Response, body []byte, err error) string {
			if err != nil || len(body) != limit {
				return "want a body past 32 MiB"
			}
			return ""
		}},
		{RedirectLoop, "/b", func(resp *http.Response, _ []byte, err error) string {
			if err != nil || resp.StatusCode != 301 || resp.Header.Get("Location") != "http://redirect-loop.faults.test/a" {
				return "want a 301 to /a"
			}
			return ""
		}},
		{RedirectChain, "/hop/49", func(resp *http.Response, _ []byte, err error) string {
			if err != nil || resp.Header.Get("Location") != "/end" {
				return "want the 50th hop to /end"
			}
			return ""
		}},
		{ServerErrors, "/p/3", func(resp *http.Response, _ []byte, err error) string {
			if err != nil || resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "3600" {
				return "want 503 with Retry-After: 3600"
			}
			return ""
		}},
		{TooManyRequests, "/p/1", func(resp *http.Response, _ []byte, err error) string {
			if err != nil || resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3600" {
				return "want 429 with Retry-After: 3600"
			}
			return ""
		}},
		{HugeAttribute, "/", func(_ *http.Response, body []byte, err error) string {
			if err != nil || len(body) < FaultAttrBytes || !strings.HasSuffix(string(body), `"><a href="/after">after</a></body></html>`) {
				return "want a 1 MiB attribute before a link to /after"
			}
			return ""
		}},
		{ManyLinks, "/", func(_ *http.Response, body []byte, err error) string {
			if n := strings.Count(string(body), "<a href="); err != nil || n != FaultLinks {
				return "want a million links"
			}
			return ""
		}},
		{LongURLs, "/redirect", func(resp *http.Response, _ []byte, err error) string {
			if err != nil || len(resp.Header.Get("Location")) != FaultURLBytes {
				return "want a redirect to a 64 KiB URL"
			}
			return ""
		}},
		{HugeHeader, "/", func(_ *http.Response, _ []byte, err error) string {
			if err == nil || !strings.Contains(err.Error(), "server response headers exceeded") {
				return "want a header past the client's limit"
			}
			return ""
		}},
		{HugeRobots, "/robots.txt", func(_ *http.Response, body []byte, err error) string {
			if err != nil || len(body) != FaultRobotsBytes || !strings.HasPrefix(string(body), "User-agent: *\nDisallow: /early\n") ||
				!strings.HasSuffix(string(body), "\nDisallow: /late\n") {
				return "want 2 MiB of robots.txt, a rule at each end"
			}
			return ""
		}},
		{BinaryRobots, "/robots.txt", func(_ *http.Response, body []byte, err error) string {
			if _, gzErr := gzip.NewReader(strings.NewReader(string(body))); err != nil || gzErr != nil {
				return "want gzip bytes"
			}
			return ""
		}},
		{HTMLRobots, "/robots.txt", func(resp *http.Response, body []byte, err error) string {
			if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(string(body), "<!DOCTYPE html>") {
				return "want an HTML page, status 200"
			}
			return ""
		}},
		{IDNHosts, "/", func(_ *http.Response, body []byte, err error) string {
			if err != nil || !strings.Contains(string(body), "http://bücher.idn-hosts.faults.test/") {
				return "want links to IDN hosts"
			}
			return ""
		}},
	}
	for _, tt := range tests {
		u := strings.TrimSuffix(s.URL(tt.fault), "/") + tt.path
		timeout := 10 * time.Second
		if tt.fault == SlowBody || tt.fault == NoAnswer {
			timeout = 300 * time.Millisecond
		}
		resp, body, err := get(s, u, limit, timeout)
		if msg := tt.check(resp, body, err); msg != "" {
			status := 0
			if resp != nil {
				status = resp.StatusCode
			}
			t.Errorf("%s: status %d, %d bytes, err %v: %s", u, status, len(body), err, msg)
		}
	}
	// Every host but the robots.txt faults' has no robots.txt, and the
	// IPv6 literals of the documentation prefix are served.
	for _, u := range []string{s.URL(ManyLinks) + "robots.txt", "http://[2001:db8::1]/robots.txt"} {
		if resp, _, err := get(s, u, limit, 10*time.Second); err != nil || resp.StatusCode != 404 {
			t.Errorf("%s: %v, want 404", u, err)
		}
	}
	if resp, _, err := get(s, "http://[2001:db8::7]/x", limit, 10*time.Second); err != nil || resp.StatusCode != 200 {
		t.Errorf("IPv6 literal: %v, want 200", err)
	}
	reqs := s.Requests(IPv6Hosts)
	if len(reqs) != 2 || reqs[1] != "[2001:db8::7]/x" {
		t.Errorf("Requests(IPv6Hosts) = %q", reqs)
	}
	if n := len(s.Requests(NoAnswer)); n != 1 {
		t.Errorf("NoAnswer accepted %d connections, want 1", n)
	}
}

// Close ends the slow and endless responses and the silent connections
// in progress, and returns.
func TestFaultServerCloseEndsFaults(t *testing.T) {
	s := NewFaultServer(FaultConfig{SlowInterval: time.Hour})
	errs := make(chan error, 3)
	for _, f := range []Fault{SlowBody, NoAnswer, EndlessBody} {
		go func() {
			tr := s.Transport()
			defer tr.CloseIdleConnections()
			resp, err := (&http.Client{Transport: tr}).Get(s.URL(f))
			if err == nil {
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			errs <- err
		}()
	}
	for len(s.Requests(SlowBody)) == 0 || len(s.Requests(NoAnswer)) == 0 || len(s.Requests(EndlessBody)) == 0 {
		time.Sleep(time.Millisecond)
	}
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs with faults in progress")
	}
	for range 3 {
		if err := <-errs; err == nil {
			t.Error("a request in progress ended without an error when the server closed")
		}
	}
}
