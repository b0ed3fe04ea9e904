// Package graph records a crawl's link graph on disk while crawling, reads
// it back into compressed sparse rows, and ranks its pages with PageRank
// and HITS:
//
//	w, err := graph.Create("crawl.graph") // safe for concurrent use
//	err = w.Page(pageURL, links)          // each fetched page, canonical URLs
//	err = w.Redirect(fromURL, toURL)      // each redirect
//	err = w.Close()
//	g, err := graph.Load("crawl.graph")   // err wraps ErrTruncated if the crawl died
//	res, err := graph.PageRank(g, graph.PageRankOptions{})    // res.Ranks[k] is the rank of g.URL(k)
//
// # The graph
//
// The nodes of a [Graph] are the pages recorded with [Writer.Page]. Page p
// has an edge to page q if p's last record links to q, or to a URL whose
// redirect, or chain of redirects recorded with [Writer.Redirect], ends at
// q. Several links from p to q make one edge; a link of p to itself is an
// edge. Links to anything else are dropped: URLs never fetched, redirect
// loops, and redirects to URLs never fetched. A page without edges is
// dangling. This is, exactly, the graph on which crawlertest's
// Web.PageRank defines the true PageRank of its synthetic web, so that a
// crawl of it can be checked against that truth. A page recorded again (a
// revisit) keeps its last out-links, or becomes a redirect if it last
// redirected.
//
// [ReadOptions].KeepUnfetched keeps the URLs that were linked but never
// fetched as nodes too, after the pages and without out-edges: the
// frontier of an unfinished crawl, with its in-degrees, for [Importance].
//
// URLs are identified by their fingerprint, the xxh3 hash (seed 0) of the
// URL string, as crawler/canon's Fingerprint computes it; the Writer does
// not canonicalize, so pass canonical URLs. Two URLs with the same
// fingerprint are one node, the one named first; among n URLs that
// happens with probability about n²/2⁶⁵ (3·10⁻⁶ for 10⁷ URLs).
//
// # File format
//
// A file is a header line, then records, back to back:
//
//	header   "crawler/graph v1 xxh3-64/seed=0\n"
//	record   length uvarint, body (length bytes), CRC-32C of length and body (4 bytes, little-endian)
//	body     kind byte (1 page, 2 redirect)
//	         count uvarint, count × (length uvarint ≥ 1, URL bytes)   the URLs this record names
//	         source uvarint                                          the ID of the page, or of the redirecting URL
//	page     n uvarint, then the n distinct target IDs, ascending: the first as
//	         zigzag(target - source), the others as (target - previous - 1), uvarints
//	redirect target uvarint
//
// URL IDs are 0, 1, 2, ... in the order the records name them: the writer
// names a URL, within the record that first mentions it (as a page, a link
// or a redirect), once, and refers to it by ID ever after. A reader
// therefore maps IDs to URLs and fingerprints as it goes, and every record
// refers only to IDs named before it or within it.
//
// Edges are stored as these dense IDs rather than as 64-bit fingerprints:
// a fingerprint costs 8 bytes fixed-width (a varint of a random 64-bit
// value costs 9 to 10), whereas sorted, delta-coded IDs cost a byte per 7
// bits of the gaps between them: mostly 1 to 3 bytes, since a crawl's
// links go mostly to URLs named nearby in discovery order. Measured, per recorded link and with the framing of the records
// (about 12 bytes a page): 2.8 to 3.0 bytes on crawlertest webs of 200 to
// 300 pages and 2.3 bytes in BenchmarkWriterPage (2¹⁷ pages of 30 links
// over 128 hosts), against 8.4 for fixed-width fingerprints; the whole
// file, URL text included, takes 10 to 12 and 4.0 bytes per link.
//
// A reader refuses input without the header ([ErrFormat]), and a header of
// another version or fingerprint function ([ErrVersion]). A crawl can die
// at any moment, so every prefix of a file is readable: input that ends
// within a record, or whose last record fails its checksum (a torn
// write), reads into the graph of the whole records before it, with an
// error wrapping [ErrTruncated] that tells where the whole records end. A
// bad record followed by more input is corruption ([ErrCorrupt]). Records
// are at most [MaxRecordBytes] long, and the reader allocates in
// proportion to the input present, never to the lengths and counts it
// claims.
//
// # Memory
//
// A [Writer] keeps each distinct URL's fingerprint and a 4-byte slot of an
// open-addressing table: 14 to 21 bytes per distinct URL (measured: 13.7
// to 20.2 from a thousand to a million URLs), whatever their length, plus
// a 64 KiB buffer. A [Graph] costs 24 bytes per node plus its URL, and 4
// bytes per edge. Reading needs, besides, about 36 bytes plus the URL per
// URL named in the file, and 4 bytes per recorded link (dropped links and
// revisits included), until the Graph is built. [PageRank] and [HITS] need
// 4 bytes per edge and 20 bytes per node besides their results (24 while
// they transpose the graph), for the in-edges and their vectors.
//
// # Ranking
//
// [PageRank] iterates from the uniform vector with damping 0.85
// ([DefaultDamping]) until one step changes the ranks by less than 1e-9 in
// L1 norm ([DefaultTolerance]), or 1000 iterations ([DefaultMaxIterations]);
// ranks sum to 1. [HITS] iterates hubs and authorities, each of unit L2
// norm, to the same tolerance. Both gather along in-edges block by block,
// on GOMAXPROCS goroutines by default, with results that do not depend on
// the number of goroutines. [Spearman] compares two rankings, and
// [Importance] scores URLs for crawl priority with backlinks and the shape
// of the URL.
package graph
