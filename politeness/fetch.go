package politeness

import (
	"context"
	"errors"
	"net/url"

	"crawler/canon"
	"crawler/fetch"
)

// maxRedirects is how many redirects the FetchFunc of [FetchThrough]
// follows (RFC 9309 section 2.3.1.2: at least five).
const maxRedirects = 5

// FetchThrough returns a [FetchFunc] that fetches robots.txt through f,
// sending userAgent ("": f's default) and reading at most [MaxRobotsSize]
// bytes of a body. It follows up to 5 redirects (RFC 9309 section
// 2.3.1.2), each Location resolved and made canonical by c (nil: canon's
// defaults). More, or a loop, makes the file unavailable: the last 3xx
// status is returned, which [RobotsCache] reads as no restrictions, as the
// RFC allows; so is a redirect to nowhere (no Location, or one that does
// not resolve) or to an address f refuses ([fetch.ErrBlockedAddress]). A
// refused first request is its error. The FetchFunc is safe for concurrent
// use if f is.
func FetchThrough(f fetch.Fetcher, userAgent string, c *canon.Canonicalizer) FetchFunc {
	return func(ctx context.Context, robotsURL string) (int, []byte, error) {
		target := robotsURL
		status := 0
		for range maxRedirects + 1 {
			resp, err := f.Fetch(ctx, &fetch.Request{URL: target, UserAgent: userAgent, MaxBytes: MaxRobotsSize})
			if err != nil {
				if status != 0 && errors.Is(err, fetch.ErrBlockedAddress) {
					return status, nil, nil // a redirect to an address not allowed: to nowhere, as below
				}
				return 0, nil, err
			}
			if status = resp.Status; !fetch.IsRedirect(status) {
				return status, resp.Body, nil
			}
			base, err := url.Parse(target)
			if err != nil {
				return 0, nil, err
			}
			loc := resp.Header.Get("Location")
			next, err := c.Resolve(base, loc)
			if loc == "" || err != nil {
				return status, nil, nil // a redirect to nowhere: unavailable too
			}
			target = next
		}
		return status, nil, nil
	}
}
