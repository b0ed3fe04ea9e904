package sitemap_test

import (
	"bytes"
	"io"
	"testing"

	"crawler/sitemap"
)

// BenchmarkReader reads a full urlset of 50,000 entries, gzipped; bytes
// per second are of the uncompressed file.
func BenchmarkReader(b *testing.B) {
	plain, err := io.ReadAll(&entries{n: sitemap.MaxEntries})
	if err != nil {
		b.Fatal(err)
	}
	data := gzipped(b, plain)
	b.SetBytes(int64(len(plain)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := sitemap.NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			if _, err := r.Next(); err != nil {
				break
			}
			n++
		}
		if n != sitemap.MaxEntries {
			b.Fatalf("%d entries", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/sitemap.MaxEntries, "ns/entry")
}

// BenchmarkGzipBomb reads a 60 KiB gzip that inflates past 50 MiB: the
// reader stops at MaxSize; B/op is what the cut costs in memory.
func BenchmarkGzipBomb(b *testing.B) {
	var doc bytes.Buffer
	doc.WriteString(`<urlset><url><loc>http://example.com/</loc></url>`)
	pad := bytes.Repeat([]byte(" "), 100<<10)
	for doc.Len() < sitemap.MaxSize+(1<<20) {
		doc.Write(pad)
		doc.WriteString("<!---->")
	}
	bomb := gzipped(b, doc.Bytes())
	b.ReportAllocs()
	for b.Loop() {
		r, err := sitemap.NewReader(bytes.NewReader(bomb))
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); err != nil {
				if err != sitemap.ErrTooLarge {
					b.Fatal(err)
				}
				break
			}
		}
	}
	b.ReportMetric(float64(len(bomb)), "gzip-bytes")
}
