package store

import (
	"testing"

	"crawler/frontier"
)

// FuzzEntry feeds decodeEntry bytes as a damaged store might hold them: it
// returns an error or an entry, never panics, and an entry it returns is
// encoded and decoded again to itself.
func FuzzEntry(f *testing.F) {
	for _, e := range []frontier.Entry{
		{URL: "http://a.test/x?q=1", FP: 7, Host: "a.test", Depth: 2, Hops: 1, Referrer: "https://a.test/"},
		{URL: "https://a.test:8443/", FP: 1 << 63, Host: "a.test:8443", Tries: 3, Referrer: "http://b.test/"},
		{URL: "http://a.testx/", FP: 2, Host: "a.test"},
	} {
		f.Add(appendEntry(nil, e), e.Host)
	}
	f.Fuzz(func(t *testing.T, b []byte, host string) {
		e, err := decodeEntry(b, host)
		if err != nil {
			return
		}
		again, err := decodeEntry(appendEntry(nil, e), host)
		if err != nil || again != e {
			t.Fatalf("entry %+v encoded and decoded again: %+v, %v", e, again, err)
		}
	})
}
