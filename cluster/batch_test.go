package cluster

import (
	"reflect"
	"testing"
	"time"

	"crawler/canon"
	"crawler/frontier"
)

func entry(u, ref string, depth, hops, tries int) frontier.Entry {
	return frontier.Entry{URL: u, FP: canon.Fingerprint(u), Host: canon.Host(u), Depth: depth, Hops: hops, Tries: tries, Referrer: ref}
}

// A batch decodes to what was appended: links, queued entries, seen
// fingerprints and holds, each in order.
func TestBatchRoundTrip(t *testing.T) {
	at := time.Unix(0, 1764000000123456789)
	var b []byte
	b = appendLink(b, entry("http://a.test/x", "http://b.test/", 3, 1, 0), false)
	b = appendLink(b, entry("http://a.test/y", "", 0, 0, 2), true)
	b = appendSeen(b, 42)
	b = appendHold(b, "a.test:8080", at)
	b = appendLink(b, entry("https://c.test/%C3%A9", "http://a.test/x", 7, 0, 0), false)
	var d batch
	if err := d.decode(b); err != nil {
		t.Fatal(err)
	}
	want := batch{
		links:  []frontier.Entry{entry("http://a.test/x", "http://b.test/", 3, 1, 0), entry("https://c.test/%C3%A9", "http://a.test/x", 7, 0, 0)},
		queued: []frontier.Entry{entry("http://a.test/y", "", 0, 0, 2)},
		seen:   []uint64{42},
		holds:  []hold{{"a.test:8080", at}},
	}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("decoded %+v\nwant %+v", d, want)
	}
}

// A malformed batch is refused whole, and leaves what was decoded before.
func FuzzBatch(f *testing.F) {
	var b []byte
	b = appendLink(b, entry("http://a.test/x", "http://b.test/", 3, 1, 0), false)
	b = appendSeen(b, 42)
	b = appendHold(b, "a.test", time.Unix(5, 0))
	f.Add(b)
	f.Add([]byte{batchVersion, 0, 0})                            // a link with no URL
	f.Add([]byte{batchVersion, 3, 200, 1})                       // a hold whose host runs past the end
	f.Add([]byte{batchVersion, 2, 1, 2, 3})                      // a fingerprint cut short
	f.Add([]byte{batchVersion, 9})                               // an unknown kind
	f.Add([]byte{batchVersion, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}) // a huge length
	f.Fuzz(func(t *testing.T, data []byte) {
		d := batch{seen: []uint64{7}}
		if err := d.decode(data); err != nil {
			if !reflect.DeepEqual(d, batch{seen: []uint64{7}}) {
				t.Fatalf("a refused batch changed the decoded ones: %+v", d)
			}
			return
		}
		// Re-encoding what was decoded decodes the same.
		var again []byte
		for _, e := range d.links {
			again = appendLink(again, e, false)
		}
		for _, e := range d.queued {
			again = appendLink(again, e, true)
		}
		for _, fp := range d.seen[1:] {
			again = appendSeen(again, fp)
		}
		for _, h := range d.holds {
			again = appendHold(again, h.host, h.at)
		}
		d2 := batch{seen: []uint64{7}}
		if len(again) == 0 {
			return
		}
		if err := d2.decode(again); err != nil {
			t.Fatalf("re-encoded batch refused: %v", err)
		}
		if len(d2.links) != len(d.links) || len(d2.queued) != len(d.queued) || len(d2.seen) != len(d.seen) || len(d2.holds) != len(d.holds) {
			t.Fatalf("re-encoded batch decodes differently: %+v vs %+v", d2, d)
		}
	})
}
