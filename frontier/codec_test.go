package frontier

import (
	"math"
	"testing"
)

func TestCodecRoundTrip(t *testing.T) {
	entries := []Entry{
		{URL: "http://a.com/x?y", Host: "a.com", FP: 1, Depth: 3, Hops: 1, Referrer: "http://b.com/"},
		{URL: "https://a.com", Host: "a.com", FP: math.MaxUint64, Referrer: "http://b.com/"},
		{URL: "http://a.com:8080/", Host: "a.com", Tries: 2},             // a port: not the origin
		{URL: "http://a.community/", Host: "a.com", Depth: -1, Hops: -5}, // a longer host
		{URL: "ftp://a.com/", Host: "a.com", Referrer: "x"},
		{URL: "http://a.com#f", Host: "a.com", Depth: math.MaxInt, Hops: math.MinInt},
		{URL: "", Host: "", Referrer: ""},
	}
	var buf []byte
	prev := ""
	for _, e := range entries {
		buf = appendEntry(buf, e, e.Host, prev)
		prev = e.Referrer
	}
	prev = ""
	for i, want := range entries {
		got, n := decodeEntry(buf, want.Host, prev)
		if got != want {
			t.Errorf("entry %d: decoded %+v, want %+v", i, got, want)
		}
		buf, prev = buf[n:], got.Referrer
	}
	if len(buf) != 0 {
		t.Errorf("%d bytes left", len(buf))
	}
}

func FuzzCodec(f *testing.F) {
	f.Add("http://a.com/x", "a.com", "http://a.com/", uint64(7), 1, 0, 0, "")
	f.Add("https://a.com?q", "a.com", "", uint64(0), -1, 3, 9, "http://a.com/")
	f.Fuzz(func(t *testing.T, u, host, ref string, fp uint64, depth, hops, tries int, prev string) {
		want := Entry{URL: u, Host: host, Referrer: ref, FP: fp, Depth: depth, Hops: hops, Tries: tries}
		buf := appendEntry([]byte{0xff}, want, host, prev)
		got, n := decodeEntry(buf[1:], host, prev)
		if got != want || n != len(buf)-1 {
			t.Fatalf("decoded %+v (%d bytes of %d), want %+v", got, n, len(buf)-1, want)
		}
	})
}
