package simhash_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"crawler/simhash"
)

// story is an HTML page of a family: the same text, which differs between
// families, under a date line, which may differ between its variants.
func story(family int, date string) []byte {
	var text strings.Builder
	for i := range 300 {
		n := family*1000 + i
		for range 4 { // a word of letters (words with digits do not count)
			text.WriteByte(byte('a' + n%26))
			n /= 26
		}
		text.WriteString(" ")
	}
	return []byte("<html><body><p>Updated " + date + "</p><p>" + text.String() + "</p></body></html>")
}

// A Detector reports a near-duplicate with the URL of the first page of
// its family, whatever variant came between, and keeps only the first;
// an unrelated page, and the first itself, are no near-duplicates.
func TestDetector(t *testing.T) {
	a, b := story(1, ""), story(1, "Monday")
	if d := simhash.Distance(simhash.OfHTML(a), simhash.OfHTML(b)); d != 2 {
		t.Fatalf("the variants are %d bits apart, want 2", d)
	}
	for _, tt := range []struct {
		name string
		d    *simhash.Detector
		want string // of /b, a variant of /a
	}{
		{"zero", &simhash.Detector{}, "/a"},
		{"default", simhash.NewDetector(0), "/a"},
		{"distance=2", simhash.NewDetector(2), "/a"},
		{"distance=1", simhash.NewDetector(1), ""},
		{"exact", simhash.NewDetector(-1), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.FindOrAdd("/a", a); got != "" {
				t.Errorf("first page: near-duplicate of %q", got)
			}
			if got := tt.d.FindOrAdd("/b", b); got != tt.want {
				t.Errorf("variant: near-duplicate of %q, want %q", got, tt.want)
			}
			if got := tt.d.FindOrAdd("/other", story(2, "")); got != "" {
				t.Errorf("unrelated page: near-duplicate of %q", got)
			}
			if got := tt.d.FindOrAdd("/a-again", a); got != "/a" {
				t.Errorf("the same text again: near-duplicate of %q, want /a", got)
			}
			kept := map[string]int{"": 3, "/a": 2}[tt.want]
			if tt.d.Len() != kept {
				t.Errorf("Len %d, want %d", tt.d.Len(), kept)
			}
		})
	}
}

func TestNewDetectorPanicsAboveMaxDistance(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewDetector(MaxDistance+1) did not panic")
		}
	}()
	simhash.NewDetector(simhash.MaxDistance + 1)
}

// Of the copies of a page given concurrently, exactly one is kept, and
// every other is reported as a near-duplicate of it.
func TestDetectorConcurrent(t *testing.T) {
	const families, copies = 8, 16
	d := simhash.NewDetector(0)
	firsts := make([][]string, families)
	for f := range firsts {
		firsts[f] = make([]string, copies)
	}
	var wg sync.WaitGroup
	for f := range families {
		for v := range copies {
			wg.Go(func() {
				firsts[f][v] = d.FindOrAdd(fmt.Sprintf("/%d/%d", f, v), story(f, ""))
			})
		}
	}
	wg.Wait()
	if d.Len() != families {
		t.Errorf("Len %d, want one page a family: %d", d.Len(), families)
	}
	for f, got := range firsts {
		var kept []string
		for v, first := range got {
			if first == "" {
				kept = append(kept, fmt.Sprintf("/%d/%d", f, v))
			}
		}
		if len(kept) != 1 {
			t.Fatalf("family %d: %d pages kept, want 1: %q", f, len(kept), kept)
		}
		for v, first := range got {
			if first != "" && first != kept[0] {
				t.Errorf("/%d/%d: near-duplicate of %q, want %q", f, v, first, kept[0])
			}
		}
	}
}
