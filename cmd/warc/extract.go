package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"crawler/warc"
)

const extractUsage = `usage: warc extract [-payload] FILE OFFSET
       warc extract [-payload] [-type TYPE] -uri URL FILE...

Writes one record's block to stdout: the record at OFFSET in FILE (as warc list
or a CDX index gives it; in a gzip member of several records, the first), or
with -uri the first record of type TYPE (response unless -type says) whose
WARC-Target-URI is URL, looked for in the FILEs in order. The block of a
response record is the HTTP response as it came: status line, header, body
(chunked or gzip-encoded as the server sent it).

With -payload it writes the record's payload instead: the bytes its
WARC-Payload-Digest covers. For an HTTP record, that is the body after the
header with the chunked transfer-coding removed (or as it came, if that is
what the digest covers) and any content-coding kept: a body sent with
Content-Encoding gzip comes out gzip-compressed (pipe it to gzip -d). Which
of these was done is said on stderr. For other records, the block.

The record is verified: if a digest does not match, its bytes are written all
the same and the exit status is 1. With -uri, the record chosen is named on
stderr (file, offset, type, date).

Exit status: 0 written; 1 no such record, a bad record or no payload (an HTTP
record with no complete header); 2 bad usage.

Flags:
`

// extract runs warc extract.
func extract(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("extract")
	payload := fs.Bool("payload", false, "write the payload (the HTTP body, dechunked, content-coding kept) instead of the block")
	uri := fs.String("uri", "", "extract the first record whose WARC-Target-URI is this `URL`")
	typ := fs.String("type", "response", "with -uri, the record `TYPE` to look for: response, revisit, request, resource, …")
	rest, err := parse(fs, args, extractUsage, stdout)
	if err != nil || rest == nil {
		return err
	}
	var rec *warc.Record
	var name string
	if *uri != "" {
		if len(rest) == 0 {
			return usageError{errors.New("extract -uri: no FILE given (-h for usage)")}
		}
		name, rec, err = findURI(rest, *uri, *typ, stderr)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "warc: %s: offset %d: %s %s %s\n", name, rec.Offset, rec.Type(), orDash(rec.Get("WARC-Date")), *uri)
	} else {
		if len(rest) != 2 {
			return usageError{errors.New("extract: want FILE OFFSET, or -uri URL FILE... (-h for usage)")}
		}
		off, err := strconv.ParseInt(rest[1], 10, 64)
		if err != nil || off < 0 {
			return usageError{fmt.Errorf("extract: OFFSET %q: want a byte offset, as warc list gives", rest[1])}
		}
		name = rest[0]
		if rec, err = recordAt(name, off); err != nil {
			return err
		}
	}

	out := rec.Block
	if *payload {
		p, dechunked, err := rec.Payload()
		if err != nil {
			return fmt.Errorf("%s: offset %d: %w", name, rec.Offset, err)
		}
		out = p
		fmt.Fprintf(stderr, "warc: %s: offset %d: %s\n", name, rec.Offset, payloadNote(rec, dechunked))
	}
	if _, err := stdout.Write(out); err != nil {
		return err
	}
	if err := check(rec); err != nil {
		return fmt.Errorf("%s: offset %d: the record is bad, written all the same: %w", name, rec.Offset, err)
	}
	return nil
}

// recordAt reads the record at offset off of the file name.
func recordAt(name string, off int64) (*warc.Record, error) {
	a, err := open(name)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	if off >= a.size {
		return nil, fmt.Errorf("%s: offset %d: beyond the file's end (%d bytes)", name, off, a.size)
	}
	rec, err := a.reader(off).Next()
	if err != nil {
		return nil, fmt.Errorf("%s: no record at offset %d: %w", name, off, err)
	}
	return rec, nil
}

// findURI returns the first record of type typ and target uri in the
// files, and the name of its file. Places that cannot be read are
// reported to stderr and passed.
func findURI(files []string, uri, typ string, stderr io.Writer) (string, *warc.Record, error) {
	for _, name := range files {
		a, err := open(name)
		if err != nil {
			return "", nil, err
		}
		var found *warc.Record
		err = walk(a, func(rec *warc.Record) bool {
			if rec.Get("WARC-Target-URI") == uri && rec.Type() == typ {
				found = rec
			}
			return found == nil
		}, func(f failure) {
			if !f.incomplete(a) {
				fmt.Fprintf(stderr, "warc: %s: offset %d: %v\n", name, f.off, f.err)
			}
		})
		a.Close()
		if err != nil {
			return "", nil, err
		}
		if found != nil {
			return name, found, nil
		}
	}
	return "", nil, fmt.Errorf("no %s record of %s in %s", typ, uri, plural(len(files), "file"))
}

// payloadNote says how the payload of rec relates to the body its block
// holds.
func payloadNote(rec *warc.Record, dechunked bool) string {
	resp := httpResponse(rec)
	if resp == nil {
		if rec.Type() == "request" {
			return "payload: the request body"
		}
		return "payload: the block"
	}
	if rec.Type() == "revisit" {
		return "payload: none in a revisit record (its page is in an earlier record)"
	}
	note := "payload: the HTTP body as it came"
	if dechunked {
		note = "payload: the HTTP body, chunked transfer-coding removed"
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && ce != "identity" {
		note += fmt.Sprintf("; Content-Encoding %s kept", ce)
		if ce == "gzip" || ce == "x-gzip" {
			note += " (pipe it to gzip -d)"
		}
	}
	return note
}
