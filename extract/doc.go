// Package extract turns crawled pages into data: CSS selectors (goquery,
// over cascadia) on a DOM parsed once per page, the metadata scrapers
// usually want (title, description, canonical URL, Open Graph, JSON-LD) and
// the text a page shows.
//
//	price, err := extract.ParseRule("price=.product .price")
//	...
//	c := &crawler.Crawler{
//		Handler: extract.Handler(func(ctx context.Context, p *crawler.Page, d *extract.Document) error {
//			fmt.Println(p.URL, d.Title(), price.Texts(d))
//			return nil
//		}),
//	}
//	err = c.Run(ctx, "https://shop.example/")
//
// What colly does with one OnHTML("selector", f) callback per selector is
// one [Handler] here, whose function makes as many selections of the
// [Document] as it likes ([Document.Texts], [Document.Attrs],
// [Document.URLs], [Rules.Extract], or goquery's own API through
// [Document.DOM]), and returns an error the crawler counts. [Rule] is a
// named selector compiled once, as the CLI's -extract NAME=SELECTOR
// gives it. The root package does not depend on goquery: only programs
// that import this package do.
//
// # Cost: a second parse, for the pages you extract from
//
// The crawler never builds a DOM: it finds every HTML page's links with an
// in-place byte scanner (crawler/internal/links) that allocates little. A
// Document is a second reading of the page, a full parse into a tree by
// golang.org/x/net/html, and costs much more. BenchmarkPage measures both
// on the same crawlertest pages (go test -bench Page -benchmem -cpu 1,
// Go 1.26, AMD EPYC, a busy shared machine: best of 26 runs, medians in
// brackets):
//
//	page     scan (links)                     parse (Parse)                     parse/scan
//	4 KiB    12 µs (19), 1.7 KB, 37 allocs    80 µs (129), 27 KB, 473 allocs     6.7× (7.0×)
//	20 KiB   16 µs (23), 1.7 KB, 38 allocs    189 µs (299), 44 KB, 475 allocs    11.5× (12.8×)
//
// The parse grows with the page where the scan hardly does; three rules
// on the parsed page add a tenth or less (op=parse+rules), since a tree is
// walked much faster than it is built. The scan is paid by every page of
// a crawl, the parse only by the pages a caller extracts from, and once
// per page however many selections are made of it, as Handler does. A
// crawl that needs one or two fields of every page at its highest rate
// does better with a tokenizer (see examples/titles); one that scrapes
// with selectors spends the parse where it buys something.
//
// # Text
//
// [Document.Text], [Document.Texts] and [Rule.Texts] give text as a
// reader sees it: entities decoded, white space collapsed, without
// scripts, styles, templates, noscript fallbacks and hidden elements;
// Text puts block elements on lines of their own, Texts gives each match
// on one line.
package extract
