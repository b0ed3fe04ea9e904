package sitemap

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The protocol's limits on one sitemap file, urlset or index.
const (
	MaxEntries = 50_000           // entries (URLs, or sitemaps of an index)
	MaxSize    = 50 * 1024 * 1024 // bytes uncompressed (52,428,800)
)

// maxRun bounds the bytes between two tags, and maxLine a line of a text
// sitemap: a loc is at most 2,048 characters, so these are generous, and
// they bound the memory a hostile file can make the reader hold.
const (
	maxRun  = 256 << 10
	maxLine = 64 << 10
)

// Errors that end a sitemap early: the entries read before them stand.
var (
	ErrTooManyEntries = errors.New("sitemap: more than 50,000 entries; the rest ignored")
	ErrTooLarge       = errors.New("sitemap: more than 50 MiB uncompressed; the rest ignored")
	ErrTextRun        = errors.New("sitemap: more than 256 KiB of text between two tags")
	ErrNotSitemap     = errors.New("sitemap: neither a urlset, a sitemap index, a feed nor a list of URLs")
)

// Kind is what a sitemap file lists.
type Kind int

const (
	URLSet Kind = iota + 1 // pages: <urlset><url>…
	Index                  // other sitemaps: <sitemapindex><sitemap>…
	Text                   // pages, one URL a line
	Feed                   // pages: the items of an RSS 2.0, RSS 1.0 (RDF) or Atom 1.0 feed
)

func (k Kind) String() string {
	switch k {
	case URLSet:
		return "urlset"
	case Index:
		return "sitemapindex"
	case Text:
		return "text"
	case Feed:
		return "feed"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Entry is one <url> of a urlset, one <sitemap> of an index, one line of
// a text sitemap, or one item of a feed.
type Entry struct {
	// Loc is the URL as written, spaces trimmed; never empty. A feed's
	// item gives it as its first <link> that has text, or an href and
	// no rel but "alternate" (Atom's); else as its rdf:about (RSS 1.0's).
	// A feed's may be relative (to the feed's URL; xml:base is not read).
	Loc string
	// LastMod is when the page (or the listed sitemap) last changed, if
	// given in a W3C datetime form (or, in a feed, RFC 822's: pubDate);
	// the zero time otherwise. A feed's item gives it as its updated,
	// dc:date, dcterms:modified or pubDate, else as its published.
	LastMod time.Time
	// ChangeFreq is "always", "hourly", "daily", "weekly", "monthly",
	// "yearly" or "never" as given (a hint), or "".
	ChangeFreq string
	// Priority is the page's priority among its site's pages, 0 to 1;
	// 0.5 (the protocol's default) if absent or not a number in range.
	Priority float64
}

// DefaultPriority is the priority of an entry that gives none.
const DefaultPriority = 0.5

// Reader reads the entries of one sitemap file, in order. Use NewReader,
// then call Next until it returns an error: io.EOF at the end of a
// well-formed file. The limits of the protocol are enforced as the file is
// read, so a hostile file costs at most MaxSize bytes read and a few
// hundred KiB of memory. It reads leniently: the entries before a fault
// (a syntax error, a file cut short, an element left open) are returned
// before the error, the entry the fault is in too if its loc was whole,
// and what follows a well-formed root's end is read, so that a stray end
// tag that closed the root early is an error too. A Reader is not safe
// for concurrent use.
type Reader struct {
	kind  Kind
	in    *guard
	dec   *xml.Decoder
	lines *bufio.Scanner
	n     int   // entries returned
	depth int   // of the XML element open
	entry int   // depth of the entry element open; 0 if none
	err   error // sticky
}

// NewReader returns a Reader of the sitemap in r: gzip-compressed or not
// (told by its first bytes, whatever the Content-Type said), XML or plain
// text. It reads the file's start to learn its Kind from the root
// element: urlset, sitemapindex, rss (RSS 2.0), rdf:RDF (RSS 1.0) or feed
// (Atom 1.0). It returns ErrNotSitemap for XML whose root is none of
// these, such as an HTML page.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReader(r)
	var src io.Reader = br
	if magic, _ := br.Peek(len(gzipMagic)); string(magic) == gzipMagic {
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("sitemap: gzip: %w", err)
		}
		src = z
	}
	g := &guard{r: src} // read through head, the one buffer after it
	sr := &Reader{in: g}
	head := bufio.NewReader(g)
	first, err := firstByte(head)
	if err != nil {
		return nil, sr.failStart(err)
	}
	if first != '<' {
		sr.kind = Text
		sr.lines = bufio.NewScanner(head)
		sr.lines.Buffer(make([]byte, 0, 4096), maxLine)
		return sr, nil
	}
	g.xml = true
	sr.dec = xml.NewDecoder(head)
	sr.dec.Strict = false // sitemaps in the wild hold bare '&' in URLs
	sr.dec.Entity = xml.HTMLEntity
	sr.dec.CharsetReader = latin1
	for {
		tok, err := sr.dec.Token()
		if err != nil {
			return nil, sr.failStart(err)
		}
		if start, ok := tok.(xml.StartElement); ok {
			switch start.Name.Local {
			case "urlset":
				sr.kind = URLSet
			case "sitemapindex":
				sr.kind = Index
			case "rss", "RDF", "feed":
				sr.kind = Feed
			default:
				return nil, ErrNotSitemap
			}
			sr.depth = 1
			return sr, nil
		}
	}
}

// Kind returns what the sitemap lists.
func (r *Reader) Kind() Kind { return r.kind }

// Next returns the next entry. At the end of the file it returns io.EOF;
// a file cut by the protocol's limits ends with ErrTooManyEntries or
// ErrTooLarge, and a malformed one with its error. Errors are sticky.
func (r *Reader) Next() (Entry, error) {
	if r.err != nil {
		return Entry{}, r.err
	}
	var e Entry
	var err error
	if r.kind == Text {
		e, err = r.nextLine()
	} else {
		e, err = r.nextElement()
	}
	if err != nil {
		r.err = err
		return Entry{}, err
	}
	if r.n == MaxEntries {
		r.err = ErrTooManyEntries
		return Entry{}, r.err
	}
	r.n++
	return e, nil
}

func (r *Reader) nextLine() (Entry, error) {
	for r.lines.Scan() {
		line := strings.TrimSpace(strings.TrimPrefix(r.lines.Text(), "\uFEFF"))
		if line != "" {
			return Entry{Loc: line, Priority: DefaultPriority}, nil
		}
	}
	if err := r.lines.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Entry{}, fmt.Errorf("sitemap: a line longer than %d bytes", maxLine)
		}
		return Entry{}, r.fail(err)
	}
	return Entry{}, io.EOF
}

// nextElement reads up to the end of the next entry that has a loc: a
// <url> or <sitemap> (any element under the root), or a feed's <item> or
// <entry> (under the root or one element deeper: RSS 2.0's <channel>).
// Only the fields directly in it count: an extension's <image:loc>, one
// level deeper, does not. A fault past an entry's loc ends the entry
// there, and the Reader after it.
func (r *Reader) nextElement() (Entry, error) {
	var f fields
	var field *string
	var text strings.Builder
	for {
		tok, err := r.dec.Token()
		if err != nil {
			err = r.fail(err)
			if e := f.entry(r.kind); r.entry != 0 && e.Loc != "" {
				r.entry, r.err = 0, err
				return e, nil
			}
			return Entry{}, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			r.depth++
			field = nil
			switch {
			case r.entry == 0 && r.isEntry(t.Name.Local):
				r.entry, f = r.depth, fields{}
				if r.kind == Feed {
					f.about = strings.TrimSpace(attr(t, "about"))
				}
			case r.entry != 0 && r.depth == r.entry+1:
				field = f.field(r.kind, t)
				text.Reset()
			}
		case xml.CharData:
			if field != nil && text.Len() < maxLine {
				text.Write(t)
			}
		case xml.EndElement:
			if field != nil && r.depth == r.entry+1 {
				f.set(field, strings.TrimSpace(text.String()))
			}
			field = nil
			r.depth--
			if r.entry != 0 && r.depth < r.entry {
				r.entry = 0
				if e := f.entry(r.kind); e.Loc != "" {
					return e, nil
				}
			}
			if r.depth == 0 {
				return Entry{}, r.afterRoot()
			}
		}
	}
}

// isEntry reports whether an element named local, just opened at
// r.depth, is an entry of r's kind.
func (r *Reader) isEntry(local string) bool {
	if r.kind == Feed {
		return (r.depth == 2 || r.depth == 3) && (local == "item" || local == "entry")
	}
	return r.depth == 2
}

// fields are the texts of an entry's fields, as read, and a feed's
// dates, parsed as read: updated and published hold no text, they are
// only where field sends a date's, which set parses into updatedAt and
// publishedAt.
type fields struct {
	loc, lastmod, changefreq, priority string // a urlset's or an index's
	link, about, updated, published    string // a feed's
	updatedAt, publishedAt             time.Time
}

// field returns where the text of t, a field of an entry of a file of
// kind k, goes; nil if nowhere. A feed's <link href> gives its href at
// once (nil), if its rel is none or "alternate" and no link came before.
func (f *fields) field(k Kind, t xml.StartElement) *string {
	if k != Feed {
		switch t.Name.Local {
		case "loc":
			return &f.loc
		case "lastmod":
			return &f.lastmod
		case "changefreq":
			return &f.changefreq
		case "priority":
			return &f.priority
		}
		return nil
	}
	switch t.Name.Local {
	case "link":
		href, rel := strings.TrimSpace(attr(t, "href")), attr(t, "rel")
		if href == "" {
			return &f.link // RSS's, whose text is the URL
		}
		if f.link == "" && (rel == "" || rel == "alternate") {
			f.link = href
		}
	case "updated", "date", "modified", "pubDate":
		return &f.updated
	case "published":
		return &f.published
	}
	return nil
}

// set sets field, one of f's, to v. A feed's fields keep their first
// value, its dates their first that parses (see parseDate); a urlset's
// and an index's their last.
func (f *fields) set(field *string, v string) {
	switch field {
	case &f.link:
		*field = cmp.Or(*field, v)
	case &f.updated:
		if f.updatedAt.IsZero() {
			f.updatedAt = parseDate(v)
		}
	case &f.published:
		if f.publishedAt.IsZero() {
			f.publishedAt = parseDate(v)
		}
	default:
		*field = v
	}
}

// entry returns the Entry of f, the fields of an entry of a file of kind
// k: one with an empty Loc if f has none.
func (f *fields) entry(k Kind) Entry {
	if k == Feed {
		return Entry{Loc: cmp.Or(f.about, f.link), LastMod: cmp.Or(f.updatedAt, f.publishedAt), Priority: DefaultPriority}
	}
	return Entry{Loc: f.loc, LastMod: ParseLastMod(f.lastmod), ChangeFreq: changeFreq(f.changefreq), Priority: parsePriority(f.priority)}
}

// attr returns the value of t's attribute local (in any name space), or "".
func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// afterRoot reads what follows the root element's end: io.EOF if nothing
// but white space, comments and processing instructions; an error
// otherwise, such as the XML decoder's for a stray end tag (which closed
// the root early, in its lenient mode) or another element.
func (r *Reader) afterRoot() error {
	for {
		tok, err := r.dec.Token()
		if err == io.EOF {
			return io.EOF
		}
		if err != nil {
			return r.fail(err)
		}
		if t, ok := tok.(xml.StartElement); ok {
			return fmt.Errorf("sitemap: element <%s> after the root element's end", t.Name.Local)
		}
	}
}

// fail turns the error of a read into the Reader's: the guard's limits
// come through the XML decoder wrapped in its syntax errors, if at all.
func (r *Reader) fail(err error) error {
	if r.in.err != nil {
		return r.in.err
	}
	if err == io.EOF {
		if r.kind != 0 && r.kind != Text {
			return fmt.Errorf("sitemap: %w", io.ErrUnexpectedEOF) // the root was not closed
		}
		return io.EOF
	}
	return fmt.Errorf("sitemap: %w", err)
}

// failStart is fail for an error before the file's kind is known: a file
// that ends there is no sitemap.
func (r *Reader) failStart(err error) error {
	if err == io.EOF && r.in.err == nil {
		return ErrNotSitemap
	}
	return r.fail(err)
}

// gzipMagic starts every gzip stream; bom is the UTF-8 byte-order mark.
const gzipMagic, bom = "\x1f\x8b", "\xef\xbb\xbf"

// lead returns how many of b's first bytes are white space and whole
// byte-order marks: what comes before a sitemap's first byte that counts.
func lead(b []byte) int {
	n := 0
	for n < len(b) {
		switch {
		case b[n] == ' ' || b[n] == '\t' || b[n] == '\r' || b[n] == '\n':
			n++
		case len(b)-n >= len(bom) && string(b[n:n+len(bom)]) == bom:
			n += len(bom)
		default:
			return n
		}
	}
	return n
}

// firstByte returns the first byte of r past its lead, leaving it unread.
func firstByte(r *bufio.Reader) (byte, error) {
	for {
		b, err := r.Peek(len(bom)) // fewer only at the end, or on an error
		if len(b) == 0 {
			return 0, err
		}
		n := lead(b)
		if n == 0 {
			return b[0], nil
		}
		r.Discard(n)
	}
}

// MaybeXML reports whether NewReader may read b, a file or its start, as
// an XML sitemap: b is gzip-compressed (what it holds is told once
// uncompressed), or its first byte past white space and byte-order marks
// is '<'. If not, b is a text sitemap, or nothing: a crawler that reads
// only the text sitemaps it was told of skips most other files so, at no
// cost.
func MaybeXML(b []byte) bool {
	if len(b) >= len(gzipMagic) && string(b[:len(gzipMagic)]) == gzipMagic {
		return true
	}
	n := lead(b)
	return n < len(b) && b[n] == '<'
}

// guard passes a sitemap's uncompressed bytes through, and fails the read
// that goes past MaxSize, or, in XML, past maxRun bytes with no '<'.
type guard struct {
	r    io.Reader
	xml  bool
	read int64
	run  int // bytes since the last '<'
	err  error
}

func (g *guard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if room := MaxSize + 1 - g.read; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := g.r.Read(p)
	g.read += int64(n)
	if g.read > MaxSize {
		g.err = ErrTooLarge
		return 0, g.err
	}
	if g.xml {
		if i := bytes.LastIndexByte(p[:n], '<'); i >= 0 {
			g.run = n - 1 - i
		} else {
			g.run += n
		}
		if g.run > maxRun {
			g.err = ErrTextRun
			return 0, g.err
		}
	}
	return n, err
}

// latin1 decodes the one legacy charset seen in sitemaps; the protocol
// asks for UTF-8, which needs no reader.
func latin1(charset string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(charset) {
	case "iso-8859-1", "latin1", "latin-1", "us-ascii", "ascii":
		return &latin1Reader{r: bufio.NewReader(input)}, nil
	}
	return nil, fmt.Errorf("sitemap: charset %q (the protocol asks for UTF-8)", charset)
}

type latin1Reader struct {
	r   *bufio.Reader
	buf []byte
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	for len(l.buf) < len(p) {
		b, err := l.r.ReadByte()
		if err != nil {
			if len(l.buf) > 0 {
				break
			}
			return 0, err
		}
		l.buf = append(l.buf, string(rune(b))...)
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}

var lastModForms = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02",
	"2006-01",
	"2006",
}

// ParseLastMod parses a lastmod: a W3C datetime (YYYY, YYYY-MM,
// YYYY-MM-DD, with hh:mm, :ss and fractions, and a zone), and, leniently,
// the same with no zone (taken as UTC) or a space for the 'T'. It returns
// the zero time for anything else.
func ParseLastMod(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	for _, form := range lastModForms {
		if t, err := time.Parse(form, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// rfc822Forms are the forms of a date in RFC 822 (RSS 2.0's pubDate), as
// RFC 1123 amends it, past the day of the week: a day of one or two
// digits, a year of four or two, seconds or none, a numeric zone or a
// name.
var rfc822Forms = func() []string {
	var forms []string
	for _, year := range []string{"2006", "06"} {
		for _, clock := range []string{"15:04:05", "15:04"} {
			for _, zone := range []string{"-0700", "MST"} {
				forms = append(forms, "2 Jan "+year+" "+clock+" "+zone)
			}
		}
	}
	return forms
}()

// parseDate parses a feed's date: a W3C datetime (see ParseLastMod) or an
// RFC 822 one ("Mon, 02 Jan 2006 15:04:05 GMT"; a zone name other than
// UT, GMT and the local zone's is taken as UTC). It returns the zero time
// for anything else.
func parseDate(s string) time.Time {
	if t := ParseLastMod(s); !t.IsZero() {
		return t
	}
	s = strings.TrimSpace(s)
	if _, rest, ok := strings.Cut(s, ","); ok {
		s = strings.TrimSpace(rest) // the day of the week
	}
	for _, form := range rfc822Forms {
		if t, err := time.Parse(form, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

func changeFreq(s string) string {
	switch s = strings.ToLower(s); s {
	case "always", "hourly", "daily", "weekly", "monthly", "yearly", "never":
		return s
	}
	return ""
}

func parsePriority(s string) float64 {
	p, err := strconv.ParseFloat(s, 64)
	if err != nil || !(p >= 0 && p <= 1) {
		return DefaultPriority
	}
	return p
}
