package canon

import (
	"errors"
	"net/url"
	"strings"
)

// parts holds the raw (not yet normalized) components of a URL to build.
// The path is dir+path: dir is the directory of a base path when a relative
// path is merged into it, so the merge needs no concatenation.
type parts struct {
	https    bool
	userinfo string // raw, without the "@"
	hasUser  bool
	hostport string // raw host[:port]
	dir      string
	path     string
	query    string // raw, without the "?"
	hasQuery bool
}

// clean strips leading and trailing C0 controls and spaces, and removes tab,
// CR and LF anywhere, as browsers do. It allocates only to remove.
func clean(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] <= ' ' {
		i++
	}
	for j > i && s[j-1] <= ' ' {
		j--
	}
	s = s[i:j]
	k := 0
	for k < len(s) && !isTabOrNewline(s[k]) {
		k++
	}
	if k == len(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:k]...)
	for ; k < len(s); k++ {
		if c := s[k]; c != '\t' && c != '\r' && c != '\n' {
			b = append(b, c)
		}
	}
	return string(b)
}

func isTabOrNewline(c byte) bool { return c == '\t' || c == '\n' || c == '\r' }

// splitScheme splits "scheme:rest" when s starts with a syntactically valid
// scheme (ALPHA *(ALPHA / DIGIT / "+" / "-" / ".")) followed by ":".
func splitScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.') && i > 0:
		case c == ':' && i > 0:
			return s[:i], s[i+1:], true
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// absolute parses what follows "http:" in an absolute URL (or a
// network-path reference): any number of slashes or backslashes, the
// authority, then path, query and fragment (dropped).
func (p *parts) absolute(s string) {
	for len(s) > 0 && isSlash(s[0]) {
		s = s[1:]
	}
	end := len(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '/' || c == '\\' || c == '?' || c == '#' {
			end = i
			break
		}
	}
	auth := s[:end]
	s = s[end:]
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		p.userinfo, p.hasUser = auth[:i], true
		auth = auth[i+1:]
	}
	p.hostport = auth
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		p.query, p.hasQuery = s[i+1:], true
		s = s[:i]
	}
	p.dir, p.path = "", s
}

var errBase = errors.New("base is nil, opaque or not an http(s) URL with a host")

// setBase fills p from the base URL of a relative reference. It does not
// allocate for a base with no userinfo whose path needs no escaping.
func (p *parts) setBase(base *url.URL) error {
	if base == nil {
		return errBase
	}
	https, ok := special(base.Scheme)
	if !ok {
		return errBase
	}
	if base.Opaque != "" || base.Host == "" {
		// Unusual base such as "http:host/path": parse its serialization
		// the way Canonical would.
		_, rest, _ := splitScheme(base.String()) // "http:..." or "https:..."
		*p = parts{https: https}
		p.absolute(rest)
		return nil
	}
	*p = parts{https: https, hostport: base.Host, path: escapedPath(base),
		query: base.RawQuery, hasQuery: base.ForceQuery || base.RawQuery != ""}
	if base.User != nil {
		p.userinfo, p.hasUser = base.User.String(), true
	}
	return nil
}

// escapedPath returns u.EscapedPath() without its allocations in the common
// case: RawPath, when set (as url.Parse does for any path with escapes),
// if it decodes to Path. Unlike EscapedPath it keeps such a RawPath even when
// it holds bytes that need escaping ("/a! b"): it is the page's own spelling,
// which build encodes, while EscapedPath would re-escape Path and turn "!"
// into "%21", a different URL under RFC 3986.
func escapedPath(u *url.URL) string {
	if u.RawPath != "" && decodesTo(u.RawPath, u.Path) {
		return u.RawPath
	}
	return u.EscapedPath()
}

// decodesTo reports whether percent-decoding raw gives exactly path.
func decodesTo(raw, path string) bool {
	j := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '%' {
			if i+2 >= len(raw) || !ishex(raw[i+1]) || !ishex(raw[i+2]) {
				return false
			}
			c = unhex(raw[i+1])<<4 | unhex(raw[i+2])
			i += 2
		}
		if j >= len(path) || path[j] != c {
			return false
		}
		j++
	}
	return j == len(path)
}

// directory returns path up to and including its last slash, "/" if none.
func directory(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if isSlash(path[i]) {
			return path[:i+1]
		}
	}
	return "/"
}
