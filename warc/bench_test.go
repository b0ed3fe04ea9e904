package warc_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"crawler/fetch"
	"crawler/warc"
)

// htmlPage returns n bytes of made-up HTML, about as compressible as a
// real page (gzip takes it to a third or so).
func htmlPage(n int) []byte {
	words := strings.Fields(`the crawler archive record page link index news about contact
		search home article story world business science health sport weather video
		photo comment share login account privacy terms cookie policy today update
		report city market energy climate music film book travel food school data`)
	tags := []string{"p", "li", "span", "a", "h2", "div", "td"}
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>A page</title></head><body>\n")
	for b.Len() < n {
		tag := tags[r.IntN(len(tags))]
		fmt.Fprintf(&b, `<%s class="c%d">`, tag, r.IntN(40))
		if tag == "a" {
			fmt.Fprintf(&b, `<a href="/%s/%d">`, words[r.IntN(len(words))], r.IntN(100000))
		}
		for range 3 + r.IntN(12) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "</%s>\n", tag)
	}
	return []byte(b.String()[:n])
}

// BenchmarkWriterRecord records a typical page, 8 KiB of HTML, as sent
// plain and as sent gzip-encoded and chunked, and a redirect (a small
// exchange, as most of a crawl's are), to a file: with the Writer's
// compressors (the default), and with none (compressors=none: on the
// caller's goroutine). The time includes writing every exchange taken.
func BenchmarkWriterRecord(b *testing.B) {
	page := htmlPage(8 << 10)
	const url = "https://www.example.com/news/2026/11/26/a-typical-article.html"
	head := "HTTP/1.1 200 OK\r\nDate: Thu, 26 Nov 2026 03:15:00 GMT\r\nServer: nginx\r\n" +
		"Content-Type: text/html; charset=utf-8\r\nCache-Control: max-age=600\r\n" +
		"ETag: \"5f3a-61c2b\"\r\nLast-Modified: Wed, 25 Nov 2026 22:01:13 GMT\r\nVary: Accept-Encoding\r\n"
	plain := []byte(head + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(page)) + string(page))
	gz := []byte(head + "Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n" +
		string(chunked(gzipped(b, string(page)), 4096)))
	moved := "<html><body>Moved to <a href=\"/news/2026/11/26/a-typical-article-2.html\">here</a>.</body></html>\n"
	redirect := []byte("HTTP/1.1 301 Moved Permanently\r\nDate: Thu, 26 Nov 2026 03:15:00 GMT\r\nServer: nginx\r\n" +
		"Location: /news/2026/11/26/a-typical-article-2.html\r\nContent-Type: text/html; charset=utf-8\r\n" +
		fmt.Sprintf("Content-Length: %d\r\n\r\n", len(moved)) + moved)
	for _, c := range []struct {
		name     string
		response []byte
	}{
		{"body=html8KiB", plain},
		{"body=gzip+chunked", gz},
		{"body=redirect", redirect},
	} {
		x := &fetch.Exchange{URL: url, IP: "192.0.2.1", Date: time.Now(), Request: get(url), Response: c.response}
		for _, m := range []struct {
			name string
			opts warc.Options
		}{
			{"", warc.Options{}},
			{"/compressors=none", warc.Options{Compressors: -1}},
		} {
			b.Run(c.name+m.name, func(b *testing.B) {
				w := newWriter(b, b.TempDir(), m.opts)
				b.SetBytes(int64(len(x.Request) + len(x.Response)))
				b.ReportAllocs()
				for b.Loop() {
					if err := w.Record(context.Background(), x); err != nil {
						b.Fatal(err)
					}
				}
				w.Files() // waits for the exchanges taken
				b.StopTimer()
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
				reportFileBytes(b, w)
			})
			b.Run(c.name+m.name+"/parallel", func(b *testing.B) {
				w := newWriter(b, b.TempDir(), m.opts)
				b.SetBytes(int64(len(x.Request) + len(x.Response)))
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if err := w.Record(context.Background(), x); err != nil {
							b.Error(err)
							return
						}
					}
				})
				w.Files()
				b.StopTimer()
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
				reportFileBytes(b, w)
			})
		}
	}
}

// reportFileBytes reports the bytes of w's files for each exchange, as
// file-B/op.
func reportFileBytes(b *testing.B, w *warc.Writer) {
	var n int64
	for _, path := range w.Files() {
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		n += fi.Size()
	}
	b.ReportMetric(float64(n)/float64(b.N), "file-B/op")
}

// BenchmarkReader reads and verifies the records of a file of 8 KiB pages.
func BenchmarkReader(b *testing.B) {
	page := htmlPage(8 << 10)
	const url = "https://www.example.com/a.html"
	x := &fetch.Exchange{URL: url, Date: time.Now(), Request: get(url),
		Response: []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(page), page))}
	w := newWriter(b, b.TempDir(), warc.Options{})
	for range 100 {
		if err := w.Record(context.Background(), x); err != nil {
			b.Fatal(err)
		}
	}
	w.Close()
	data := readBytes(b, w.Files()[0])
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := warc.NewReader(bytesReader(data))
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			if err := rec.Verify(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
