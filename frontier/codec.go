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
	form, rest := urlFull, e.URL
	if r, ok := cutOrigin(e.URL, "http://", host); ok {
		form, rest = urlHTTP, r
	} else if r, ok := cutOrigin(e.URL, "https://", host); ok {
		form, rest = urlHTTPS, r
	}
	flags := byte(form)
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
	switch flags & urlMask {
	case urlHTTP:
		e.URL = concat("http://", host, rest)
	case urlHTTPS:
		e.URL = concat("https://", host, rest)
	default:
		e.URL = string(rest)
	}
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

func concat(scheme, host string, rest []byte) string {
	var b strings.Builder
	b.Grow(len(scheme) + len(host) + len(rest))
	b.WriteString(scheme)
	b.WriteString(host)
	b.Write(rest)
	return b.String()
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
