package warc

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"crawler/fetch"
)

func TestHTTPHeaderEnd(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody", 25},
		{"HTTP/1.1 200 OK\r\n\r\n", 19},
		{"HTTP/1.0 200 OK\nA: b\n\nbody", 22},
		{"HTTP/1.1 200 OK\r\nA: b\n\r\nx", 24},
		{"HTTP/1.1 200 OK\r\nA: b\r\n", -1},
		{"\r\n\r\n", -1}, // no start line
		{"", -1},
	} {
		if got := httpHeaderEnd([]byte(c.in)); got != c.want {
			t.Errorf("httpHeaderEnd(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestHTTPStatus(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"HTTP/1.1 304 Not Modified\r\n", 304},
		{"HTTP/1.0 200\r\n", 200},
		{"HTTP/1.1 200\n", 200},
		{"HTTP/1.1 2000 OK\r\n", 0},
		{"HTTP/1.1 3a4 OK\r\n", 0},
		{"HTTP/1.1 30", 0},
		{"GET / HTTP/1.1\r\n", 0},
	} {
		if got := httpStatus([]byte(c.in)); got != c.want {
			t.Errorf("httpStatus(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestHTTPChunked(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\ntransfer-encoding:CHUNKED\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nX-Transfer-Encoding: chunked\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", false},
		{"Transfer-Encoding: chunked\r\n\r\n", false}, // the start line is not a field
	} {
		if got := httpChunked([]byte(c.in)); got != c.want {
			t.Errorf("httpChunked(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestHTTPCompressed(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\ncontent-encoding: BR\r\nContent-Type: text/html\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nContent-Encoding: identity\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Encoding:\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Type: image/JPEG; q=1\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nContent-Type: image/svg+xml\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nX-Content-Encoding: gzip\r\n\r\n", false},
		{"Content-Encoding: gzip\r\n\r\n", false}, // the start line is not a field
	} {
		if got := httpCompressed([]byte(c.in)); got != c.want {
			t.Errorf("httpCompressed(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestDechunk(t *testing.T) {
	for _, c := range []struct {
		in, want string
		res      dechunkResult
	}{
		{"5\r\nhello\r\n0\r\n\r\n", "hello", dechunkComplete},
		{"5;a=b\r\nhello\r\nA \r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n", "hello0123456789", dechunkComplete},
		{"5\nhello\n0\n\n", "hello", dechunkComplete},
		{"0\r\n", "", dechunkComplete},
		{"5\r\nhel", "hel", dechunkCut},
		{"5\r\nhello", "hello", dechunkCut},
		{"5\r\nhello\r", "hello", dechunkCut},
		{"5\r\nhello\r\n1", "hello", dechunkCut},
		{"5\r\nhello\r\n1f;ext", "hello", dechunkCut},
		{"", "", dechunkCut},
		{"5\r\nhelloX\r\n", "hello", dechunkMalformed},
		{"x\r\n", "", dechunkMalformed},
		{"\r\n", "", dechunkMalformed},
		{"fffffffffffffff0\r\n", "", dechunkMalformed}, // 16 digits
		{"hello", "", dechunkMalformed},
	} {
		var got bytes.Buffer
		if res := dechunk([]byte(c.in), &got); res != c.res || got.String() != c.want {
			t.Errorf("dechunk(%q) = %q, %d; want %q, %d", c.in, got.String(), res, c.want, c.res)
		}
	}
}

// Every prefix of a chunked body decodes to a prefix of its data.
func TestDechunkPrefixes(t *testing.T) {
	data := []byte(strings.Repeat("abcdefghij", 30))
	var body []byte
	for i, n := 0, 1; i < len(data); n = n*2 + 1 {
		k := min(n, len(data)-i)
		body = fmt.Appendf(body, "%x;i=%d\r\n", k, i)
		body = append(body, data[i:i+k]...)
		body = append(body, "\r\n"...)
		i += k
	}
	body = append(body, "0\r\n\r\n"...)
	for cut := 0; cut <= len(body); cut++ {
		var got bytes.Buffer
		res := dechunk(body[:cut], &got)
		if res == dechunkMalformed || !bytes.HasPrefix(data, got.Bytes()) {
			t.Fatalf("cut at %d: %q, %d", cut, got.Bytes(), res)
		}
		if res == dechunkComplete && got.Len() != len(data) {
			t.Fatalf("cut at %d: complete with %d bytes", cut, got.Len())
		}
	}
}

// FuzzExchange records arbitrary exchanges. Invariants: Record succeeds
// or rejects the exchange with an error, never panics; what it writes
// reads back as a request and a response or revisit record holding the
// exchange's bytes, which verify.
func FuzzExchange(f *testing.F) {
	f.Add("http://example.com/", "GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false)
	f.Add("http://example.com/c", "GET /c HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", false)
	f.Add("http://example.com/t", "", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", true)
	f.Add("http://example.com/n", "", "HTTP/1.1 304 Not Modified\r\n\r\n", false)
	f.Add("http://example.com/ x\r\n", "", "junk", false)
	f.Add("http://example.com/z", "", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n\x1f\x8b\x08\r\n0\r\n\r\n", false)
	f.Add("http://example.com/i", "", "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG", true)
	e := encoders.Get().(*encoder)
	f.Fuzz(func(t *testing.T, url, request, response string, truncated bool) {
		x := &fetch.Exchange{URL: url, IP: "192.0.2.1", Request: []byte(request), Response: []byte(response)}
		if truncated {
			x.Truncated = "length"
		}
		if err := checkExchange(x); err != nil {
			if url != "" {
				t.Fatal(err)
			}
			return
		}
		e.prepare(x)
		e.encode("<urn:uuid:00000000-0000-4000-8000-000000000000>")
		r := NewReader(bytes.NewReader(e.out.Bytes()))
		req, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		resp, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("after two records: %v", err)
		}
		if req.Type() != "request" || !bytes.Equal(req.Block, x.Request) {
			t.Errorf("request record %s %q", req.Type(), req.Block)
		}
		switch resp.Type() {
		case "response":
			if !bytes.Equal(resp.Block, x.Response) {
				t.Errorf("response block %q", resp.Block)
			}
		case "revisit":
			if !bytes.HasPrefix(x.Response, resp.Block) || httpStatus(resp.Block) != 304 {
				t.Errorf("revisit block %q", resp.Block)
			}
		default:
			t.Errorf("record type %q", resp.Type())
		}
		for _, rec := range []*Record{req, resp} {
			if err := rec.Verify(); err != nil {
				t.Error(err)
			}
			if got := rec.Get("WARC-Target-URI"); strings.ContainsAny(got, " \r\n\t") {
				t.Errorf("WARC-Target-URI %q", got)
			}
		}
	})
}
