package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"crawler/internal/htmlattr"
)

// text returns the visible text of the tree under root: text nodes, white
// space collapsed, without the hidden elements below root (root itself is
// read whatever it is). Block elements break lines, table cells words; with
// oneLine, line breaks are spaces too.
func text(root *html.Node, oneLine bool) string {
	t := textBuilder{oneLine: oneLine}
	// Walk without recursion: enter a node, then its children, then leave
	// it and its ancestors up to the first with a next sibling.
	n := root
	for {
		if t.enter(n, n == root) && n.FirstChild != nil {
			n = n.FirstChild
			continue
		}
		for {
			t.leave(n, n == root)
			if n == root {
				return t.b.String()
			}
			if n.NextSibling != nil {
				n = n.NextSibling
				break
			}
			n = n.Parent
		}
	}
}

// textBuilder collects words, with the separator the markup between
// them calls for written only once the next word comes.
type textBuilder struct {
	b       strings.Builder
	oneLine bool
	space   bool // a space is due before the next word
	newline bool // a line break is due before the next word
}

// enter takes node n's text, or the separator its start tag calls for, and
// reports whether to read its children.
func (t *textBuilder) enter(n *html.Node, isRoot bool) bool {
	switch n.Type {
	case html.TextNode:
		t.text(n.Data)
		return false
	case html.ElementNode:
		if !isRoot && hidden(n) {
			return false
		}
		t.separate(n)
		return true
	case html.DocumentNode:
		return true
	}
	return false // comments, doctypes
}

// leave notes the separator the end of element n calls for.
func (t *textBuilder) leave(n *html.Node, isRoot bool) {
	if n.Type == html.ElementNode && n.DataAtom != atom.Br && (isRoot || !hidden(n)) {
		t.separate(n)
	}
}

// separate notes the separator that element n's start or end calls for.
func (t *textBuilder) separate(n *html.Node) {
	if n.Namespace != "" {
		return
	}
	switch {
	case n.DataAtom == atom.Td || n.DataAtom == atom.Th:
		t.space = true
	case n.DataAtom == atom.Br || blocks[n.DataAtom]:
		if t.oneLine {
			t.space = true
		} else {
			t.newline = true
		}
	}
}

// text adds the words of a text node.
func (t *textBuilder) text(s string) {
	if r, _ := utf8.DecodeRuneInString(s); unicode.IsSpace(r) {
		t.space = true
	}
	words := 0
	for w := range strings.FieldsSeq(s) {
		if words++; words > 1 {
			t.space = true
		}
		if t.b.Len() > 0 {
			switch {
			case t.newline:
				t.b.WriteByte('\n')
			case t.space:
				t.b.WriteByte(' ')
			}
		}
		t.b.WriteString(w)
		t.space, t.newline = false, false
	}
	if r, _ := utf8.DecodeLastRuneInString(s); unicode.IsSpace(r) {
		t.space = true
	}
}

// hidden reports whether element n and all it holds are not shown: the
// head, scripts, styles, templates, the fallbacks of scripts and embedded
// content, and elements with the hidden attribute.
func hidden(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style: // in SVG too
		return true
	}
	if n.Namespace != "" {
		return false
	}
	switch n.DataAtom {
	case atom.Head, atom.Noscript, atom.Template, atom.Iframe, atom.Noembed, atom.Noframes:
		return true
	}
	return htmlattr.Has(n, "hidden")
}

// blocks are the elements whose start and end break lines: those shown as
// blocks (or list items, table rows, options) by default.
var blocks = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true,
	atom.Body: true, atom.Caption: true, atom.Dd: true, atom.Details: true,
	atom.Dialog: true, atom.Div: true, atom.Dl: true, atom.Dt: true,
	atom.Fieldset: true, atom.Figcaption: true, atom.Figure: true, atom.Footer: true,
	atom.Form: true, atom.H1: true, atom.H2: true, atom.H3: true,
	atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true,
	atom.Hgroup: true, atom.Hr: true, atom.Html: true, atom.Legend: true,
	atom.Li: true, atom.Main: true, atom.Menu: true, atom.Nav: true,
	atom.Ol: true, atom.Optgroup: true, atom.Option: true, atom.P: true,
	atom.Pre: true, atom.Section: true, atom.Summary: true, atom.Table: true,
	atom.Tbody: true, atom.Tfoot: true, atom.Thead: true, atom.Tr: true,
	atom.Ul: true,
}
