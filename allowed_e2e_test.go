package crawler_test

import (
	"context"
	"errors"
	"testing"

	"crawler"
)

// RobotsAllowed answers for the requests a Fetcher makes on its own (a
// rendering browser's scripts and images), from the Run's robots.txt
// cache: the file is fetched once for the crawl's pages and these.
func TestRobotsAllowed(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		s := newSite(t, map[string]response{
			"/robots.txt": {ctype: "text/plain", body: "User-agent: *\nDisallow: /private/\n"},
			"/":           html(),
		})
		type answer struct {
			ok  bool
			err error
		}
		got := map[string]answer{}
		var c *crawler.Crawler
		c = fast(crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
			for _, path := range []string{"/private/app.js", "/public/app.js"} {
				ok, err := c.RobotsAllowed(ctx, s.URL+path)
				got[path] = answer{ok, err}
			}
			_, err := c.RobotsAllowed(ctx, "mailto:x@example.com")
			got["mailto"] = answer{false, err}
			return nil
		}))
		c.IgnoreRobots = ignore
		if err := c.Run(context.Background(), s.URL+"/"); err != nil {
			t.Fatal(err)
		}
		if a := got["/private/app.js"]; a.err != nil || a.ok != ignore {
			t.Errorf("IgnoreRobots %v: /private/app.js allowed %v, %v", ignore, a.ok, a.err)
		}
		if a := got["/public/app.js"]; a.err != nil || !a.ok {
			t.Errorf("IgnoreRobots %v: /public/app.js allowed %v, %v", ignore, a.ok, a.err)
		}
		if got["mailto"].err == nil {
			t.Error("a mailto: URL gave no error")
		}
		want := 1
		if ignore {
			want = 0
		}
		if n := s.count("/robots.txt"); n != want {
			t.Errorf("IgnoreRobots %v: robots.txt fetched %d times, want %d", ignore, n, want)
		}
		if st := c.Stats(); !ignore && st.RobotsBlocked != 1 {
			t.Errorf("RobotsBlocked %d, want 1 (the disallowed subresource)", st.RobotsBlocked)
		}
		if _, err := c.RobotsAllowed(context.Background(), s.URL+"/"); !errors.Is(err, crawler.ErrNotRunning) {
			t.Errorf("after Run: %v, want ErrNotRunning", err)
		}
	}
}
