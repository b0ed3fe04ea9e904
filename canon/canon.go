package canon

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zeebo/xxh3"
)

// MaxLength is the longest canonical URL, in bytes, that [Canonicalizer.Canonical]
// and [Canonicalizer.Resolve] return; longer results fail with [ErrTooLong].
// Inputs longer than 4*MaxLength are rejected before any work is done, which
// bounds the cost of hostile input. 8 KiB is what most servers accept in a
// request line.
const MaxLength = 8192

// Errors returned (wrapped with the offending input) by [Canonicalizer.Canonical]
// and [Canonicalizer.Resolve]. Test for them with [errors.Is].
var (
	// ErrScheme reports a URL without a scheme, or with a scheme other than
	// http or https (javascript:, mailto:, data:, tel:, ftp:, ...), or a
	// relative reference resolved against a missing or non-http(s) base.
	ErrScheme = errors.New("canon: scheme is missing or not http(s)")
	// ErrHost reports an empty or invalid host: a forbidden code point, a
	// failed IDNA mapping, an out-of-range IPv4 number or a bad IPv6 literal.
	ErrHost = errors.New("canon: invalid host")
	// ErrPort reports a port that is not a decimal number up to 65535.
	ErrPort = errors.New("canon: invalid port")
	// ErrTooLong reports a URL longer than [MaxLength] bytes.
	ErrTooLong = errors.New("canon: URL too long")
)

// Error is the concrete type of errors returned by this package. It wraps one
// of the sentinel errors (ErrScheme, ErrHost, ErrPort, ErrTooLong) with the
// input URL (truncated to 100 bytes) and a short detail.
type Error struct {
	Err    error  // a sentinel: ErrScheme, ErrHost, ErrPort or ErrTooLong
	Detail string // what exactly was wrong, e.g. "bad IPv4 address"
	URL    string // the input, truncated to 100 bytes
}

// Error implements error.
func (e *Error) Error() string {
	s := e.Err.Error()
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s + ": " + strconv.Quote(e.URL)
}

// Unwrap returns the sentinel error.
func (e *Error) Unwrap() error { return e.Err }

func newError(sentinel error, detail, raw string) error {
	const max = 100
	if len(raw) > max {
		n := max
		for n > 0 && !utf8.RuneStart(raw[n]) {
			n--
		}
		// Copy so that the error does not pin a large input in memory.
		raw = strings.Clone(raw[:n]) + "..."
	}
	return &Error{Err: sentinel, Detail: detail, URL: raw}
}

// Canonicalizer turns URLs into canonical strings: two spellings of one page
// give one string, and two different pages never give the same string.
//
// The zero value applies the core rules only (see the package doc); each
// field turns on one optional, riskier rule, off by default. A nil
// *Canonicalizer behaves like the zero value. A Canonicalizer is read-only
// configuration: its methods are safe for concurrent use, as long as the
// fields are not changed meanwhile.
type Canonicalizer struct {
	// SortQuery stably sorts the query parameters by key ("&"-separated;
	// ";" is not a separator). Parameters are not re-encoded, and order among
	// equal keys is kept. Off by default: some servers read order.
	SortQuery bool
	// StripSessionIDs removes query parameters and path parameters (";name=")
	// whose name is, in any case, jsessionid, phpsessid, sid, sessionid,
	// cfid, cftoken or begins with aspsessionid. A query left empty by this
	// rule is dropped along with its "?".
	StripSessionIDs bool
	// MergeSlashes replaces each run of "/" in the path by one "/" (before
	// dot segments are removed, as nginx does).
	MergeSlashes bool
	// StripTrailingDot removes the trailing dots of a host name
	// ("example.com." becomes "example.com"). A host of dots only is an error.
	StripTrailingDot bool
	// DropEmptyQuery removes a "?" that has nothing after it.
	DropEmptyQuery bool
	// IgnoreParams, if not nil, names query parameters to remove from a
	// URL, given the URL canonical up to its query ("https://host/path"):
	// a site's ignore_query (package sites). Keys are compared as escaped
	// in the canonical URL, case-sensitively. A query left empty is
	// dropped with its "?". It is called for each URL with a query, and
	// must be safe for concurrent use.
	IgnoreParams func(url string) []string
}

var zeroCanonicalizer Canonicalizer

// Canonical returns the canonical form of raw, an absolute http or https URL.
// It fails, with an error wrapping [ErrScheme], [ErrHost], [ErrPort] or
// [ErrTooLong], on anything else.
//
// When raw is already canonical, Canonical returns raw itself, without
// allocating; otherwise it allocates the result (once, unless the host needs
// IDNA processing or an optional rule needs scratch space). The result is a
// fixed point: Canonical of it returns it unchanged. Because the result may
// be raw itself, a caller that keeps results of substrings of a large buffer
// (a page body) should strings.Clone them, or the buffer stays alive.
func (c *Canonicalizer) Canonical(raw string) (string, error) {
	if c == nil {
		c = &zeroCanonicalizer
	}
	if len(raw) <= MaxLength && c.isCanonical(raw) {
		return raw, nil
	}
	if len(raw) > 4*MaxLength {
		return "", newError(ErrTooLong, "", raw)
	}
	s := clean(raw)
	scheme, rest, ok := splitScheme(s)
	if !ok {
		return "", newError(ErrScheme, "no scheme", raw)
	}
	https, ok := special(scheme)
	if !ok {
		return "", newError(ErrScheme, "", raw)
	}
	var p parts
	p.https = https
	p.absolute(rest)
	return c.build(&p, raw)
}

// Resolve resolves ref, an href found on a page, against base (the page URL,
// or its <base href>) and returns the canonical form of the result, as a
// browser would: see the package doc for the rules. base may be nil when ref
// is absolute. Errors are those of [Canonicalizer.Canonical]; a relative ref
// with a nil or non-http(s) base fails with [ErrScheme].
//
// Resolve does not modify base. It allocates the result once in the common
// case, and nothing when ref is already an absolute canonical URL (then the
// result is ref itself; see the note on memory in Canonical).
func (c *Canonicalizer) Resolve(base *url.URL, ref string) (string, error) {
	if c == nil {
		c = &zeroCanonicalizer
	}
	if len(ref) <= MaxLength && c.isCanonical(ref) {
		return ref, nil
	}
	if len(ref) > 4*MaxLength {
		return "", newError(ErrTooLong, "", ref)
	}
	s := clean(ref)
	var p parts
	if scheme, rest, ok := splitScheme(s); ok {
		https, ok := special(scheme)
		if !ok {
			return "", newError(ErrScheme, "", ref)
		}
		baseHTTPS, baseOK := baseScheme(base)
		if !baseOK || baseHTTPS != https {
			// An absolute URL (browsers also skip any slashes after the scheme).
			p.https = https
			p.absolute(rest)
			return c.build(&p, ref)
		}
		// Same special scheme as the base: "http:g" is the relative "g".
		s = rest
	}
	if len(s) >= 2 && isSlash(s[0]) && isSlash(s[1]) {
		// Network-path reference: "//host/path".
		https, ok := baseScheme(base)
		if !ok {
			return "", newError(ErrScheme, "relative reference without http(s) base", ref)
		}
		p.https = https
		p.absolute(s)
		return c.build(&p, ref)
	}
	if err := p.setBase(base); err != nil {
		return "", newError(ErrScheme, err.Error(), ref)
	}
	// Split ref into path, query (fragment dropped).
	path, query, hasQuery := s, "", false
	if i := strings.IndexByte(path, '#'); i >= 0 {
		path = path[:i]
	}
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path, query, hasQuery = path[:i], path[i+1:], true
	}
	switch {
	case path == "" && !hasQuery:
		// "" or "#frag": the base itself (path and query).
	case path == "":
		// "?q": base path, new query.
		p.query, p.hasQuery = query, true
	case isSlash(path[0]):
		p.dir, p.path = "", path
		p.query, p.hasQuery = query, hasQuery
	default:
		p.dir, p.path = directory(p.path), path
		p.query, p.hasQuery = query, hasQuery
	}
	return c.build(&p, ref)
}

// Fingerprint returns the 64-bit xxh3 hash (github.com/zeebo/xxh3, seed 0) of
// a canonical URL, the key the seen-sets store. It is stable across processes
// and versions, so fingerprints may be persisted. It does not allocate.
func Fingerprint(canonical string) uint64 {
	return xxh3.HashString(canonical)
}

// Host returns the host[:port] of a canonical URL (as returned by
// [Canonicalizer.Canonical]), without userinfo. It returns "" when canonical
// has no "://". Host returns a substring of canonical and does not allocate;
// it does not validate, so on a non-canonical URL its result is unspecified.
func Host(canonical string) string {
	start, end := authority(canonical)
	s := canonical[start:end]
	if j := strings.LastIndexByte(s, '@'); j >= 0 {
		s = s[j+1:]
	}
	return s
}

// PathQuery returns the path and the query (without '?') of a canonical
// URL; the fragment, if any, is left out. Like [Host] it returns
// substrings, does not allocate and does not validate.
func PathQuery(canonical string) (path, query string) {
	_, end := authority(canonical)
	rest, _, _ := strings.Cut(canonical[end:], "#")
	path, query, _ = strings.Cut(rest, "?")
	return path, query
}

// authority returns the bounds of the authority (userinfo@host:port) of
// u: from after "://" to the first '/', '?' or '#'. Without "://" it is
// empty and at the end of u.
func authority(u string) (start, end int) {
	i := strings.Index(u, "://")
	if i < 0 {
		return len(u), len(u)
	}
	start = i + 3
	for end = start; end < len(u); end++ {
		if c := u[end]; c == '/' || c == '?' || c == '#' {
			break
		}
	}
	return start, end
}

// special reports whether scheme is http or https (any case), and which.
func special(scheme string) (https, ok bool) {
	switch {
	case strings.EqualFold(scheme, "http"):
		return false, true
	case strings.EqualFold(scheme, "https"):
		return true, true
	}
	return false, false
}

func baseScheme(base *url.URL) (https, ok bool) {
	if base == nil {
		return false, false
	}
	return special(base.Scheme)
}

func isSlash(c byte) bool { return c == '/' || c == '\\' }
