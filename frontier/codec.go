package frontier

import (
	"encoding/binary"

	"crawler/internal/urlform"
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
//
// The flags' bits 0-1 hold the URL's form (urlform.Full, HTTP or HTTPS);
// refSame says that the Referrer is the previous entry's.
const refSame = 1 << 2

// appendEntry appends e, of host host, encoded to dst. prevRef is the
// Referrer of the entry decoded just before this one ("" if none).
func appendEntry(dst []byte, e Entry, host, prevRef string) []byte {
	form, rest := urlform.Cut(e.URL, host)
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
	e.URL = urlform.Join(flags&urlform.Mask, host, rest)
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

// appendURL appends u as urlform.Cut keeps it for host: the form byte, then
// the bytes kept, length first.
func appendURL(dst []byte, u, host string) []byte {
	form, rest := urlform.Cut(u, host)
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
	f, r := urlform.Cut(u, host)
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
