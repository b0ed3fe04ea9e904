package extract_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"

	"crawler"
	"crawler/extract"
	"crawler/fetch"
	"crawler/politeness"
)

// A page built by hand, as a Handler would get it from the crawler.
func ExampleParse() {
	p := &crawler.Page{
		URL:         "https://shop.example/tea/",
		Status:      200,
		ContentType: "text/html; charset=utf-8",
		Body: []byte(`<!DOCTYPE html>
<html><head>
<title>Green tea &amp; more</title>
<meta name="description" content="Teas from
 three continents.">
<link rel="canonical" href="/tea">
<meta property="og:type" content="product">
<script type="application/ld+json">{"@type": "Product", "name": "Sencha"}</script>
<script>track("view")</script>
</head><body>
<h1>Sencha</h1>
<p class="price">  4.50 <abbr>EUR</abbr> </p>
<ul><li><a href="matcha">Matcha</a></li><li><a href="../coffee/">Coffee</a></li></ul>
</body></html>`),
	}
	d, err := extract.Parse(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	prices, _ := d.Texts(".price")
	links, _ := d.URLs("li a", "href")
	fmt.Println("title:", d.Title())
	fmt.Println("description:", d.Description())
	fmt.Println("canonical:", d.Canonical())
	fmt.Println("og:", d.OpenGraph())
	fmt.Println("json-ld:", string(d.JSONLD()[0]))
	fmt.Printf("prices: %q\n", prices)
	fmt.Printf("links: %q\n", links)
	fmt.Printf("text: %q\n", d.Text())
	// Output:
	// title: Green tea & more
	// description: Teas from three continents.
	// canonical: https://shop.example/tea
	// og: map[og:type:product]
	// json-ld: {"@type": "Product", "name": "Sencha"}
	// prices: ["4.50 EUR"]
	// links: ["https://shop.example/tea/matcha" "https://shop.example/coffee/"]
	// text: "Sencha\n4.50 EUR\nMatcha\nCoffee"
}

// Rules as the CLI's -extract flags give them, applied to a page.
func ExampleRules() {
	var rules extract.Rules
	for _, flag := range []string{"name=h1", "price=.price", "tags=ul.tags > li", "reviews=.review"} {
		r, err := extract.ParseRule(flag)
		if err != nil {
			fmt.Println(err)
			return
		}
		rules = append(rules, r)
	}
	_, err := extract.ParseRule("price .price")
	fmt.Println(err)

	d, err := extract.Parse(&crawler.Page{
		URL:  "https://shop.example/tea/sencha",
		Body: []byte(`<h1>Sencha</h1><p class=price>4.50 EUR</p><ul class=tags><li>green</li><li>Japan</li></ul>`),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	data := rules.Extract(d)
	for _, name := range slices.Sorted(maps.Keys(data)) {
		fmt.Printf("%s: %q\n", name, data[name])
	}
	// Output:
	// extract: rule "price .price": want NAME=SELECTOR, found no '='
	// name: ["Sencha"]
	// price: ["4.50 EUR"]
	// reviews: []
	// tags: ["green" "Japan"]
}

// A crawl of a small site on loopback that extracts from every HTML page;
// the image it links to is fetched, but not handed to the function.
func ExampleHandler() {
	site := http.NewServeMux()
	site.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Home</title><h1>Welcome</h1><a href="/tea">Tea</a> <a href="/logo.png">logo</a>`)
	})
	site.HandleFunc("/tea", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Tea</title><h1>Green</h1><h1>Black</h1><a href="/">Home</a>`)
	})
	site.HandleFunc("/logo.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	srv := httptest.NewServer(site)
	defer srv.Close()

	h1 := extract.Rules{{Name: "h1", Selector: "h1"}}
	var (
		mu    sync.Mutex // the function runs on many workers at once
		lines []string
	)
	c := &crawler.Crawler{
		Handler: extract.Handler(func(ctx context.Context, p *crawler.Page, d *extract.Document) error {
			line := fmt.Sprintf("%s %q %q", strings.TrimPrefix(p.URL, srv.URL), d.Title(), h1.Extract(d)["h1"])
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, line)
			return nil
		}),
		Pacing: politeness.Pacing{Delay: -1}, // our own server: no politeness delay
		Fetcher: &fetch.HTTPFetcher{Addresses: fetch.AddressPolicy{
			AllowAddrPorts: []netip.AddrPort{netip.MustParseAddrPort(srv.Listener.Addr().String())},
		}},
	}
	if err := c.Run(context.Background(), srv.URL+"/"); err != nil {
		fmt.Println(err)
	}
	slices.Sort(lines)
	fmt.Println(strings.Join(lines, "\n"))
	fmt.Println("fetched:", c.Stats().Fetched)
	// Output:
	// / "Home" ["Welcome"]
	// /tea "Tea" ["Green" "Black"]
	// fetched: 3
}
