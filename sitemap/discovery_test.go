package sitemap_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"crawler/canon"
	"crawler/sitemap"
)

func mustParse(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// read has d read body as fetched from rawURL, a canonical URL.
func read(t *testing.T, d *sitemap.Discovery, rawURL, body string) *sitemap.Listing {
	t.Helper()
	return d.Read(t.Context(), mustParse(t, rawURL), canon.Fingerprint(rawURL), []byte(body))
}

func urlsetOf(locs ...string) string {
	var b strings.Builder
	b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, l := range locs {
		fmt.Fprintf(&b, "<url><loc>%s</loc></url>", l)
	}
	return b.String() + "</urlset>"
}

func TestDiscoveryFromRobots(t *testing.T) {
	u := mustParse(t, "HTTP://Example.COM:80/some/page?x")
	// Spare capacity: All must not write /sitemap.xml into the caller's
	// array.
	listed := append(make([]string, 0, 4), "/maps/a.xml", "b.txt", "https://other.test/c.xml", "http://[::1")
	for _, tt := range []struct {
		policy sitemap.Policy
		want   []string
	}{
		{sitemap.Listed, []string{"http://example.com/maps/a.xml", "http://example.com/b.txt", "https://other.test/c.xml"}},
		{sitemap.All, []string{"http://example.com/maps/a.xml", "http://example.com/b.txt", "https://other.test/c.xml", "http://example.com/sitemap.xml"}},
		{-1, []string{"http://example.com/maps/a.xml", "http://example.com/b.txt", "https://other.test/c.xml"}},
		{sitemap.Off, nil},
	} {
		d := &sitemap.Discovery{Policy: tt.policy}
		if got := d.FromRobots(u, listed[:3:4]); !slices.Equal(got, tt.want) {
			t.Errorf("policy %v: %q, want %q", tt.policy, got, tt.want)
		}
		if got := d.FromRobots(u, listed); tt.policy != sitemap.Off && len(got) != len(tt.want) {
			t.Errorf("policy %v: a Sitemap line that does not resolve was not left out: %q", tt.policy, got)
		}
	}
	for p, want := range map[sitemap.Policy]string{sitemap.Auto: "auto", sitemap.Listed: "listed", sitemap.All: "all", sitemap.Off: "off", -1: "Policy(-1)"} {
		if p.String() != want {
			t.Errorf("Policy(%d).String() = %q, want %q", int(p), p.String(), want)
		}
	}
	if got := new(sitemap.Discovery).FromRobots(mustParse(t, "ftp://example.com/"), listed); got != nil {
		t.Errorf("an ftp URL's robots.txt: %q, want nil", got)
	}
}

// A sitemap robots.txt lists may list any URL of robots.txt's origin, and
// be a text list; the sitemaps of an index it lists inherit that.
func TestDiscoveryReadListed(t *testing.T) {
	d := &sitemap.Discovery{}
	maps := d.FromRobots(mustParse(t, "http://example.com/"), []string{"/maps/index.xml", "/maps/more.txt"})
	if len(maps) != 2 {
		t.Fatalf("FromRobots: %q", maps)
	}
	l := read(t, d, maps[1], "http://example.com/t1\nhttp://example.com/t1\nhttp://other.test/t2\n/relative\n")
	if l == nil || l.Kind != sitemap.Text || !slices.Equal(l.URLs, []string{"http://example.com/t1"}) || l.OutOfScope != 2 {
		t.Fatalf("the text list robots.txt listed: %+v, want t1 once, 2 out of scope", l)
	}
	l = read(t, d, maps[0], `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
		<sitemap><loc>http://example.com/other/pages.txt</loc></sitemap>
		<sitemap><loc>http://elsewhere.test/x.xml</loc></sitemap></sitemapindex>`)
	if l == nil || l.Kind != sitemap.Index || !slices.Equal(l.URLs, []string{"http://example.com/other/pages.txt"}) || l.OutOfScope != 1 {
		t.Fatalf("the index robots.txt listed: %+v", l)
	}
	l = read(t, d, "http://example.com/other/pages.txt", "http://example.com/deep/1\n")
	if l == nil || !slices.Equal(l.URLs, []string{"http://example.com/deep/1"}) {
		t.Errorf("a text list of the index: %+v, want /deep/1 in scope by robots.txt's origin", l)
	}
	if l := read(t, d, "http://example.com/notes.txt", "http://example.com/a\n"); l != nil {
		t.Errorf("a text file nothing listed: %+v, want no sitemap", l)
	}
	if l := read(t, d, "http://example.com/page.html", "<html><a href=/x>x</a></html>"); l != nil {
		t.Errorf("an HTML page: %+v, want no sitemap", l)
	}
}

// An XML sitemap nothing listed lists its own directory, or all of its
// origin if the origin's robots.txt lists sitemaps.
func TestDiscoveryReadUnlisted(t *testing.T) {
	body := urlsetOf("http://example.com/shop/a", "http://example.com/b", "http://other.test/c")
	var asked []string
	var mu sync.Mutex
	for _, tt := range []struct {
		lists func(context.Context, string) bool
		want  []string
	}{
		{nil, []string{"http://example.com/shop/a"}},
		{func(context.Context, string) bool { return false }, []string{"http://example.com/shop/a"}},
		{func(_ context.Context, origin string) bool {
			mu.Lock()
			asked = append(asked, origin)
			mu.Unlock()
			return true
		}, []string{"http://example.com/shop/a", "http://example.com/b"}},
	} {
		d := &sitemap.Discovery{ListsSitemaps: tt.lists}
		l := read(t, d, "http://example.com/shop/sitemap.xml", body)
		if l == nil || !slices.Equal(l.URLs, tt.want) || l.OutOfScope != 3-len(tt.want) {
			t.Errorf("ListsSitemaps %v: %+v, want %q", tt.lists != nil, l, tt.want)
		}
	}
	if !slices.Equal(asked, []string{"http://example.com"}) {
		t.Errorf("ListsSitemaps asked of %q, want the sitemap's origin", asked)
	}
	if l := read(t, &sitemap.Discovery{Policy: sitemap.Off}, "http://example.com/shop/sitemap.xml", body); l != nil {
		t.Errorf("Off read a sitemap: %+v", l)
	}
}

func TestDiscoveryReadLastModsAndErrors(t *testing.T) {
	long := "http://example.com/" + strings.Repeat("a", canon.MaxLength)
	body := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
		<url><loc>http://example.com/a</loc><lastmod>2026-11-01</lastmod></url>
		<url><loc>http://example.com/a</loc><lastmod>2026-11-05</lastmod></url>
		<url><loc>HTTP://EXAMPLE.com/%7eb</loc></url>
		<url><loc>` + long + `</loc><lastmod>2026-11-01</lastmod></url>
		<url><loc>http://example.com/c</loc>` // cut short
	for _, lastMods := range []bool{false, true} {
		d := &sitemap.Discovery{Recrawl: lastMods}
		l := read(t, d, "http://example.com/sitemap.xml", body)
		if l == nil || !slices.Equal(l.URLs, []string{"http://example.com/a", "http://example.com/~b", "http://example.com/c"}) {
			t.Fatalf("%+v, want /a once, /~b canonical and /c, whose loc came whole before the cut", l)
		}
		if len(l.Unresolved) != 1 || !errors.Is(l.Unresolved[0], canon.ErrTooLong) {
			t.Errorf("Unresolved = %v, want one canon.ErrTooLong", l.Unresolved)
		}
		if l.Err == nil {
			t.Error("a sitemap cut short: no Err")
		}
		var want []sitemap.LastMod
		if lastMods {
			fp := canon.Fingerprint("http://example.com/a")
			want = []sitemap.LastMod{{FP: fp, At: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}, {FP: fp, At: time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC)}}
		}
		if !slices.EqualFunc(l.LastMods, want, func(a, b sitemap.LastMod) bool { return a.FP == b.FP && a.At.Equal(b.At) }) {
			t.Errorf("LastMods (set: %v) = %v, want %v", lastMods, l.LastMods, want)
		}
	}
}

// Workers read and learn sitemaps at once (run with -race).
func TestDiscoveryConcurrent(t *testing.T) {
	d := &sitemap.Discovery{ListsSitemaps: func(context.Context, string) bool { return true }}
	var wg sync.WaitGroup
	for i := range 8 {
		host := fmt.Sprintf("http://h%d.test", i%4)
		robots, deep := mustParse(t, host+"/list.txt"), mustParse(t, host+"/x/sitemap.xml")
		wg.Go(func() {
			maps := d.FromRobots(robots, []string{"/list.txt"})
			if l := d.Read(t.Context(), robots, canon.Fingerprint(maps[0]), []byte(host+"/p\n")); l == nil || len(l.URLs) != 1 {
				t.Errorf("%s: %+v", maps[0], l)
			}
			if l := d.Read(t.Context(), deep, canon.Fingerprint(deep.String()), []byte(urlsetOf(host+"/q"))); l == nil || len(l.URLs) != 1 {
				t.Errorf("%s: %+v", deep, l)
			}
		})
	}
	wg.Wait()
}

// Under Auto, a crawl that revisits pages asks a host whose robots.txt
// lists no sitemap for /sitemap.xml; one that lists some, or a crawl that
// does not revisit, or Listed, is asked for nothing more.
func TestDiscoveryFromRobotsAuto(t *testing.T) {
	u := mustParse(t, "http://example.com/page")
	for _, tt := range []struct {
		policy   sitemap.Policy
		recrawl  bool
		sitemaps []string
		want     []string
	}{
		{sitemap.Auto, true, nil, []string{"http://example.com/sitemap.xml"}},
		{-1, true, nil, []string{"http://example.com/sitemap.xml"}},
		{sitemap.Auto, true, []string{"/maps/a.xml"}, []string{"http://example.com/maps/a.xml"}},
		{sitemap.Auto, false, nil, []string{}},
		{sitemap.Listed, true, nil, []string{}},
		{sitemap.All, false, []string{"/maps/a.xml"}, []string{"http://example.com/maps/a.xml", "http://example.com/sitemap.xml"}},
		{sitemap.Off, true, nil, nil},
	} {
		d := &sitemap.Discovery{Policy: tt.policy, Recrawl: tt.recrawl}
		if got := d.FromRobots(u, tt.sitemaps); !slices.Equal(got, tt.want) {
			t.Errorf("policy %v, recrawl %v, Sitemap lines %q: %q, want %q", tt.policy, tt.recrawl, tt.sitemaps, got, tt.want)
		}
	}
}

// The sitemaps an index lists take its scope: its directory, and its
// robots.txt's origin. An index at /sitemap.xml that no robots.txt lists
// lets its sitemaps under /sitemaps/ list all of its origin (and no
// other); one under /maps/ lets them list /maps/ alone.
func TestDiscoveryIndexScope(t *testing.T) {
	index := func(locs ...string) string {
		var b strings.Builder
		b.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for _, l := range locs {
			fmt.Fprintf(&b, "<sitemap><loc>%s</loc></sitemap>", l)
		}
		return b.String() + "</sitemapindex>"
	}
	pages := urlsetOf("http://example.com/orphan/1", "http://example.com/sitemaps/2", "http://other.test/3", "http://example.com.other.test/4")
	for _, tt := range []struct {
		name, index, part string
		lists             bool // the origin's robots.txt lists sitemaps (not this index)
		want              []string
	}{
		{"index at the root", "http://example.com/sitemap.xml", "http://example.com/sitemaps/a.xml", false,
			[]string{"http://example.com/orphan/1", "http://example.com/sitemaps/2"}},
		{"index under /maps/", "http://example.com/maps/index.xml", "http://example.com/maps/sitemaps/a.xml", false,
			nil},
		{"index under /sitemaps/", "http://example.com/sitemaps/index.xml", "http://example.com/sitemaps/a.xml", false,
			[]string{"http://example.com/sitemaps/2"}},
		{"robots.txt lists sitemaps", "http://example.com/maps/index.xml", "http://example.com/maps/a.xml", true,
			[]string{"http://example.com/orphan/1", "http://example.com/sitemaps/2"}},
	} {
		d := &sitemap.Discovery{ListsSitemaps: func(context.Context, string) bool { return tt.lists }}
		l := read(t, d, tt.index, index(tt.part, "http://other.test/x.xml"))
		if l == nil || l.Kind != sitemap.Index || !slices.Equal(l.URLs, []string{tt.part}) {
			t.Fatalf("%s: the index: %+v", tt.name, l)
		}
		l = read(t, d, tt.part, pages)
		if l == nil || !slices.Equal(l.URLs, tt.want) || l.OutOfScope != 4-len(tt.want) {
			t.Errorf("%s: its sitemap %s lists %q (%d out of scope), want %q", tt.name, tt.part, l.URLs, l.OutOfScope, tt.want)
		}
	}

	// An index of indexes: the parts of the inner one take the outer's
	// directory, the wider.
	d := &sitemap.Discovery{}
	read(t, d, "http://example.com/sitemap.xml", index("http://example.com/sitemaps/index.xml"))
	read(t, d, "http://example.com/sitemaps/index.xml", index("http://example.com/sitemaps/deep/a.txt"))
	l := read(t, d, "http://example.com/sitemaps/deep/a.txt", "http://example.com/orphan/1\nhttp://other.test/3\n")
	if l == nil || !slices.Equal(l.URLs, []string{"http://example.com/orphan/1"}) {
		t.Errorf("a text sitemap of an index of indexes: %+v", l)
	}
}

// A feed is read as a sitemap of pages, where it was found, in its scope:
// its relative links resolved, its dates lastmods.
func TestDiscoveryReadFeed(t *testing.T) {
	d := &sitemap.Discovery{Recrawl: true}
	l := read(t, d, "http://example.com/blog/atom.xml", `<feed xmlns="http://www.w3.org/2005/Atom">
		<link href="http://example.com/blog/"/>
		<entry><link href="posts/1"/><updated>2026-11-04T12:00:00Z</updated></entry>
		<entry><link href="/elsewhere/2"/></entry>
		<entry><link rel="alternate" href="http://example.com/blog/posts/3"/></entry>
		<entry><link href="http://example.com/blog/posts/4"/>`)
	want := []string{"http://example.com/blog/posts/1", "http://example.com/blog/posts/3", "http://example.com/blog/posts/4"}
	if l == nil || l.Kind != sitemap.Feed || !slices.Equal(l.URLs, want) || l.OutOfScope != 1 || l.Err == nil {
		t.Fatalf("%+v, want %q, 1 out of scope, and the error of a feed cut short", l, want)
	}
	if len(l.LastMods) != 1 || l.LastMods[0].FP != canon.Fingerprint(want[0]) || !l.LastMods[0].At.Equal(time.Date(2026, 11, 4, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("LastMods = %v, want posts/1's", l.LastMods)
	}
}
