package warc

import (
	"bytes"
	"io"

	"crawler/internal/hexdigit"
)

// This file reads just enough of an HTTP/1.x message, as bytes, to find
// its payload: where the header ends, the status code, whether the body
// is chunked, and the chunked body's data. It never allocates.

// httpHeaderEnd returns the length of the message's header (status or
// request line, fields, and the empty line ending them), or -1 if b holds
// no complete header. Lines may end in CRLF or, as some servers send, a
// bare LF.
func httpHeaderEnd(b []byte) int {
	first := true
	for i := 0; i < len(b); {
		nl := bytes.IndexByte(b[i:], '\n')
		if nl < 0 {
			return -1
		}
		line := b[i : i+nl]
		i += nl + 1
		if len(line) == 0 || (len(line) == 1 && line[0] == '\r') {
			if first { // no start line: not a message we understand
				return -1
			}
			return i
		}
		first = false
	}
	return -1
}

// httpStatus returns the status code of a response header ("HTTP/1.1 304
// Not Modified" gives 304), or 0 if its first line is not a status line.
func httpStatus(header []byte) int {
	if !bytes.HasPrefix(header, []byte("HTTP/")) {
		return 0
	}
	sp := bytes.IndexByte(header, ' ')
	if sp < 0 || sp+4 > len(header) {
		return 0
	}
	code := 0
	for _, c := range header[sp+1 : sp+4] {
		if c < '0' || c > '9' {
			return 0
		}
		code = code*10 + int(c-'0')
	}
	if sp+4 < len(header) {
		if c := header[sp+4]; c != ' ' && c != '\r' && c != '\n' {
			return 0
		}
	}
	return code
}

// httpField splits the first field line off header (which starts after
// the start line): its name and value, trimmed, and the lines after it.
// A line without a colon gives an empty name.
func httpField(header []byte) (name, value, rest []byte) {
	nl := bytes.IndexByte(header, '\n')
	if nl < 0 {
		nl = len(header)
	}
	line := header[:nl]
	rest = header[min(nl+1, len(header)):]
	colon := bytes.IndexByte(line, ':')
	if colon < 0 {
		return nil, nil, rest
	}
	return bytes.TrimSpace(line[:colon]), bytes.TrimSpace(line[colon+1:]), rest
}

// httpFields returns a message header's fields, after its start line.
func httpFields(header []byte) []byte {
	if nl := bytes.IndexByte(header, '\n'); nl >= 0 {
		return header[nl+1:]
	}
	return nil
}

// httpChunked reports whether a message header says its body is in the
// chunked transfer-coding: whether the last coding of its
// Transfer-Encoding fields is "chunked".
func httpChunked(header []byte) bool {
	chunked := false
	for rest := httpFields(header); len(rest) > 0; {
		var name, v []byte
		name, v, rest = httpField(rest)
		if !bytes.EqualFold(name, []byte("Transfer-Encoding")) {
			continue
		}
		if c := bytes.LastIndexByte(v, ','); c >= 0 {
			v = bytes.TrimSpace(v[c+1:])
		}
		if len(v) > 0 { // an empty field changes nothing
			chunked = bytes.EqualFold(v, []byte("chunked"))
		}
	}
	return chunked
}

// httpCompressed reports whether a response header says its body is
// compressed already: a Content-Encoding other than identity, or a
// Content-Type of a compressed format (most images, audio and video,
// archives, web fonts). It may be wrong; then the body costs more bytes
// or more time to store, nothing else.
func httpCompressed(header []byte) bool {
	for rest := httpFields(header); len(rest) > 0; {
		var name, v []byte
		name, v, rest = httpField(rest)
		switch {
		case bytes.EqualFold(name, []byte("Content-Encoding")):
			if len(v) > 0 && !bytes.EqualFold(v, []byte("identity")) {
				return true
			}
		case bytes.EqualFold(name, []byte("Content-Type")):
			if semi := bytes.IndexByte(v, ';'); semi >= 0 {
				v = bytes.TrimSpace(v[:semi])
			}
			if compressedType(v) {
				return true
			}
		}
	}
	return false
}

// compressedTypes are media types whose content is compressed; all of
// video/ and audio/ are too.
var compressedTypes = []string{
	"image/jpeg", "image/png", "image/gif", "image/webp", "image/avif", "image/heic",
	"application/zip", "application/gzip", "application/x-gzip", "application/zstd",
	"application/x-xz", "application/x-bzip2", "application/x-7z-compressed",
	"application/vnd.rar", "font/woff", "font/woff2", "application/font-woff",
}

func compressedType(mt []byte) bool {
	if len(mt) > 6 && (bytes.EqualFold(mt[:6], []byte("video/")) || bytes.EqualFold(mt[:6], []byte("audio/"))) {
		return true
	}
	for _, t := range compressedTypes {
		if len(mt) == len(t) && bytes.EqualFold(mt, []byte(t)) {
			return true
		}
	}
	return false
}

// dechunkResult says how a chunked body ended.
type dechunkResult int

const (
	dechunkComplete  dechunkResult = iota // up to the last (zero-size) chunk
	dechunkCut                            // the input ended inside the body
	dechunkMalformed                      // not chunked framing
)

// maxChunkSizeDigits bounds a chunk-size line's hex digits, so that a
// size never overflows an int64.
const maxChunkSizeDigits = 15

// dechunk decodes a body in the chunked transfer-coding, writing each run
// of data to w in order (w is a hash: its errors are ignored).
// On a cut body (dechunkCut) it has written every data byte that arrived,
// those of a cut chunk included. On malformed framing it has written the
// data of the chunks before the fault. Chunk extensions and trailer
// fields are skipped.
func dechunk(body []byte, w io.Writer) dechunkResult {
	for {
		// chunk-size [ chunk-ext ] CRLF
		nl := bytes.IndexByte(body, '\n')
		if nl < 0 {
			if validChunkLinePrefix(body) {
				return dechunkCut
			}
			return dechunkMalformed
		}
		line := body[:nl]
		body = body[nl+1:]
		size, ok := parseChunkSize(line)
		if !ok {
			return dechunkMalformed
		}
		if size == 0 {
			return dechunkComplete // trailer fields follow: not payload
		}
		if int64(len(body)) < size {
			w.Write(body)
			return dechunkCut
		}
		w.Write(body[:size])
		body = body[size:]
		// CRLF after the data (a bare LF is tolerated)
		switch {
		case len(body) >= 2 && body[0] == '\r' && body[1] == '\n':
			body = body[2:]
		case len(body) >= 1 && body[0] == '\n':
			body = body[1:]
		case len(body) == 0 || (len(body) == 1 && body[0] == '\r'):
			return dechunkCut
		default:
			return dechunkMalformed
		}
	}
}

// parseChunkSize parses a chunk-size line (without its LF): hex digits,
// then optionally whitespace, a chunk extension after ';', and a CR.
func parseChunkSize(line []byte) (int64, bool) {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if semi := bytes.IndexByte(line, ';'); semi >= 0 {
		line = line[:semi]
	}
	line = bytes.TrimRight(line, " \t")
	if len(line) == 0 || len(line) > maxChunkSizeDigits {
		return 0, false
	}
	var size int64
	for _, c := range line {
		d, ok := hexdigit.Value(c)
		if !ok {
			return 0, false
		}
		size = size<<4 | int64(d)
	}
	return size, true
}

// validChunkLinePrefix reports whether b could begin a chunk-size line,
// as the unterminated end of a cut body.
func validChunkLinePrefix(b []byte) bool {
	digits := 0
	for _, c := range b {
		if _, ok := hexdigit.Value(c); !ok {
			break
		}
		digits++
	}
	if digits > maxChunkSizeDigits {
		return false
	}
	rest := b[digits:]
	if len(rest) == 0 {
		return true
	}
	if digits == 0 {
		return false
	}
	// what follows the digits: an extension, spaces, or the CR of CRLF
	return rest[0] == ';' || rest[0] == ' ' || rest[0] == '\t' || (len(rest) == 1 && rest[0] == '\r')
}
