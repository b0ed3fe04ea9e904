package sitemap_test

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"crawler/canon"
	"crawler/sitemap"
)

func Example() {
	body := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.com/shop/a</loc><lastmod>2026-11-01</lastmod></url>
  <url><loc>https://example.com/elsewhere</loc></url>
  <url><loc>https://example.com/shop/b</loc><priority>0.9</priority></url>
</urlset>`
	at, _ := url.Parse("https://example.com/shop/sitemap.xml") // found at /sitemap.xml, not in robots.txt
	r, err := sitemap.NewReader(strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			fmt.Println(err)
			return
		}
		loc, err := url.Parse(e.Loc)
		if err != nil || !sitemap.Allowed(at, loc, "") {
			fmt.Println("out of scope:", e.Loc)
			continue
		}
		fmt.Println(r.Kind(), e.Loc, e.LastMod.Format("2006-01-02"), e.Priority)
	}
	// Output:
	// urlset https://example.com/shop/a 2026-11-01 0.5
	// out of scope: https://example.com/elsewhere
	// urlset https://example.com/shop/b 0001-01-01 0.9
}

func ExampleDiscovery() {
	d := &sitemap.Discovery{} // Auto, not a recrawl: the sitemaps robots.txt lists
	page, _ := url.Parse("https://example.com/")
	// https://example.com/robots.txt was fetched for page; its Sitemap lines:
	maps := d.FromRobots(page, []string{"/maps/news.txt"})
	fmt.Println(maps)

	at, _ := url.Parse(maps[0])
	body := "https://example.com/2026/story\nhttps://other.example/story\n"
	l := d.Read(context.Background(), at, canon.Fingerprint(maps[0]), []byte(body))
	fmt.Println(l.Kind, l.URLs, l.OutOfScope)

	notes, _ := url.Parse("https://example.com/notes.txt") // a text file robots.txt does not list
	fmt.Println(d.Read(context.Background(), notes, canon.Fingerprint(notes.String()), []byte(body)) == nil)
	// Output:
	// [https://example.com/maps/news.txt]
	// text [https://example.com/2026/story] 1
	// true
}
