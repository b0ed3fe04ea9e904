package links

import (
	"errors"
	"io"
	"testing"

	"crawler/crawlertest"
)

// BenchmarkExtractLinks extracts the links of crawlertest pages of ~20 KB
// (text, links, a script), as a crawl does for every HTML page.
//
//	go test -run '^$' -bench ExtractLinks -benchmem -count 10 .
func BenchmarkExtractLinks(b *testing.B) {
	web := crawlertest.NewWeb(crawlertest.Config{Seed: 7, Hosts: 2, PagesPerHost: 50, PageBytes: 20 << 10})
	defer web.Close()
	var pages [][]byte
	var size int64
	for p := range 20 {
		body, err := get(web, web.URL(0, p))
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, body)
		size += int64(len(body))
	}
	b.SetBytes(size / int64(len(pages)))
	b.ReportAllocs()
	links := 0
	for i := 0; b.Loop(); i++ {
		links += len(Extract(pages[i%len(pages)], false, "crawler", defaultMaxLinks).Hrefs)
	}
	if links == 0 {
		b.Fatal("no links found")
	}
}

// get returns the body of a page of web.
func get(web *crawlertest.Web, u string) ([]byte, error) {
	resp, err := web.Client().Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return nil, errors.New(resp.Status)
	}
	return io.ReadAll(resp.Body)
}
