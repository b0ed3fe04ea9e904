package canon

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// idnaProfile is UTS 46 ToASCII as the WHATWG URL Standard calls it:
// non-transitional, CheckBidi and CheckJoiners on, CheckHyphens and
// UseSTD3ASCIIRules off (so "_" and "r3---sn" labels pass), no DNS length
// check. A Profile is immutable and safe for concurrent use.
var idnaProfile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
	idna.CheckJoiners(true),
)

var (
	errIPv6      = errors.New("bad IPv6 literal")
	errIPv4      = errors.New("bad IPv4 address")
	errForbidden = errors.New("forbidden host code point")
	errIDNA      = errors.New("IDNA mapping failed")
	errDots      = errors.New("host of dots only")
	errPortChar  = errors.New("non-digit in port")
	errPortRange = errors.New("port out of range")
)

// splitHostPort splits a raw authority (userinfo removed) into host and port
// at the first ":" outside an IPv6 literal.
func splitHostPort(hp string) (host, port string, err error) {
	if strings.HasPrefix(hp, "[") {
		i := strings.IndexByte(hp, ']')
		if i < 0 {
			return "", "", errIPv6
		}
		host, rest := hp[:i+1], hp[i+1:]
		if rest == "" {
			return host, "", nil
		}
		if rest[0] != ':' {
			return "", "", errIPv6
		}
		return host, rest[1:], nil
	}
	if i := strings.IndexByte(hp, ':'); i >= 0 {
		return hp[:i], hp[i+1:], nil
	}
	return hp, "", nil
}

// appendPort appends ":port" unless port is empty or the scheme's default.
// Leading zeros are dropped.
func appendPort(b []byte, port string, https bool) ([]byte, error) {
	if port == "" {
		return b, nil
	}
	v := 0
	for i := 0; i < len(port); i++ {
		c := port[i]
		if c < '0' || c > '9' {
			return b, errPortChar
		}
		v = v*10 + int(c-'0')
		if v > 65535 {
			return b, errPortRange
		}
	}
	if https && v == 443 || !https && v == 80 {
		return b, nil
	}
	b = append(b, ':')
	return strconv.AppendInt(b, int64(v), 10), nil
}

// simpleHost reports whether host is already a canonical domain name needing
// no IDNA work: non-empty, lower-case LDH, "." and "_" only, no "xn--" label,
// and not ending in a number (which would make it an IPv4 address).
func simpleHost(host string) bool {
	if host == "" {
		return false
	}
	for i := 0; i < len(host); i++ {
		if !hostPlain[host[i]] {
			return false
		}
		if host[i] == '-' && i >= 3 && host[i-1] == '-' && host[i-2] == 'n' && host[i-3] == 'x' &&
			(i == 3 || host[i-4] == '.') {
			return false
		}
	}
	return !endsInNumber(host)
}

// appendHost appends the canonical form of a raw host: an IPv6 literal in
// WHATWG form (see appendIPv6), an IPv4 address in dotted decimal, or a
// lower-case (Punycode) domain name.
func appendHost(b []byte, host string, stripDot bool) ([]byte, error) {
	if host[0] == '[' {
		inner := host[1 : len(host)-1]
		if strings.IndexByte(inner, '%') >= 0 {
			return b, errIPv6 // zones are not allowed in URLs
		}
		a, err := netip.ParseAddr(inner)
		if err != nil || !a.Is6() {
			return b, errIPv6
		}
		b = append(b, '[')
		b = appendIPv6(b, a)
		return append(b, ']'), nil
	}
	if simpleHost(host) && !(stripDot && host[len(host)-1] == '.') {
		return append(b, host...), nil
	}
	hs := len(b)
	if isASCII(host) && strings.IndexByte(host, '%') < 0 {
		// Common case: upper-case ASCII. Lower-case it in place.
		for i := 0; i < len(host); i++ {
			c := host[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
		}
		if hasACELabel(b[hs:]) {
			h, err := domainToASCII(string(b[hs:]))
			if err != nil {
				return b[:hs], err
			}
			b = append(b[:hs], h...)
		}
	} else {
		h, err := domainToASCII(host)
		if err != nil {
			return b, err
		}
		b = append(b, h...)
	}
	for _, c := range b[hs:] {
		if !hostPlain[c] {
			return b[:hs], errForbidden
		}
	}
	if stripDot {
		// Before the IPv4 test: "0.." becomes "0", an IPv4 address.
		for len(b) > hs && b[len(b)-1] == '.' {
			b = b[:len(b)-1]
		}
		if len(b) == hs {
			return b, errDots
		}
	}
	if endsInNumber(b[hs:]) {
		return appendIPv4(b[:hs], string(b[hs:]))
	}
	return b, nil
}

// appendIPv6 appends a, an IPv6 address without zone, as the WHATWG URL
// Standard serializes it: eight pieces in lower-case hex without leading
// zeros, the first longest run of two or more zero pieces written "::".
// That is RFC 5952 form, which netip writes, except for an IPv4-mapped
// address: netip writes "::ffff:192.0.2.128", WHATWG "::ffff:c000:280".
func appendIPv6(b []byte, a netip.Addr) []byte {
	if !a.Is4In6() {
		return a.AppendTo(b)
	}
	// Pieces 0 to 4 are zero, 5 is ffff: the first longest run is 0 to 4
	// whatever pieces 6 and 7 are.
	v := a.As16()
	b = append(b, "::ffff:"...)
	b = strconv.AppendUint(b, uint64(v[12])<<8|uint64(v[13]), 16)
	b = append(b, ':')
	return strconv.AppendUint(b, uint64(v[14])<<8|uint64(v[15]), 16)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// domainToASCII percent-decodes host and maps it to lower-case ASCII
// (Punycode for non-ASCII labels) per UTS 46, then checks that only
// lower-case LDH, "." and "_" remain.
func domainToASCII(host string) (string, error) {
	if strings.IndexByte(host, '%') >= 0 {
		host = percentDecode(host)
	}
	if !utf8.ValidString(host) {
		return "", errIDNA
	}
	ascii := isASCII(host)
	h := host
	if ascii {
		h = strings.ToLower(h)
	}
	if !ascii || hasACELabel(h) {
		var err error
		h, err = idnaProfile.ToASCII(h)
		if err != nil {
			return "", errIDNA
		}
	}
	if h == "" {
		return "", errIDNA
	}
	for i := 0; i < len(h); i++ {
		if !hostPlain[h[i]] {
			return "", errForbidden
		}
	}
	return h, nil
}

func hasACELabel[S string | []byte](h S) bool {
	for i := 0; i+4 <= len(h); i++ {
		if h[i] == 'x' && h[i+1] == 'n' && h[i+2] == '-' && h[i+3] == '-' && (i == 0 || h[i-1] == '.') {
			return true
		}
	}
	return false
}

// percentDecode decodes every valid %XX escape of s; a stray "%" is kept.
func percentDecode(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// endsInNumber reports whether the last label of host (ignoring one trailing
// dot) is a decimal number or a 0x hex number: then, per the WHATWG URL
// Standard, host must parse as an IPv4 address or is invalid.
func endsInNumber[S string | []byte](host S) bool {
	if len(host) > 0 && host[len(host)-1] == '.' {
		host = host[:len(host)-1]
	}
	i := len(host)
	for i > 0 && host[i-1] != '.' {
		i--
	}
	last := host[i:]
	if len(last) == 0 {
		return false
	}
	if last[0] >= '0' && last[0] <= '9' {
		digits := true
		for i := 0; i < len(last); i++ {
			if last[i] < '0' || last[i] > '9' {
				digits = false
				break
			}
		}
		if digits {
			return true
		}
	}
	if len(last) >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X') {
		for i := 2; i < len(last); i++ {
			if !ishex(last[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// appendIPv4 parses host as a WHATWG IPv4 address (1 to 4 parts, each
// decimal, octal with a leading 0, or hex with 0x; the last part fills the
// remaining bytes) and appends it in dotted decimal.
func appendIPv4(b []byte, host string) ([]byte, error) {
	host = strings.TrimSuffix(host, ".")
	var nums [4]uint64
	n := 0
	for part := range strings.SplitSeq(host, ".") {
		if n == 4 {
			return b, errIPv4
		}
		v, ok := parseIPv4Number(part)
		if !ok {
			return b, errIPv4
		}
		nums[n] = v
		n++
	}
	var addr uint64
	for i := 0; i < n-1; i++ {
		if nums[i] > 255 {
			return b, errIPv4
		}
		addr |= nums[i] << (8 * (3 - i))
	}
	if nums[n-1] >= 1<<(8*(5-n)) {
		return b, errIPv4
	}
	addr |= nums[n-1]
	for i := 3; i >= 0; i-- {
		b = strconv.AppendUint(b, (addr>>(8*i))&0xff, 10)
		if i > 0 {
			b = append(b, '.')
		}
	}
	return b, nil
}

// parseIPv4Number parses one part of an IPv4 address. Values above 2^32
// saturate at 2^32+1, which every caller rejects.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case base == 16 && ishex(c):
			d = uint64(unhex(c))
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		v = v*base + d
		if v > 1<<32 {
			v = 1<<32 + 1
		}
	}
	return v, true
}
