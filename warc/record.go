package warc

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strings"
)

// Errors of [Record.Verify]. Verify wraps them with the record's ID and
// the digests declared and computed; test with [errors.Is].
var (
	// ErrBlockDigest: the block does not match WARC-Block-Digest.
	ErrBlockDigest = errors.New("warc: block digest mismatch")
	// ErrPayloadDigest: the payload does not match WARC-Payload-Digest.
	ErrPayloadDigest = errors.New("warc: payload digest mismatch")
	// ErrDigestFormat: a digest field names an algorithm Verify does not
	// know (it knows sha1, sha256, sha512 and md5) or a value that is
	// neither base32 nor hex of the algorithm's size.
	ErrDigestFormat = errors.New("warc: unsupported or malformed digest")
)

// ErrNoPayload is returned by [Record.Payload] for an application/http
// block that holds no complete HTTP header, whose payload cannot be
// told from its header.
var ErrNoPayload = errors.New("warc: no HTTP header, so no payload")

// Field is one named field of a record's header.
type Field struct {
	Name, Value string
}

// Record is one WARC record as read by a [Reader]. A Record is not
// shared with the Reader: it and its slices stay valid and unchanged
// after the next call to [Reader.Next].
type Record struct {
	// Version is the WARC version of the record's first line: "1.1" for
	// "WARC/1.1".
	Version string
	// Fields are the header fields in the order they were read, with
	// names as written. A field folded over several lines is joined with
	// single spaces.
	Fields []Field
	// Block is the record's content block: Content-Length bytes.
	Block []byte
	// Offset is where the record starts in the input: for a gzip file,
	// the offset of the gzip member holding it (the offset a CDX index
	// gives); for an uncompressed file, that of its first line.
	Offset int64
}

// Get returns the value of the record's first field named name (case
// does not matter), or "" if it has none.
func (r *Record) Get(name string) string {
	for _, f := range r.Fields {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Type returns the record's WARC-Type: "warcinfo", "request",
// "response", "revisit", ….
func (r *Record) Type() string { return r.Get("WARC-Type") }

// Verify recomputes the digests the record declares and reports those
// that do not match. WARC-Block-Digest covers the whole block; a mismatch
// is [ErrBlockDigest]. WARC-Payload-Digest is checked except in a revisit
// record (where it names another record's payload); a mismatch is
// [ErrPayloadDigest]. The payload of an application/http block is the
// message body after its header: with the chunked transfer-coding
// removed (as this package writes it, and as far as a cut body goes), or
// as it came (as some tools write it); either matching passes. The
// payload of any other block is the block. A record that declares no
// digest verifies. If both digests fail, the error wraps both.
func (r *Record) Verify() error {
	var errs []error
	if v := r.Get("WARC-Block-Digest"); v != "" {
		if err := r.verifyBlock(v); err != nil {
			errs = append(errs, err)
		}
	}
	if v := r.Get("WARC-Payload-Digest"); v != "" && !strings.EqualFold(r.Type(), "revisit") {
		if err := r.verifyPayload(v); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Payload returns the record's payload, the bytes its
// WARC-Payload-Digest covers by the rules of [Record.Verify], and
// whether they are the body with its chunked transfer-coding removed.
//
// The payload of a block that is not application/http is the block. That
// of an application/http block is the message body after its header,
// with any content-coding (gzip) kept: with the chunked transfer-coding
// removed if the header says chunked and the framing holds (a cut body
// gives the data of the chunks that arrived, as [Writer] digests it),
// unless the record's WARC-Payload-Digest matches the body as it came and
// not the dechunked one (as some tools write it); otherwise the body as
// it came. A block without a complete HTTP header has none:
// [ErrNoPayload]. A revisit's payload is the body its block holds,
// usually none.
//
// The payload shares the Block's memory unless dechunked is true. Payload
// does not check the digest otherwise: call Verify for that.
func (r *Record) Payload() (payload []byte, dechunked bool, err error) {
	if !isHTTP(r.Get("Content-Type")) {
		return r.Block, false, nil
	}
	end := httpHeaderEnd(r.Block)
	if end < 0 {
		return nil, false, ErrNoPayload
	}
	body := r.Block[end:]
	if !httpChunked(r.Block[:end]) {
		return body, false, nil
	}
	var data bytes.Buffer
	if dechunk(body, &data) == dechunkMalformed {
		return body, false, nil
	}
	if declared := r.Get("WARC-Payload-Digest"); declared != "" {
		if h, want, err := parseDigest(declared); err == nil {
			h.Write(data.Bytes())
			if got := h.Sum(nil); string(got) != string(want) {
				h.Reset()
				h.Write(body)
				if got := h.Sum(nil); string(got) == string(want) {
					return body, false, nil
				}
			}
		}
	}
	return data.Bytes(), true, nil
}

func (r *Record) verifyBlock(declared string) error {
	h, want, err := parseDigest(declared)
	if err != nil {
		return r.errorf(ErrDigestFormat, "WARC-Block-Digest %q", declared)
	}
	h.Write(r.Block)
	if got := h.Sum(nil); string(got) != string(want) {
		return r.errorf(ErrBlockDigest, "WARC-Block-Digest %s, computed %s", declared, formatDigest(declared, got))
	}
	return nil
}

func (r *Record) verifyPayload(declared string) error {
	h, want, err := parseDigest(declared)
	if err != nil {
		return r.errorf(ErrDigestFormat, "WARC-Payload-Digest %q", declared)
	}
	if !isHTTP(r.Get("Content-Type")) {
		h.Write(r.Block)
		if got := h.Sum(nil); string(got) != string(want) {
			return r.errorf(ErrPayloadDigest, "WARC-Payload-Digest %s, computed %s", declared, formatDigest(declared, got))
		}
		return nil
	}
	end := httpHeaderEnd(r.Block)
	if end < 0 {
		return r.errorf(ErrPayloadDigest, "WARC-Payload-Digest %s, but the block has no complete HTTP header", declared)
	}
	body := r.Block[end:]
	var first []byte // the digest of the preferred reading, for the message
	if httpChunked(r.Block[:end]) {
		if dechunk(body, h) != dechunkMalformed {
			first = h.Sum(nil)
			if string(first) == string(want) {
				return nil
			}
		}
		h.Reset()
	}
	h.Write(body)
	got := h.Sum(nil)
	if string(got) == string(want) {
		return nil
	}
	if first == nil {
		first = got
	}
	return r.errorf(ErrPayloadDigest, "WARC-Payload-Digest %s, computed %s", declared, formatDigest(declared, first))
}

func (r *Record) errorf(sentinel error, format string, args ...any) error {
	id := r.Get("WARC-Record-ID")
	if id == "" {
		id = fmt.Sprintf("at offset %d", r.Offset)
	}
	return fmt.Errorf("%w: record %s: %s", sentinel, id, fmt.Sprintf(format, args...))
}

// isHTTP reports whether a Content-Type is application/http.
func isHTTP(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/http")
}

var base32NoPad = base32.StdEncoding.WithPadding(base32.NoPadding)

// parseDigest parses a digest field, "algorithm:value" with the value in
// base32 (any case, padded or not) or hex, and returns a fresh hash of
// the algorithm and the digest's bytes.
func parseDigest(v string) (hash.Hash, []byte, error) {
	alg, val, ok := strings.Cut(strings.TrimSpace(v), ":")
	if !ok {
		return nil, nil, ErrDigestFormat
	}
	var h hash.Hash
	switch strings.ToLower(alg) {
	case "sha1", "sha-1":
		h = sha1.New()
	case "sha256", "sha-256":
		h = sha256.New()
	case "sha512", "sha-512":
		h = sha512.New()
	case "md5":
		h = md5.New()
	default:
		return nil, nil, ErrDigestFormat
	}
	var sum []byte
	var err error
	if len(val) == hex.EncodedLen(h.Size()) {
		sum, err = hex.DecodeString(val)
	}
	if sum == nil || err != nil {
		sum, err = base32NoPad.DecodeString(strings.ToUpper(strings.TrimRight(val, "=")))
	}
	if err != nil || len(sum) != h.Size() {
		return nil, nil, ErrDigestFormat
	}
	return h, sum, nil
}

// formatDigest writes sum as declared writes its digest: the same
// algorithm label, and hex if declared is hex, else base32.
func formatDigest(declared string, sum []byte) string {
	alg, val, _ := strings.Cut(strings.TrimSpace(declared), ":")
	if len(val) == hex.EncodedLen(len(sum)) {
		if _, err := hex.DecodeString(val); err == nil {
			return alg + ":" + hex.EncodeToString(sum)
		}
	}
	return alg + ":" + base32.StdEncoding.EncodeToString(sum)
}
