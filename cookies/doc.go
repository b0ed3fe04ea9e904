// Package cookies is the cookie jar of a crawl: RFC 6265 cookies, bounded
// as a browser bounds them, that a durable store can keep and a
// cookies.txt can fill.
//
//	jar := &cookies.Jar{} // 50 cookies a site, 4 KiB a cookie, 3000 in all
//	f := &fetch.HTTPFetcher{Jar: jar}
//	entries, err := cookies.ReadNetscape(file) // a curl or browser export
//	err = jar.Import(entries)
//	saved := jar.Export() // every attribute, for the crawl's state
//
// # Why not net/http/cookiejar
//
// net/http/cookiejar implements the same RFC, but keeps whatever a site
// sends, with no bound: a server that sets ten thousand cookies costs ten
// thousand cookies of memory and a Cookie header of all of them on every
// request after. And it cannot list what it holds, so a crawl that stops
// loses its sessions. [Jar] is bounded by [Limits] (RFC 6265 section
// 6.1: per site, per cookie, in all, least recently used evicted) and
// enumerable ([Jar.Export], [Jar.Host], [Jar.Import]).
//
// # What a Jar does
//
// Storage follows RFC 6265 section 5.3: host-only cookies (no Domain
// attribute) and domain cookies (sent to the domain and its subdomains; a
// Domain that is a public suffix, by golang.org/x/net/publicsuffix, is
// refused unless it is the host itself), the default path, Max-Age over
// Expires, deletion by an expiry in the past, replacement keeping the
// creation time. The Cookie header follows section 5.4: domain, path and
// Secure matched, longer paths first, then earlier created. HttpOnly and
// SameSite are kept (and written to a cookies.txt) but change nothing: a
// crawler runs no script, and its requests are all top-level.
package cookies
