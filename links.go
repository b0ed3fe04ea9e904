package crawler

import (
	"bytes"
	"errors"
	"mime"
	"net/http"
	"strings"

	"github.com/zeebo/xxh3"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"crawler/canon"
)

// maxHrefBytes is the longest href kept: canon rejects longer input
// unread (4 × canon.MaxLength), so link extraction does not even copy it.
const maxHrefBytes = 4 * canon.MaxLength

// linkLimits bound what link extraction takes from one page, so that a
// hostile page costs memory in proportion to its (capped) body at most.
type linkLimits struct {
	links      int // hrefs kept; <= 0: no bound
	tokenBytes int // bytes buffered for one token (html.Tokenizer.SetMaxBuf); <= 0: no bound
}

// extracted is what link extraction finds in one HTML document. Strings are
// raw attribute values, not yet resolved.
type extracted struct {
	hrefs        []string // hrefs of <a> and <area>, in document order
	base         string   // the first <base href>
	canonical    string   // <link rel="canonical" href>
	noFollow     bool     // <meta name="robots"> (or name=agent) says nofollow (or none)
	noIndex      bool     // <meta name="robots"> (or name=agent) says noindex (or none)
	content      uint64   // fingerprint of the text, tag names and link paths (see Traps.DuplicatePages)
	tooMany      bool     // hrefs past linkLimits.links were dropped
	tokenTooLong bool     // a token over linkLimits.tokenBytes ended extraction there
	longHrefs    int      // hrefs over maxHrefBytes, dropped unread
}

// extractLinks tokenizes an HTML body (never building a DOM) and collects
// its links and the directives that govern them, within lim. Links marked
// rel="nofollow" are dropped unless keepNoFollow is set. Robots meta tags
// are read for name="robots" and for name=agent, the crawler's product
// token (as name="googlebot" speaks to one crawler).
func extractLinks(body []byte, keepNoFollow bool, agent string, lim linkLimits) extracted {
	var ex extracted
	content := xxh3.New()
	z := html.NewTokenizer(bytes.NewReader(body))
	z.SetMaxBuf(max(lim.tokenBytes, 0))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			ex.tokenTooLong = errors.Is(z.Err(), html.ErrBufferExceeded)
			ex.content = content.Sum64()
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
		if !hasAttr {
			continue
		}
		switch atom.Lookup(name) {
		case atom.A, atom.Area:
			href, rel, ok := attrs(z, "href", "rel")
			if !ok {
				continue
			}
			// A link's query is left out of the content, so that pages
			// differing only in their links' session ids are duplicates.
			withoutQuery, _, _ := bytes.Cut(href, []byte("?"))
			content.Write(withoutQuery)
			switch {
			case !keepNoFollow && hasToken(string(rel), "nofollow"):
			case len(href) > maxHrefBytes:
				ex.longHrefs++
			case lim.links > 0 && len(ex.hrefs) >= lim.links:
				ex.tooMany = true
			default:
				ex.hrefs = append(ex.hrefs, string(href))
			}
		case atom.Base:
			if href, _, ok := attrs(z, "href", ""); ok && ex.base == "" && len(href) <= maxHrefBytes {
				ex.base = string(href)
			}
		case atom.Link:
			if href, rel, ok := attrs(z, "href", "rel"); ok && ex.canonical == "" && len(href) <= maxHrefBytes && hasToken(string(rel), "canonical") {
				ex.canonical = string(href)
			}
		case atom.Meta:
			name, content, _ := attrs(z, "name", "content")
			name = bytes.TrimSpace(name)
			if bytes.EqualFold(name, []byte("robots")) || agent != "" && strings.EqualFold(string(name), agent) {
				noIndex, noFollow := robotsDirectives(string(content))
				ex.noIndex, ex.noFollow = ex.noIndex || noIndex, ex.noFollow || noFollow
			}
		}
	}
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
func xRobotsTag(values []string, agent string) (noIndex, noFollow bool) {
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

// attrs reads the remaining attributes of the current tag and returns the
// values of the two named ones (key2 may be ""), which stay valid until
// the tokenizer's next Next. ok reports whether key1 was present.
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
