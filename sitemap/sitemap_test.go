package sitemap_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"crawler/sitemap"
)

// readAll reads every entry of the sitemap in data, and the error that
// ended it (nil for io.EOF).
func readAll(t *testing.T, data []byte) (sitemap.Kind, []sitemap.Entry, error) {
	t.Helper()
	r, err := sitemap.NewReader(bytes.NewReader(data))
	if err != nil {
		return 0, nil, err
	}
	var es []sitemap.Entry
	for {
		e, err := r.Next()
		if err == io.EOF {
			return r.Kind(), es, nil
		}
		if err != nil {
			return r.Kind(), es, err
		}
		if e.Loc == "" {
			t.Fatal("an entry with no loc")
		}
		es = append(es, e)
	}
}

func gzipped(t testing.TB, data []byte) []byte {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	if _, err := z.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const urlset = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url>
    <loc>http://example.com/</loc>
    <lastmod>2005-01-01</lastmod>
    <changefreq>monthly</changefreq>
    <priority>0.8</priority>
  </url>
  <url>
    <loc> http://example.com/catalog?item=12&amp;desc=vacation_hawaii </loc>
    <changefreq>Weekly</changefreq>
    <image:image><image:loc>http://example.com/photo.jpg</image:loc></image:image>
  </url>
  <url>
    <image:image><image:loc>http://example.com/only-an-image.jpg</image:loc></image:image>
  </url>
  <url>
    <loc><![CDATA[http://example.com/catalog?item=73&desc=vacation_new_zealand]]></loc>
    <lastmod>2004-12-23T18:00:15+00:00</lastmod>
    <priority>1.3</priority>
  </url>
  <url>
    <loc>http://example.com/catalog?item=74&desc=bare-ampersand</loc>
    <lastmod>2004-11-23T09:30+02:00</lastmod>
    <priority>zero</priority>
    <changefreq>sometimes</changefreq>
  </url>
</urlset>`

func TestURLSet(t *testing.T) {
	kind, es, err := readAll(t, []byte(urlset))
	if err != nil {
		t.Fatal(err)
	}
	if kind != sitemap.URLSet {
		t.Errorf("kind %v, want urlset", kind)
	}
	want := []sitemap.Entry{
		{Loc: "http://example.com/", LastMod: time.Date(2005, 1, 1, 0, 0, 0, 0, time.UTC), ChangeFreq: "monthly", Priority: 0.8},
		{Loc: "http://example.com/catalog?item=12&desc=vacation_hawaii", ChangeFreq: "weekly", Priority: 0.5},
		{Loc: "http://example.com/catalog?item=73&desc=vacation_new_zealand", LastMod: time.Date(2004, 12, 23, 18, 0, 15, 0, time.UTC), Priority: 0.5},
		{Loc: "http://example.com/catalog?item=74&desc=bare-ampersand", LastMod: time.Date(2004, 11, 23, 7, 30, 0, 0, time.UTC), Priority: 0.5},
	}
	if len(es) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(es), len(want), es)
	}
	for i := range want {
		if !es[i].LastMod.Equal(want[i].LastMod) || es[i].Loc != want[i].Loc || es[i].ChangeFreq != want[i].ChangeFreq || es[i].Priority != want[i].Priority {
			t.Errorf("entry %d: %+v, want %+v", i, es[i], want[i])
		}
	}
}

func TestIndexGzipped(t *testing.T) {
	index := `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
	<sitemap><loc>http://example.com/sitemap1.xml.gz</loc><lastmod>2004-10-01T18:23:17+00:00</lastmod></sitemap>
	<sitemap><loc>http://example.com/sitemap2.xml.gz</loc></sitemap>
	</sitemapindex>`
	kind, es, err := readAll(t, gzipped(t, []byte(index)))
	if err != nil {
		t.Fatal(err)
	}
	if kind != sitemap.Index || len(es) != 2 || es[1].Loc != "http://example.com/sitemap2.xml.gz" ||
		!es[0].LastMod.Equal(time.Date(2004, 10, 1, 18, 23, 17, 0, time.UTC)) {
		t.Errorf("got %v %+v", kind, es)
	}
}

func TestText(t *testing.T) {
	kind, es, err := readAll(t, []byte("\uFEFFhttp://example.com/a\r\n\n  http://example.com/b  \nhttp://example.com/c"))
	if err != nil {
		t.Fatal(err)
	}
	if kind != sitemap.Text || len(es) != 3 || es[0].Loc != "http://example.com/a" || es[1].Loc != "http://example.com/b" || es[2].Priority != 0.5 {
		t.Errorf("got %v %+v", kind, es)
	}
}

func TestLatin1(t *testing.T) {
	doc := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset><url><loc>http://example.com/caf\xe9</loc></url></urlset>"
	_, es, err := readAll(t, []byte(doc))
	if err != nil || len(es) != 1 || es[0].Loc != "http://example.com/café" {
		t.Errorf("got %+v, %v", es, err)
	}
	_, _, err = readAll(t, []byte(`<?xml version="1.0" encoding="Shift_JIS"?><urlset></urlset>`))
	if err == nil || !strings.Contains(err.Error(), "Shift_JIS") {
		t.Errorf("Shift_JIS: %v, want an error naming the charset", err)
	}
}

func TestNotSitemap(t *testing.T) {
	for _, doc := range []string{
		"<!DOCTYPE html><html><body><a href=/x>x</a></body></html>",
		"<opml><body><outline/></body></opml>",
		"",
		"   \n",
		"<?xml version=\"1.0\"?>",
	} {
		if _, err := sitemap.NewReader(strings.NewReader(doc)); !errors.Is(err, sitemap.ErrNotSitemap) {
			t.Errorf("%q: %v, want ErrNotSitemap", doc, err)
		}
	}
	if _, err := sitemap.NewReader(bytes.NewReader([]byte{0x1f, 0x8b, 1, 2, 3})); err == nil {
		t.Error("a broken gzip header: no error")
	}
}

// A malformed file ends with an error after the entries before the fault,
// the one it is in too if that entry's loc was whole.
func TestMalformed(t *testing.T) {
	for _, tt := range []struct {
		doc  string
		good int
	}{
		{`<urlset><url><loc>http://a/1</loc></url><url><loc>http://a/2</loc></url>`, 2}, // not closed
		{`<urlset><url><loc>http://a/1</loc></url><url><loc>http://a/2</lo`, 1},
		{`<urlset><url><loc>http://a/1</loc></url><url><loc>http://a/2</loc></url><!-- `, 2},
		{`<urlset><url><loc>http://a/1</loc></url><url><loc>http://a/2</loc><lastmod>2026-`, 2},
		{`<sitemapindex><sitemap><loc>http://a/s1.xml</loc>`, 1}, // an index of one, cut short
		{`<sitemapindex><sitemap><loc>http://a/s1.xml</loc></sitemap><sitemap><loc>http://a/s2.xml</loc>`, 2},
		{"<urlset><url><loc>http://a/1</loc></url><url><loc>http://a/2</loc>\x0c</url><url><loc>http://a/3</loc></url></urlset>", 2},
		// A stray end tag closes the root early; what follows is an error.
		{`<urlset><url><loc>http://a/1</loc></url></url><url><loc>http://a/2</loc></url></urlset>`, 1},
		{`<urlset><url><loc>http://a/1</loc></url></urlset><urlset><url><loc>http://a/2</loc></url></urlset>`, 1},
		{`<rss><channel><item><link>http://a/1</link></item><item><link>http://a/2</link><pubDate>Mon, `, 2},
		{`<feed><entry><link href="http://a/1"/><title>one</title></entry><entry><title>two</title>`, 1},
	} {
		_, es, err := readAll(t, []byte(tt.doc))
		if err == nil || len(es) != tt.good {
			t.Errorf("%q: %d entries, %v; want %d and an error", tt.doc, len(es), err, tt.good)
		}
	}
}

// Whatever byte a file is cut at, plain or gzipped, what is read is a
// prefix of the whole file's entries, longer the later the cut, then an
// error; cut anywhere past its last entry, all of them.
func TestCutAnywhere(t *testing.T) {
	for name, doc := range map[string]string{"urlset": urlset, "rss": rss2, "rdf": rss1, "atom": atom} {
		_, full, err := readAll(t, []byte(doc))
		if err != nil || len(full) == 0 {
			t.Fatalf("%s: %d entries, %v", name, len(full), err)
		}
		last := max(strings.LastIndex(doc, "</url>"), strings.LastIndex(doc, "</item>"), strings.LastIndex(doc, "</entry>"))
		prev := 0
		for cut := range len(doc) {
			_, es, err := readAll(t, []byte(doc[:cut]))
			if err == nil && strings.TrimSpace(doc[cut:]) != "" {
				t.Errorf("%s cut at %d: no error", name, cut)
			}
			if len(es) < prev || len(es) > len(full) || cut > last && len(es) != len(full) {
				t.Errorf("%s cut at %d: %d entries (%d at the cut before), of %d", name, cut, len(es), prev, len(full))
			}
			prev = len(es)
			for i := range es {
				if es[i].Loc != full[i].Loc {
					t.Errorf("%s cut at %d: entry %d %q, want %q", name, cut, i, es[i].Loc, full[i].Loc)
				}
			}
		}
		z := gzipped(t, []byte(doc))
		for cut := 20; cut < len(z)-8; cut++ { // past the header, short of the trailer
			if _, es, err := readAll(t, z[:cut]); err == nil || len(es) > len(full) {
				t.Errorf("%s gzipped, cut at %d of %d: %d entries, %v; want an error", name, cut, len(z), len(es), err)
			}
		}
	}
}

const rss2 = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel>
    <title>Example news</title>
    <link>http://example.com/news/</link>
    <atom:link href="http://example.com/news/feed.xml" rel="self" type="application/rss+xml"/>
    <image><url>http://example.com/logo.png</url><link>http://example.com/news/</link></image>
    <item>
      <title>One</title>
      <link> http://example.com/news/1 </link>
      <guid isPermaLink="false">urn:x:1</guid>
      <pubDate>Sun, 01 Nov 2026 09:30:00 GMT</pubDate>
    </item>
    <item>
      <atom:link href="http://example.com/news/2" rel="self"/>
      <link>http://example.com/news/2?a=1&amp;b=2</link>
      <pubDate>Mon, 2 Nov 26 10:00 +0100</pubDate>
      <enclosure url="http://example.com/news/2.mp3" length="1" type="audio/mpeg"/>
    </item>
    <item>
      <title>No link: not an entry</title>
      <description>&lt;a href="http://example.com/x"&gt;x&lt;/a&gt;</description>
    </item>
    <item>
      <link>http://example.com/news/3</link>
      <dc:date>2026-11-03T08:00:00Z</dc:date>
      <pubDate>yesterday</pubDate>
    </item>
  </channel>
</rss>`

const rss1 = `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
  xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="http://example.com/news.rdf">
    <title>Example</title>
    <link>http://example.com/</link>
    <items><rdf:Seq><rdf:li resource="http://example.com/a"/><rdf:li resource="http://example.com/b"/></rdf:Seq></items>
  </channel>
  <item rdf:about="http://example.com/a">
    <title>A</title>
    <link>http://example.com/a?via=link</link>
    <dc:date>2026-11-01T10:00+01:00</dc:date>
  </item>
  <item rdf:about="http://example.com/b">
    <title>B</title>
  </item>
</rdf:RDF>`

const atom = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Example</title>
  <link href="http://example.com/"/>
  <link rel="self" href="http://example.com/atom.xml"/>
  <updated>2026-11-05T00:00:00Z</updated>
  <entry>
    <title>One</title>
    <link rel="edit" href="http://example.com/edit/1"/>
    <link rel="alternate" type="text/html" href="http://example.com/posts/1"/>
    <link rel="alternate" type="text/html" hreflang="fr" href="http://example.com/fr/posts/1"/>
    <id>urn:uuid:1</id>
    <updated>2026-11-04T12:00:00Z</updated>
    <published>2026-11-01T12:00:00Z</published>
  </entry>
  <entry>
    <link href="/posts/2"/>
    <published>2026-11-02T12:00:00-05:00</published>
  </entry>
  <entry>
    <link rel="enclosure" href="http://example.com/2.mp3"/>
    <id>urn:uuid:3</id>
  </entry>
</feed>`

// Feeds are read as sitemaps of pages: RSS 2.0's <item><link>, RSS 1.0's
// <item rdf:about> or <link>, Atom's <entry><link href> (rel alternate or
// none), with their dates as lastmods; nothing of the channel or feed
// itself.
func TestFeeds(t *testing.T) {
	day := func(d, h, m int, zone int) time.Time {
		return time.Date(2026, 11, d, h, m, 0, 0, time.FixedZone("", zone*3600))
	}
	for _, tt := range []struct {
		name, doc string
		want      []sitemap.Entry
	}{
		{"rss 2.0", rss2, []sitemap.Entry{
			{Loc: "http://example.com/news/1", LastMod: day(1, 9, 30, 0)},
			{Loc: "http://example.com/news/2?a=1&b=2", LastMod: day(2, 10, 0, 1)},
			{Loc: "http://example.com/news/3", LastMod: day(3, 8, 0, 0)}, // dc:date, not a pubDate that does not parse
		}},
		{"rss 1.0", rss1, []sitemap.Entry{
			{Loc: "http://example.com/a", LastMod: day(1, 10, 0, 1)}, // rdf:about, before a link
			{Loc: "http://example.com/b"},
		}},
		{"atom", atom, []sitemap.Entry{
			{Loc: "http://example.com/posts/1", LastMod: day(4, 12, 0, 0)},
			{Loc: "/posts/2", LastMod: day(2, 12, 0, -5)},
		}},
	} {
		for _, data := range [][]byte{[]byte(tt.doc), gzipped(t, []byte(tt.doc))} {
			kind, es, err := readAll(t, data)
			if err != nil || kind != sitemap.Feed {
				t.Fatalf("%s: %v, %v", tt.name, kind, err)
			}
			if len(es) != len(tt.want) {
				t.Fatalf("%s: %d entries, want %d: %+v", tt.name, len(es), len(tt.want), es)
			}
			for i, w := range tt.want {
				if es[i].Loc != w.Loc || !es[i].LastMod.Equal(w.LastMod) || es[i].Priority != sitemap.DefaultPriority || es[i].ChangeFreq != "" {
					t.Errorf("%s entry %d: %+v, want %+v", tt.name, i, es[i], w)
				}
			}
		}
	}
}

// entries is an endless-ish urlset: its header, then n entries made as
// they are read, so a test can offer ten million without holding them.
type entries struct {
	n, i int
	buf  []byte
	done bool
}

func (g *entries) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && !g.done {
		switch {
		case g.i == 0 && len(g.buf) == 0 && g.n >= 0:
			g.buf = append(g.buf, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`...)
			g.n = -g.n - 1 // header written
		case g.i < -g.n-1:
			g.buf = fmt.Appendf(g.buf, "<url><loc>http://example.com/p/%d</loc></url>\n", g.i)
			g.i++
		default:
			g.buf = append(g.buf, "</urlset>"...)
			g.done = true
		}
	}
	if len(g.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

func TestMaxEntries(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want error
	}{
		{sitemap.MaxEntries, nil},
		{sitemap.MaxEntries + 1, sitemap.ErrTooManyEntries},
		{10_000_000, sitemap.ErrTooManyEntries},
	} {
		src := &entries{n: tt.n}
		r, err := sitemap.NewReader(src)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for {
			_, err = r.Next()
			if err != nil {
				break
			}
			got++
		}
		if err == io.EOF {
			err = nil
		}
		if got != min(tt.n, sitemap.MaxEntries) || err != tt.want {
			t.Errorf("%d entries offered: %d read, %v; want %d, %v", tt.n, got, err, min(tt.n, sitemap.MaxEntries), tt.want)
		}
		if src.i > sitemap.MaxEntries+1000 {
			t.Errorf("%d entries offered: %d made, read far past the limit", tt.n, src.i)
		}
		if _, again := r.Next(); again != err && !(err == nil && again == io.EOF) {
			t.Errorf("error not sticky: %v then %v", err, again)
		}
	}
}

// A gzip bomb is cut at MaxSize uncompressed: whitespace between entries
// (no text run over the limit) and one endless text run.
func TestGzipBomb(t *testing.T) {
	var doc bytes.Buffer
	doc.WriteString(`<urlset><url><loc>http://example.com/</loc></url>`)
	pad := strings.Repeat(" ", 100<<10) + "<!---->"
	for doc.Len() < sitemap.MaxSize+(1<<20) {
		doc.WriteString(pad)
	}
	doc.WriteString(`<url><loc>http://example.com/late</loc></url></urlset>`)
	bomb := gzipped(t, doc.Bytes())
	t.Logf("%d bytes of gzip make %d", len(bomb), doc.Len())
	_, es, err := readAll(t, bomb)
	if !errors.Is(err, sitemap.ErrTooLarge) || len(es) != 1 {
		t.Errorf("%d entries, %v; want 1 and ErrTooLarge", len(es), err)
	}

	run := gzipped(t, append([]byte(`<urlset><url><loc>http://example.com/`), bytes.Repeat([]byte("a"), 10<<20)...))
	if _, _, err := readAll(t, run); !errors.Is(err, sitemap.ErrTextRun) {
		t.Errorf("a 10 MiB loc: %v, want ErrTextRun", err)
	}
	line := gzipped(t, bytes.Repeat([]byte("a"), 10<<20))
	if _, _, err := readAll(t, line); err == nil || !strings.Contains(err.Error(), "line longer") {
		t.Errorf("a 10 MiB line: %v, want an error", err)
	}
}

func TestParseLastMod(t *testing.T) {
	for s, want := range map[string]time.Time{
		"1997":                      time.Date(1997, 1, 1, 0, 0, 0, 0, time.UTC),
		"1997-07":                   time.Date(1997, 7, 1, 0, 0, 0, 0, time.UTC),
		"1997-07-16":                time.Date(1997, 7, 16, 0, 0, 0, 0, time.UTC),
		"1997-07-16T19:20+01:00":    time.Date(1997, 7, 16, 18, 20, 0, 0, time.UTC),
		"1997-07-16T19:20:30+01:00": time.Date(1997, 7, 16, 18, 20, 30, 0, time.UTC),
		"1997-07-16T19:20:30.45Z":   time.Date(1997, 7, 16, 19, 20, 30, 450e6, time.UTC),
		"1997-07-16T19:20:30":       time.Date(1997, 7, 16, 19, 20, 30, 0, time.UTC),
		"1997-07-16 19:20:30":       time.Date(1997, 7, 16, 19, 20, 30, 0, time.UTC),
		" 1997-07-16 ":              time.Date(1997, 7, 16, 0, 0, 0, 0, time.UTC),
		"16/07/1997":                {},
		"yesterday":                 {},
		"":                          {},
	} {
		if got := sitemap.ParseLastMod(s); !got.Equal(want) {
			t.Errorf("ParseLastMod(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestAllowed(t *testing.T) {
	u := func(s string) *url.URL {
		v, err := url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tt := range []struct {
		sitemap, loc, robots string
		want                 bool
	}{
		{"http://example.com/sitemap.xml", "http://example.com/any/page", "", true},
		{"http://example.com/catalog/sitemap.xml", "http://example.com/catalog/show?item=1", "", true},
		{"http://example.com/catalog/sitemap.xml", "http://example.com/images/a.jpg", "", false},
		{"http://example.com/catalog/sitemap.xml", "http://example.com/catalogue", "", false},
		{"http://example.com/sitemap.xml", "https://example.com/", "", false},
		{"http://example.com/sitemap.xml", "http://www.example.com/", "", false},
		{"http://example.com/sitemap.xml", "http://example.com:8080/", "", false},
		{"http://example.com/sitemap.xml", "http://EXAMPLE.com:80/x", "", true},
		{"http://example.com/sitemap.xml", "http://example.com?q=1", "", true}, // the empty path is "/"
		{"http://example.com/catalog/sitemap.xml", "http://example.com", "", false},
		{"http://example.com/sitemap.xml", "mailto:a@example.com", "", false},
		{"http://example.com/sitemap.xml", "http://user@example.com/", "", false},
		{"http://example.com/sitemap.xml", "/relative", "", false},
		// Listed in a robots.txt: any URL of its origin, even from a
		// sitemap in another directory or on another host.
		{"http://example.com/catalog/sitemap.xml", "http://example.com/images/a.jpg", "http://example.com", true},
		{"http://sitemaps.example.net/a.xml", "http://example.com/x", "http://example.com", true},
		{"http://sitemaps.example.net/a.xml", "http://other.com/x", "http://example.com", false},
	} {
		if got := sitemap.Allowed(u(tt.sitemap), u(tt.loc), tt.robots); got != tt.want {
			t.Errorf("Allowed(%s, %s, %q) = %v, want %v", tt.sitemap, tt.loc, tt.robots, got, tt.want)
		}
	}
}

func TestMaybeXML(t *testing.T) {
	for in, want := range map[string]bool{
		urlset:                         true,
		" \r\n\t<urlset/>":             true,
		"\xef\xbb\xbf<urlset/>":        true,
		"\x1f\x8b":                     true, // gzip: told once uncompressed
		"http://a/\nhttp://b/":         false,
		"":                             false,
		" \n ":                         false,
		"\xef\xbb<urlset/>":            false, // not a byte-order mark: text
		"%PDF-1.7":                     false,
		"\xef\xbb\xbf\xef\xbb\xbf <x>": true,
	} {
		if got := sitemap.MaybeXML([]byte(in)); got != want {
			t.Errorf("MaybeXML(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestReaderNotQuiteBOM: a file whose first byte is 0xEF without the rest
// of a byte-order mark is text. (firstByte used to peek past that byte and
// then fail to unread it: "bufio: invalid use of UnreadByte".)
func TestReaderNotQuiteBOM(t *testing.T) {
	for _, in := range []string{"\xef\xbb", "\xef\xbb<urlset/>", " \xef\xbb\xbf\xefhttp://a/"} {
		r, err := sitemap.NewReader(strings.NewReader(in))
		if err != nil || r.Kind() != sitemap.Text {
			t.Errorf("NewReader(%q): %v, %v; want a text sitemap", in, r, err)
		}
	}
}

// FuzzReader: whatever the bytes, the Reader ends with an error, never
// panics, returns no entry with an empty loc and at most MaxEntries, and
// for a feed none with a priority or changefreq; and bytes MaybeXML rules
// out are read as text, or not at all. Seeded with feeds of each kind.
func FuzzReader(f *testing.F) {
	f.Add([]byte(urlset))
	f.Add(gzipped(f, []byte(urlset)))
	f.Add([]byte("http://a/\nhttp://b/"))
	f.Add([]byte("\xef\xbb\xbf \r\n<urlset><url><loc>http://a/</loc></url></urlset>"))
	f.Add([]byte("\xef\xbb<urlset/>"))
	f.Add([]byte(`<sitemapindex><sitemap><loc>http://a/s.xml</loc></sitemap></sitemapindex>`))
	f.Add([]byte(`<urlset><url><loc>http://a/</loc><url><loc>x</loc></url></urlset>`))
	f.Add([]byte("<?xml version=\"1.0\" encoding=\"latin1\"?><urlset><url><loc>\xff</loc></url></urlset>"))
	f.Add([]byte(rss2))
	f.Add([]byte(rss1))
	f.Add([]byte(atom))
	f.Add(gzipped(f, []byte(atom)))
	f.Add([]byte(`<rss><channel><item><link>http://a/1</link><pubDate>Mon, 2 Nov 26 10:00 +0100</pubDate></item></channel></rss>`))
	f.Add([]byte(`<feed><entry><link href="http://a/1"/></entry><item><link>x</link></item></feed>`))
	f.Add([]byte(`<urlset><url><loc>http://a/1</loc></url></url><url><loc>http://a/2</loc></url></urlset>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := sitemap.NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		if !sitemap.MaybeXML(data) && r.Kind() != sitemap.Text {
			t.Fatalf("MaybeXML false, read as %v", r.Kind())
		}
		for n := 0; ; n++ {
			e, err := r.Next()
			if err != nil {
				break
			}
			if e.Loc == "" || n >= sitemap.MaxEntries || e.Priority < 0 || e.Priority > 1 {
				t.Fatalf("entry %d: %+v", n, e)
			}
			if r.Kind() == sitemap.Feed && (e.Priority != sitemap.DefaultPriority || e.ChangeFreq != "") {
				t.Fatalf("feed entry %d: %+v, want no priority and no changefreq", n, e)
			}
		}
	})
}
