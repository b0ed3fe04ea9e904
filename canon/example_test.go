package canon_test

import (
	"fmt"
	"net/url"

	"crawler/canon"
)

func ExampleCanonicalizer_Canonical() {
	var c canon.Canonicalizer // core rules only
	for _, raw := range []string{
		"HTTP://Example.COM:80/a/./b/../c?q=%7e#top",
		"http://münchen.de/%7Euser/a%2fb",
		"http://0x7f.1:8080",
		"javascript:void(0)",
	} {
		u, err := c.Canonical(raw)
		fmt.Println(u, err)
	}
	// Output:
	// http://example.com/a/c?q=~ <nil>
	// http://xn--mnchen-3ya.de/~user/a%2Fb <nil>
	// http://127.0.0.1:8080/ <nil>
	//  canon: scheme is missing or not http(s): "javascript:void(0)"
}

func ExampleCanonicalizer_Resolve() {
	c := canon.Canonicalizer{SortQuery: true, StripSessionIDs: true}
	page, _ := url.Parse("https://example.com/docs/guide/intro.html")
	for _, href := range []string{
		"../api/",
		"setup.html?b=2&a=1&PHPSESSID=42#install",
		"//cdn.example.com/app.js",
		" /search?q=a b ",
		"mailto:team@example.com",
	} {
		u, err := c.Resolve(page, href)
		fmt.Println(u, err)
	}
	// Output:
	// https://example.com/docs/api/ <nil>
	// https://example.com/docs/guide/setup.html?a=1&b=2 <nil>
	// https://cdn.example.com/app.js <nil>
	// https://example.com/search?q=a%20b <nil>
	//  canon: scheme is missing or not http(s): "mailto:team@example.com"
}

func ExampleFingerprint() {
	var c canon.Canonicalizer
	a, _ := c.Canonical("http://Example.com:80/index.html#top")
	b, _ := c.Canonical("http://example.com/index.html")
	fmt.Println(canon.Fingerprint(a) == canon.Fingerprint(b))
	fmt.Println(canon.Host(a))
	// Output:
	// true
	// example.com
}
