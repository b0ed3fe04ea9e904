package crawler_test

import (
	"context"
	"crawler/frontier"
	"errors"
	"strings"
	"sync"
	"testing"

	"crawler"
	"crawler/internal/leak"
)

func TestHandlerErrorsAndPanics(t *testing.T) {
	s := chainSite(t, 2)
	var calls sync.Map
	c := fast(crawler.HandlerFunc(func(_ context.Context, p *crawler.Page) error {
		calls.Store(p.URL, true)
		switch {
		case strings.HasSuffix(p.URL, "/x"):
			return errors.New("boom")
		case strings.HasSuffix(p.URL, "/y"):
			panic("bang")
		}
		return nil
	}))
	if err := c.Run(context.Background(), s.URL+"/0"); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Errors[crawler.KindHandler] != 4 || st.Fetched != 7 {
		t.Errorf("stats = %+v, want 4 handler errors and the crawl finished", st)
	}
}

func TestPagesIterator(t *testing.T) {
	leak.Check(t)
	s := chainSite(t, 30)
	c := fast(nil)
	var n int
	for p, err := range c.Pages(context.Background(), s.URL+"/0") {
		if err != nil {
			t.Fatal(err)
		}
		if p.Status != 200 && p.URL != s.URL+"/30" {
			t.Errorf("%s: status %d", p.URL, p.Status)
		}
		n++
	}
	if n != 91 { // 30 chain pages with 2 leaves each, and the 404 at the end
		t.Errorf("iterated %d pages, want 91", n)
	}

	c = fast(nil)
	n = 0
	for range c.Pages(context.Background(), s.URL+"/0") {
		n++
		if n == 5 {
			break
		}
	}
	if st := c.Stats(); st.Fetched > 5+int64(c.Workers) || st.InFlight != 0 {
		t.Errorf("after break: %+v", st)
	}

	c = fast(nil)
	var last error
	for _, err := range c.Pages(context.Background(), "gopher://x/") {
		last = err
	}
	if last == nil {
		t.Error("bad seed: no error yielded")
	}
}

// Breaking out of Pages loses no URL: the pages fetched but not yielded go
// back to the frontier, and a Pages that resumes yields them.
func TestPagesBreakLosesNothing(t *testing.T) {
	leak.Check(t)
	s := chainSite(t, 20) // 61 pages
	c := fast(nil)
	c.Workers, c.Frontier = 8, &frontier.FIFO{PerHost: 8} // several pages in flight at the break
	yielded := map[string]int{}
	n := 0
	for p, err := range c.Pages(context.Background(), s.URL+"/0") {
		if err != nil {
			t.Fatal(err)
		}
		yielded[p.URL]++
		if n++; n == 5 {
			break
		}
	}
	for p, err := range c.Pages(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		yielded[p.URL]++
	}
	if len(yielded) != 61 {
		t.Errorf("the two loops yielded %d distinct pages, want all 61", len(yielded))
	}
	for u, k := range yielded {
		if k != 1 {
			t.Errorf("%s yielded %d times", u, k)
		}
	}
}
