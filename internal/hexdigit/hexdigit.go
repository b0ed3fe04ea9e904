// Package hexdigit reads hexadecimal digits, as percent-encoding (RFC
// 3986) and chunked transfer coding (RFC 9112) write them.
package hexdigit

// Value returns the value of the hexadecimal digit c, either case, and
// whether c is one.
func Value(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
