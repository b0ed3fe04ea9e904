// Package warc writes a crawl's HTTP exchanges to WARC 1.1 files and reads
// WARC files back, checking their digests. It uses the standard library
// and the deflate of github.com/klauspost/compress.
//
//	w, err := warc.NewWriter(dir, warc.Options{Info: []warc.Field{{"operator", "ops@example.com"}}})
//	if err != nil { … }
//	f := &fetch.HTTPFetcher{Recorder: w} // every fetch's exchange is taken before it returns
//	… // crawl; before committing a page as done: w.Sync()
//	err = w.Close()
//
//	r := warc.NewReader(file) // .warc.gz or .warc
//	for {
//		rec, err := r.Next()
//		if err != nil { break } // io.EOF: the end
//		err = rec.Verify()       // digests
//	}
//
// # What is recorded
//
// A [Writer] is a [fetch.Recorder]: the fetcher hands it each exchange as
// the bytes that crossed the connection ([fetch.Exchange]). Each exchange
// becomes two records, written together:
//
//   - a request record (Content-Type application/http;msgtype=request)
//     whose block is the request as written;
//   - a response record (application/http;msgtype=response) whose block is
//     the response as read: status line, header fields as received, and
//     the body as it came, chunked or gzip-encoded or both.
//
// Both carry WARC-Target-URI, WARC-Date (when the request was sent, UTC,
// to the microsecond, as WARC 1.1 allows), WARC-IP-Address (when known),
// WARC-Warcinfo-ID, a WARC-Record-ID (a random version 4 UUID), and
// WARC-Concurrent-To naming the other. WARC-Block-Digest covers the
// block. Digests are SHA-1 in base32, "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ"
// (of nothing), as Heritrix and wget write them.
//
// # The payload
//
// A response record's WARC-Payload-Digest covers its payload, which WARC
// defines as the HTTP entity-body: here the block after the HTTP header,
// with the chunked transfer-coding removed and any content-coding (gzip)
// kept, as on the wire. Tools differ: some digest the body still chunked.
// [Record.Verify] accepts either, so it checks their files too. A block
// that holds no complete HTTP header (not HTTP as we know it) gets no
// payload digest, nor does a body whose chunked framing is broken.
//
// # Truncation
//
// When the fetcher stopped reading at its body cap (Exchange.Truncated is
// "length"), the response record says WARC-Truncated: length, its block
// holds what was read, and its payload digest covers what was kept: for a
// chunked body, the data of the chunks that arrived, a cut chunk's
// included.
//
// # Revisits
//
// A 304 Not Modified response is written as a revisit record instead,
// with WARC-Profile http://netpreserve.org/warc/1.1/revisit/server-not-modified,
// WARC-Refers-To-Target-URI (the URL), its status line and header as the
// block, and no payload digest. WARC-Refers-To and WARC-Refers-To-Date
// are left out: the Writer does not know which earlier record holds the
// page. Revisits of the identical-payload-digest profile (a 200 whose
// payload an earlier record holds) are not written: each such response is
// a full response record.
//
// # Files
//
// Files are named PREFIX-YYYYMMDDhhmmss-NNNNN.warc.gz: the prefix
// ([Options].Prefix, default "crawl"), the UTC time the file was started,
// and a sequence number. A Writer numbers its files after the highest
// number of its prefix already in the directory and never overwrites a
// file, so a resumed crawl writing to the same directory adds files that
// sort after the earlier ones. A file is opened at the first exchange
// after NewWriter or a rotation, so no file is left empty. While it is
// written, a file's name ends in ".open" (as Heritrix's do), and its
// Writer holds a lock on it (where the system has file locks); it takes
// its name when it is closed.
//
// Each file starts with one warcinfo record (software crawler/0.1,
// format, conformsTo, and the caller's [Options].Info fields), whose ID
// the file's other records give as WARC-Warcinfo-ID. Every record is its
// own gzip member. A record of up to 2 KiB (a request, a redirect) is
// deflated in Huffman codes made once for such records, not for each
// (building them was most of its cost); a larger one at level 1,
// BestSpeed (on HTML, some 7% more bytes than the default level for a
// sixth of its CPU), but for a response body that is compressed already
// (it has a Content-Encoding, or a Content-Type such as image/jpeg),
// which the member stores as it is: deflate would spend its time on it
// for nothing. A Writer digests
// and compresses the exchanges it takes on goroutines of its own
// ([Options].Compressors), beside the fetchers, and writes them in the
// order it took them, through a buffer: the records wait in it until
// 64 KiB of them do, or 100 ms have passed since the first of them came,
// or [Writer.Sync], [Writer.Files] or [Writer.Close] is called or the
// file is rotated, then go to the file in one write. The two records of
// an exchange go to the same file, in the same write. When an exchange
// would take a file past [Options].MaxFileBytes (default 1 GiB), the file
// (its buffered records counted) is written, synced and closed, and the
// exchange starts the next one.
//
// # Crashes
//
// Records are appended some exchanges at a time, in one write, but one
// write is not atomic: a process killed (kill -9) in a write can leave
// part of it, and a machine that loses power can leave zeros past the
// data; a process killed also loses the records waiting in its Writer's
// buffer (taken after the last Sync, and in the last 100 ms). So
// a crash leaves the file being written, still named ".open", with whole
// gzip members and then at most a torn tail; a [Reader] returns every
// whole record and then an error. The next [NewWriter] in the directory
// finds the ".open" files no live Writer holds, cuts each after its last
// whole record ([Repair]) and gives it its name. What a machine crash
// keeps is what the disk has: [Writer.Sync] writes the buffer and makes
// the records of the exchanges taken so far durable (the crawler calls it
// before it marks pages done), and closing a file syncs it.
//
// # Reading
//
// A [Reader] reads gzip files of a record per member (and of several
// records per member), and uncompressed files; it bounds a block at
// [DefaultMaxBlockBytes] (Reader.MaxBlockBytes) and a header at 1 MiB, and
// allocates only as data arrives. A [Record] gives its version, its header
// fields in order (Get looks one up), its block, and its offset in the
// file (for gzip, its member's, as CDX indexes give it).
// [Record.Payload] gives the payload its WARC-Payload-Digest covers. To
// read a record at an offset (a CDX index's), read the file from there
// with the Reader's Start set to it; after an error, [Reader.Offset] says
// where the record at fault starts. The command warc (crawler/cmd/warc)
// lists, verifies and extracts records with them.
//
// warcio.js 2.4.11 indexes our files (TestIndependentReader checks), but
// for one case: it reads a response record's HTTP header beyond the
// record, so a response block without a complete header confuses it for
// the rest of the file. The fetcher records only responses that net/http
// has parsed, which have one.
package warc
