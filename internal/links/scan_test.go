package links

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zeebo/xxh3"
	"golang.org/x/net/html"

	"crawler/crawlertest"
)

// events is what a tokenizer found in a document: runs of text (adjacent
// text tokens joined) and start tags with their attributes.
type events struct {
	list []string
	text []byte
}

func (e *events) addText(b []byte) { e.text = append(e.text, b...) }

func (e *events) addTag(tag string) {
	e.flush()
	e.list = append(e.list, tag)
}

func (e *events) flush() {
	if len(e.text) > 0 {
		e.list = append(e.list, fmt.Sprintf("text %q", e.text))
		e.text = nil
	}
}

func (e *events) done() []string {
	e.flush()
	return e.list
}

// tokenizerEvents is what x/net/html's Tokenizer finds in doc: text, and
// start tags with every attribute it keeps, decoded.
func tokenizerEvents(doc []byte) []string {
	var ev events
	z := html.NewTokenizer(bytes.NewReader(doc))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ev.done()
		case html.TextToken:
			ev.addText(z.Raw())
		case html.StartTagToken, html.SelfClosingTagToken:
			name, more := z.TagName()
			tag := fmt.Sprintf("tag %q", name)
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				tag += fmt.Sprintf(" %q=%q", k, v)
			}
			ev.addTag(tag)
		}
	}
}

// scannerEvents is what an htmlScanner finds in doc, in the form of
// tokenizerEvents. Every attribute is read with readAttr, kept as the
// Tokenizer keeps them (the first of each name, none with an empty name)
// and decoded as decodedAttrs decodes it (for any name, where decodedAttrs
// is asked for ASCII ones).
func scannerEvents(doc []byte) []string {
	var ev events
	s := htmlScanner{b: doc}
	for {
		switch s.next() {
		case htmlEnd:
			return ev.done()
		case htmlText:
			ev.addText(s.text)
			continue
		}
		tag := fmt.Sprintf("tag %q", tagName(nil, s.name))
		var keys []string
		for i := 1 + len(s.name); ; {
			i = skipHTMLSpace(s.tag, i)
			if s.tag[i] == '>' {
				break
			}
			var k, v []byte
			i, k, v, _ = readAttr(s.tag, i)
			key := string(tagName(nil, k))
			lower := asciiLower(k) // the Tokenizer keeps the first attribute of each name so lowered
			if len(k) == 0 || slices.Contains(keys, lower) {
				continue
			}
			keys = append(keys, lower)
			if needsDecoding(v) { // as decodedAttrs decodes it: the tag alone, tokenized
				z := html.NewTokenizer(bytes.NewReader(s.tag))
				z.Next()
				v, _, _ = attrs(z, key, "")
			}
			tag += fmt.Sprintf(" %q=%q", key, v)
		}
		ev.addTag(tag)
	}
}

// asciiLower returns b with ASCII letters in lower case.
func asciiLower(b []byte) string {
	l := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		l[i] = c
	}
	return string(l)
}

// extractTokenizer is extractLinks as it was written on x/net/html's
// Tokenizer, the reference that extractLinks must agree with.
func extractTokenizer(body []byte, keepNoFollow bool, agent string, maxLinks int) Result {
	var ex Result
	content := xxh3.New()
	z := html.NewTokenizer(bytes.NewReader(body))
	inTitle, hasTitle := false, false // the token is the first <title>'s text; a <title> was seen
	for {
		tt := z.Next()
		if tt == html.TextToken && inTitle {
			content.Write(z.Raw())
			ex.Title = collapse(z.Text())
			inTitle = false
			continue
		}
		inTitle = false
		switch tt {
		case html.ErrorToken:
			ex.Content = content.Sum64()
			return ex
		case html.TextToken:
			content.Write(z.Raw())
			continue
		case html.StartTagToken, html.SelfClosingTagToken:
		default:
			continue
		}
		name, hasAttr := z.TagName()
		content.Write(name)
		content.WriteString(">")
		if string(name) == "title" && !hasTitle {
			inTitle, hasTitle = true, true
		}
		if !hasAttr {
			continue
		}
		switch string(name) {
		case "a", "area":
			href, rel, ok := attrs(z, "href", "rel")
			if !ok {
				continue
			}
			withoutQuery, _, _ := bytes.Cut(href, []byte("?"))
			content.Write(withoutQuery)
			ex.add(string(href), !keepNoFollow && hasToken(string(rel), "nofollow"), maxLinks)
		case "base":
			if href, _, ok := attrs(z, "href", ""); ok && ex.Base == "" && len(href) <= MaxHrefBytes {
				ex.Base = string(href)
			}
		case "link":
			if href, rel, ok := attrs(z, "href", "rel"); ok && ex.Canonical == "" && len(href) <= MaxHrefBytes && hasToken(string(rel), "canonical") {
				ex.Canonical = string(href)
			}
		case "meta":
			name, content, _ := attrs(z, "name", "content")
			name = bytes.TrimSpace(name)
			if bytes.EqualFold(name, []byte("robots")) || agent != "" && strings.EqualFold(string(name), agent) {
				noIndex, noFollow := robotsDirectives(string(content))
				ex.MetaNoIndex, ex.MetaNoFollow = ex.MetaNoIndex || noIndex, ex.MetaNoFollow || noFollow
			}
		}
	}
}

// scanSeeds are documents where the tokenization rules turn: the ends of
// comments, raw text and script escapes, attribute syntax, and the
// document ending anywhere.
var scanSeeds = []string{
	`<title> a &amp; b </title><title>c</title>`,
	`<TITLE x=1>t\r\nu\x00</Title ><a rel=nofollow href=/n><a href=/f>`,
	`<title></title>text<title>x`,
	`<a href="/a">x</a><AREA HREF=/b>`,
	`a < b <3 <<a href=/c>`,
	`text</>more</ a>end</3 x>`,
	`<!-- <a href="/c"> --><a href="/d">`,
	`<!--><a href=/1><!---><a href=/2><!-- --!><a href=/3><!-- --!-><a href=/4>--><a href=/5>`,
	`<!DOCTYPE html><!doctype x "a>b"><a href=/6><!bogus<a href=/7>><?xml <a href=/8>?>`,
	`<script>var s = "<a href='/js'>"; </scrip </script x><a href=/9>`,
	`<script><!-- <script> </script> <a href=/10> </script> --> </script><a href=/11>`,
	`<script><!--<SCRIPT/></script>--></script><a href=/12>`,
	`<script><!-- -- > </script><a href=/13>`,
	`<script><!-x</script><a href=/14>`,
	`<script><!-- -><script></script><a href=/31></script><a href=/32>`,
	`<script><!--><script></script><a href=/33></script>`,
	`<script><!--<script>--><a href=/34></script><a href=/35>`,
	`<script><!--<script>-></script><a href=/36></script><a href=/37>`,
	`<script><!--<script>-<</script><a href=/38></script><a href=/39>`,
	`<script><!--<scripty></script><a href=/40>`,
	`<script><!--<</script><a href=/41>`,
	`<script><!--<x</script><a href=/42>`,
	`<style><a href=/15></STYLE ><title><a href=/16></title/><textarea></textarea><a href=/17>`,
	`<noscript><a href=/18></noscript><xmp></xmp><iframe src=x><a href=/19></iframe><noembed></noembed><noframes></noframes>`,
	`<plaintext><a href=/20>`,
	`<script/><a href=/21></script><a href=/22>`,
	`<a href = "/23" rel= nofollow HREF=/dup>`,
	`<a =x href=/24 / href='/dup'>`,
	`<a/href=/25><a href=/26/><a href=/27 /><p a=/>`,
	`<a href="/q?a=1&amp;b=2&copy=3&copy;">`,
	"<a href=\"/cr\r\nlf\x00nul\">",
	"<A\x00 href=/29><scr\x00ipt><a href=/30>",
	`<a href=/31 title="x > y">`,
	`<meta name=" Robots " content="NoFollow"><meta NAME=crawler CONTENT=noindex>`,
	`<base href="/b/"><base href="/c/"><link rel="alternate canonical" href="/canon">`,
	`<a href="/unclosed`, `<a href=/x`, `<a href=`, `<a `, `<a`, `<`, `</`, `</a`, `<!`, `<!-`, `<!--`, `<!--x--`, `<!DOC`, `<?`,
	`<script>`, `<script><!--`, `<script><!--<script>`, `<script></scr`, `<title></titl`,
}

func FuzzScanHTML(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	web := crawlertest.NewWeb(crawlertest.Config{Hosts: 2, PagesPerHost: 3, Seed: 1})
	defer web.Close()
	if body, err := get(web, web.Seeds()[0]); err == nil {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		want, got := tokenizerEvents(doc), scannerEvents(doc)
		if !slices.Equal(got, want) {
			t.Fatalf("htmlScanner found\n%s\nx/net/html's Tokenizer\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		for _, keep := range []bool{false, true} {
			lim := 3
			want, got := extractTokenizer(doc, keep, "crawler", lim), Extract(doc, keep, "crawler", lim)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("extractLinks = %+v\nwith x/net/html's Tokenizer: %+v", got, want)
			}
		}
	})
}
