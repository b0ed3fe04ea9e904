// Package canon canonicalizes http and https URLs for a web crawler, so that
// two spellings of one page give one string (and one 64-bit fingerprint), and
// two different pages never do.
//
//	var c canon.Canonicalizer // zero value: core rules only
//	u, err := c.Canonical("HTTP://Example.COM:80/a/./b/../c?q=%7e#top")
//	// u == "http://example.com/a/c?q=~"
//	link, err := c.Resolve(page, "../img/x.png") // an href found on page
//	fp := canon.Fingerprint(u)                   // what the seen-sets store
//
// # Core rules
//
// The zero [Canonicalizer] applies these rules, which follow the WHATWG URL
// Standard (what browsers do) and RFC 3986 §6.2.2 (what is provably
// equivalent), never merging URLs a server may distinguish:
//
//   - Only http and https are accepted; javascript:, mailto:, data:, tel:,
//     ftp: and the like fail with [ErrScheme]. https is never folded into http.
//   - Leading and trailing C0 controls and spaces are stripped; tab, CR and LF
//     are removed anywhere. The fragment is dropped.
//   - Scheme and host are lower-cased; userinfo, path and query keep their
//     case. "www." and trailing slashes are kept. An empty user and password
//     ("http://@host/", "http://:@host/") are dropped, as is an empty password.
//   - The default port (80 for http, 443 for https, also written "080") and
//     an empty port ("host:/") are removed; other ports lose leading zeros.
//   - Host names go through UTS 46 (non-transitional, as browsers) to
//     lower-case Punycode, after percent-decoding. IPv4 addresses in any
//     WHATWG form (1 to 4 parts, decimal, octal or hex: "3279880203",
//     "0x7f.1") become dotted decimal. IPv6 literals are written as the
//     WHATWG URL Standard serializes them: eight hex pieces, lower case,
//     without leading zeros, the first longest run of two or more zero
//     pieces as "::" (RFC 5952 form), and never a dotted quad, so that
//     "[::ffff:192.168.1.1]" is "[::ffff:c0a8:101]", as browsers write it.
//     Hosts with other bytes than lower-case letters, digits, "-", "." and
//     "_" after mapping fail with [ErrHost], as do out-of-range numbers.
//   - Percent-encoding: escapes of unreserved bytes (ALPHA DIGIT - . _ ~) are
//     decoded, other escapes upper-cased and kept ("/a%2Fb" stays distinct
//     from "/a/b"); controls, space, non-ASCII bytes and " < > [ \ ] ^ ` {
//     | } are percent-encoded in path and query alike (see below for "["
//     and "]"); a "%" that starts no valid escape becomes "%25". A
//     backslash in the path is a slash.
//     Userinfo, which clients send decoded (as Basic credentials), has every
//     escape decoded, then every byte but the unreserved ones and the
//     sub-delims ! $ & ' ( ) * + , ; = percent-encoded: "http://%21@h/" is
//     "http://!@h/", and "%3A" stays "%3A".
//   - Dot segments are removed (RFC 3986 §5.2.4), also when written "%2e".
//     An empty path becomes "/".
//
// [Canonicalizer.Resolve] resolves an href per RFC 3986 §5.4 with the browser
// behaviour at the edges: "http:g" against an http base is the relative "g",
// "//host/path" keeps the base's scheme, backslashes are slashes, any number
// of slashes may follow the scheme, and whitespace around the href is
// stripped.
//
// Optional rules, off by default, are the fields of [Canonicalizer].
//
// Where canon departs from the WHATWG URL Standard, it is on purpose: hosts
// are limited to lower-case letters, digits, "-", "." and "_" (what DNS can
// resolve; WHATWG also allows "!", "{" and the like); a stray "%" becomes
// "%25" and "[", "]", "^", "|", "{", "}" are encoded in path and query, so
// that every output is a valid RFC 3986 URI that net/url parses. Results
// longer than [MaxLength] are rejected.
//
// # Brackets in path and query
//
// "/[x]" and "/%5Bx%5D" are one URL, written "/%5Bx%5D" (and "?q[]=1" is
// "?q%5B%5D=1"). Browsers send both spellings as written, and servers
// decode both to the same bytes (the path a router sees, the q[] of a PHP
// or Rails query), so keeping both made two URLs of one page. Of the two
// spellings, canon keeps the escape because:
//
//   - "[" and "]" are RFC 3986 gen-delims allowed only around an IPv6 host;
//     a path or query holding them raw is not an RFC 3986 URI, and strict
//     servers (Tomcat, by default) answer 400 to a request line holding
//     them, while every server takes "%5B". The escape is what a crawler
//     can always send.
//   - It is the rule canon already applies to "^", "|", "{" and "}",
//     which WHATWG leaves raw in the query: encode what RFC 3986 does not
//     allow.
//     Decoding "%5B" instead would be the one reserved escape canon
//     decodes, beside "/a%2Fb", which must stay distinct from "/a/b".
//   - It keeps the WHATWG idempotence property: canonicalizing "/%5Bx%5D"
//     again gives "/%5Bx%5D", and a WHATWG parser (a browser, or Resolve
//     against it as a base) keeps the escape as written, as net/url does
//     (its EscapedPath writes "[" as "%5B" too).
//
// # Cost
//
// An input that is already canonical (most absolute links on real pages) is
// recognized in one pass and returned as is, with no allocation. Other inputs
// cost one allocation for the result, plus IDNA work (about 1 µs) for
// non-ASCII and Punycode hosts. Inputs are bounded by [MaxLength].
//
// # Why not purell
//
// purell v1.2.1, with its closest flags (FlagsSafe plus dot segments,
// fragment, IPv4 number forms, empty port), was measured on this package's
// tables (go test -run TestPurell -v): it gives the expected result for 90
// of 164 valid core cases, rejects 19 of 64 invalid ones (it passes
// javascript:, mailto:, bad hosts and ports through), and merges 10 of 31
// pairs of URLs that must stay distinct, e.g. "/a%2Fb" with "/a/b" and
// "/a%2F..%2Fb" with "/b", because it decodes reserved escapes in the path.
// It also leaves the query unnormalized, keeps IPv4 number forms and IPv6
// as written, leaves an empty path empty, and rejects URLs that browsers
// accept (stray "%", spaces around, tab or newline inside, "%41" in a host).
// On a realistic mix of 25 links it is 10 to 20 times slower (about 3 µs
// against 0.15 to 0.2 µs per link) and allocates 40 times more (13 against
// 0.3 allocations per link; BenchmarkCanonical). So canon does not use it
// (only its tests do, for comparison): it has its own parser, following the
// WHATWG URL Standard and RFC 3986 §6.2.2, with golang.org/x/net/idna for
// host names and net/netip for IPv6.
package canon
