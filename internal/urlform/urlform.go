// Package urlform keeps the URLs of one host short: a URL that starts with
// "http://" or "https://" and the host is kept as a form byte and the rest,
// as the frontiers' queues and the durable store keep them (a queue's
// host is known, and a URL without it is about half as long).
package urlform

import "strings"

// Forms of a URL kept for a host.
const (
	Full  = 0 // the URL as is
	HTTP  = 1 // "http://" + host + the rest
	HTTPS = 2 // "https://" + host + the rest
	Mask  = 3 // the bits of a flags byte that hold a form
)

// Cut returns the form in which u is kept for host, and the rest: u
// without "http://"+host or "https://"+host if it starts so and goes on
// with a path, query, fragment or nothing (not a port or a longer host).
func Cut(u, host string) (form byte, rest string) {
	if r, ok := cutOrigin(u, "http://", host); ok {
		return HTTP, r
	}
	if r, ok := cutOrigin(u, "https://", host); ok {
		return HTTPS, r
	}
	return Full, u
}

func cutOrigin(u, scheme, host string) (rest string, ok bool) {
	r, ok := strings.CutPrefix(u, scheme)
	if !ok {
		return "", false
	}
	if r, ok = strings.CutPrefix(r, host); !ok {
		return "", false
	}
	if r != "" && r[0] != '/' && r[0] != '?' && r[0] != '#' {
		return "", false
	}
	return r, true
}

// Join returns the URL that Cut kept for host as form and rest.
func Join(form byte, host string, rest []byte) string {
	if Scheme(form) == "" {
		return string(rest)
	}
	var b strings.Builder
	b.Grow(JoinedLen(form, host, rest))
	Write(&b, form, host, rest)
	return b.String()
}

// JoinedLen returns the length of the URL that Cut kept for host as form
// and rest.
func JoinedLen(form byte, host string, rest []byte) int {
	if s := Scheme(form); s != "" {
		return len(s) + len(host) + len(rest)
	}
	return len(rest)
}

// Write writes the URL that Cut kept for host as form and rest to b.
func Write(b *strings.Builder, form byte, host string, rest []byte) {
	if s := Scheme(form); s != "" {
		b.WriteString(s)
		b.WriteString(host)
	}
	b.Write(rest)
}

// Scheme returns the scheme that form took off a URL with its host: "" if
// it took nothing.
func Scheme(form byte) string {
	switch form & Mask {
	case HTTP:
		return "http://"
	case HTTPS:
		return "https://"
	}
	return ""
}
