package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestReadBody(t *testing.T) {
	const limit = 10_000
	body := strings.Repeat("x", 3*limit)
	tests := []struct {
		desc      string
		n         int   // bytes the server sends
		size      int64 // Content-Length announced (-1: none)
		want      int
		truncated bool
	}{
		{desc: "empty", n: 0, size: 0, want: 0},
		{desc: "empty, no length", n: 0, size: -1, want: 0},
		{desc: "small", n: 100, size: 100, want: 100},
		{desc: "small, no length", n: 100, size: -1, want: 100},
		{desc: "at the cap", n: limit, size: limit, want: limit},
		{desc: "at the cap, no length", n: limit, size: -1, want: limit},
		{desc: "one past the cap", n: limit + 1, size: limit + 1, want: limit, truncated: true},
		{desc: "far past the cap, no length", n: 3 * limit, size: -1, want: limit, truncated: true},
		{desc: "length says 1 GiB", n: 100, size: 1 << 30, want: 100},
		{desc: "length says less", n: 5000, size: 10, want: 5000},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = strings.NewReader(body[:tt.n])
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			got, truncated, err := readBody(r, tt.size, limit)
			if err != nil || len(got) != tt.want || truncated != tt.truncated {
				t.Errorf("%s (one byte at a time: %v): %d bytes, truncated %v, err %v; want %d bytes, truncated %v",
					tt.desc, oneByte, len(got), truncated, err, tt.want, tt.truncated)
			}
			if cap(got) > limit+1 {
				t.Errorf("%s: buffer of %d bytes, more than the cap %d + 1", tt.desc, cap(got), limit)
			}
		}
	}
	// A lying Content-Length sizes at most maxSizeHint up front.
	got, _, _ := readBody(strings.NewReader("tiny"), 1<<40, 1<<40)
	if cap(got) > maxSizeHint {
		t.Errorf("Content-Length of 1 TiB: first buffer %d bytes, want at most %d", cap(got), maxSizeHint)
	}
	// An error mid-body is the fetch's error.
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader(make([]byte, 2000)), iotest.ErrReader(boom))
	if _, _, err := readBody(r, -1, limit); !errors.Is(err, boom) {
		t.Errorf("error mid-body: got %v, want %v", err, boom)
	}
}

// Every number of HTTPFetcher and DNSCache reads 0 as its default and a
// negative value as off: no cap, no timeout, no bound.
func TestZeroAndNegative(t *testing.T) {
	big := strings.Repeat("x", DefaultMaxBodyBytes+1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d, err := time.ParseDuration(r.URL.Query().Get("delay")); err == nil {
			time.Sleep(d)
		}
		io.WriteString(w, big)
	}))
	defer srv.Close()
	loopback := AddressPolicy{AllowAddrPorts: []netip.AddrPort{netip.MustParseAddrPort(srv.Listener.Addr().String())}}
	tests := []struct {
		name          string
		fetcher, req  int64 // MaxBodyBytes, Request.MaxBytes
		timeout       time.Duration
		delay         string
		want          int
		wantTruncated bool
		wantErr       bool
	}{
		{name: "zero: default cap", want: DefaultMaxBodyBytes, wantTruncated: true},
		{name: "fetcher's cap", fetcher: 100, want: 100, wantTruncated: true},
		{name: "request's cap first", fetcher: 100, req: 10, want: 10, wantTruncated: true},
		{name: "request: no cap", fetcher: 100, req: -1, want: len(big)},
		{name: "fetcher: no cap", fetcher: -1, want: len(big)},
		{name: "timeout", fetcher: 10, timeout: 20 * time.Millisecond, delay: "200ms", wantErr: true},
		{name: "no timeout", fetcher: 10, timeout: -1, delay: "200ms", want: 10, wantTruncated: true},
	}
	for _, tt := range tests {
		f := &HTTPFetcher{MaxBodyBytes: tt.fetcher, Timeout: tt.timeout, Addresses: loopback}
		resp, err := f.Fetch(context.Background(), &Request{URL: srv.URL + "/?delay=" + tt.delay, MaxBytes: tt.req})
		switch {
		case tt.wantErr:
			if err == nil {
				t.Errorf("%s: fetched %d bytes, want a timeout", tt.name, len(resp.Body))
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case len(resp.Body) != tt.want || resp.Truncated != tt.wantTruncated:
			t.Errorf("%s: %d bytes, truncated %v; want %d, %v", tt.name, len(resp.Body), resp.Truncated, tt.want, tt.wantTruncated)
		}
		f.CloseIdleConnections()
	}

	for _, tt := range []struct {
		maxEntries, want int
	}{{0, DefaultDNSMaxEntries}, {-1, DefaultDNSMaxEntries + 100}, {10, 10}} {
		c := &DNSCache{MaxEntries: tt.maxEntries}
		c.mu.Lock()
		for i := range DefaultDNSMaxEntries + 100 {
			c.store(strconv.Itoa(i), nil, nil)
		}
		c.mu.Unlock()
		if n := c.Len(); n > tt.want || tt.maxEntries < 0 && n != tt.want {
			t.Errorf("MaxEntries %d: %d names kept, want at most %d", tt.maxEntries, n, tt.want)
		}
	}
}

// A redirect whose Location does not parse is a response like any other,
// its Location as sent (net/http's Client would fail it).
func TestFetchBadLocation(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "http://%zz/")
		w.WriteHeader(http.StatusFound)
	}))
	defer srv.Close()
	f := &HTTPFetcher{Addresses: AddressPolicy{AllowAddrPorts: []netip.AddrPort{netip.MustParseAddrPort(srv.Listener.Addr().String())}}}
	defer f.CloseIdleConnections()
	resp, err := f.Fetch(context.Background(), &Request{URL: srv.URL + "/"})
	if err != nil || resp.Status != http.StatusFound || resp.Header.Get("Location") != "http://%zz/" || len(resp.Header.Values("Location")) != 1 {
		t.Fatalf("Fetch = %+v, %v; want the 302 with its Location", resp, err)
	}
}
