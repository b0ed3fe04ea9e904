package warc

import (
	"bytes"
	"compress/flate"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// appendSmall's streams inflate, with the standard library's reader, to
// their input.
func TestAppendSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 5000)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	far := append(bytes.Repeat([]byte{'x'}, 100), random[:1000]...) // a match at the window's far end
	far = append(far, make([]byte, maxSmallInput-2*len(far))...)
	far = append(far, far[:100+1000]...)
	for _, c := range []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"one", []byte("a")},
		{"three", []byte("abc")},
		{"four", []byte("abab")},
		{"run", bytes.Repeat([]byte("a"), 1000)},
		{"every byte", bytes.Repeat(all, 3)},
		{"random", random},
		{"sample", []byte(smallSample)},
		{"text", []byte(strings.Repeat("the crawler archive record page link index news ", 700)[:maxSmallInput])},
		{"far", far},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkSmall(t, c.in)
		})
	}
}

func checkSmall(t *testing.T, in []byte) {
	t.Helper()
	var d smallDeflater
	prefix := []byte("kept")
	out := d.appendSmall(prefix, in)
	if !bytes.HasPrefix(out, []byte("kept")) {
		t.Fatalf("dst's bytes not kept: %q", out[:4])
	}
	got, err := io.ReadAll(flate.NewReader(bytes.NewReader(out[4:])))
	if err != nil {
		t.Fatalf("inflate: %v", err)
	}
	if !bytes.Equal(got, in) {
		t.Fatalf("inflated %d bytes, not the %d deflated", len(got), len(in))
	}
}

func FuzzAppendSmall(f *testing.F) {
	f.Add([]byte(smallSample))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaa"))
	f.Add([]byte{0, 1, 2, 3, 0, 1, 2, 3, 255, 254})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > maxSmallInput {
			in = in[:maxSmallInput]
		}
		checkSmall(t, in)
	})
}

// BenchmarkAppendSmall deflates the records of a redirect's exchange
// (smallSample's request and response), as the Writer does each small
// record, and reports the bytes of the stream.
func BenchmarkAppendSmall(b *testing.B) {
	i := strings.Index(smallSample, "\r\n\r\n\r\n\r\n") + 8
	for _, c := range []struct{ name, in string }{
		{"record=request", smallSample[:i]},
		{"record=response", smallSample[i:]},
	} {
		b.Run(c.name, func(b *testing.B) {
			var d smallDeflater
			var out []byte
			b.SetBytes(int64(len(c.in)))
			for b.Loop() {
				out = d.appendSmall(out[:0], []byte(c.in))
			}
			b.ReportMetric(float64(len(out)), "out-B/op")
		})
	}
}
