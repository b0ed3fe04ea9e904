package graph_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"crawler/canon"
	"crawler/graph"
)

// page is a record to write: a page and its links, or (redirect) a
// redirect to links[0].
type page struct {
	url      string
	links    []string
	redirect bool
}

// write writes ps with a Writer and returns the file.
func write(t testing.TB, ps ...page) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := graph.NewWriter(&buf)
	for _, p := range ps {
		var err error
		if p.redirect {
			err = w.Redirect(p.url, p.links[0])
		} else {
			err = w.Page(p.url, p.links)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// read reads data, failing the test on any error.
func read(t testing.TB, data []byte, o graph.ReadOptions) *graph.Graph {
	t.Helper()
	g, err := o.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	check(t, g)
	return g
}

// dump returns g as text: one line per node, its URL then its out-edges'
// URLs, in node order.
func dump(g *graph.Graph) string {
	var sb strings.Builder
	for k := range g.Len() {
		sb.WriteString(g.URL(k))
		if k >= g.Pages() {
			sb.WriteString(" (unfetched)")
		}
		sb.WriteString(" ->")
		for _, t := range g.Out(k) {
			sb.WriteString(" " + g.URL(int(t)))
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// check verifies the invariants of a Graph.
func check(t testing.TB, g *graph.Graph) {
	t.Helper()
	edges := 0
	for k := range g.Len() {
		out := g.Out(k)
		edges += len(out)
		if !slices.IsSorted(out) || len(slices.Compact(slices.Clone(out))) != len(out) {
			t.Fatalf("node %d: out-edges %v not ascending and distinct", k, out)
		}
		if len(out) > 0 && int(out[len(out)-1]) >= g.Len() {
			t.Fatalf("node %d: edge to %d of %d nodes", k, out[len(out)-1], g.Len())
		}
		if k >= g.Pages() && len(out) > 0 {
			t.Fatalf("unfetched node %d has out-edges", k)
		}
		u := g.URL(k)
		if g.Fingerprint(k) != canon.Fingerprint(u) {
			t.Fatalf("node %d: fingerprint %#x of %q", k, g.Fingerprint(k), u)
		}
		if j, ok := g.Lookup(u); !ok || j != k {
			t.Fatalf("Lookup(%q) = %d, %v; want %d", u, j, ok, k)
		}
	}
	if edges != g.Edges() {
		t.Fatalf("Edges() = %d, out-edges add up to %d", g.Edges(), edges)
	}
}

func TestRoundTrip(t *testing.T) {
	data := write(t,
		page{url: "http://a/", links: []string{"http://a/1", "http://a/2", "http://a/1", "http://x/", "", "http://a/"}},
		page{url: "http://a/1", links: []string{"http://a/2"}},
		page{url: "http://a/2"},
		page{url: "http://a/3", links: []string{"http://a/"}}, // never linked
	)
	g := read(t, data, graph.ReadOptions{})
	want := `http://a/ -> http://a/ http://a/1 http://a/2
http://a/1 -> http://a/2
http://a/2 ->
http://a/3 -> http://a/
`
	if got := dump(g); got != want {
		t.Errorf("graph:\n%s\nwant:\n%s", got, want)
	}
	if g.Len() != 4 || g.Pages() != 4 || g.Edges() != 5 {
		t.Errorf("Len, Pages, Edges = %d, %d, %d; want 4, 4, 5", g.Len(), g.Pages(), g.Edges())
	}
	if _, ok := g.Lookup("http://x/"); ok {
		t.Error("an unfetched link target is a node")
	}

	g = read(t, data, graph.ReadOptions{KeepUnfetched: true})
	want = strings.Replace(want, "http://a/2\n", "http://a/2 http://x/\n", 1) + "http://x/ (unfetched) ->\n"
	if got := dump(g); got != want {
		t.Errorf("KeepUnfetched graph:\n%s\nwant:\n%s", got, want)
	}
}

func TestRevisitAndRedirects(t *testing.T) {
	data := write(t,
		page{url: "http://a/", links: []string{"http://a/old", "http://a/r1", "http://a/loop1", "http://a/gone", "http://a/moved"}},
		page{url: "http://a/old", links: []string{"http://a/"}},
		// A revisit: its new links replace the old ones.
		page{url: "http://a/old", links: []string{"http://a/old", "http://a/b"}},
		// A chain r1 -> r2 -> b, a loop, a redirect to an unfetched URL.
		page{url: "http://a/r1", links: []string{"http://a/r2"}, redirect: true},
		page{url: "http://a/r2", links: []string{"http://a/b"}, redirect: true},
		page{url: "http://a/loop1", links: []string{"http://a/loop2"}, redirect: true},
		page{url: "http://a/loop2", links: []string{"http://a/loop1"}, redirect: true},
		page{url: "http://a/gone", links: []string{"http://a/nowhere"}, redirect: true},
		page{url: "http://a/b", links: []string{"http://a/r1", "http://a/b"}},
		// A page that later redirects, and a redirect that later is a page.
		page{url: "http://a/moved", links: []string{"http://a/"}},
		page{url: "http://a/moved", links: []string{"http://a/b"}, redirect: true},
		page{url: "http://a/c", links: []string{"http://a/"}, redirect: true},
		page{url: "http://a/c", links: []string{"http://a/r2"}},
	)
	g := read(t, data, graph.ReadOptions{})
	want := `http://a/ -> http://a/old http://a/b
http://a/old -> http://a/old http://a/b
http://a/b -> http://a/b
http://a/c -> http://a/b
`
	if got := dump(g); got != want {
		t.Errorf("graph:\n%s\nwant:\n%s", got, want)
	}
	g = read(t, data, graph.ReadOptions{KeepUnfetched: true})
	want = `http://a/ -> http://a/old http://a/b http://a/nowhere
http://a/old -> http://a/old http://a/b
http://a/b -> http://a/b
http://a/c -> http://a/b
http://a/nowhere (unfetched) ->
`
	if got := dump(g); got != want {
		t.Errorf("KeepUnfetched graph:\n%s\nwant:\n%s", got, want)
	}
}

func TestCreateLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "links.graph")
	w, err := graph.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Page("http://a/", []string{"http://a/"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Page("http://a/", nil); !errors.Is(err, graph.ErrClosed) {
		t.Errorf("Page after Close: %v, want ErrClosed", err)
	}
	if err := w.Close(); !errors.Is(err, graph.ErrClosed) {
		t.Errorf("second Close: %v, want ErrClosed", err)
	}
	g, err := graph.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dump(g), "http://a/ -> http://a/\n"; got != want {
		t.Errorf("graph %q, want %q", got, want)
	}
	if _, err := graph.Load(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of a missing file: %v", err)
	}
}

// TestTruncated cuts a file at every byte: each prefix reads into the graph
// of the records it holds whole, with ErrTruncated unless it ends between
// records.
func TestTruncated(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	w := graph.NewWriter(&buf)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	ends := []int{buf.Len()} // where each record ends
	var ps []page
	for i := range 40 {
		p := page{url: fmt.Sprintf("http://h/%d", i)}
		for range r.IntN(6) {
			p.links = append(p.links, fmt.Sprintf("http://h/%d", r.IntN(50)))
		}
		var err error
		if p.redirect = i%7 == 3; p.redirect {
			p.links = []string{fmt.Sprintf("http://h/%d", r.IntN(50))}
			err = w.Redirect(p.url, p.links[0])
		} else {
			err = w.Page(p.url, p.links)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
		ends = append(ends, buf.Len())
	}
	data := buf.Bytes()
	wants := make([]string, len(ends)) // the graph of the first i records
	for i := range ends {
		wants[i] = dump(read(t, write(t, ps[:i]...), graph.ReadOptions{}))
	}
	for cut := range len(data) + 1 {
		whole := 0
		for whole+1 < len(ends) && ends[whole+1] <= cut {
			whole++
		}
		g, err := graph.Read(bytes.NewReader(data[:cut]))
		atEnd := slices.Contains(ends, cut)
		if atEnd && err != nil || !atEnd && !errors.Is(err, graph.ErrTruncated) {
			t.Fatalf("cut at %d of %d: %v", cut, len(data), err)
		}
		if g == nil {
			t.Fatalf("cut at %d: no graph with %v", cut, err)
		}
		check(t, g)
		if got := dump(g); got != wants[whole] {
			t.Fatalf("cut at %d: graph\n%s\nwant (%d records)\n%s", cut, got, whole, wants[whole])
		}
	}
}

// TestCorrupt damages a byte of each record: the last record's damage is a
// torn write (ErrTruncated), any other's corruption (ErrCorrupt).
func TestCorrupt(t *testing.T) {
	data := write(t,
		page{url: "http://a/", links: []string{"http://a/1"}},
		page{url: "http://a/1", links: []string{"http://a/"}},
		page{url: "http://a/2", links: []string{"http://a/"}},
	)
	last := len(data) - 5 // in the last record's body
	for _, at := range []int{len("crawler/graph v1 xxh3-64/seed=0\n") + 3, last} {
		bad := slices.Clone(data)
		bad[at] ^= 0x40
		g, err := graph.Read(bytes.NewReader(bad))
		switch {
		case at == last:
			if !errors.Is(err, graph.ErrTruncated) || g == nil || g.Len() != 2 {
				t.Errorf("damaged last record: %v, %v", g, err)
			}
		case !errors.Is(err, graph.ErrCorrupt) || g != nil:
			t.Errorf("damaged first record: %v, %v", g, err)
		}
		t.Logf("damage at %d: %v", at, err)
	}
}

// TestMalformedRecords reads records with valid checksums but invalid
// contents: each is corruption, even last.
func TestMalformedRecords(t *testing.T) {
	hdr := "crawler/graph v1 xxh3-64/seed=0\n"
	ok := "\x01\x01\x03x:/\x00\x00" // page x:/ (ID 0), no links
	for _, tc := range []struct{ name, body string }{
		{"named twice", "\x01\x01\x03x:/\x00\x00"},
		{"unknown kind", "\x03\x00\x00\x00"},
		{"trailing bytes", "\x01\x00\x00\x00\x00"},
		{"source out of range", "\x01\x00\x01\x00"},
		{"link out of range", "\x01\x00\x00\x01\x02"},
		{"link before ID 0", "\x01\x00\x00\x01\x01"},
		{"link count past the body", "\x01\x00\x00\x05\x00"},
		{"gap out of range", "\x01\x00\x00\x02\x00\x05"},
		{"redirect out of range", "\x02\x00\x00\x01"},
		{"empty name", "\x01\x01\x00\x00\x00"},
		{"name past the body", "\x01\x01\x09x:/\x00\x00"},
	} {
		in := hdr + string(frame([]byte(ok))) + string(frame([]byte(tc.body)))
		g, err := graph.Read(strings.NewReader(in))
		if !errors.Is(err, graph.ErrCorrupt) || g != nil {
			t.Errorf("%s: %v, %v; want ErrCorrupt", tc.name, g, err)
		}
		t.Logf("%s: %v", tc.name, err)
	}
	// The same records, valid: a page linking to itself, and a redirect.
	in := hdr + string(frame([]byte(ok))) + string(frame([]byte("\x01\x00\x00\x01\x00"))) + string(frame([]byte("\x02\x01\x03y:/\x01\x00")))
	g, err := graph.Read(strings.NewReader(in))
	if err != nil || dump(g) != "x:/ -> x:/\n" {
		t.Errorf("valid records: %v", err)
	}
}

func TestHeader(t *testing.T) {
	body := write(t, page{url: "http://a/"})[len("crawler/graph v1 xxh3-64/seed=0\n"):]
	for _, tc := range []struct {
		header string
		err    error
	}{
		{"crawler/graph v1 xxh3-64/seed=0\n", nil},
		{"", graph.ErrTruncated},
		{"crawler/gr", graph.ErrTruncated},
		{"crawler/graph v1 xxh3-64/seed=0", graph.ErrTruncated},
		{"crawler/graph v2 xxh3-64/seed=0\n", graph.ErrVersion},
		{"crawler/graph v0\n", graph.ErrVersion},
		{"crawler/graph\n", graph.ErrVersion},
		{"crawler/graph v1 md5\n", graph.ErrVersion},
		{"crawler/graph v1 xxh3-64/seed=0 extra\n", graph.ErrVersion},
		{"crawler/seen exact v1 xxh3-64/seed=0\n", graph.ErrFormat},
		{"<html>", graph.ErrFormat},
		{"\x00\x01\x02\x03", graph.ErrFormat},
		{strings.Repeat("x", 1<<17), graph.ErrFormat},
	} {
		_, err := graph.Read(io.MultiReader(strings.NewReader(tc.header), bytes.NewReader(body)))
		if tc.err == graph.ErrTruncated {
			_, err = graph.Read(strings.NewReader(tc.header)) // a prefix of the header alone
		}
		if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
			t.Errorf("header %.40q: %v, want %v", tc.header, err, tc.err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "graph: ") {
			t.Errorf("error %q lacks the package prefix", err)
		}
	}
}

// TestReadBoundedAllocation reads records that claim to be huge: the
// reader allocates for the bytes present, not for the claim.
func TestReadBoundedAllocation(t *testing.T) {
	hdr := "crawler/graph v1 xxh3-64/seed=0\n"
	for _, tail := range []string{
		"\x80\x80\x80\x20", // a 64 MiB record, absent
		string(frame([]byte("\x01\xff\xff\xff\xff\x0f\x00\x00"))),     // a record naming 2³² URLs
		string(frame([]byte("\x01\x00\x00\xff\xff\xff\xff\x0f\x00"))), // a page of 2³² links
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := graph.Read(strings.NewReader(hdr + tail))
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%q: no error", tail)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%q: allocated %d bytes", tail, alloc)
		}
	}
}

func TestWriterErrors(t *testing.T) {
	w := graph.NewWriter(io.Discard)
	if err := w.Page("", nil); err == nil {
		t.Error("Page with an empty URL succeeded")
	}
	if err := w.Redirect("http://a/", ""); err == nil {
		t.Error("Redirect to an empty URL succeeded")
	}
	huge := []string{strings.Repeat("x", graph.MaxRecordBytes)}
	if err := w.Page("http://a/", huge); !errors.Is(err, graph.ErrTooLarge) {
		t.Errorf("Page too large: %v", err)
	}
	if err := w.Page("http://a/", []string{"http://a/"}); err != nil {
		t.Errorf("Page after a refused one: %v", err)
	}

	fail := errors.New("disk full")
	w = graph.NewWriter(failWriter{fail})
	if err := w.Page("http://a/", nil); err != nil {
		t.Errorf("buffered Page: %v", err)
	}
	if err := w.Flush(); !errors.Is(err, fail) {
		t.Errorf("Flush: %v, want %v", err, fail)
	}
	if err := w.Page("http://a/", nil); !errors.Is(err, fail) {
		t.Errorf("Page after a failed Flush: %v, want %v", err, fail)
	}
	if err := w.Close(); !errors.Is(err, fail) {
		t.Errorf("Close after a failed Flush: %v, want %v", err, fail)
	}
}

// frame frames a record body as the format does: its length, the body, the
// CRC-32C of both.
func frame(body []byte) []byte {
	b := binary.AppendUvarint(nil, uint64(len(body)))
	crc := crc32.Update(crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)), crc32.MakeTable(crc32.Castagnoli), body)
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, crc)
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

// TestConcurrentWriter records pages from several goroutines at once (run
// with -race).
func TestConcurrentWriter(t *testing.T) {
	var buf bytes.Buffer
	w := graph.NewWriter(&buf)
	const workers, pages = 4, 500
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			for p := i; p < pages; p += workers {
				links := []string{fmt.Sprintf("http://h/%d", (p+1)%pages), fmt.Sprintf("http://h/%d", (p*7)%pages)}
				if err := w.Page(fmt.Sprintf("http://h/%d", p), links); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	g := read(t, buf.Bytes(), graph.ReadOptions{})
	if g.Len() != pages {
		t.Fatalf("%d nodes, want %d", g.Len(), pages)
	}
	for p := range pages {
		k, ok := g.Lookup(fmt.Sprintf("http://h/%d", p))
		if !ok {
			t.Fatalf("page %d missing", p)
		}
		var got []string
		for _, q := range g.Out(k) {
			got = append(got, g.URL(int(q)))
		}
		want := []string{fmt.Sprintf("http://h/%d", (p+1)%pages), fmt.Sprintf("http://h/%d", (p*7)%pages)}
		slices.Sort(got)
		slices.Sort(want)
		want = slices.Compact(want)
		if !slices.Equal(got, want) {
			t.Fatalf("page %d links to %v, want %v", p, got, want)
		}
	}
}

// TestByURL checks ByURL and Lookup of fingerprints.
func TestByURL(t *testing.T) {
	g := read(t, write(t, page{url: "http://a/", links: []string{"http://b/"}}, page{url: "http://b/"}), graph.ReadOptions{})
	m := g.ByURL([]float64{1, 2})
	if len(m) != 2 || m["http://a/"] != 1 || m["http://b/"] != 2 {
		t.Errorf("ByURL: %v", m)
	}
	if k, ok := g.LookupFingerprint(canon.Fingerprint("http://b/")); !ok || k != 1 {
		t.Errorf("LookupFingerprint: %d, %v", k, ok)
	}
	if _, ok := g.Lookup("http://c/"); ok {
		t.Error("Lookup of a URL not in the graph succeeded")
	}
}

// TestHugePage records a page of 50,000 links (a record of about 2 MiB),
// then ordinary pages.
func TestHugePage(t *testing.T) {
	links := make([]string, 50000)
	for i := range links {
		links[i] = fmt.Sprintf("http://h/%d", i)
	}
	data := write(t,
		page{url: "http://h/", links: links},
		page{url: "http://h/7", links: []string{"http://h/", "http://h/8"}},
		page{url: "http://h/8", links: []string{"http://h/7"}},
	)
	g := read(t, data, graph.ReadOptions{})
	if g.Len() != 3 || g.Edges() != 5 {
		t.Errorf("%d nodes, %d edges; want 3, 5", g.Len(), g.Edges())
	}
	all := read(t, data, graph.ReadOptions{KeepUnfetched: true})
	if k, _ := all.Lookup("http://h/"); len(all.Out(k)) != len(links) {
		t.Errorf("KeepUnfetched: the huge page has %d edges, want %d", len(all.Out(k)), len(links))
	}
}
