package crawlertest_test

import (
	"fmt"
	"io"
	"strings"

	"crawler/crawlertest"
)

// Example serves a web, fetches its seed with the web's client, and reads
// the ground truth of a crawl.
func Example() {
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 1})
	defer w.Close()

	resp, err := w.Client().Get(w.Seeds()[0])
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	_, title, _ := strings.Cut(string(body), "<title>")
	title, _, _ = strings.Cut(title, "</title>")
	fmt.Println(resp.Status, title)

	depths := w.Depths() // every URL a compliant crawler fetches, with its depth
	fmt.Println(depths["http://h0.crawler.test/"], depths["http://h0.crawler.test/p/1"], depths["http://h1.crawler.test/"])
	// Output:
	// 200 OK Host 0 page 0
	// 0 1 1
}

// ExampleWeb_Requests shows that the request log counts a page fetched under
// two spellings twice, under its canonical URL.
func ExampleWeb_Requests() {
	w := crawlertest.NewWeb(crawlertest.Config{})
	defer w.Close()
	c := w.Client()
	for _, u := range []string{"http://h3.crawler.test/p/5", "HTTP://H3.Crawler.Test:80/x/../p/%35"} {
		resp, err := c.Get(u)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
	}
	fmt.Println(w.Requests("http://h3.crawler.test/p/5"), w.RequestCounts())
	// Output:
	// 2 map[http://h3.crawler.test/p/5:2]
}
