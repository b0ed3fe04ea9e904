package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"

	"crawler"
	"crawler/internal/htmlattr"
	"crawler/internal/links"
)

// Errors of Parse for pages there is nothing to parse in. Handler skips
// such pages without calling its function.
var (
	ErrNoBody  = errors.New("extract: page has no body")
	ErrNotHTML = errors.New("extract: page is not HTML")
)

// Document is an HTML page parsed once, into a DOM, for any number of
// selections: every method below reads the same tree, and Handler parses
// each page once for all the rules and selectors its function applies.
//
// A Document holds no reference to the Page's Body, and stays valid after
// the Handler returns. It is safe for concurrent use as long as nobody
// modifies the tree through DOM. Each selection walks the tree, so its cost
// grows with the page; Title, Description, Canonical and OpenGraph walk the
// tree too (they are cheap, but not free: keep their results if you use
// them more than once).
type Document struct {
	dom  *goquery.Document
	url  *url.URL // the page's URL
	base *url.URL // the first <base href>, resolved against url; else url
}

// Parse parses the body of an HTML page: a Page whose ContentType (or,
// without one, its sniffed body) is text/html or application/xhtml+xml,
// the test the crawler applies before extracting links. A page without a
// body (a fetch error, a 304, a HEAD) is ErrNoBody; any other type,
// ErrNotHTML. A body in another encoding than UTF-8, as its BOM or
// Content-Type charset say (or its <meta charset>, or windows-1252 for a
// body that is not valid UTF-8), is decoded first. Parse fails too for a
// document nested more than 512 elements deep, which golang.org/x/net/html
// refuses to parse.
//
// Relative URLs (URLs, Canonical) are resolved against the page's first
// <base href>, itself resolved against p.URL, or else against p.URL.
func Parse(p *crawler.Page) (*Document, error) {
	if len(p.Body) == 0 {
		return nil, ErrNoBody
	}
	ct := p.ContentType
	if ct == "" {
		ct = p.Header.Get("Content-Type") // a Page made by hand may have only the header
	}
	if !links.IsHTML(ct, p.Body) {
		return nil, ErrNotHTML
	}
	u, err := url.Parse(p.URL)
	if err != nil {
		return nil, fmt.Errorf("extract: page URL: %w", err)
	}
	root, err := html.Parse(bytes.NewReader(utf8Body(p.Body, ct)))
	if err != nil {
		return nil, fmt.Errorf("extract: parse %s: %w", p.URL, err)
	}
	dom := goquery.NewDocumentFromNode(root)
	dom.Url = u
	d := &Document{dom: dom, url: u, base: u}
	if n := first(root, func(n *html.Node) bool { return isHTML(n, atom.Base) && htmlattr.Has(n, "href") }); n != nil {
		if b, err := u.Parse(strings.TrimSpace(htmlattr.Get(n, "href"))); err == nil {
			d.base = b
		}
	}
	return d, nil
}

// utf8Body returns body in UTF-8: as it is if it says it is UTF-8, or
// if nothing says otherwise for certain (no BOM, no charset in the
// Content-Type) and it is valid UTF-8 (a rune cut at the end aside);
// decoded from the encoding found else.
func utf8Body(body []byte, contentType string) []byte {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if name == "utf-8" || !certain && validUTF8(body) {
		return body
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return body
	}
	return out
}

// validUTF8 reports whether b is valid UTF-8 but for a rune cut short at
// its end, as a body cut at the fetcher's cap may be.
func validUTF8(b []byte) bool {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				b = b[:i]
			}
			break
		}
	}
	return utf8.Valid(b)
}

// DOM returns the parsed page, for goquery's full API. Modifying it
// changes what the other methods see, and makes the Document unsafe for
// concurrent use.
func (d *Document) DOM() *goquery.Document { return d.dom }

// URL returns the page's URL, parsed. The caller must not modify it.
func (d *Document) URL() *url.URL { return d.url }

// Texts returns the text of each element that selector matches, in
// document order: the text the element shows (as Text says, without
// script, style and other hidden elements inside it, unless the selector
// matched one itself), on one line, white space collapsed, trimmed; "" for
// an element without text. A selector that does not compile is a
// *SelectorError.
func (d *Document) Texts(selector string) ([]string, error) {
	sel, err := compile(selector)
	if err != nil {
		return nil, err
	}
	return d.texts(sel), nil
}

func (d *Document) texts(sel cascadia.Selector) []string {
	nodes := d.dom.FindMatcher(sel).Nodes
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = text(n, true)
	}
	return out
}

// Attrs returns the value of the attribute attr of each element that
// selector matches, in document order, as written (entities decoded); the
// elements without that attribute are left out. A selector that does not
// compile is a *SelectorError.
func (d *Document) Attrs(selector, attr string) ([]string, error) {
	sel, err := compile(selector)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range d.dom.FindMatcher(sel).Nodes {
		if v, ok := htmlattr.Lookup(n, attr); ok {
			out = append(out, v)
		}
	}
	return out, nil
}

// URLs is Attrs for an attribute holding a URL (href, src...): each value,
// trimmed of white space, resolved against the document's base (see
// Parse). Values that do not parse as URL references are left out.
func (d *Document) URLs(selector, attr string) ([]string, error) {
	vals, err := d.Attrs(selector, attr)
	if err != nil {
		return nil, err
	}
	out := vals[:0]
	for _, v := range vals {
		if u, ok := d.resolve(v); ok {
			out = append(out, u)
		}
	}
	return out, nil
}

// resolve resolves ref against the document's base.
func (d *Document) resolve(ref string) (string, bool) {
	u, err := d.base.Parse(strings.TrimSpace(ref))
	if err != nil {
		return "", false
	}
	return u.String(), true
}

// Title returns the text of the page's first <title>, white space
// collapsed ("" if none). Unlike Page.Title, it is not cut at 1 KiB.
func (d *Document) Title() string {
	if n := first(d.root(), func(n *html.Node) bool { return isHTML(n, atom.Title) }); n != nil {
		return text(n, true)
	}
	return ""
}

// Description returns the content of the page's first <meta
// name="description"> (the name in any case), white space collapsed (""
// if none).
func (d *Document) Description() string {
	n := first(d.root(), func(n *html.Node) bool {
		return isHTML(n, atom.Meta) && strings.EqualFold(strings.TrimSpace(htmlattr.Get(n, "name")), "description")
	})
	if n == nil {
		return ""
	}
	return strings.Join(strings.Fields(htmlattr.Get(n, "content")), " ")
}

// Canonical returns the target of the page's first <link rel="canonical"
// href>, resolved against the document's base ("" if none, or if it does
// not parse).
func (d *Document) Canonical() string {
	n := first(d.root(), func(n *html.Node) bool {
		return isHTML(n, atom.Link) && htmlattr.Has(n, "href") && hasToken(htmlattr.Get(n, "rel"), "canonical")
	})
	if n == nil {
		return ""
	}
	u, _ := d.resolve(htmlattr.Get(n, "href"))
	return u
}

// OpenGraph returns the page's Open Graph properties: for each <meta
// property="og:..." content> (or name="og:...", which some sites write),
// the property, in lower case, mapped to its first content, trimmed.
// Values are as written: og:url and og:image are not resolved. The map is
// new on each call, empty if the page has none.
func (d *Document) OpenGraph() map[string]string {
	og := map[string]string{}
	for n := range d.root().Descendants() {
		if !isHTML(n, atom.Meta) {
			continue
		}
		prop, ok := htmlattr.Lookup(n, "property")
		if !ok {
			prop = htmlattr.Get(n, "name")
		}
		prop = strings.ToLower(strings.TrimSpace(prop))
		if !strings.HasPrefix(prop, "og:") || len(prop) == len("og:") {
			continue
		}
		if content, ok := htmlattr.Lookup(n, "content"); ok {
			if _, seen := og[prop]; !seen {
				og[prop] = strings.TrimSpace(content)
			}
		}
	}
	return og
}

// JSONLD returns the content of each <script type="application/ld+json">
// that is valid JSON, in document order, trimmed: an array stays one
// block, and blocks that are not valid JSON (nor empty ones) are left out.
func (d *Document) JSONLD() []json.RawMessage {
	var out []json.RawMessage
	for n := range d.root().Descendants() {
		if !isHTML(n, atom.Script) {
			continue
		}
		if mt, _, _ := strings.Cut(htmlattr.Get(n, "type"), ";"); !strings.EqualFold(strings.TrimSpace(mt), "application/ld+json") {
			continue
		}
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
		}
		block := strings.TrimSpace(b.String())
		if json.Valid([]byte(block)) {
			out = append(out, json.RawMessage(block))
		}
	}
	return out
}

// Text returns the text the page shows: that of the elements outside
// <head>, without script, style, noscript, template, iframe, noembed,
// noframes and elements with the hidden attribute; entities decoded, white
// space collapsed; block elements (p, div, li, h1, tr, br...) begin new
// lines, and there are no empty lines.
func (d *Document) Text() string { return text(d.root(), false) }

func (d *Document) root() *html.Node { return d.dom.Nodes[0] }

// first returns the first node under root, in document order, for which
// ok is true, or nil.
func first(root *html.Node, ok func(*html.Node) bool) *html.Node {
	for n := range root.Descendants() {
		if ok(n) {
			return n
		}
	}
	return nil
}

// isHTML reports whether n is the HTML element a (not, say, an SVG
// <title>).
func isHTML(n *html.Node, a atom.Atom) bool {
	return n.Type == html.ElementNode && n.DataAtom == a && n.Namespace == ""
}

// hasToken reports whether the space-separated list s holds tok, in any
// case.
func hasToken(s, tok string) bool {
	for f := range strings.FieldsSeq(s) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}
