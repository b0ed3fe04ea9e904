package canon

import (
	"bytes"
	"slices"
	"strings"
)

const upperhex = "0123456789ABCDEF"

// Byte classes.
var (
	// unreserved: RFC 3986 ALPHA DIGIT - . _ ~; their escapes are decoded.
	unreserved [256]bool
	// plain: bytes that stand for themselves in a canonical path or query:
	// unreserved, sub-delims, ":", "@", "/" and "?" (RFC 3986 pchar, "/"
	// and "?"). Every other byte except "%" is percent-encoded, "[" and "]"
	// included (see the package doc).
	plain [256]bool
	// userPlain: plain minus the delimiters that cannot appear raw in
	// userinfo ("/", "?", "@", ":"; ":" is written by build).
	userPlain [256]bool
	// hostPlain: bytes of a canonical host name: lower-case LDH, ".", "_".
	hostPlain [256]bool
)

func init() {
	for c := 0; c < 256; c++ {
		b := byte(c)
		alnum := 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
		unreserved[c] = alnum || strings.IndexByte("-._~", b) >= 0
		plain[c] = unreserved[c] || strings.IndexByte("!$&'()*+,;=:@/?", b) >= 0
		userPlain[c] = plain[c] && strings.IndexByte("/?@:", b) < 0
		hostPlain[c] = 'a' <= b && b <= 'z' || '0' <= b && b <= '9' || b == '-' || b == '.' || b == '_'
		if plain[c] {
			pathClass[c] = classPlain
		}
	}
	pathClass['/'], pathClass[';'], pathClass['?'] = classSlash, classSemicolon, classQuestion
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// appendEscaped appends s with its percent-encoding normalized: escapes of
// unreserved bytes decoded, other escapes upper-cased, a stray "%" written
// as "%25", and bytes outside ok percent-encoded. In a path (slash true)
// a backslash is a slash.
func appendEscaped(b []byte, s string, ok *[256]bool, slash bool) []byte {
	start := 0 // s[start:i] is pending verbatim
	for i := 0; i < len(s); i++ {
		c := s[i]
		if ok[c] {
			continue
		}
		b = append(b, s[start:i]...)
		switch {
		case c == '%' && i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if unreserved[v] {
				b = append(b, v)
			} else {
				b = append(b, '%', upperhex[v>>4], upperhex[v&15])
			}
			i += 2
		case c == '\\' && slash:
			b = append(b, '/')
		default:
			b = append(b, '%', upperhex[c>>4], upperhex[c&15])
		}
		start = i + 1
	}
	return append(b, s[start:]...)
}

// appendUserinfo appends s, a user name or password, with every valid
// escape decoded and every byte outside userPlain percent-encoded. Clients
// send userinfo decoded (as Basic credentials), so "%21" and "!" are one
// user; net/url, which a Resolve base comes through, keeps only the decoded
// form.
func appendUserinfo(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]) {
			c = unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 2
		}
		if userPlain[c] {
			b = append(b, c)
		} else {
			b = append(b, '%', upperhex[c>>4], upperhex[c&15])
		}
	}
	return b
}

// build normalizes the components of p into the canonical string. raw is the
// input, for error messages.
func (c *Canonicalizer) build(p *parts, raw string) (string, error) {
	var arr [512]byte
	b := arr[:0]
	if p.https {
		b = append(b, "https://"...)
	} else {
		b = append(b, "http://"...)
	}

	// Authority.
	host, port, err := splitHostPort(p.hostport)
	if err != nil {
		return "", newError(ErrHost, err.Error(), raw)
	}
	if host == "" {
		return "", newError(ErrHost, "empty host", raw)
	}
	if p.hasUser {
		// An empty password drops its ":", an empty userinfo its "@".
		user, pass, _ := strings.Cut(p.userinfo, ":")
		if user != "" || pass != "" {
			b = appendUserinfo(b, user)
			if pass != "" {
				b = append(b, ':')
				b = appendUserinfo(b, pass)
			}
			b = append(b, '@')
		}
	}
	b, err = appendHost(b, host, c.StripTrailingDot)
	if err != nil {
		return "", newError(ErrHost, err.Error(), raw)
	}
	b, err = appendPort(b, port, p.https)
	if err != nil {
		return "", newError(ErrPort, err.Error(), raw)
	}

	// Path.
	ps := len(b)
	first := p.dir
	if first == "" {
		first = p.path
	}
	if first == "" || !isSlash(first[0]) {
		// An empty path, or a relative one in a hand-built base URL.
		b = append(b, '/')
	}
	b = appendEscaped(b, p.dir, &plain, true)
	b = appendEscaped(b, p.path, &plain, true)
	path := b[ps:]
	if c.StripSessionIDs {
		path = stripPathSessionIDs(path)
	}
	if c.MergeSlashes {
		path = mergeSlashes(path)
	}
	path = removeDots(path)
	b = b[:ps+len(path)]

	// Query.
	if p.hasQuery {
		qs := len(b) + 1
		b = append(b, '?')
		b = appendEscaped(b, p.query, &plain, false)
		q := b[qs:]
		stripped := false
		if c.StripSessionIDs {
			n := len(q)
			q = stripQuerySessionIDs(q)
			stripped = len(q) < n
		}
		if c.IgnoreParams != nil {
			if names := c.IgnoreParams(string(b[:qs-1])); len(names) > 0 {
				n := len(q)
				q = stripQuery(q, names)
				stripped = stripped || len(q) < n
			}
		}
		if c.SortQuery {
			sortQuery(q)
		}
		b = b[:qs+len(q)]
		if len(q) == 0 && (stripped || c.DropEmptyQuery) {
			b = b[:qs-1]
		}
	}
	if len(b) > MaxLength {
		return "", newError(ErrTooLong, "", raw)
	}
	return string(b), nil
}

// removeDots removes the dot segments "." and ".." of an absolute path in
// place (RFC 3986 §5.2.4, with the WHATWG trailing-slash behaviour), and
// returns the shortened slice.
func removeDots(p []byte) []byte {
	if !hasDotSegment(p) {
		return p
	}
	w, r, n := 0, 0, len(p)
	for r < n {
		j := r + 1
		for j < n && p[j] != '/' {
			j++
		}
		seg := p[r+1 : j]
		last := j == n
		switch {
		case len(seg) == 1 && seg[0] == '.':
			if last {
				p[w] = '/'
				w++
			}
		case len(seg) == 2 && seg[0] == '.' && seg[1] == '.':
			w = max(bytes.LastIndexByte(p[:w], '/'), 0)
			if last {
				p[w] = '/'
				w++
			}
		default:
			w += copy(p[w:], p[r:j])
		}
		r = j
	}
	return p[:w] // w > 0: the last segment always writes a "/"
}

// hasDotSegment reports whether the path p has a "." or ".." segment.
func hasDotSegment[S string | []byte](p S) bool {
	for i := 0; i < len(p); i++ {
		if p[i] != '.' || i > 0 && p[i-1] != '/' {
			continue
		}
		j := i + 1
		if j < len(p) && p[j] == '.' {
			j++
		}
		if j == len(p) || p[j] == '/' {
			return true
		}
	}
	return false
}

// mergeSlashes collapses runs of "/" in place.
func mergeSlashes(p []byte) []byte {
	w := 0
	for r := 0; r < len(p); r++ {
		if p[r] == '/' && w > 0 && p[w-1] == '/' {
			continue
		}
		p[w] = p[r]
		w++
	}
	return p[:w]
}

// isSessionKey reports whether key names a session ID (whole name, any case).
func isSessionKey[S string | []byte](key S) bool {
	switch len(key) {
	case 3:
		return eqFold(key, "sid")
	case 4:
		return eqFold(key, "cfid")
	case 7:
		return eqFold(key, "cftoken")
	case 9:
		return eqFold(key, "phpsessid") || eqFold(key, "sessionid")
	case 10:
		return eqFold(key, "jsessionid")
	}
	return len(key) >= 12 && eqFold(key[:12], "aspsessionid")
}

// eqFold reports whether s equals lower, a lower-case ASCII string, ignoring
// ASCII case.
func eqFold[S string | []byte](s S, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// key returns the name of a "name=value" parameter.
func key(param []byte) []byte {
	if i := bytes.IndexByte(param, '='); i >= 0 {
		return param[:i]
	}
	return param
}

// stripQuerySessionIDs removes "&"-separated session parameters in place.
func stripQuerySessionIDs(q []byte) []byte {
	return stripQuery(q, nil)
}

// stripQuery removes, in place, the parameters of the query q whose key
// is one of names, or with nil names, names a session ID.
func stripQuery(q []byte, names []string) []byte {
	w := 0
	first := true
	for r := 0; r <= len(q); {
		j := r + bytes.IndexByte(q[r:], '&')
		if j < r {
			j = len(q)
		}
		k := key(q[r:j])
		drop := names == nil && isSessionKey(k) || slices.ContainsFunc(names, func(n string) bool { return n == string(k) })
		if !drop {
			if !first {
				q[w] = '&'
				w++
			}
			w += copy(q[w:], q[r:j])
			first = false
		}
		r = j + 1
	}
	return q[:w]
}

// stripPathSessionIDs removes ";name=value" path parameters naming a session
// ID from every segment, in place.
func stripPathSessionIDs(p []byte) []byte {
	if bytes.IndexByte(p, ';') < 0 {
		return p
	}
	w := 0
	for r := 0; r < len(p); {
		// Segment p[r:j], starting with "/".
		j := r + 1
		for j < len(p) && p[j] != '/' {
			j++
		}
		seg := p[r:j]
		i := bytes.IndexByte(seg, ';')
		if i < 0 {
			w += copy(p[w:], seg)
			r = j
			continue
		}
		w += copy(p[w:], seg[:i]) // "/name"
		for k := i; k < len(seg); {
			// Parameter seg[k:m], starting with ";".
			m := k + 1
			for m < len(seg) && seg[m] != ';' {
				m++
			}
			if !isSessionKey(key(seg[k+1 : m])) {
				w += copy(p[w:], seg[k:m])
			}
			k = m
		}
		r = j
	}
	return p[:w]
}

// sortQuery stably sorts the "&"-separated parameters of q by key, in place.
func sortQuery(q []byte) {
	if querySorted(q) {
		return
	}
	tmp := bytes.Clone(q)
	params := bytes.Split(tmp, []byte{'&'})
	slices.SortStableFunc(params, func(a, b []byte) int {
		return bytes.Compare(key(a), key(b))
	})
	w := 0
	for i, prm := range params {
		if i > 0 {
			q[w] = '&'
			w++
		}
		w += copy(q[w:], prm)
	}
}

// querySorted reports whether the parameters of q are sorted by key.
func querySorted[S string | []byte](q S) bool {
	var prev S
	for i := 0; ; {
		j := i
		for j < len(q) && q[j] != '&' {
			j++
		}
		k := i
		for k < j && q[k] != '=' {
			k++
		}
		cur := q[i:k]
		if i > 0 && string(cur) < string(prev) {
			return false
		}
		prev = cur
		if j == len(q) {
			return true
		}
		i = j + 1
	}
}
