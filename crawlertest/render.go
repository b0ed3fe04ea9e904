package crawlertest

import (
	"bytes"
	"strconv"
)

// words pad pages with text. 64 words: one draw of 6 bits picks one.
var words = [64]string{
	"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
	"india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa",
	"quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey", "xray",
	"yankee", "zulu", "crawl", "spider", "frontier", "robots", "politeness", "canonical",
	"anchor", "fetch", "parse", "queue", "host", "link", "page", "index",
	"web", "graph", "breadth", "depth", "seed", "harvest", "mirror", "archive",
	"river", "stone", "cloud", "forest", "meadow", "harbor", "lantern", "orchard",
	"copper", "silver", "amber", "cedar", "willow", "granite", "thistle", "juniper",
}

// appendWords appends words separated by spaces until about n bytes were added.
func appendWords(b []byte, rg *rng, n int) []byte {
	end := len(b) + n
	var bitsLeft int
	var x uint64
	for len(b) < end {
		if bitsLeft < 6 {
			x, bitsLeft = rg.next(), 64
		}
		b = append(b, words[x&63]...)
		b = append(b, ' ')
		x >>= 6
		bitsLeft -= 6
	}
	return b
}

func appendTitle(b []byte, doc res) []byte {
	b = append(b, "Host "...)
	b = strconv.AppendInt(b, int64(doc.host), 10)
	switch doc.kind {
	case kindPrivate:
		b = append(b, " private "...)
	case kindNofollow:
		b = append(b, " nofollow "...)
	default:
		b = append(b, " page "...)
	}
	return strconv.AppendInt(b, int64(doc.n), 10)
}

const (
	htmlFooter = "</p>\n</body>\n</html>\n"
	linkCost   = 48 // rough bytes of markup per link, to spread the padding
)

// render appends the HTML of document doc with links ls (from g.links) to b.
// It draws spellings and padding from doc's text stream, so the same doc
// always renders to the same bytes.
func (g *gen) render(b []byte, doc res, ls []link) []byte {
	if doc.kind == kindStory {
		return g.renderStory(b, doc, ls)
	}
	rg := g.docRNG(doc, saltText)
	start := len(b)
	b = append(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"...)
	b = appendTitle(b, doc)
	b = append(b, "</title>\n</head>\n<body>\n<h1 id=\"top\">"...)
	b = appendTitle(b, doc)
	b = append(b, "</h1>\n<p>"...)
	gap := (g.pageBytes - (len(b) - start) - len(htmlFooter) - linkCost*len(ls)) / (len(ls) + 1)
	var docPath [48]byte
	dp := appendPath(docPath[:0], doc)
	for i, l := range ls {
		if i > 0 && i%4 == 0 {
			b = append(b, "</p>\n<p>"...)
		}
		if gap > 0 {
			b = appendWords(b, &rg, gap)
		}
		b = g.appendAnchor(b, &rg, dp, doc, l)
		b = append(b, ' ')
	}
	if pad := g.pageBytes - (len(b) - start) - len(htmlFooter); pad > 0 {
		b = appendWords(b, &rg, pad)
	}
	return append(b, htmlFooter...)
}

// appendAnchor appends one <a> element, varying its markup: attribute order,
// quoting, tag case, and rel token lists.
func (g *gen) appendAnchor(b []byte, rg *rng, docPath []byte, doc res, l link) []byte {
	var rel string
	if l.nofollow {
		switch rg.intn(4) {
		case 0:
			rel = "external nofollow"
		case 1:
			rel = "nofollow noopener"
		default:
			rel = "nofollow"
		}
	}
	tag, href, quote := "<a ", "href=", byte('"')
	switch rg.intn(10) {
	case 0:
		quote = '\''
	case 1:
		tag, href = "<A ", "HREF="
	case 2:
		tag = "<a class=\"nav\" "
	}
	b = append(b, tag...)
	relFirst := rel != "" && rg.intn(2) == 0
	if relFirst {
		b = append(b, "rel=\""...)
		b = append(b, rel...)
		b = append(b, "\" "...)
	}
	b = append(b, href...)
	b = append(b, quote)
	b = g.appendHref(b, rg, docPath, doc, l.to)
	b = append(b, quote)
	if rel != "" && !relFirst {
		b = append(b, " rel=\""...)
		b = append(b, rel...)
		b = append(b, '"')
	}
	b = append(b, '>')
	b = appendWords(b, rg, 1+rg.intn(12))
	b = b[:len(b)-1] // drop the trailing space
	return append(b, "</a>"...)
}

// Forms of an href.
const (
	formAbsPath    = iota // /p/5
	formRelative          // 5, p/5 (from the document's directory)
	formDotRel            // ./5
	formUpBack            // ../p/5 (up to the root, then down)
	formAbsolute          // http://h3.crawler.test/p/5
	formSchemeRel         // //h3.crawler.test/p/5
	formWeightSum  = 12
	crossWeightSum = 4
)

// appendHref appends a spelling of the URL of to, as linked from document
// doc at docPath. Every spelling resolves (RFC 3986) against the document's
// URL to a URL canonically equal to canonical(to): relative and absolute
// forms, upper-case scheme and host, an explicit :80, dot segments, an
// escaped unreserved character and a fragment all occur.
func (g *gen) appendHref(b []byte, rg *rng, docPath []byte, doc, to res) []byte {
	var tpBuf [48]byte
	tp := appendPath(tpBuf[:0], to)
	var form int
	if to.host != doc.host {
		form = formAbsolute
		if rg.intn(crossWeightSum) == 0 {
			form = formSchemeRel
		}
	} else {
		switch x := rg.intn(formWeightSum); {
		case x < 4:
			form = formAbsPath
		case x < 6:
			form = formRelative
		case x < 7:
			form = formDotRel
		case x < 8:
			form = formUpBack
		case x < 11:
			form = formAbsolute
		default:
			form = formSchemeRel
		}
	}
	mods := rg.next()
	upper := mods&15 == 0
	port := (mods>>4)&15 == 0
	dots := (mods>>8)&7 == 0
	escape := (mods>>12)&7 == 0
	frag := (mods>>16)&7 == 0
	var rel []byte
	switch form {
	case formAbsolute, formSchemeRel:
		if form == formAbsolute {
			if upper {
				b = append(b, "HTTP:"...)
			} else {
				b = append(b, "http:"...)
			}
		}
		b = append(b, "//"...)
		if upper {
			b = append(b, 'H')
			b = strconv.AppendInt(b, int64(to.host), 10)
			if (mods>>20)&1 == 0 {
				b = append(b, ".Crawler.TEST"...)
			} else {
				b = append(b, ".CRAWLER.TEST"...)
			}
		} else {
			b = appendHost(b, int(to.host))
		}
		if port {
			b = append(b, ":80"...)
		}
		fallthrough
	case formAbsPath:
		if dots {
			if (mods>>21)&1 == 0 {
				b = append(b, "/x/.."...)
			} else {
				b = append(b, "/."...)
			}
		}
		rel = tp
	case formRelative, formDotRel, formUpBack:
		if form == formDotRel {
			b = append(b, "./"...)
		}
		if dots {
			b = append(b, "x/../"...)
		}
		var relBuf [64]byte
		rel = appendRelative(relBuf[:0], tp, docPath, form == formUpBack)
		if len(rel) == 0 {
			rel = append(rel, "./"...)
		}
	}
	if last := len(rel) - 1; escape && last >= 0 && isAlnum(rel[last]) {
		b = append(b, rel[:last]...)
		b = append(b, '%', "0123456789ABCDEF"[rel[last]>>4], "0123456789ABCDEF"[rel[last]&15])
	} else {
		b = append(b, rel...)
	}
	if frag {
		if (mods>>22)&1 == 0 {
			b = append(b, "#top"...)
		} else {
			b = append(b, "#more"...)
		}
	}
	return b
}

// appendRelative appends to dst a relative-path reference from the
// directory of docPath to target (both absolute paths). If upBack, or if
// target is not below that directory, it climbs to the root with "../" and
// descends again. It appends nothing for the directory itself.
func appendRelative(dst, target, docPath []byte, upBack bool) []byte {
	dir := docPath[:bytes.LastIndexByte(docPath, '/')+1]
	if !upBack && bytes.HasPrefix(target, dir) {
		return append(dst, target[len(dir):]...)
	}
	for range bytes.Count(dir, []byte("/")) - 1 {
		dst = append(dst, "../"...)
	}
	return append(dst, target[1:]...)
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
