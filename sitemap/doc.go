// Package sitemap reads sitemaps (the sitemaps.org protocol 0.9): XML
// urlsets and sitemap indexes, plain-text lists of URLs, and the feeds
// the protocol accepts as sitemaps (RSS 2.0, RSS 1.0 and Atom 1.0), each
// plain or gzip-compressed, one entry at a time.
//
//	r, err := sitemap.NewReader(body) // gzip or not, XML (urlset, index, feed) or text
//	if err != nil { … }               // ErrNotSitemap: an HTML page, say
//	for {
//		e, err := r.Next()
//		if err != nil { break }       // io.EOF: the end; ErrTooManyEntries, ErrTooLarge: cut
//		loc, err := url.Parse(e.Loc)
//		if err != nil || !sitemap.Allowed(sitemapURL, loc, robotsOrigin) { continue }
//		… // r.Kind() == sitemap.Index: loc is another sitemap; else a page
//	}
//
// # Limits
//
// The protocol bounds a file to 50,000 entries and 50 MiB uncompressed; the
// Reader stops at either (ErrTooManyEntries, ErrTooLarge) after returning
// the entries within them, so a gzip bomb or a file of ten million URLs
// costs at most 50 MiB read. It holds little more than one entry at a
// time: text between two tags is cut at 256 KiB (ErrTextRun) and a line of
// a text sitemap at 64 KiB. The XML is read with encoding/xml, which
// expands no entities but the predefined ones and HTML's (no DTD, so no
// billion laughs), and leniently: sitemaps in the wild hold URLs with a
// bare '&', and are cut short or malformed; the entries before the fault
// are returned, then its error. No Go library for sitemaps was available
// to us; this one is fuzzed (FuzzReader).
//
// # Feeds
//
// A feed's items are read as a urlset's pages (Kind Feed): RSS 2.0's
// <item><link>, RSS 1.0's <item rdf:about> (or its <link>), Atom's
// <entry><link href> whose rel is "alternate" or none; their dates
// (updated, dc:date, pubDate, published) as lastmods. The channel's or
// feed's own links are not entries. The same limits and scope apply.
//
// # Scope
//
// [Allowed] applies the protocol's rule: a sitemap lists URLs of its own
// scheme, host and port under its own directory, or, if a robots.txt lists
// it, of that robots.txt's origin. A [Discovery] gives the sitemaps of an
// index the index's scope too: its directory, and its robots.txt's
// origin, so an index at /sitemap.xml lets its sitemaps under /sitemaps/
// list the whole site.
//
// # Discovery
//
// A crawler finds sitemaps through robots.txt and reads them with a
// [Discovery], one per crawl, shared by its workers: it remembers which
// sitemaps a robots.txt listed, and so which URLs they may list, and
// tells a sitemap from another response. [Policy] says which sitemaps it
// reads.
//
//	d := &sitemap.Discovery{Policy: sitemap.Listed}
//	for _, s := range d.FromRobots(u, robots.Sitemaps()) { … } // u's robots.txt just fetched: schedule s
//	if l := d.Read(ctx, u, fp, body); l != nil { … }          // a sitemap: l.URLs in scope
package sitemap
