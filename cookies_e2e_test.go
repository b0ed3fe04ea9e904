package crawler_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

// A cookie bomb through the Crawler: a site whose pages each set 1,000
// new cookies, 20,000 in all. The jar keeps 50 for the site, no request
// carries a Cookie header above 50 cookies of 4 KiB, every page is
// fetched, and the heap stays small (sampled every millisecond).
func TestCrawlCookieBomb(t *testing.T) {
	t.Parallel()
	const perPage, pages = 1000, 20
	var maxHeader atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := int64(len(r.Header.Get("Cookie"))); n > maxHeader.Load() {
			maxHeader.Store(n) // one worker: no race between load and store
		}
		var round int
		fmt.Sscanf(r.URL.Path, "/bomb/%d", &round)
		for i := range perPage {
			w.Header().Add("Set-Cookie", fmt.Sprintf("c%d=%0100d; Path=/", round*perPage+i, i))
		}
		w.Header().Set("Content-Type", "text/html")
		if round+1 < pages {
			fmt.Fprintf(w, `<a href="/bomb/%d">next</a>`, round+1)
		}
	}))
	defer srv.Close()
	jar := &cookies.Jar{}
	c := fast(nil)
	c.Workers = 1
	c.Fetcher = &fetch.HTTPFetcher{Addresses: testLoopback, Jar: jar}
	stop := heapPeak(time.Millisecond)
	err := c.Run(context.Background(), srv.URL+"/bomb/0")
	peak := stop()
	if err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Fetched != pages {
		t.Errorf("%d responses; want %d pages", st.Fetched, pages)
	}
	if n := jar.Len(); n != cookies.DefaultPerSite {
		t.Errorf("the jar holds %d cookies; want %d", n, cookies.DefaultPerSite)
	}
	if bound := int64(cookies.DefaultPerSite * (cookies.DefaultCookieBytes + 2)); maxHeader.Load() > bound {
		t.Errorf("a Cookie header of %d bytes; want at most %d", maxHeader.Load(), bound)
	}
	t.Logf("heap peak %.1f MiB", float64(peak)/(1<<20))
	const bound = 64 << 20
	if !raceEnabled && peak > bound {
		t.Errorf("heap peak %d MiB; want at most %d", peak>>20, bound>>20)
	}
}
