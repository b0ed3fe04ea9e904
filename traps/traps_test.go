package traps

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"crawler/internal/links"
)

func TestTrapCheckURL(t *testing.T) {
	deep := "http://h/" + strings.Repeat("x/", 20) + "y"
	tests := []struct {
		url   string
		traps Config
		want  string
	}{
		{"http://h/", Config{}, ""},
		{"http://h", Config{}, ""},
		{"http://h/a/b/c?x=1", Config{}, ""},
		{"http://h/" + strings.Repeat("a", DefaultMaxURLLength), Config{}, URLLength},
		{"http://h/" + strings.Repeat("a", DefaultMaxURLLength), Config{MaxURLLength: -1}, ""},
		{"http://h/abcdef", Config{MaxURLLength: 10}, URLLength},
		{"http://h/" + strings.Repeat("s/", 19) + "y", Config{MaxSegmentRepeats: -1}, ""},
		{deep, Config{MaxSegmentRepeats: -1}, PathDepth},
		{deep, Config{MaxSegmentRepeats: -1, MaxPathDepth: -1}, ""},
		{"http://h/a/b/c/d", Config{MaxPathDepth: 3}, PathDepth},
		{"http://h/a/b/c", Config{MaxPathDepth: 3}, ""},
		{"http://h/a/b/a/b/a/b", Config{}, ""},               // "a" three times: the limit
		{"http://h/a/b/a/b/a/b/a", Config{}, SegmentRepeats}, // four
		{"http://h/a/b/a/b/a/b/a", Config{MaxSegmentRepeats: -1}, ""},
		{"http://h/a/a/b", Config{MaxSegmentRepeats: 1}, SegmentRepeats},
		{"http://h/a//a/b/", Config{MaxSegmentRepeats: 2}, ""}, // empty segments do not count
		{"http://h/x?a/a/a/a/a", Config{}, ""},                 // the query is not the path
		{"http://h/p/1/1/1/1", Config{}, SegmentRepeats},
	}
	for _, tt := range tests {
		if got := New(tt.traps).Check(tt.url); got != tt.want {
			t.Errorf("Check(%.60q) with %+v = %q, want %q", tt.url, tt.traps, got, tt.want)
		}
	}
}

func TestURLPattern(t *testing.T) {
	tests := []struct{ url, want string }{
		{"http://h/", "/"},
		{"http://h", "/"},
		{"http://h/p/17", "/p"},
		{"http://h/p17/x", "/p*"},
		{"http://h/2024-05-01/x", "/*-*-*"},
		{"http://h/calendar?month=2027-03", "/calendar?month"},
		{"http://h/s?sid=ab12&x=1&y", "/s?sid&x&y"},
		{"http://h/more/more/more/1", "/more"},
		{"http://h:8080/a#frag", "/a"},
	}
	for _, tt := range tests {
		if got := urlPattern(tt.url); got != tt.want {
			t.Errorf("urlPattern(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func TestTrapAdmit(t *testing.T) {
	t.Run("host budget", func(t *testing.T) {
		r := New(Config{MaxPagesPerHost: 2})
		if got := r.Admit("http://a/0", "a", true); got != "" {
			t.Fatalf("seed rejected: %q", got)
		}
		if got := r.Admit("http://a/1", "a", false); got != "" {
			t.Fatalf("second URL rejected: %q", got)
		}
		if got := r.Admit("http://a/2", "a", false); got != HostBudget {
			t.Fatalf("third URL: %q, want %q", got, HostBudget)
		}
		if got := r.Admit("http://a/3", "a", true); got != "" {
			t.Fatalf("a seed over budget rejected: %q", got)
		}
		if got := r.Admit("http://b/1", "b", false); got != "" {
			t.Fatalf("another host rejected: %q", got)
		}
	})
	t.Run("query values", func(t *testing.T) {
		r := New(Config{MaxQueryValues: 2})
		for _, u := range []string{"http://a/c?m=1", "http://a/c?m=2", "http://a/c?m=1&x=9", "http://a/other?m=2", "http://b/c?m=3"} {
			if got := r.Admit(u, strings.Split(u, "/")[2], false); got != "" {
				t.Errorf("Admit(%q) = %q, want admitted", u, got)
			}
		}
		for _, u := range []string{"http://a/c?m=3", "http://a/c?x=1&m=4"} {
			if got := r.Admit(u, "a", false); got != QueryValues {
				t.Errorf("Admit(%q) = %q, want %q", u, got, QueryValues)
			}
		}
		// A rejected URL's other values were not recorded: x still has room.
		if got := r.Admit("http://a/c?x=2", "a", false); got != "" {
			t.Errorf("x=2 rejected: %q", got)
		}
	})
}

func TestTrapDuplicatePattern(t *testing.T) {
	r := New(Config{DuplicatePages: 3})
	page := func(u string, content uint64) (string, bool) { return r.Observe(u, "h", content) }
	// Good pages of a pattern: distinct content, never stopped.
	for i := range 10 {
		if stopped, dup := page("http://h/p/"+strings.Repeat("1", i+1), uint64(i)); stopped != "" || dup {
			t.Fatalf("distinct page %d: stopped %q, duplicate %v", i, stopped, dup)
		}
	}
	// Duplicates among good pages, never three in a row, do not stop
	// the pattern while they are under 80% of its pages.
	for i := range 12 {
		content := uint64(100 + i)
		if i%3 != 2 {
			content = 1
		}
		if stopped, dup := page("http://h/p/x", content); stopped != "" || dup != (i%3 != 2) {
			t.Fatalf("page %d on /p: stopped %q, duplicate %v", i, stopped, dup)
		}
	}
	// Session ids: the same content again and again. Two duplicates in a
	// row are not enough; the third is.
	var stopped string
	for i := range 6 {
		s, dup := page("http://h/s?sid="+strings.Repeat("z", i), 42)
		if dup != (i > 0) {
			t.Fatalf("sid page %d: duplicate = %v", i, dup)
		}
		if s != "" {
			if i != 3 {
				t.Errorf("pattern stopped at sid page %d, want 3", i)
			}
			if stopped != "" {
				t.Fatalf("pattern stopped twice: %q then %q", stopped, s)
			}
			stopped = s
		}
	}
	if stopped != "h/s?sid" {
		t.Fatalf("stopped %q, want h/s?sid", stopped)
	}
	if err := r.Stopped("http://h/s?sid=new", "h"); !errors.Is(err, ErrTrap) || err.Error() != "crawler: URL pattern is a trap: h/s?sid" {
		t.Errorf("Stopped of the stopped pattern = %v, want ErrTrap naming h/s?sid", err)
	}
	if r.Stopped("http://h/p/99", "h") != nil || r.Stopped("http://g/s?sid=1", "g") != nil {
		t.Error("Stopped does not follow the stopped pattern exactly")
	}
	if got := r.Admit("http://h/s?sid=other", "h", false); got != Duplicates {
		t.Errorf("Admit of a stopped pattern = %q", got)
	}
}

// TestContentFingerprint: the content fingerprint the crawler gives
// Observe, links.Extract's, is what Config.DuplicatePages says.
func TestContentFingerprint(t *testing.T) {
	const maxLinks = 20000 // crawler.DefaultMaxLinksPerPage
	fp := func(s string) uint64 {
		return links.Extract([]byte(s), false, "crawler", maxLinks).Content
	}
	base := `<html><body><h1>Hello</h1><a href="/x?sid=1">x</a></body></html>`
	if fp(base) != fp(`<html><body><h1>Hello</h1><a href="/x?sid=2">x</a></body></html>`) {
		t.Error("pages differing only in a link's query have different fingerprints")
	}
	for _, other := range []string{
		`<html><body><h1>Hullo</h1><a href="/x?sid=1">x</a></body></html>`,
		`<html><body><h2>Hello</h2><a href="/x?sid=1">x</a></body></html>`,
		`<html><body><h1>Hello</h1><a href="/y?sid=1">x</a></body></html>`,
	} {
		if fp(base) == fp(other) {
			t.Errorf("%s has the fingerprint of %s", other, base)
		}
	}
}

func TestTrapDuplicateRatio(t *testing.T) {
	// Page i of a pattern has new content when i%10 is 0, and content 7
	// otherwise: page 1 is the first with content 7, pages 2 to 9 repeat
	// it, page 10 is new, and from page 11 on the duplicates are 9 of 12,
	// 10 of 13, 11 of 14, 12 of 15: the 80% rule tips at page 14, with
	// never ten duplicates in a row.
	r := New(Config{DuplicatePages: 10})
	at := -1
	for i := range 40 {
		content := uint64(7)
		if i%10 == 0 {
			content = uint64(1000 + i)
		}
		if s, _ := r.Observe("http://h/q?id="+strconv.Itoa(i), "h", content); s != "" {
			at = i
			break
		}
	}
	if at != 14 {
		t.Errorf("pattern stopped at page %d, want 14", at)
	}
}

// TestContentWindow checks the bounded memory of content seen against a
// model that remembers everything: it never calls content new that was
// added since fewer than half its limit of other fingerprints were, never
// calls content seen that was not, and never holds more than its limit.
func TestContentWindow(t *testing.T) {
	for _, limit := range []int{1, 2, 8, 101, 1000} {
		w := newContentWindow(limit)
		half := (limit + 1) / 2
		var history []uint64     // every add, in order
		last := map[uint64]int{} // fingerprint -> index of its last add
		r := rand.New(rand.NewPCG(uint64(limit), 7))
		warm := 0
		for i := range 10000 {
			fp := r.Uint64N(uint64(3 * limit)) // some recur soon, some late
			added := w.add(fp)
			at, before := last[fp]
			switch {
			case !added && !before:
				t.Fatalf("limit %d, add %d: %d reported seen, never added", limit, i, fp)
			case added && before:
				others := map[uint64]bool{}
				for _, o := range history[at+1:] {
					if o != fp {
						others[o] = true
					}
					if len(others) == half {
						break
					}
				}
				if len(others) < half {
					t.Fatalf("limit %d, add %d: %d forgotten after %d others, want it kept until %d", limit, i, fp, len(others), half)
				}
			}
			history = append(history, fp)
			last[fp] = i
			if n := w.remembered(); n > limit+1 || n > 2*half {
				t.Fatalf("limit %d: %d fingerprints remembered", limit, n)
			}
			if i == 5000 {
				warm = w.memoryBytes()
			}
		}
		if w.memoryBytes() != warm {
			t.Errorf("limit %d: tables of %d bytes grew to %d", limit, warm, w.memoryBytes())
		}
	}

	unbounded := newContentWindow(-1)
	for i := range uint64(5000) {
		unbounded.add(i)
	}
	if unbounded.add(0) || unbounded.remembered() != 5000 {
		t.Errorf("no limit: the first fingerprint is forgotten or not all kept (%d)", unbounded.remembered())
	}
}

// TestContentWindowKeepsWhatRecurs: a content that comes back every few
// pages (a soft 404 among a host's real pages) is never forgotten, however
// many distinct contents pass by.
func TestContentWindowKeepsWhatRecurs(t *testing.T) {
	w := newContentWindow(16)
	w.add(1)
	for i := range uint64(10000) {
		w.add(1000 + i)
		if i%7 == 0 && w.add(1) {
			t.Fatalf("after %d other contents, the recurring one was forgotten", i+1)
		}
	}
	if !w.add(1000) {
		t.Error("a content seen 10000 contents ago is still remembered: no bound")
	}
}

// BenchmarkContentWindow adds random content fingerprints to the default
// window, and to one without a limit, and reports the size of their
// tables: the window's stops growing at DefaultDuplicateWindow/2
// fingerprints.
//
//	go test -run '^$' -bench ContentWindow -benchtime 4000000x ./traps
func BenchmarkContentWindow(b *testing.B) {
	for _, limit := range []int{DefaultDuplicateWindow, -1} {
		name := "default"
		if limit < 0 {
			name = "unbounded"
		}
		b.Run(name, func(b *testing.B) {
			w := newContentWindow(limit)
			r := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				w.add(r.Uint64())
			}
			b.ReportMetric(float64(w.memoryBytes())/(1<<20), "MiB")
		})
	}
}
