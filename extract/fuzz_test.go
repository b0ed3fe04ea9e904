package extract_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"crawler"
	"crawler/extract"
)

// marker replaces the text of scripts and styles in FuzzParse: Text must
// not show it.
const marker = "\uE000hidden\uE000"

// FuzzParse parses any body as an HTML page: nothing panics, Text's lines
// are non-empty with white space collapsed, the text of scripts and
// styles never shows in it, and the metadata keeps its promises.
//
//	go test -run '^$' -fuzz FuzzParse -fuzztime 60s -parallel 2 ./extract
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"",
		"<!DOCTYPE html><html><head><title>t</title><script>var s = '<p>x</p>';</script></head><body><p>a <b>b</b></p></body></html>",
		"<p>one</p><script>two</script>three<style>four</style><noscript>five</noscript><template>six</template>",
		`<base href="../x/"><link rel=canonical href="?q"><meta property=og:title content=T><meta name=description content=" d ">`,
		`<script type=application/ld+json>{"a": [1, 2]}</script><script type=application/ld+json>{bad</script>`,
		"<table><script>in table</script><tr><td>1<td>2</table><select><script>s</script><option>o</select>",
		"<svg><script>x</script><style>y</style><foreignObject><p>z<script>w</script></svg>",
		"<plaintext><script>shown</script>",
		"<textarea><script>shown</script></textarea><title><script></title><xmp><script></xmp>",
		"<script><!--<script>nested</script>--></script>after",
		"<noscript><script>in noscript</script></noscript>",
		"<frameset><noframes><script>x</script></noframes></frameset>",
		"\xff\xfe<\x00p\x00>\x00x\x00",
		"<meta charset=shift_jis><p>\x82\xa0</p>",
		"<p>caf\xe9 &amp &#x0; &#xD800; &nbsp;\x00</p>",
		strings.Repeat("<div>", 520) + "x",
		strings.Repeat("<b>", 100) + "x" + strings.Repeat("<p>", 100),
		// Kept from the fuzzer's corpus:
		"<svg><sCript>0",
		"<sCript><!--<\xff",
		"<sCript \xf000>",
		"<nosCri0\x85></A>",
		"0</templAte>",
		"<frAmeset>0000",
		"<link rel=0 href>",
		"\xff\xfe0\x000",
		"<A> \xe9 0&nbsp",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 64<<10 {
			return
		}
		p := &crawler.Page{URL: "http://example.test/dir/page", ContentType: "text/html", Body: body}
		d, err := extract.Parse(p)
		if err != nil {
			if errors.Is(err, extract.ErrNotHTML) || len(body) > 0 && errors.Is(err, extract.ErrNoBody) {
				t.Fatalf("Parse: %v", err)
			}
			return // no body, or nested too deep
		}
		text := d.Text()
		if text != "" {
			for line := range strings.SplitSeq(text, "\n") {
				if line == "" || line != strings.Join(strings.Fields(line), " ") {
					t.Fatalf("Text has line %q", line)
				}
			}
		}
		if utf8.Valid(body) && !utf8.ValidString(text) {
			t.Fatalf("Text %q of a UTF-8 body is not UTF-8", text)
		}
		d.Title()
		d.Description()
		if c := d.Canonical(); c != "" {
			if u, err := url.Parse(c); err != nil || !u.IsAbs() {
				t.Fatalf("Canonical %q is not an absolute URL", c)
			}
		}
		for k := range d.OpenGraph() {
			if !strings.HasPrefix(k, "og:") || k != strings.ToLower(k) {
				t.Fatalf("OpenGraph has %q", k)
			}
		}
		for _, b := range d.JSONLD() {
			if !json.Valid(b) {
				t.Fatalf("JSONLD has %q", b)
			}
		}
		if _, err := d.Texts("*"); err != nil {
			t.Fatal(err)
		}
		if _, err := d.URLs("a, link, base", "href"); err != nil {
			t.Fatal(err)
		}

		// Whatever scripts and styles hold, Text is the same without it.
		if bytes.Contains(body, []byte(marker)) {
			return
		}
		for n := range d.DOM().Nodes[0].Descendants() {
			if n.Type == html.TextNode && n.Parent != nil && (n.Parent.DataAtom == atom.Script || n.Parent.DataAtom == atom.Style) {
				n.Data = marker
			}
		}
		if marked := d.Text(); marked != text {
			t.Fatalf("Text changes with the text of scripts and styles:\n%q\n%q", text, marked)
		}
	})
}
