package cookies_test

import (
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"testing"

	"golang.org/x/net/publicsuffix"

	"crawler/cookies"
)

// BenchmarkSetCookies stores a response's 3 cookies, one of a domain,
// over 1000 sites, into a jar at its bound of 3000 cookies: most stores
// evict the least recently used. Alongside, net/http/cookiejar, which
// keeps them all (some 120,000).
func BenchmarkSetCookies(b *testing.B) {
	b.Run("jar=cookies", func(b *testing.B) { benchSetCookies(b, &cookies.Jar{}) })
	b.Run("jar=cookiejar", func(b *testing.B) { benchSetCookies(b, newCookiejar(b)) })
}

func newCookiejar(b *testing.B) http.CookieJar {
	j, err := cookiejar.New(&cookiejar.Options{PublicSuffixList: publicsuffix.List})
	if err != nil {
		b.Fatal(err)
	}
	return j
}

func benchSetCookies(b *testing.B, j http.CookieJar) {
	urls := make([]*url.URL, 1000)
	for i := range urls {
		urls[i] = mustURL(fmt.Sprintf("https://www.site%d.test/path/page", i))
	}
	batch := func(n int) []*http.Cookie {
		return (&http.Response{Header: http.Header{"Set-Cookie": {
			fmt.Sprintf("session%d=0123456789abcdef0123456789abcdef; Path=/; Secure; HttpOnly", n%60),
			fmt.Sprintf("pref%d=1; Domain=site%d.test; Max-Age=3600", n%60, n%1000),
			"visit=1",
		}}}).Cookies()
	}
	batches := make([][]*http.Cookie, 256)
	for i := range batches {
		batches[i] = batch(i)
	}
	for i := range 60 * 1000 {
		j.SetCookies(urls[i%1000], batches[i%256])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		j.SetCookies(urls[i%1000], batches[i%256])
		i++
	}
}

// BenchmarkCookies builds the cookies of a request to a site holding 50
// cookies on the paths /p0 and /p1, 20 of which match, in a jar of 3000.
func BenchmarkCookies(b *testing.B) {
	b.Run("jar=cookies", func(b *testing.B) { benchCookies(b, &cookies.Jar{}) })
	b.Run("jar=cookiejar", func(b *testing.B) { benchCookies(b, newCookiejar(b)) })
}

func benchCookies(b *testing.B, j http.CookieJar) {
	for s := range 60 {
		for i := range 50 {
			u := mustURL(fmt.Sprintf("https://www.site%d.test/p%d/x", s, i%5))
			j.SetCookies(u, []*http.Cookie{{Name: fmt.Sprintf("c%d", i), Value: "0123456789abcdef", Path: fmt.Sprintf("/p%d", i%5%2)}})
		}
	}
	u := mustURL("https://www.site7.test/p1/page")
	if n := len(j.Cookies(u)); n != 20 {
		b.Fatalf("%d cookies match, want 20", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		j.Cookies(u)
	}
}
