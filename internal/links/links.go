package links

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/zeebo/xxh3"
	"golang.org/x/net/html"

	"crawler/canon"
)

// MaxTitleBytes is the most of a title kept.
const MaxTitleBytes = 1024

// MaxHrefBytes is the longest href kept: canon rejects longer input unread
// (4 × canon.MaxLength), so extraction does not even copy it.
const MaxHrefBytes = 4 * canon.MaxLength

// Result is what Extract finds in one HTML document. Strings are raw
// attribute values, not yet resolved.
type Result struct {
	Hrefs        []string // hrefs of <a> and <area>, in document order
	NoFollow     []string // hrefs of rel="nofollow" links, unless kept in Hrefs
	Title        string   // the first <title>'s text, white space collapsed, at most MaxTitleBytes
	Base         string   // the first <base href>
	Canonical    string   // <link rel="canonical" href>
	MetaNoFollow bool     // <meta name="robots"> (or name=agent) says nofollow (or none)
	MetaNoIndex  bool     // <meta name="robots"> (or name=agent) says noindex (or none)
	Content      uint64   // fingerprint of the text, tag names and link paths, for duplicate detection
	TooMany      bool     // hrefs past maxLinks (in Hrefs or NoFollow) were dropped
	LongHrefs    int      // hrefs over MaxHrefBytes, dropped unread
}

// Extract reads an HTML body in place (never building a DOM) and collects
// its links and the directives that govern them: at most maxLinks hrefs
// (<= 0: no bound), so that a hostile page costs memory in proportion to
// its capped body. Links marked rel="nofollow" are dropped unless
// keepNoFollow is set. Robots meta tags are read for name="robots" and for
// name=agent, the crawler's product token (as name="googlebot" speaks to
// one crawler). It finds what x/net/html's Tokenizer finds.
func Extract(body []byte, keepNoFollow bool, agent string, maxLinks int) Result {
	var ex Result
	content := xxh3.New()
	s := htmlScanner{b: body}
	var name []byte   // the tag's name as the Tokenizer gives it
	titleAt := -1     // where the first <title>'s text starts, until the next token
	hasTitle := false // a <title> was seen
	for {
		tok := s.next()
		if tok == htmlText && cap(s.b)-cap(s.text) == titleAt {
			ex.Title = titleText(s.text)
		}
		titleAt = -1
		switch tok {
		case htmlEnd:
			ex.Content = content.Sum64()
			return ex
		case htmlText:
			content.Write(s.text)
			continue
		}
		name = tagName(name[:0], s.name)
		content.Write(name)
		content.WriteString(">")
		switch string(name) {
		case "title":
			if !hasTitle {
				hasTitle, titleAt = true, s.i
			}
		case "a", "area":
			href, rel, ok := decodedAttrs(&s, "href", "rel")
			if !ok {
				continue
			}
			// A link's query is left out of the content, so that pages
			// differing only in their links' session ids are duplicates.
			withoutQuery, _, _ := bytes.Cut(href, []byte("?"))
			content.Write(withoutQuery)
			ex.add(string(href), !keepNoFollow && hasToken(string(rel), "nofollow"), maxLinks)
		case "base":
			if href, _, ok := decodedAttrs(&s, "href", ""); ok && ex.Base == "" && len(href) <= MaxHrefBytes {
				ex.Base = string(href)
			}
		case "link":
			if href, rel, ok := decodedAttrs(&s, "href", "rel"); ok && ex.Canonical == "" && len(href) <= MaxHrefBytes && hasToken(string(rel), "canonical") {
				ex.Canonical = string(href)
			}
		case "meta":
			name, content, _ := decodedAttrs(&s, "name", "content")
			name = bytes.TrimSpace(name)
			if bytes.EqualFold(name, []byte("robots")) || agent != "" && strings.EqualFold(string(name), agent) {
				noIndex, noFollow := robotsDirectives(string(content))
				ex.MetaNoIndex, ex.MetaNoFollow = ex.MetaNoIndex || noIndex, ex.MetaNoFollow || noFollow
			}
		}
	}
}

// add keeps the href of a link, followed or nofollow, within maxLinks
// links in all (<= 0: no bound).
func (ex *Result) add(href string, noFollow bool, maxLinks int) {
	switch {
	case len(href) > MaxHrefBytes:
		ex.LongHrefs++
	case maxLinks > 0 && len(ex.Hrefs)+len(ex.NoFollow) >= maxLinks:
		ex.TooMany = true
	case noFollow:
		ex.NoFollow = append(ex.NoFollow, href)
	default:
		ex.Hrefs = append(ex.Hrefs, href)
	}
}

// titleText returns a title element's text as a browser shows it: decoded
// (by x/net/html's Tokenizer, reading the element alone, if it holds a
// character reference, a CR or a NUL), white space collapsed, at most
// MaxTitleBytes of it.
func titleText(raw []byte) string {
	text := raw
	if needsDecoding(raw) {
		z := html.NewTokenizer(io.MultiReader(strings.NewReader("<title>"), bytes.NewReader(raw), strings.NewReader("</title>")))
		z.Next()
		if z.Next() == html.TextToken {
			text = z.Text()
		}
	}
	return collapse(text)
}

// collapse returns text with runs of white space made one space, trimmed,
// and the words that fit in MaxTitleBytes.
func collapse(text []byte) string {
	var b strings.Builder
	for f := range bytes.FieldsSeq(text) {
		if b.Len()+1+len(f) > MaxTitleBytes {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.Write(f)
	}
	return b.String()
}

// tagName appends to dst a tag's name as x/net/html's Tokenizer gives it:
// in lower case (ASCII), a NUL made U+FFFD.
func tagName(dst, raw []byte) []byte {
	for _, c := range raw {
		switch {
		case c == 0:
			dst = append(dst, "\uFFFD"...)
		case 'A' <= c && c <= 'Z':
			dst = append(dst, c+'a'-'A')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// decodedAttrs returns the values of the scanner's current tag's
// attributes key1 and key2 (key2 may be ""), decoded, and whether key1 is
// there. A value with a character reference, a carriage return or a NUL
// is decoded by x/net/html's Tokenizer, reading the tag alone.
func decodedAttrs(s *htmlScanner, key1, key2 string) (v1, v2 []byte, ok bool) {
	v1, v2, ok = s.attrs(key1, key2)
	if needsDecoding(v1) || needsDecoding(v2) {
		z := html.NewTokenizer(bytes.NewReader(s.tag))
		z.Next()
		return attrs(z, key1, key2)
	}
	return v1, v2, ok
}

// needsDecoding reports whether an attribute's raw value differs from its
// value: it holds a character reference, a carriage return (a newline) or
// a NUL (U+FFFD).
func needsDecoding(v []byte) bool {
	for _, c := range v {
		if c == '&' || c == '\r' || c == 0 {
			return true
		}
	}
	return false
}

// robotsDirectives reads a robots meta tag's content or an X-Robots-Tag
// directive list: noindex, nofollow, or none (both).
func robotsDirectives(list string) (noIndex, noFollow bool) {
	none := hasToken(list, "none")
	return none || hasToken(list, "noindex"), none || hasToken(list, "nofollow")
}

// xRobotsTag reads X-Robots-Tag header values: comma-separated directives,
// each value optionally led by "agent:" to speak to one crawler only, as
// in "otherbot: noindex". Values for other agents are ignored; agent is
// the crawler's product token.
func XRobotsTag(values []string, agent string) (noIndex, noFollow bool) {
	for _, v := range values {
		if name, rest, ok := strings.Cut(v, ":"); ok {
			name = strings.TrimSpace(name)
			if !strings.ContainsAny(name, " ,\t") && !valuedDirective(name) {
				if !strings.EqualFold(name, agent) {
					continue
				}
				v = rest
			}
		}
		i, f := robotsDirectives(v)
		noIndex, noFollow = noIndex || i, noFollow || f
	}
	return noIndex, noFollow
}

// valuedDirective reports whether name is a robots directive that takes a
// value after a colon, not an agent name.
func valuedDirective(name string) bool {
	switch strings.ToLower(name) {
	case "unavailable_after", "max-snippet", "max-image-preview", "max-video-preview":
		return true
	}
	return false
}

// attrs reads the remaining attributes of the tokenizer's current tag and
// returns the values of the two named ones (key2 may be ""), which stay
// valid until its next Next. ok reports whether key1 was present.
func attrs(z *html.Tokenizer, key1, key2 string) (v1, v2 []byte, ok bool) {
	for {
		k, v, more := z.TagAttr()
		switch {
		case !ok && string(k) == key1:
			v1, ok = v, true
		case key2 != "" && len(v2) == 0 && string(k) == key2:
			v2 = v
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

// isHTML reports whether a response is HTML that links are Result from:
// text/html or application/xhtml+xml, sniffed when no Content-Type is given.
func IsHTML(contentType string, body []byte) bool {
	if contentType == "" {
		contentType = http.DetectContentType(body)
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
	}
	return mt == "text/html" || mt == "application/xhtml+xml"
}
