// Package simhash computes 64-bit SimHash fingerprints of web pages
// (Charikar 2002) and finds near-duplicates among them with the permuted
// tables of Manku, Jain & Das Sarma ("Detecting near-duplicates for web
// crawling", WWW 2007):
//
//	idx := simhash.NewIndex(0) // k = DefaultDistance (3)
//	fp := simhash.OfHTML(body)
//	if first, dist, ok := idx.FindOrAdd(fp, pageID); ok {
//		// body is a near-duplicate of page first: dist bits differ
//	}
//
// # Fingerprints
//
// A SimHash fingerprint sums the 64-bit hashes of a document's features,
// each bit counted +weight if set and -weight if not, and keeps the sign
// of each sum: documents sharing most of their (weighted) features get
// fingerprints that differ in few bits, their [Distance]. [Hasher] builds
// one from features of the caller's choosing, hashed with xxh3; [Of] is
// its shorthand for unweighted features. Fingerprints are stable: the same
// input gives the same value in every process and version (the tests pin
// some), so they may be stored.
//
// [OfHTML] fingerprints the visible text of an HTML page. Its features were
// chosen by measurement on the near-duplicate families of crawlertest
// (crawlertest.Config.NearDuplicates: the variants of a story differ in a date line, a
// related-links box and a read counter; other stories share the site's
// nav bar, footer and words), comparing single words and word 2-, 3- and
// 4-shingles, weighted or not, for k from 3 to 8 (measure_test.go). Single
// words merge unrelated pages (their words are alike); plain shingles
// find too few near-duplicates below k = 8. What works is word 3-shingles,
// with words containing a digit dropped, and a quarter of the weight for
// link text and for the words of short blocks (fewer than 10 words:
// datelines, counters, nav bars, related links): on three webs of 2698
// pages with 627 near-duplicates, at k = 3, no page is within k of an
// unrelated page (the closest unrelated pair is 13 bits apart), and
// FindOrAdd marks 98% of the near-duplicates, all correctly (precision
// 1.00). Without down-weighting short blocks, k = 3 finds 79%; on pages
// with less main text (crawlertest PageBytes 1024, articles of 40 to 200
// words) k = 3 finds 88% and k = 4 96%.
//
// # Index
//
// [Index] stores fingerprints with caller-given ids and finds one within
// Hamming distance k of a query. The 64 bits are split into k+1 blocks, so
// two fingerprints within k agree on at least one block (pigeonhole); the
// Index keeps one table per block, sorted on that block, and probes each
// at the query's block. Tables, memory and candidates grow with k: k = 3
// (DefaultDistance, the paper's choice) takes 4 tables of 16-bit blocks,
// 40 bytes per fingerprint and about n/2^14 candidates per query; k = 4
// takes 5 tables of 12- and 13-bit blocks, 48 bytes per fingerprint and
// about n/2^10 candidates.
//
// [Detector] is what a crawl uses of both: it fingerprints each HTML page
// given to it and tells which earlier page, by URL, it is a near-duplicate
// of, keeping the others; [Config] is the crawler's setting for it
// (Crawler.NearDuplicates).
package simhash
