package crawler_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"crawler"
	"crawler/cookies"
	"crawler/crawlertest"
	"crawler/fetch"
)

// TestCookieRedirectSite crawls a site that gives each new visitor a
// cookie and redirects it to the page itself: with a jar, every page is
// fetched and handled once; without one, none is.
func TestCookieRedirectSite(t *testing.T) {
	t.Parallel()
	for _, withJar := range []bool{true, false} {
		s := crawlertest.NewSessionSite(crawlertest.SessionConfig{Pages: 8})
		defer s.Close()
		var mu sync.Mutex
		handled := map[string]int{}
		var errs []error
		c := fast(crawler.HandlerFunc(func(_ context.Context, p *crawler.Page) error {
			mu.Lock()
			defer mu.Unlock()
			handled[p.URL]++
			if p.Err != nil {
				errs = append(errs, p.Err)
			}
			return nil
		}))
		if withJar {
			c.Fetcher = &fetch.HTTPFetcher{Addresses: testLoopback, Jar: &cookies.Jar{}}
		}
		if err := c.Run(context.Background(), s.URL()+"/cookie/1"); err != nil {
			t.Fatal(err)
		}
		pages := 0
		for i := 1; i <= s.Pages(); i++ {
			u := fmt.Sprintf("%s/cookie/%d", s.URL(), i)
			if n := handled[u]; n > 1 || withJar && n != 1 {
				t.Errorf("jar %v: %s handled %d times", withJar, u, n)
			}
			pages += handled[u]
		}
		st := c.Stats()
		switch {
		case withJar && (pages != s.Pages() || st.Redirects != 1 || st.Requests != int64(s.Pages())+1):
			t.Errorf("with a jar: %d pages handled, %d redirects, %d requests; want %d, 1 (the first visit), %d",
				pages, st.Redirects, st.Requests, s.Pages(), s.Pages()+1)
		case withJar && len(errs) > 0:
			t.Errorf("with a jar: errors %v", errs)
		case !withJar && (pages != 1 || len(errs) != 1 || !errors.Is(errs[0], crawler.ErrTooManyRedirects) ||
			st.Requests != crawler.DefaultMaxRedirects+1):
			// Without cookies the page redirects to itself until MaxRedirects,
			// then reaches the Handler with ErrTooManyRedirects.
			t.Errorf("without a jar: %d pages handled, errors %v, %d requests; want 1, ErrTooManyRedirects, %d",
				pages, errs, st.Requests, crawler.DefaultMaxRedirects+1)
		}
	}
}
