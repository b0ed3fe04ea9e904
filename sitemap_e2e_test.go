package crawler_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"crawler"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/revisit"
	"crawler/sitemap"
)

func gzipString(t *testing.T, s string) string {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte(s))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func urlsetOf(base string, paths ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, p := range paths {
		fmt.Fprintf(&b, "<url><loc>%s%s</loc><lastmod>2026-11-01</lastmod></url>\n", base, p)
	}
	b.WriteString("</urlset>")
	return b.String()
}

// sitemapSite serves a seed page with no links, and pages no link reaches
// that sitemaps list: robots.txt -> an index -> a gzipped urlset, a text
// list and a gzip bomb, and /sitemap.xml, which robots.txt does not list.
// The bomb is one entry, bombMiB MiB of blanks, then another entry: 60
// inflates past a sitemap's 50 MiB (and costs seconds under -race to make
// and to read); 0 makes it a small urlset of the two entries, for a test
// that is not about it.
func sitemapSite(t *testing.T, bombMiB int) *site {
	s := newSite(t, map[string]response{"/": html()})
	base := s.URL
	bomb := urlsetOf(base, "/orphan/before-bomb")
	bomb = bomb[:len(bomb)-len("</urlset>")] + strings.Repeat(strings.Repeat(" ", 4096)+"<!---->", bombMiB<<20/4100) + "<url><loc>" + base + "/orphan/after-bomb</loc></url></urlset>"
	s.mu.Lock()
	defer s.mu.Unlock()
	for path, r := range map[string]response{
		"/robots.txt": {ctype: "text/plain", body: "User-agent: *\nDisallow: /private/\n\nSitemap: " + base + "/maps/index.xml\n"},
		"/maps/index.xml": {ctype: "application/xml", body: `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
			<sitemap><loc>` + base + `/maps/pages.xml.gz</loc></sitemap>
			<sitemap><loc>` + base + `/maps/more.txt</loc></sitemap>
			<sitemap><loc>` + base + `/maps/bomb.xml.gz</loc></sitemap>
			<sitemap><loc>http://elsewhere.test/maps/x.xml</loc></sitemap>
		</sitemapindex>`},
		"/maps/pages.xml.gz": {ctype: "application/x-gzip", body: gzipString(t, urlsetOf(base,
			"/orphan/1", "/orphan/2", "/orphan/deep/3", "/private/secret"))},
		"/maps/more.txt":    {ctype: "text/plain", body: base + "/orphan/t1\n" + base + "/orphan/t2\nhttp://elsewhere.test/t3\n"},
		"/maps/bomb.xml.gz": {ctype: "application/octet-stream", body: gzipString(t, bomb)},
		"/sitemap.xml":      {ctype: "text/xml", body: urlsetOf(base, "/orphan/s1")},
		"/notes.txt":        {ctype: "text/plain", body: base + "/orphan/never\n"},
		"/orphan/1":         html("/notes.txt"),
		"/private/secret":   html(),
		"/orphan/never":     html(),
	} {
		s.pages[path] = r
	}
	for _, p := range []string{"/orphan/2", "/orphan/deep/3", "/orphan/t1", "/orphan/t2", "/orphan/before-bomb", "/orphan/after-bomb", "/orphan/s1"} {
		s.pages[p] = html()
	}
	return s
}

// Orphan pages that only sitemaps list are fetched: robots.txt line ->
// index -> gzipped urlset and text list; URLs out of the sitemap's scope,
// disallowed by robots.txt, or past a gzip bomb's cut are not.
func TestSitemapsFindOrphans(t *testing.T) {
	t.Parallel()
	s := sitemapSite(t, 60)
	var got collect
	c := fast(&got)
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/maps/index.xml", "/maps/pages.xml.gz", "/maps/more.txt", "/maps/bomb.xml.gz",
		"/orphan/1", "/orphan/2", "/orphan/deep/3", "/orphan/t1", "/orphan/t2", "/orphan/before-bomb", "/notes.txt"} {
		if n := s.count(p); n != 1 {
			t.Errorf("%s requested %d times, want 1", p, n)
		}
	}
	for p, why := range map[string]string{
		"/private/secret":    "robots.txt disallows it",
		"/orphan/after-bomb": "it is past the bomb's 50 MiB",
		"/sitemap.xml":       "robots.txt does not list it (sitemap.Listed)",
		"/orphan/never":      "a text file robots.txt did not list is no sitemap",
	} {
		if n := s.count(p); n != 0 {
			t.Errorf("%s requested %d times, want 0: %s", p, n, why)
		}
	}
	st := c.Stats()
	if st.Sitemaps != 4 {
		t.Errorf("Sitemaps = %d, want 4 (index, urlset, text, bomb)", st.Sitemaps)
	}
	// index 4 (one out of scope), urlset 4, text 3 (one out), bomb 1
	if st.SitemapURLs != 3+4+2+1 {
		t.Errorf("SitemapURLs = %d, want 10", st.SitemapURLs)
	}
	if idx := got.pages[s.URL+"/maps/index.xml"]; idx == nil || len(idx.Links) != 3 {
		t.Errorf("the index's page: %+v, want its 3 sitemaps in scope as Links", idx)
	}
}

func TestSitemapPolicies(t *testing.T) {
	for _, tt := range []struct {
		policy  sitemap.Policy
		fetched []string
		not     []string
	}{
		{sitemap.All, []string{"/sitemap.xml", "/orphan/s1", "/orphan/1"}, nil},
		{sitemap.Off, nil, []string{"/sitemap.xml", "/maps/index.xml", "/orphan/1"}},
	} {
		s := sitemapSite(t, 0) // which sitemaps a policy reads, not how much of one
		c := fast(nil)
		c.Sitemaps = tt.policy
		if err := c.Run(context.Background(), s.URL+"/"); err != nil {
			t.Fatal(err)
		}
		for _, p := range tt.fetched {
			if s.count(p) != 1 {
				t.Errorf("policy %v: %s requested %d times, want 1", tt.policy, p, s.count(p))
			}
		}
		for _, p := range tt.not {
			if s.count(p) != 0 {
				t.Errorf("policy %v: %s requested %d times, want 0", tt.policy, p, s.count(p))
			}
		}
		if tt.policy == sitemap.Off && c.Stats().Sitemaps != 0 {
			t.Errorf("sitemap.Off: %d sitemaps read", c.Stats().Sitemaps)
		}
	}
}

// On a synthetic web whose robots.txt files list sitemaps, every orphan
// page (robots.txt -> index -> gzipped urlset or text list) is fetched,
// once, and every page links reach still is.
func TestSitemapsSyntheticWeb(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 19, Hosts: 30, PagesPerHost: 30, Sitemaps: true})
	defer w.Close()
	c, got := crawlWeb(t, w, nil)
	counts := w.RequestCounts()
	orphans := w.Orphans()
	if len(orphans) == 0 {
		t.Fatal("no orphans")
	}
	for _, u := range orphans {
		if counts[u] != 1 || got.pages[u] == nil {
			t.Errorf("%s requested %d times (handled: %v), want once", u, counts[u], got.pages[u] != nil)
		}
	}
	for u := range w.Depths(w.Seeds()...) {
		if counts[u] == 0 {
			t.Errorf("%s, reachable by links, not requested", u)
		}
	}
	st := c.Stats()
	hosts := len(orphans) / w.OrphansPerHost()
	if st.Sitemaps != int64(3*hosts) {
		t.Errorf("Sitemaps = %d, want 3 for each of %d hosts", st.Sitemaps, hosts)
	}
	t.Logf("%d orphans on %d hosts found through %d sitemaps listing %d URLs", len(orphans), hosts, st.Sitemaps, st.SitemapURLs)
}

// Feeds are read as sitemaps (RSS 2.0 and RSS 1.0 that robots.txt lists,
// an Atom feed a page links to); a cut index and a cut urlset give the
// entries before the cut, each counted in SitemapErrors; and an index at
// /sitemap.xml, on a host whose robots.txt lists no sitemap, lets its
// sitemaps under /sitemaps/ list the whole site.
func TestSitemapsFeedsCutAndIndexed(t *testing.T) {
	t.Parallel()
	s := newSite(t, map[string]response{"/": html("/blog/atom.xml")})
	base := s.URL
	s.mu.Lock()
	for path, r := range map[string]response{
		"/robots.txt": {ctype: "text/plain", body: "User-agent: *\nDisallow: /private/\n\nSitemap: /feeds/rss.xml\nSitemap: /feeds/news.rdf\nSitemap: /maps/cut.xml\n"},
		"/feeds/rss.xml": {ctype: "application/rss+xml", body: `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>` + base + `/</link>
			<item><link>` + base + `/news/1</link><pubDate>Sun, 01 Nov 2026 09:30:00 GMT</pubDate></item>
			<item><link>` + base + `/private/2</link></item></channel></rss>`},
		"/feeds/news.rdf": {ctype: "application/rdf+xml", body: `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
			<channel rdf:about="` + base + `/feeds/news.rdf"><link>` + base + `/</link></channel>
			<item rdf:about="` + base + `/rdf/1"><title>one</title></item></rdf:RDF>`},
		"/blog/atom.xml": {ctype: "application/atom+xml", body: `<feed xmlns="http://www.w3.org/2005/Atom"><link rel="self" href="` + base + `/blog/atom.xml"/>
			<entry><link href="posts/1"/><updated>2026-11-04T12:00:00Z</updated></entry>
			<entry><link href="http://elsewhere.test/posts/2"/></entry></feed>`},
		"/maps/cut.xml":     {ctype: "application/xml", body: `<sitemapindex><sitemap><loc>` + base + `/maps/part.xml.gz</loc>`},
		"/maps/part.xml.gz": {ctype: "application/x-gzip", body: gzipString(t, `<urlset><url><loc>`+base+`/cut/1</loc></url><url><loc>`+base+`/cut/2</loc><lastmod>2026-`)},
	} {
		s.pages[path] = r
	}
	for _, p := range []string{"/news/1", "/private/2", "/rdf/1", "/blog/posts/1", "/cut/1", "/cut/2"} {
		s.pages[p] = html()
	}
	s.mu.Unlock()
	c := fast(nil)
	if err := c.Run(context.Background(), base+"/"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/feeds/rss.xml", "/feeds/news.rdf", "/blog/atom.xml", "/maps/cut.xml", "/maps/part.xml.gz",
		"/news/1", "/rdf/1", "/blog/posts/1", "/cut/1", "/cut/2"} {
		if n := s.count(p); n != 1 {
			t.Errorf("%s requested %d times, want 1", p, n)
		}
	}
	if n := s.count("/private/2"); n != 0 {
		t.Errorf("/private/2, which robots.txt disallows, requested %d times", n)
	}
	if st := c.Stats(); st.Sitemaps != 5 || st.SitemapErrors != 2 {
		t.Errorf("Sitemaps = %d, SitemapErrors = %d; want 5 (3 feeds, the cut index and urlset) and 2 (those cut)", st.Sitemaps, st.SitemapErrors)
	}

	idx := newSite(t, map[string]response{
		"/":           html(),
		"/robots.txt": {ctype: "text/plain", body: "User-agent: *\nDisallow: /private/\n"},
	})
	idx.mu.Lock()
	idx.pages["/sitemap.xml"] = response{ctype: "application/xml", body: `<sitemapindex><sitemap><loc>` + idx.URL + `/sitemaps/a.txt</loc></sitemap></sitemapindex>`}
	idx.pages["/sitemaps/a.txt"] = response{ctype: "text/plain", body: idx.URL + "/orphan/1\n" + idx.URL + "/sitemaps/2\n"}
	idx.pages["/orphan/1"], idx.pages["/sitemaps/2"] = html(), html()
	idx.mu.Unlock()
	c = fast(nil)
	c.Sitemaps = sitemap.All
	if err := c.Run(context.Background(), idx.URL+"/"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/sitemap.xml", "/sitemaps/a.txt", "/orphan/1", "/sitemaps/2"} {
		if n := idx.count(p); n != 1 {
			t.Errorf("index at /sitemap.xml: %s requested %d times, want 1", p, n)
		}
	}
}

// On a web whose sitemap indexes are at /sitemap.xml, with their sitemaps
// under /sitemaps/, and whose robots.txt names them on even hosts only
// (h3, h7, ... have none), a recrawl with the default Sitemaps (Auto)
// fetches every orphan page, as All does; Listed, the default before
// Auto, misses those of the hosts whose robots.txt names no sitemap.
func TestSitemapsAutoRecrawlFindsOrphans(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 19, Hosts: 16, PagesPerHost: 30, Sitemaps: true, StandardSitemaps: true})
	defer w.Close()
	orphans := map[string]bool{}
	for _, u := range w.Orphans() {
		orphans[u] = true
	}
	var mu sync.Mutex
	found := map[string]bool{}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a bound for a failure; success ends it in about a second
	defer cancel()
	c := &crawler.Crawler{
		Handler: crawler.HandlerFunc(func(_ context.Context, p *crawler.Page) error {
			mu.Lock()
			defer mu.Unlock()
			if orphans[p.URL] && p.Status == 200 {
				if found[p.URL] = true; len(found) == len(orphans) {
					cancel() // every orphan fetched: the recrawl has done its part
				}
			}
			return nil
		}),
		Fetcher: &fetch.HTTPFetcher{Client: w.Client()},
		Pacing:  politeness.Pacing{Delay: -1, DelayFactor: -1},
		Workers: 16,
		Recrawl: &revisit.Config{Rate: 100},
	}
	start := time.Now()
	c.Run(ctx, w.Seeds()...)
	mu.Lock()
	if len(found) != len(orphans) {
		t.Errorf("Auto under Recrawl: %d of %d orphans fetched in %v", len(found), len(orphans), time.Since(start).Round(time.Millisecond))
	}
	mu.Unlock()
	t.Logf("Auto under Recrawl: %d orphans on %d hosts fetched in %v", len(found), len(orphans)/w.OrphansPerHost(), time.Since(start).Round(time.Millisecond))

	for _, policy := range []sitemap.Policy{sitemap.All, sitemap.Listed} {
		w := crawlertest.NewWeb(crawlertest.Config{Seed: 19, Hosts: 16, PagesPerHost: 30, Sitemaps: true, StandardSitemaps: true})
		defer w.Close()
		_, got := crawlWeb(t, w, func(c *crawler.Crawler) { c.Sitemaps = policy })
		n, missed := 0, map[string]bool{}
		for u := range orphans {
			if got.page(u) != nil {
				n++
			} else {
				missed[u[:len("http://h00")]] = true
			}
		}
		t.Logf("%v, no Recrawl: %d of %d orphans fetched", policy, n, len(orphans))
		switch {
		case policy == sitemap.All && n != len(orphans):
			t.Errorf("All: %d of %d orphans fetched; hosts missed: %v", n, len(orphans), missed)
		case policy == sitemap.Listed && (n == 0 || n == len(orphans)):
			t.Errorf("Listed: %d of %d orphans fetched, want those of the hosts whose robots.txt names the index", n, len(orphans))
		}
	}
}
