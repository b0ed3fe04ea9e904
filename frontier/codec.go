package frontier

import (
	"encoding/binary"
	"strings"
)

// Waiting entries are kept encoded, in about a fifth of the memory of an
// Entry and its strings (a crawl keeps several URLs waiting for each one
// it fetches, so the frontier is most of a crawler's heap). An encoded
// entry is:
//
//	flags         1 byte: how URL and Referrer are spelled (below)
//	FP            8 bytes, little-endian
//	Depth, Hops, Tries  varints
//	URL           uvarint length and bytes, without "http://"+host or
//	              "https://"+host if it starts so (flags say which)
//	Referrer      nothing if it is the previous entry's (flags say so),
//	              else uvarint length and bytes
//
// Importance is not kept: Next sets it. The host is the queue's.
const (
	urlFull  = 0 // URL as is
	urlHTTP  = 1 // "http://" + host + the bytes kept
	urlHTTPS = 2 // "https://" + host + the bytes kept
	urlMask  = 3

	refSame = 1 << 2 // Referrer is the previous entry's
)

// appendEntry appends e, of host host, encoded to dst. prevRef is the
// Referrer of the entry decoded just before this one ("" if none).
func appendEntry(dst []byte, e Entry, host, prevRef string) []byte {
	form, rest := cutURL(e.URL, host)
	flags := form
	if e.Referrer == prevRef {
		flags |= refSame
	}
	dst = append(dst, flags)
	dst = binary.LittleEndian.AppendUint64(dst, e.FP)
	dst = binary.AppendVarint(dst, int64(e.Depth))
	dst = binary.AppendVarint(dst, int64(e.Hops))
	dst = binary.AppendVarint(dst, int64(e.Tries))
	dst = appendString(dst, rest)
	if flags&refSame == 0 {
		dst = appendString(dst, e.Referrer)
	}
	return dst
}

// decodeEntry decodes the entry at the start of src, encoded by
// appendEntry with the same host and prevRef, and returns it with its
// encoded length.
func decodeEntry(src []byte, host, prevRef string) (e Entry, n int) {
	flags := src[0]
	e.FP = binary.LittleEndian.Uint64(src[1:])
	n = 9
	e.Depth, n = varint(src, n)
	e.Hops, n = varint(src, n)
	e.Tries, n = varint(src, n)
	var rest []byte
	rest, n = bytesAt(src, n)
	e.URL = joinURL(flags&urlMask, host, rest)
	e.Host = host
	if flags&refSame != 0 {
		e.Referrer = prevRef
	} else {
		var ref []byte
		ref, n = bytesAt(src, n)
		e.Referrer = string(ref)
	}
	return e, n
}

// cutURL returns the form in which u is kept for host, and the bytes kept:
// u without "http://"+host or "https://"+host if it starts so.
func cutURL(u, host string) (form byte, rest string) {
	if r, ok := cutOrigin(u, "http://", host); ok {
		return urlHTTP, r
	}
	if r, ok := cutOrigin(u, "https://", host); ok {
		return urlHTTPS, r
	}
	return urlFull, u
}

// cutOrigin returns u without scheme+host if it starts with them and goes
// on with a path, query or nothing (not a port or a longer host name).
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

// joinURL returns the URL that cutURL kept for host as form and rest.
func joinURL(form byte, host string, rest []byte) string {
	if formScheme(form) == "" {
		return string(rest)
	}
	var b strings.Builder
	b.Grow(joinedLen(form, host, rest))
	writeURL(&b, form, host, rest)
	return b.String()
}

// joinedLen returns the length of the URL that cutURL kept for host as
// form and rest.
func joinedLen(form byte, host string, rest []byte) int {
	if s := formScheme(form); s != "" {
		return len(s) + len(host) + len(rest)
	}
	return len(rest)
}

// writeURL writes the URL that cutURL kept for host as form and rest to b.
func writeURL(b *strings.Builder, form byte, host string, rest []byte) {
	if s := formScheme(form); s != "" {
		b.WriteString(s)
		b.WriteString(host)
	}
	b.Write(rest)
}

// formScheme returns the scheme that form took off a URL with its host:
// "" if it took nothing.
func formScheme(form byte) string {
	switch form & urlMask {
	case urlHTTP:
		return "http://"
	case urlHTTPS:
		return "https://"
	}
	return ""
}

// appendURL appends u as cutURL keeps it for host: the form byte, then
// the bytes kept, length first.
func appendURL(dst []byte, u, host string) []byte {
	form, rest := cutURL(u, host)
	return appendString(append(dst, form), rest)
}

// urlAt returns the form and the bytes kept of the URL that appendURL
// appended at src[n:], and the offset after it.
func urlAt(src []byte, n int) (form byte, rest []byte, end int) {
	rest, end = bytesAt(src, n+1)
	return src[n], rest, end
}

// sameURL reports whether the URL that appendURL appended for host at
// src[n:] is u.
func sameURL(src []byte, n int, u, host string) bool {
	form, rest, _ := urlAt(src, n)
	f, r := cutURL(u, host)
	return form == f && string(rest) == r
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func varint(src []byte, n int) (int, int) {
	v, k := binary.Varint(src[n:])
	return int(v), n + k
}

func bytesAt(src []byte, n int) ([]byte, int) {
	l, k := binary.Uvarint(src[n:])
	n += k
	return src[n : n+int(l)], n + int(l)
}
