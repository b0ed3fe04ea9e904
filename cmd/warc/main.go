// Command warc lists, verifies and extracts the records of WARC files, as
// crawl -warc DIR writes them (.warc.gz, a record per gzip member, and
// the .open file a live crawl is writing) or as other tools do (.warc,
// .warc.gz of any members).
//
//	warc list [-json] FILE...          # a line per record
//	warc verify FILE...                # digests and framing; exit 1 if any is bad
//	warc extract [-payload] FILE OFFSET
//	warc extract [-payload] [-type TYPE] -uri URL FILE...
//
// From a checkout of the module: go install crawler/cmd/warc, or
// go run ./cmd/warc.
//
// list prints a line per record on stdout: its offset (for gzip, its
// member's, as CDX indexes give it), type, date, length, HTTP status and
// content type, and target URI; -json prints JSON Lines instead. verify
// checks every record's WARC-Block-Digest and WARC-Payload-Digest (sha1,
// sha256, sha512 or md5; base32 or hex), its mandatory fields and its
// framing (gzip checksums, Content-Length, the CRLF CRLF after the
// block); it prints a line per bad record, naming the file and offset,
// and a summary. extract writes one record's block to stdout, or with
// -payload its payload: the HTTP body with the chunked transfer-coding
// removed and any content-coding (gzip) kept, the bytes its
// WARC-Payload-Digest covers.
//
// A file that cannot be read at some point (a torn gzip member, a
// malformed record) is reported there, with its offset, and read on from
// the next record start found after it (a gzip member header, or "WARC/"),
// so one bad record hides no others. The incomplete last record of a file
// named .open, which a crawl is writing, is noted on stderr and is not an
// error.
//
// Exit status: 0 success; 1 a bad or unreadable record, a file that
// cannot be opened, or (extract) no such record; 2 bad usage.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if err != nil && !errors.Is(err, errReported) {
		fmt.Fprintln(os.Stderr, "warc:", err)
	}
	var usage usageError
	switch {
	case errors.As(err, &usage):
		os.Exit(2)
	case err != nil:
		os.Exit(1)
	}
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ error }

// errReported is returned when what went wrong has been written out
// already (bad records), for exit status 1 and no further message.
var errReported = errors.New("bad records found (reported above)")

// usage is the text of warc -h.
const usage = `usage: warc list [-json] FILE...
       warc verify FILE...
       warc extract [-payload] FILE OFFSET
       warc extract [-payload] [-type TYPE] -uri URL FILE...

Lists, verifies and extracts the records of WARC files: those crawl -warc DIR
writes (DIR/*.warc.gz, and the *.warc.gz.open file of a crawl still running),
or any .warc or .warc.gz. "warc COMMAND -h" tells more of each.

  list     a line per record on stdout: offset, type, date, length, HTTP
           status, content type, target URI (-json: JSON Lines)
  verify   checks each record's digests, mandatory fields and framing;
           prints each bad record (file, offset, why) and a summary
  extract  writes one record's block to stdout, or with -payload its HTTP
           body (dechunked, content-coding kept)

A file that cannot be read at some point is reported there, with the offset,
and read on from the next record found after it. The incomplete last record
of a .open file (being written) is noted on stderr, not an error.

Exit status: 0 success; 1 a bad or unreadable record, a file that cannot be
opened, or no record to extract; 2 bad usage.
`

// run runs the command line args (without the program's name), writing
// output to stdout and messages for people to stderr. It returns a
// usageError for a mistake in args, errReported when bad records were
// reported, and any other error for the caller to print.
func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{errors.New("no command: want list, verify or extract (-h for usage)")}
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	case "list":
		return list(args[1:], stdout, stderr)
	case "verify":
		return verify(args[1:], stdout, stderr)
	case "extract":
		return extract(args[1:], stdout, stderr)
	}
	return usageError{fmt.Errorf("unknown command %q: want list, verify or extract (-h for usage)", args[0])}
}
