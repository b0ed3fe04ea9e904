// Package replay answers a crawl's fetches from WARC files: the responses
// a crawl recorded (cmd/crawl -warc, package warc) or another tool wrote,
// replayed exactly, with nothing sent.
//
//	a, err := replay.Open("archive", replay.Options{})
//	if err != nil { … }
//	defer a.Close()
//	for _, d := range a.Damage() { log.Print(d) } // damaged files: what could not be read
//	c := &crawler.Crawler{Fetcher: a}             // the crawl of yesterday, again
//
// # The index
//
// Open reads the directory's WARC files (names ending in .warc or
// .warc.gz, or either and .open: a file a crawl writes, or left by a
// crash, whose torn end is reported as damage; see package warc) and
// indexes their response and revisit records of http and https URLs by
// canonical URL (package canon). The index is kept beside the files, in
// [IndexName]: a text file in the manner of a CDX index, a line per
// record (URL, WARC-Date, type, status, file, offset), sorted by URL,
// after a line per WARC file giving its name, size and modification
// time. Open uses it when those still match the directory's files, and
// otherwise reads every file again and rewrites it (a directory it cannot
// write to gets no index file: the files are read at every Open). In
// memory the index costs 32 bytes a record ([Archive.Len] of them; some
// 50 more for a revisit), whatever the URLs' lengths: a record is known
// by its URL's 64-bit fingerprint ([canon.Fingerprint]), and a fetch
// checks the URL of the record it reads against the one asked for.
// Building the index holds each record's URL and IDs for a while.
//
// # Answers
//
// [Archive.Fetch] answers a request for a URL with the latest capture of
// its canonical form (by WARC-Date; of two of the same date, the one
// read last), as [fetch.HTTPFetcher] would have returned it: the status
// and header fields net/http parses from the recorded response, the body
// with its chunked transfer-coding removed and, like the live fetcher's
// transparent gzip, gzip content-coding decoded (and Content-Encoding and
// Content-Length dropped) unless the request sets its own
// Accept-Encoding, cut at the request's cap; Truncated if the record says
// WARC-Truncated or the body passes the cap. A recorded redirect is
// answered as itself, a 3xx with its Location: the crawler follows
// redirects one hop at a time. Every answer has Replayed set.
//
// A revisit record answers as the response it refers to: the record
// named by WARC-Refers-To, else the capture of WARC-Refers-To-Target-URI
// (or its own URI) at WARC-Refers-To-Date (or the latest before the
// revisit), else the latest response with the same WARC-Payload-Digest;
// revisits are resolved when the index is built. A revisit of the
// server-not-modified profile (what a recrawl's 304 becomes) answers a
// conditional request (ETag or LastModified set) with its own 304.
//
// # Misses
//
// A request for a URL the archive holds no capture of (or a request with
// a body, which is never recorded) is a miss. With [Options].Live nil it
// fails with a [*NotArchivedError], whose kind ([fetch.ErrorKind]) is
// [KindNotArchived] and which wraps [fetch.ErrNotSent], so the crawler
// reports the page with it and counts no request of its host; but for a
// robots.txt, which is answered 404 Not Found: an archive without the
// file is that of a crawl that had none to obey (or did not ask), and the
// replay goes where it went. With Live set, a miss is fetched through
// Live, as it answers (a recording fetcher records it).
//
// # Damage
//
// A file that cannot be read to its end (cut by a crash, overwritten in
// the middle) is indexed up to the damage; past it, Open looks for the
// next record that reads (the next gzip member, or the next "WARC/" line
// of an uncompressed file) and indexes on from there. Each damaged place
// is a [*DamageError] naming the file and offset, which [Archive.Damage]
// returns: Open does not fail for it.
package replay
