package crawler

import (
	"testing"

	"crawler/cookies"
	"crawler/fetch"
)

// TestDefaultFetcherKeepsCookies checks that a Crawler with no Fetcher
// crawls with a cookie jar, the same for every Run of the crawl.
func TestDefaultFetcherKeepsCookies(t *testing.T) {
	c := &Crawler{}
	first, ok := c.newRun(nil).fetcher.(*fetch.HTTPFetcher)
	if !ok {
		t.Fatalf("the default fetcher is a %T", c.newRun(nil).fetcher)
	}
	if _, ok := first.Jar.(*cookies.Jar); !ok {
		t.Fatalf("the default fetcher's Jar is %T; want a *cookies.Jar", first.Jar)
	}
	if second := c.newRun(nil).fetcher; second != first {
		t.Error("a second Run has another fetcher, and so another jar: its sessions are lost")
	}
}
