package fetch

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
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
