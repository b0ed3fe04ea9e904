package simhash

import (
	"bytes"
	"encoding/binary"
	"math"
	"unicode"
	"unicode/utf8"

	"github.com/zeebo/xxh3"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// features is a way of turning the words of a page into weighted SimHash
// features. OfHTML uses htmlFeatures; the measurements of the package's
// tests compare others.
type features struct {
	shingle int  // words per feature: 1 for single words, n for word n-shingles
	text    int  // weight of a word outside links
	anchor  int  // weight of a word inside <a>...</a>; 0 drops link text
	numbers bool // keep words with a digit ("2024", "12", "h3"); false drops them
	// short, if positive, down-weights the words of short text blocks
	// (paragraphs, list items, cells... of fewer than short words,
	// digits included) to at most shortWeight: datelines, counters, nav
	// bars, link lists, captions.
	short, shortWeight int
}

// htmlFeatures is the scheme of OfHTML, chosen by measurement (see the
// package doc and measure_test.go).
var htmlFeatures = features{shingle: 3, text: 4, anchor: 1, numbers: false, short: 10, shortWeight: 1}

// maxShingle bounds features.shingle.
const maxShingle = 8

// OfHTML returns the fingerprint of the visible text of an HTML document,
// with the features chosen by measurement (see the package doc).
//
// The text is that outside tags and comments, with character references
// decoded, the title included, and the contents of script, style,
// noscript, template, iframe, noembed and noframes elements left out. A
// word is a run of letters, digits and combining marks, lower-cased; every
// tag ends one, and words with a digit ("2024", "12", "h3") are dropped.
// The features are the word 3-shingles (three consecutive words, across
// tags), each of weight 4, or 1 if one of its words is link text (inside
// <a>) or in a short block: a paragraph, list item, heading, cell or other
// block element of fewer than 10 words (digits included). A document of
// one or two words is one feature; one without words has fingerprint 0.
//
// OfHTML never fails: malformed markup is read as the x/net/html tokenizer
// reads it, and invalid UTF-8 separates words. It reads body as UTF-8
// (other ASCII-compatible encodings give the same words for ASCII text).
// Cost: one pass of the tokenizer and two xxh3 hashes per word, about
// 100 µs for a 4 KiB page; it allocates a few buffers per call, growing
// with the longest tag and the longest word.
func OfHTML(body []byte) uint64 { return fingerprintHTML(body, htmlFeatures) }

// fingerprintHTML returns the fingerprint of body's visible text under
// feature scheme f.
func fingerprintHTML(body []byte, f features) uint64 {
	s := shingler{f: f}
	visibleText(body, &s)
	return s.sum()
}

// textSink receives the visible text of a document.
type textSink interface {
	// text receives a piece of text, inside a link or not; t is valid only
	// during the call.
	text(t []byte, inAnchor bool)
	// endBlock ends a text block: a block-level element starts or ends.
	endBlock()
}

// visibleText sends the visible text of body to sink, in order.
func visibleText(body []byte, sink textSink) {
	z := html.NewTokenizer(bytes.NewReader(body))
	skipText := false // the next text token is the contents of a skipped raw text element
	inTemplate := 0   // depth of <template> elements
	inAnchor := false
	for {
		tt := z.Next()
		skip := skipText
		skipText = false
		switch tt {
		case html.ErrorToken:
			return
		case html.TextToken:
			if !skip && inTemplate == 0 {
				sink.text(z.Text(), inAnchor)
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			end := tt == html.EndTagToken
			switch a := tagAtom(z.Raw()); a {
			case atom.Script, atom.Style, atom.Noscript, atom.Iframe, atom.Noembed, atom.Noframes:
				// Raw text: the tokenizer returns the whole contents, up to
				// the end tag (or EOF), as the next token.
				skipText = !end
			case atom.Template:
				// A self-closing <template/> still opens a template in HTML.
				if end {
					inTemplate = max(inTemplate-1, 0)
				} else {
					inTemplate++
				}
			case atom.A:
				inAnchor = !end
			default:
				if isBlock(a) {
					sink.endBlock()
				}
			}
		}
	}
}

// tagAtom returns the atom of the name of tag raw ("<P class=x>",
// "</p>"), 0 if it has none: what atom.Lookup of Tokenizer.TagName
// returns, but without TagName's allocation.
func tagAtom(raw []byte) atom.Atom {
	var buf [16]byte // longer names have no atom of interest
	n := 0
	for i := 1; i < len(raw); i++ {
		c := raw[i]
		switch {
		case i == 1 && c == '/':
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == '/' || c == '>':
			return atom.Lookup(buf[:n])
		case n == len(buf):
			return 0
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		buf[n] = c
		n++
	}
	return atom.Lookup(buf[:n])
}

// isBlock reports whether element a starts and ends a block of text.
func isBlock(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Body, atom.Br,
		atom.Caption, atom.Dd, atom.Details, atom.Dialog, atom.Div, atom.Dl, atom.Dt,
		atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer, atom.Form,
		atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Head, atom.Header,
		atom.Hgroup, atom.Hr, atom.Html, atom.Legend, atom.Li, atom.Main, atom.Menu,
		atom.Nav, atom.Ol, atom.Option, atom.P, atom.Pre, atom.Section, atom.Select,
		atom.Summary, atom.Table, atom.Tbody, atom.Td, atom.Textarea, atom.Tfoot,
		atom.Th, atom.Thead, atom.Title, atom.Tr, atom.Ul:
		return true
	}
	return false
}

// shingler turns text into words and words into weighted shingle features.
type shingler struct {
	f     features
	h     Hasher
	word  []byte // the word being read, lower-cased
	digit bool   // word has a digit
	// The words of the current block, up to f.short of them (digits
	// included), and those kept of them, until the block is known long.
	blockWords int
	block      []wordHash
	// The last f.shingle words: hashes and weights, a ring from next.
	hashes  [maxShingle]uint64
	weights [maxShingle]int
	next    int
	words   int // words seen, up to f.shingle
}

type wordHash struct {
	hash   uint64
	weight int
}

// text reads the words of a piece of text, inside a link or not; every
// piece ends a word.
func (s *shingler) text(t []byte, inAnchor bool) {
	w := s.f.text
	if inAnchor {
		w = s.f.anchor
	}
	for i := 0; i < len(t); {
		c := t[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			case '0' <= c && c <= '9':
				s.digit = true
			default:
				s.endWord(w)
				continue
			}
			s.word = append(s.word, c)
			continue
		}
		r, n := utf8.DecodeRune(t[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			s.endWord(w)
		case unicode.IsLetter(r) || unicode.IsMark(r):
			s.word = utf8.AppendRune(s.word, unicode.ToLower(r))
		case unicode.IsDigit(r):
			s.digit = true
			s.word = utf8.AppendRune(s.word, r)
		default:
			s.endWord(w)
		}
	}
	s.endWord(w)
}

// endWord ends the word being read, if any, with weight w.
func (s *shingler) endWord(w int) {
	if len(s.word) == 0 {
		return
	}
	keep := s.f.numbers || !s.digit
	word := s.word
	s.word, s.digit = s.word[:0], false
	short := s.f.short > 0 && s.blockWords < s.f.short
	s.blockWords++
	if !keep {
		if short && s.blockWords == s.f.short {
			s.flushBlock(false)
		}
		return
	}
	x := xxh3.Hash(word)
	switch {
	case !short:
		s.push(x, w)
	case s.blockWords < s.f.short:
		s.block = append(s.block, wordHash{x, w})
	default: // the block is long after all
		s.block = append(s.block, wordHash{x, w})
		s.flushBlock(false)
	}
}

// endBlock ends a block of text.
func (s *shingler) endBlock() {
	s.flushBlock(s.f.short > 0 && s.blockWords < s.f.short)
	s.blockWords = 0
}

// flushBlock pushes the words of the block held back, down-weighted if
// short.
func (s *shingler) flushBlock(short bool) {
	for _, wh := range s.block {
		w := wh.weight
		if short {
			w = min(w, s.f.shortWeight)
		}
		s.push(wh.hash, w)
	}
	s.block = s.block[:0]
}

// push adds a word to the ring, and the shingle it ends as a feature.
func (s *shingler) push(x uint64, w int) {
	n := s.f.shingle
	s.hashes[s.next] = x
	s.weights[s.next] = w
	s.next = (s.next + 1) % n
	if s.words < n {
		s.words++
		if s.words < n {
			return
		}
	}
	s.add(n)
}

// add adds the shingle of the last m words as a feature: its hash is the
// xxh3 hash of their hashes, its weight the least of theirs.
func (s *shingler) add(m int) {
	n := s.f.shingle
	if n == 1 {
		s.h.AddHash(s.hashes[0], s.weights[0])
		return
	}
	var buf [8 * maxShingle]byte
	w := math.MaxInt
	for j := range m {
		k := (s.next - m + j + n) % n
		binary.LittleEndian.PutUint64(buf[8*j:], s.hashes[k])
		w = min(w, s.weights[k])
	}
	s.h.AddHash(xxh3.Hash(buf[:8*m]), w)
}

// sum returns the fingerprint, after the one shingle of a document shorter
// than a shingle.
func (s *shingler) sum() uint64 {
	s.endWord(s.f.text)
	s.endBlock()
	if s.words > 0 && s.words < s.f.shingle {
		s.add(s.words)
	}
	return s.h.Sum()
}
