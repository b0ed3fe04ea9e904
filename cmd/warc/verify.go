package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"crawler/warc"
)

const verifyUsage = `usage: warc verify FILE...

Checks every record of each WARC FILE: its WARC-Block-Digest (over the block)
and WARC-Payload-Digest (over the HTTP body, dechunked or as it came, as
tools differ; a revisit's is not checked), in sha1, sha256, sha512 or md5,
base32 or hex; its mandatory fields (WARC-Type, WARC-Record-ID, WARC-Date);
and its framing: the gzip member's checksum and length, a block of its
Content-Length, the CRLF CRLF after it.

Prints on stdout a line per bad record, FILE: offset OFFSET: TYPE URI: why,
then a summary: files, records, verified (every digest declared matches),
without digests, bad. A place that cannot be read counts as one bad record;
reading goes on from the next record found after it. The incomplete last
record of a .open file (being written) is noted on stderr, not counted.

Exit status: 0 no bad record; 1 a bad record, or a file that cannot be
opened; 2 bad usage.
`

// tally counts what verify found.
type tally struct {
	files, records, verified, noDigest, bad int
}

// verify runs warc verify.
func verify(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("verify")
	files, err := parse(fs, args, verifyUsage, stdout)
	if err != nil || files == nil {
		return err
	}
	if len(files) == 0 {
		return usageError{errors.New("verify: no FILE given (-h for usage)")}
	}
	w := bufio.NewWriter(stdout)
	var t tally
	unopened := 0
	for _, name := range files {
		a, err := open(name)
		if err != nil {
			fmt.Fprintln(stderr, "warc:", err)
			unopened++
			continue
		}
		t.files++
		err = walk(a, func(rec *warc.Record) bool {
			t.records++
			switch err := check(rec); {
			case err != nil:
				t.bad++
				fmt.Fprintf(w, "%s: offset %d: %s %s: %v\n", name, rec.Offset, orDash(rec.Type()), orDash(rec.Get("WARC-Target-URI")), err)
			case rec.Get("WARC-Block-Digest") == "" && rec.Get("WARC-Payload-Digest") == "":
				t.noDigest++
			default:
				t.verified++
			}
			return true
		}, func(f failure) {
			if f.incomplete(a) {
				w.Flush()
				fmt.Fprintf(stderr, "warc: %s: offset %d: incomplete last record (the file is being written), not counted: %v\n", name, f.off, f.err)
				return
			}
			t.records++
			t.bad++
			fmt.Fprintf(w, "%s: offset %d: unreadable: %v\n", name, f.off, f.err)
		})
		a.Close()
		if err != nil {
			w.Flush()
			fmt.Fprintln(stderr, "warc:", err)
			unopened++
		}
	}
	fmt.Fprintf(w, "%s, %d records: %d verified, %d without digests, %d bad\n", plural(t.files, "file"), t.records, t.verified, t.noDigest, t.bad)
	if err := w.Flush(); err != nil {
		return err
	}
	if unopened > 0 {
		return fmt.Errorf("%d of %d files could not be read", unopened, len(files))
	}
	if t.bad > 0 {
		return errReported
	}
	return nil
}

// check returns what is wrong with rec: a mandatory field missing, or a
// digest that does not match.
func check(rec *warc.Record) error {
	var missing []string
	for _, name := range []string{"WARC-Type", "WARC-Record-ID", "WARC-Date"} {
		if rec.Get(name) == "" {
			missing = append(missing, name)
		}
	}
	var errs []error
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("no %s", strings.Join(missing, ", ")))
	}
	if err := rec.Verify(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil
	}
	return oneLine{errors.Join(errs...)}
}

// oneLine is an error whose message is on one line: errors.Join's
// newlines become "; ".
type oneLine struct{ error }

func (e oneLine) Error() string { return strings.ReplaceAll(e.error.Error(), "\n", "; ") }
func (e oneLine) Unwrap() error { return e.error }

// plural returns n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// orDash returns s, or "-" if it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
