package canon

// isCanonical reports whether s is already the canonical output of c, in one
// pass and without allocating. It may return false for some canonical
// strings (IPv6 literals, userinfo, Punycode, IPv4 hosts): those take the
// general path, which returns the same string.
func (c *Canonicalizer) isCanonical(s string) bool {
	var i int
	var https bool
	switch {
	case len(s) >= 8 && s[:8] == "https://":
		i, https = 8, true
	case len(s) >= 7 && s[:7] == "http://":
		i = 7
	default:
		return false
	}

	// Host.
	hs := i
	for i < len(s) && s[i] != '/' && s[i] != ':' {
		i++
	}
	host := s[hs:i]
	if !simpleHost(host) || c.StripTrailingDot && host[len(host)-1] == '.' {
		return false
	}
	if i < len(s) && s[i] == ':' {
		i++
		ps := i
		v := 0
		for i < len(s) && s[i] != '/' {
			d := s[i]
			if d < '0' || d > '9' {
				return false
			}
			v = v*10 + int(d-'0')
			if v > 65535 {
				return false
			}
			i++
		}
		n := i - ps
		if n == 0 || n > 1 && s[ps] == '0' || https && v == 443 || !https && v == 80 {
			return false
		}
	}
	if i == len(s) { // empty path
		return false
	}

	// Path: s[i] == '/'.
	seg := i // start of the current segment, at its "/"
path:
	for ; i < len(s); i++ {
		switch pathClass[s[i]] {
		case classPlain:
		case classSlash:
			if i > seg && (dotSegment(s[seg+1:i]) || c.MergeSlashes && i == seg+1) {
				return false
			}
			seg = i
		case classSemicolon:
			if c.StripSessionIDs {
				return false
			}
		case classQuestion:
			break path
		default:
			if !validEscape(s, i) {
				return false
			}
			i += 2
		}
	}
	if dotSegment(s[seg+1 : i]) {
		return false
	}
	if i == len(s) {
		return true
	}

	// Query. A query IgnoreParams may cut takes the general path.
	i++
	q := s[i:]
	if q == "" && c.DropEmptyQuery || c.IgnoreParams != nil {
		return false
	}
	for ; i < len(s); i++ {
		b := s[i]
		if plain[b] {
			continue
		}
		if !validEscape(s, i) {
			return false
		}
		i += 2
	}
	if c.StripSessionIDs {
		for k := 0; k <= len(q); {
			j := k
			for j < len(q) && q[j] != '&' {
				j++
			}
			if isSessionKey(queryKey(q[k:j])) {
				return false
			}
			k = j + 1
		}
	}
	if c.SortQuery && !querySorted(q) {
		return false
	}
	return true
}

// Byte classes of a canonical path, for isCanonical.
const (
	classEscape    = iota // "%" or a byte that must be encoded
	classPlain            // stands for itself
	classSlash            // "/"
	classSemicolon        // ";"
	classQuestion         // "?"
)

// pathClass is filled by init, after plain.
var pathClass [256]uint8

func queryKey(param string) string {
	for i := 0; i < len(param); i++ {
		if param[i] == '=' {
			return param[:i]
		}
	}
	return param
}

// dotSegment reports whether seg is "." or "..".
func dotSegment(seg string) bool {
	return seg == "." || seg == ".."
}

// validEscape reports whether s[i:] starts with a canonical escape: "%",
// two upper-case hex digits, not encoding an unreserved byte.
func validEscape(s string, i int) bool {
	if s[i] != '%' || i+2 >= len(s) {
		return false
	}
	h, l := s[i+1], s[i+2]
	if !('0' <= h && h <= '9' || 'A' <= h && h <= 'F') || !('0' <= l && l <= '9' || 'A' <= l && l <= 'F') {
		return false
	}
	return !unreserved[unhex(h)<<4|unhex(l)]
}
