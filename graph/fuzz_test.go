package graph_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"crawler/graph"
)

// sortedDump returns g as sorted lines of a URL and its out-edges' sorted
// URLs: the graph independent of node numbers.
func sortedDump(g *graph.Graph) string {
	lines := make([]string, g.Len())
	for k := range lines {
		var out []string
		for _, t := range g.Out(k) {
			out = append(out, g.URL(int(t)))
		}
		slices.Sort(out)
		lines[k] = g.URL(k) + " -> " + strings.Join(out, " ")
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// framed makes a file of the record bodies that data holds, each as a
// length byte and that many bytes, framed with valid checksums, so that the
// fuzzer reaches the record parser past the checksums.
func framed(data []byte) []byte {
	file := []byte("crawler/graph v1 xxh3-64/seed=0\n")
	for len(data) > 0 {
		n := min(int(data[0]), len(data)-1)
		file = append(file, frame(data[1:1+n])...)
		data = data[1+n:]
	}
	return file
}

// unframe returns the input for which the fuzz function makes file: 0,
// then each record's body after its length, in a byte.
func unframe(t testing.TB, file []byte) []byte {
	out := []byte{0}
	whole := file
	file = file[len("crawler/graph v1 xxh3-64/seed=0\n"):]
	for len(file) > 0 {
		n, k := binary.Uvarint(file)
		if k <= 0 || n > 255 {
			t.Fatalf("record of %d bytes", n)
		}
		out = append(out, byte(n))
		out = append(out, file[k:k+int(n)]...)
		file = file[k+int(n)+4:]
	}
	if !bytes.Equal(framed(out[1:]), whole) {
		t.Fatal("unframe does not invert framed")
	}
	return out
}

// FuzzRead reads arbitrary input, as a file and as record bodies framed
// with valid checksums: Read must not panic, must return a graph exactly
// when the error is nil or ErrTruncated, must bound nodes and edges by the
// input's size, and the graph must be consistent and survive a round trip
// through a Writer.
func FuzzRead(f *testing.F) {
	valid := write(f,
		page{url: "http://a/", links: []string{"http://a/1", "http://a/2", "http://b/", "http://a/"}},
		page{url: "http://a/1", links: []string{"http://a/2"}},
		page{url: "http://a/r", links: []string{"http://a/1"}, redirect: true},
		page{url: "http://a/2", links: []string{"http://a/r", "http://a/loop"}},
		page{url: "http://a/loop", links: []string{"http://a/loop"}, redirect: true},
		page{url: "http://a/1", links: []string{"http://a/"}},
	)
	f.Add(valid)
	f.Add(valid[:len(valid)-3])
	f.Add(valid[:40])
	f.Add([]byte("crawler/graph v1 xxh3-64/seed=0\n"))
	f.Add([]byte("crawler/graph v2 xxh3-64/seed=0\n"))
	f.Add([]byte{})
	f.Add(unframe(f, valid))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		in := data
		if len(data) > 0 && data[0] == 0 {
			in = framed(data[1:])
		}
		g, err := graph.Read(bytes.NewReader(in))
		switch {
		case err == nil || errors.Is(err, graph.ErrTruncated):
			if g == nil {
				t.Fatalf("no graph with %v", err)
			}
		case errors.Is(err, graph.ErrFormat), errors.Is(err, graph.ErrVersion),
			errors.Is(err, graph.ErrCorrupt), errors.Is(err, graph.ErrTooLarge):
			if g != nil {
				t.Fatalf("a graph with %v", err)
			}
			return
		default:
			t.Fatalf("unexpected error %v", err)
		}
		if g.Len() > len(in)/2 || g.Edges() > len(in) {
			t.Fatalf("%d nodes and %d edges from %d bytes", g.Len(), g.Edges(), len(in))
		}
		check(t, g)

		all, err2 := graph.ReadOptions{KeepUnfetched: true}.Read(bytes.NewReader(in))
		if (err == nil) != (err2 == nil) || all == nil {
			t.Fatalf("KeepUnfetched: %v; default: %v", err2, err)
		}
		check(t, all)
		if all.Pages() != g.Len() || all.Len() < g.Len() {
			t.Fatalf("KeepUnfetched: %d pages of %d nodes; default: %d nodes", all.Pages(), all.Len(), g.Len())
		}
		for k := range g.Len() {
			if all.URL(k) != g.URL(k) {
				t.Fatalf("node %d: %q with KeepUnfetched, %q without", k, all.URL(k), g.URL(k))
			}
		}

		// Writing the graph's pages and reading them gives it back.
		var buf bytes.Buffer
		w := graph.NewWriter(&buf)
		for k := range g.Len() {
			var links []string
			for _, q := range g.Out(k) {
				links = append(links, g.URL(int(q)))
			}
			if err := w.Page(g.URL(k), links); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		again := read(t, buf.Bytes(), graph.ReadOptions{})
		if got, want := sortedDump(again), sortedDump(g); got != want {
			t.Fatalf("round trip:\n%s\nwant:\n%s", got, want)
		}
	})
}
