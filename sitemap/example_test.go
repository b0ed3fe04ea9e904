package sitemap_test

import (
	"fmt"
	"io"
	"net/url"
	"strings"

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
