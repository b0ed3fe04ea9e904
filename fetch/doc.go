// Package fetch gets one URL for a crawler: a GET whose body is read up to
// a cap and in bounded time, safe against server-side request forgery, with
// DNS answers cached.
//
//	f := &fetch.HTTPFetcher{} // the defaults below
//	resp, err := f.Fetch(ctx, &fetch.Request{URL: "https://example.com/"})
//	// err: no response (network, timeout, refused address);
//	// resp.Status may be anything, 3xx included: redirects are not followed.
//
// # What a fetch is
//
// A [Fetcher] turns a [Request] into a [Response] or an error. Redirects
// are the crawler's to schedule (each hop under its own host's politeness),
// so a fetch stops at the first response. HTTP error statuses are
// responses, not errors; an error means no usable response, as a
// [*FetchError] saying what failed, where and why, and [ErrorKind] names
// its kind (timeout, dns, refused...), as the crawler counts it.
//
// # Defaults
//
// [HTTPFetcher]'s zero value sends [DefaultUserAgent], reads at most
// [DefaultMaxBodyBytes] (10 MiB, counted after gzip decoding, so a
// decompression bomb is cut like any body) in at most [DefaultTimeout]
// (30 s), keeps no cookies (set its Jar for that), and dials through
// [NewTransport]: keep-alive and HTTP/2, 1024 idle connections (4 per
// host), dial 10 s, TLS handshake 10 s, response header 20 s and at most
// 256 KiB, no proxy unless you set one. As everywhere in this SDK, a number's 0 means its default and a
// negative value switches it off.
//
// # The SSRF guard
//
// A page, a redirect or a DNS answer must not steer a crawler into the
// network it runs in. [AddressPolicy]'s zero value refuses loopback,
// private, link-local and every other special-purpose address, checked on
// the address actually dialled (after DNS resolution, on every redirect
// hop), so DNS rebinding cannot get around it; a refused fetch fails with
// [ErrBlockedAddress] before anything is sent. Allow what you must (a test
// server on 127.0.0.1, an intranet) with its Allow lists.
//
// # Recording
//
// An [HTTPFetcher] with a [Recorder] hands it every exchange as the bytes
// that crossed the connection ([Exchange]): the request as written, the
// status line, headers and body as received, before net/http parsed,
// canonicalised or decoded them. That is what a WARC archive keeps (see
// package warc). Recording copies the transport, speaks HTTP/1.1 only,
// and does TLS itself to record above it.
//
// # Proxies
//
// An [HTTPFetcher] with a [ProxyPool] sends each request through one of
// its proxies (http, https or socks5): the same for a host while it
// serves it well ([Sticky]), or each in turn ([RoundRobin]). Failures and
// bans (403, 429, 503, 407, or what the pool's Banned hook reports) fail
// the fetch with a [*ProxyError] and move the host to another proxy, so
// the crawler's retry, paced like any request to the host, goes out
// another way; a proxy failing several times in a row is benched, for
// longer each time, and when all are benched fetches wait. The proxies'
// own addresses must be allowed by the fetcher's [AddressPolicy].
//
// # DNS caching
//
// [DNSCache] looks a host's name up once per [DefaultDNSTTL] (5 minutes) and
// keeps a failure for [DefaultDNSErrorTTL] (30 s), sharing one query among
// concurrent lookups of a name; [NewTransport] dials through a cache of its
// own.
package fetch
