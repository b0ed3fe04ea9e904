package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"crawler/warc"
)

const listUsage = `usage: warc list [-json] FILE...

Prints a line per record of each WARC FILE on stdout, tab-separated:

  OFFSET  TYPE  DATE  LENGTH  STATUS  CONTENT-TYPE  URI

OFFSET is where the record starts in FILE (for .warc.gz, its gzip member: the
offset warc extract and CDX indexes take); DATE its WARC-Date; LENGTH its
block's bytes; STATUS and CONTENT-TYPE, for a response or revisit, those of
the HTTP response, for other records the record's Content-Type; URI its
WARC-Target-URI. A value a record lacks is "-". With several FILEs, each
line starts with its FILE. Places that cannot be read go to stderr, with
their offsets, and make the exit status 1.

  Examples:
    warc list crawl/*.warc.gz | awk -F'\t' '$2 == "response" && $5 == 404'
    warc list -json crawl/*.warc.gz | jq -r 'select(.status == 200) | .uri'

Flags:
`

// entry is a record as list prints it.
type entry struct {
	File          string `json:"file"`
	Offset        int64  `json:"offset"`
	Type          string `json:"type"`
	URI           string `json:"uri,omitempty"`
	Date          string `json:"date,omitempty"`
	Length        int    `json:"length"`
	Status        int    `json:"status,omitempty"`
	ContentType   string `json:"content_type,omitempty"`
	RecordID      string `json:"record_id,omitempty"`
	PayloadDigest string `json:"payload_digest,omitempty"`
	Truncated     string `json:"truncated,omitempty"`
}

// newEntry describes rec, of the file name.
func newEntry(name string, rec *warc.Record) entry {
	e := entry{
		File: name, Offset: rec.Offset, Type: rec.Type(), URI: rec.Get("WARC-Target-URI"),
		Date: rec.Get("WARC-Date"), Length: len(rec.Block), ContentType: rec.Get("Content-Type"),
		RecordID: rec.Get("WARC-Record-ID"), PayloadDigest: rec.Get("WARC-Payload-Digest"),
		Truncated: rec.Get("WARC-Truncated"),
	}
	if resp := httpResponse(rec); resp != nil {
		e.Status = resp.StatusCode
		e.ContentType = resp.Header.Get("Content-Type")
	}
	return e
}

// httpResponse returns the HTTP response header a response or revisit
// record holds, or nil if it holds none.
func httpResponse(rec *warc.Record) *http.Response {
	typ := rec.Type()
	if typ != "response" && typ != "revisit" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(rec.Get("Content-Type"))
	if err != nil || mt != "application/http" {
		return nil
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(rec.Block)), nil)
	if err != nil {
		return nil
	}
	resp.Body.Close()
	return resp
}

// line returns e as a tab-separated line, the file first if withFile.
func (e entry) line(withFile bool) string {
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return strings.Map(func(r rune) rune { // one line, tabs only between columns
			if r == '\t' || r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, s)
	}
	status := "-"
	if e.Status != 0 {
		status = strconv.Itoa(e.Status)
	}
	s := fmt.Sprintf("%d\t%s\t%s\t%d\t%s\t%s\t%s\n", e.Offset, dash(e.Type), dash(e.Date), e.Length, status, dash(e.ContentType), dash(e.URI))
	if withFile {
		s = dash(e.File) + "\t" + s
	}
	return s
}

// list runs warc list.
func list(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("list")
	asJSON := fs.Bool("json", false, "print JSON Lines: file, offset, type, uri, date, length, status, content_type, record_id, payload_digest, truncated")
	files, err := parse(fs, args, listUsage, stdout)
	if err != nil || files == nil {
		return err
	}
	if len(files) == 0 {
		return usageError{errors.New("list: no FILE given (-h for usage)")}
	}
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // record IDs are <urn:uuid:…>
	var writeErr error
	failed := false
	for _, name := range files {
		a, err := open(name)
		if err != nil {
			fmt.Fprintln(stderr, "warc:", err)
			failed = true
			continue
		}
		err = walk(a, func(rec *warc.Record) bool {
			e := newEntry(name, rec)
			if *asJSON {
				writeErr = enc.Encode(e)
			} else {
				_, writeErr = w.WriteString(e.line(len(files) > 1))
			}
			return writeErr == nil
		}, func(f failure) {
			w.Flush() // the message after the records before it
			if f.incomplete(a) {
				fmt.Fprintf(stderr, "warc: %s: offset %d: incomplete last record (the file is being written): %v\n", name, f.off, f.err)
				return
			}
			fmt.Fprintf(stderr, "warc: %s: offset %d: %v\n", name, f.off, f.err)
			failed = true
		})
		a.Close()
		if err != nil {
			fmt.Fprintln(stderr, "warc:", err)
			failed = true
		}
		if writeErr != nil {
			return writeErr
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if failed {
		return errReported
	}
	return nil
}

// newFlagSet returns a flag set that reports its errors as values.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned, in one line
	fs.Usage = func() {}
	return fs
}

// parse parses args into fs and returns the arguments after the flags.
// For -h it prints head and the flags to stdout, and returns nil and nil.
func parse(fs *flag.FlagSet, args []string, head string, stdout io.Writer) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, head)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return nil, nil
		}
		return nil, usageError{fmt.Errorf("%s: %w", fs.Name(), err)}
	}
	return append([]string{}, fs.Args()...), nil
}
