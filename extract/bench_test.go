package extract_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"

	"crawler"
	"crawler/crawlertest"
	"crawler/extract"
	"crawler/internal/links"
)

// BenchmarkPage compares what a page costs the crawl with what extraction
// adds: op=scan is the in-place link scan the crawler runs on every HTML
// page (internal/links, as BenchmarkExtractLinks there), op=parse the
// DOM parse of Parse, which only pages a caller extracts from pay, and
// op=parse+rules that parse and three rules. Both read the same
// crawlertest pages, of the default size (4 KiB) and of 20 KiB.
//
//	go test -run '^$' -bench Page -benchmem -count 6 ./extract
func BenchmarkPage(b *testing.B) {
	rules := extract.Rules{mustRule(b, "title=title"), mustRule(b, "h1=h1"), mustRule(b, "links=p a[href]")}
	for _, size := range []int{crawlertest.DefaultPageBytes, 20 << 10} {
		pages := benchPages(b, size)
		var total int64
		for _, p := range pages {
			total += int64(len(p.Body))
		}
		run := func(name string, f func(p *crawler.Page) int) {
			b.Run(fmt.Sprintf("op=%s/bytes=%d", name, size), func(b *testing.B) {
				b.SetBytes(total / int64(len(pages)))
				b.ReportAllocs()
				found := 0
				for i := 0; b.Loop(); i++ {
					found += f(pages[i%len(pages)])
				}
				if found == 0 {
					b.Fatal("found nothing")
				}
			})
		}
		run("scan", func(p *crawler.Page) int {
			return len(links.Extract(p.Body, false, "crawler", crawler.DefaultMaxLinksPerPage).Hrefs)
		})
		run("parse", func(p *crawler.Page) int {
			d, err := extract.Parse(p)
			if err != nil {
				b.Fatal(err)
			}
			return len(d.DOM().Nodes)
		})
		run("parse+rules", func(p *crawler.Page) int {
			d, err := extract.Parse(p)
			if err != nil {
				b.Fatal(err)
			}
			return len(rules.Extract(d)["links"])
		})
	}
}

// benchPages fetches 20 pages of a crawlertest web of pages of about size
// bytes.
func benchPages(b *testing.B, size int) []*crawler.Page {
	web := crawlertest.NewWeb(crawlertest.Config{Seed: 7, Hosts: 2, PagesPerHost: 50, PageBytes: size})
	defer web.Close()
	var pages []*crawler.Page
	for n := range 20 {
		u := web.URL(0, n)
		resp, err := web.Client().Get(u)
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode != http.StatusOK {
			err = errors.New(resp.Status)
		}
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, &crawler.Page{URL: u, Status: resp.StatusCode, Header: resp.Header, ContentType: resp.Header.Get("Content-Type"), Body: body})
	}
	return pages
}

func mustRule(tb testing.TB, s string) extract.Rule {
	tb.Helper()
	r, err := extract.ParseRule(s)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}
