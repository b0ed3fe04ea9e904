package crawler

import (
	"bytes"
	"mime"
	"net/http"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxLinksPerPage bounds the hrefs kept from one page, so that a hostile page
// with millions of links cannot grow memory without bound.
const maxLinksPerPage = 20000

// extracted is what link extraction finds in one HTML document. Strings are
// raw attribute values, not yet resolved.
type extracted struct {
	hrefs     []string // hrefs of <a> and <area>, in document order
	base      string   // the first <base href>
	canonical string   // <link rel="canonical" href>
	noFollow  bool     // <meta name="robots"> says nofollow (or none)
	noIndex   bool     // <meta name="robots"> says noindex (or none)
}

// extractLinks tokenizes an HTML body (never building a DOM) and collects
// its links and the directives that govern them. Links marked
// rel="nofollow" are dropped unless keepNoFollow is set.
func extractLinks(body []byte, keepNoFollow bool) extracted {
	var ex extracted
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return ex
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		if !hasAttr {
			continue
		}
		switch atom.Lookup(name) {
		case atom.A, atom.Area:
			href, rel, ok := attrs(z, "href", "rel")
			if !ok {
				continue
			}
			if !keepNoFollow && hasToken(rel, "nofollow") {
				continue
			}
			if len(ex.hrefs) < maxLinksPerPage {
				ex.hrefs = append(ex.hrefs, href)
			}
		case atom.Base:
			if href, _, ok := attrs(z, "href", ""); ok && ex.base == "" {
				ex.base = href
			}
		case atom.Link:
			if href, rel, ok := attrs(z, "href", "rel"); ok && hasToken(rel, "canonical") && ex.canonical == "" {
				ex.canonical = href
			}
		case atom.Meta:
			name, content, _ := attrs(z, "name", "content")
			if strings.EqualFold(strings.TrimSpace(name), "robots") {
				none := hasToken(content, "none")
				ex.noFollow = ex.noFollow || none || hasToken(content, "nofollow")
				ex.noIndex = ex.noIndex || none || hasToken(content, "noindex")
			}
		}
	}
}

// attrs reads the remaining attributes of the current tag and returns the
// values of the two named ones (key2 may be ""). ok reports whether key1
// was present.
func attrs(z *html.Tokenizer, key1, key2 string) (v1, v2 string, ok bool) {
	for {
		k, v, more := z.TagAttr()
		switch {
		case !ok && string(k) == key1:
			v1, ok = string(v), true
		case key2 != "" && v2 == "" && string(k) == key2:
			v2 = string(v)
		}
		if !more {
			return v1, v2, ok
		}
	}
}

// hasToken reports whether the space- or comma-separated list s holds tok,
// ignoring case (as rel and meta robots content are compared).
func hasToken(s, tok string) bool {
	for f := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' }) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

// isHTML reports whether a response is HTML that links are extracted from:
// text/html or application/xhtml+xml, sniffed when no Content-Type is given.
func isHTML(contentType string, body []byte) bool {
	if contentType == "" {
		contentType = http.DetectContentType(body)
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
	}
	return mt == "text/html" || mt == "application/xhtml+xml"
}
