package crawlertest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Behavior is how one host departs from the well-behaved default, for tests
// of a crawler's robots.txt handling, back-off and pacing. The zero Behavior
// is the default. Config.Behavior assigns Behaviors to hosts.
//
// Page requests are all the requests to the host but those of robots.txt
// and its redirect hops (/robots-hop/<k>): HTML pages, images, redirecting
// URLs, 404s, whatever the path or method. The fields acting on page
// requests combine: a request first waits (Config latencies plus SlowDown),
// then answers 405 if its method is not GET or HEAD, else 429 if throttled
// (ThrottleEvery), else PageStatus if set, else its ordinary response.
type Behavior struct {
	// RobotsStatus, if not 0, is the status of the final robots.txt
	// response (after any RobotsRedirects hops), with a short text/plain
	// body and no Retry-After header. It must be 0 or between 400 and 599,
	// or NewWeb panics. A compliant crawler treats a 4xx other than 429 as
	// "no robots.txt" (no restrictions), and a 429 or 5xx as "the host is
	// unavailable": it requests nothing else on the host (see
	// Web.Unreachable).
	RobotsStatus int
	// RobotsRedirects, if positive, makes robots.txt redirect through this
	// many hops before the final robots.txt response: /robots.txt redirects
	// to /robots-hop/1, /robots-hop/<k> to /robots-hop/<k+1>, and
	// /robots-hop/<RobotsRedirects> answers the final response (RobotsStatus
	// if set, else the host's ordinary robots.txt answer: 200 with the rules,
	// or 404 on a host ≡ 3 mod 4). The statuses cycle: /robots.txt answers
	// 301, /robots-hop/1 302, /robots-hop/2 307, /robots-hop/3 308,
	// /robots-hop/4 301 again, and so on. The Location is the absolute URL of
	// the next hop when its number is odd, its absolute path when even. Every
	// hop stays on the host. A compliant crawler follows at least 5 redirects
	// (RFC 9309 section 2.3.1.2): up to 5 it sees the final response, beyond
	// 5 it gives up and crawls without restrictions. It must be between 0 and
	// 1000, or NewWeb panics.
	RobotsRedirects int
	// RobotsLoop makes /robots.txt answer 302 to /robots-hop/1, which
	// answers 301 to /robots.txt, forever: a compliant crawler gives up and
	// crawls without restrictions. RobotsLoop overrides RobotsRedirects.
	RobotsLoop bool
	// RobotsPadding, if larger than the rules, pads the 200 robots.txt body
	// ("User-agent: *\nDisallow: /private/\n", rules first) with comment
	// lines ("#..." ending in "\n", at most 80 bytes each) to exactly
	// RobotsPadding bytes, e.g. 600<<10 for a file beyond the 500 KiB a
	// crawler must parse. The rules still apply. It has no effect when
	// robots.txt does not answer 200 (RobotsStatus set, or a host ≡ 3 mod 4
	// without robots.txt). It must be between 0 and 64 MiB, or NewWeb panics.
	RobotsPadding int
	// RobotsLatency is extra latency before every robots.txt response,
	// its redirect hops included, on top of Config.Latency and
	// Config.HostLatency: a slow robots.txt. Like them, the wait ends
	// early, without a response, if the request is cancelled.
	RobotsLatency time.Duration
	// ThrottleEvery, if positive, makes every ThrottleEvery-th page request
	// to the host answer 429 Too Many Requests (short text/plain body)
	// instead of its response: counting page requests from 1 since NewWeb
	// (ResetCounts does not restart the count), request k is throttled when
	// k % ThrottleEvery == 0. A throttled URL is meant to be requested
	// again later, so throttling does not change the ground truth; with
	// ThrottleEvery 1 every page request is throttled and the host never
	// serves a page.
	ThrottleEvery int
	// RetryAfter is the Retry-After header sent with the 429s of
	// ThrottleEvery, as written: seconds ("1") or an HTTP-date. "" sends no
	// Retry-After.
	RetryAfter string
	// PageStatus, if not 0, is the status of every page request (except
	// those throttled), redirecting URLs included, with a short HTML body
	// without links: a failing host. robots.txt is unaffected. It must be 0
	// or between 400 and 599, or NewWeb panics. A compliant crawler
	// requests the URLs it finds on the host but follows no link or
	// redirect from them, so the ground truth includes them but not what
	// only they lead to.
	PageStatus int
	// SlowDown makes page request k to the host (counting from 0 since
	// NewWeb, as ThrottleEvery does from 1) wait k*SlowDown extra before
	// answering: a host that slows down under load. Negative means 0.
	SlowDown time.Duration
}

// validate panics if b is not a valid Behavior of host h.
func (b *Behavior) validate(h int) {
	bad := func(field string, v any) {
		panic(fmt.Sprintf("crawlertest: Behavior of host %d: invalid %s %v", h, field, v))
	}
	if b.RobotsStatus != 0 && (b.RobotsStatus < 400 || b.RobotsStatus > 599) {
		bad("RobotsStatus", b.RobotsStatus)
	}
	if b.PageStatus != 0 && (b.PageStatus < 400 || b.PageStatus > 599) {
		bad("PageStatus", b.PageStatus)
	}
	if b.RobotsRedirects < 0 || b.RobotsRedirects > 1000 {
		bad("RobotsRedirects", b.RobotsRedirects)
	}
	if b.RobotsPadding < 0 || b.RobotsPadding > 64<<20 {
		bad("RobotsPadding", b.RobotsPadding)
	}
	if b.ThrottleEvery < 0 {
		bad("ThrottleEvery", b.ThrottleEvery)
	}
	if strings.ContainsAny(b.RetryAfter, "\r\n") {
		bad("RetryAfter", strconv.Quote(b.RetryAfter))
	}
}

// maxRobotsRedirects is the number of redirects a compliant crawler follows
// for robots.txt (RFC 9309 section 2.3.1.2: at least five).
const maxRobotsRedirects = 5

// robotsGivenUp reports whether a compliant crawler gives up following the
// robots.txt redirects of b, and so crawls without restrictions.
func (b *Behavior) robotsGivenUp() bool {
	return b.RobotsLoop || b.RobotsRedirects > maxRobotsRedirects
}

// behavior returns the Behavior of host h, or nil if h has the default.
func (w *Web) behavior(h int) *Behavior {
	if w.behaviors == nil || h < 0 {
		return nil
	}
	return &w.behaviors[h]
}

// robotsRules reports whether a compliant crawler applies the default
// robots.txt rules ("Disallow: /private/") to host h.
func (w *Web) robotsRules(h int) bool {
	b := w.behavior(h)
	if b == nil {
		return hasRobots(h)
	}
	if b.robotsGivenUp() || b.RobotsStatus != 0 {
		return false
	}
	return hasRobots(h)
}

// disallowed reports whether a compliant crawler may not fetch r because of
// robots.txt.
func (w *Web) disallowed(r res) bool { return r.kind == kindPrivate && w.robotsRules(int(r.host)) }

// RobotsDisallows reports whether the robots.txt that a compliant crawler
// applies to u's host disallows u, spelled in any way the server accepts
// ("http://H2.crawler.test/x/../%70rivate/3"): whether requesting u breaks
// robots.txt. Any path under /private/ counts, 404s included, on hosts
// that serve the default rules (see the package doc and Behavior). It is
// false for URLs outside the web.
func (w *Web) RobotsDisallows(u string) bool {
	h, p, _, ok := w.g.parseURL(u)
	return ok && w.robotsBlock(h, p)
}

// robotsBlock reports whether the robots.txt rules a compliant crawler
// applies to host h disallow the decoded, dot-segment-free path p.
func (w *Web) robotsBlock(h int, p string) bool {
	return strings.HasPrefix(p, disallowedPrefix) && w.robotsRules(h)
}

// unreachable reports whether a compliant crawler requests nothing on host h
// but robots.txt, because robots.txt answers 429 or 5xx.
func (w *Web) unreachable(h int) bool {
	b := w.behavior(h)
	return b != nil && !b.robotsGivenUp() && (b.RobotsStatus == http.StatusTooManyRequests || b.RobotsStatus >= 500)
}

// failing reports whether the page requests of host h answer an error
// status (Behavior.PageStatus), so that their links and redirects are not
// followed.
func (w *Web) failing(h int) bool {
	b := w.behavior(h)
	return b != nil && b.PageStatus != 0
}

// robotsHop returns k if p is /robots-hop/<k>, a redirect hop of host h's
// robots.txt, and 0 otherwise.
func (w *Web) robotsHop(h int, p, query string) int {
	b := w.behavior(h)
	if b == nil || query != "" {
		return 0
	}
	s, ok := strings.CutPrefix(p, "/robots-hop/")
	if !ok {
		return 0
	}
	last := b.RobotsRedirects
	if b.RobotsLoop {
		last = 1
	}
	k, ok := num(s, last+1)
	if !ok || k == 0 {
		return 0
	}
	return int(k)
}

// hopStatuses are the statuses of robots.txt redirect hops, in turn.
var hopStatuses = [4]int{301, 302, 307, 308}

// serveRobots answers hop k (0: /robots.txt itself) of host h's robots.txt.
func (w *Web) serveRobots(rw http.ResponseWriter, r *http.Request, h, k int) {
	b := w.behavior(h)
	if b == nil {
		b = &Behavior{}
	}
	redirect := func(status int, loc string) {
		rw.Header()["Location"] = []string{loc}
		writeBody(rw, r, status, nil, nil)
	}
	switch {
	case b.RobotsLoop && k == 0:
		redirect(http.StatusFound, "/robots-hop/1")
	case b.RobotsLoop:
		redirect(http.StatusMovedPermanently, "/robots.txt")
	case k < b.RobotsRedirects:
		next := "/robots-hop/" + strconv.Itoa(k+1)
		if (k+1)%2 == 1 {
			next = origin(h) + next
		}
		redirect(hopStatuses[k%len(hopStatuses)], next)
	case b.RobotsStatus != 0:
		writeBody(rw, r, b.RobotsStatus, ctText, []byte(statusLine(b.RobotsStatus)))
	case !hasRobots(h):
		writeBody(rw, r, http.StatusNotFound, ctText, []byte(notFoundText))
	case w.robotsPadded != nil && w.robotsPadded[h] != nil:
		writeBody(rw, r, http.StatusOK, ctText, w.sitemapLine(w.robotsPadded[h], h))
	default:
		writeBody(rw, r, http.StatusOK, ctText, w.sitemapLine([]byte(robotsBody), h))
	}
}

// statusLine returns "503 Service Unavailable\n" for 503.
func statusLine(status int) string {
	return strconv.Itoa(status) + " " + http.StatusText(status) + "\n"
}

// errorPage returns the short HTML body, without links, of a PageStatus
// response.
func errorPage(status int) []byte {
	s := strconv.Itoa(status) + " " + http.StatusText(status)
	return []byte("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + s +
		"</title>\n</head>\n<body>\n<h1>" + s + "</h1>\n<p>The server failed to answer.</p>\n</body>\n</html>\n")
}

// paddedRobots returns robotsBody followed by comment lines, n bytes in all
// (just robotsBody if n is not larger).
func paddedRobots(n int) []byte {
	b := make([]byte, 0, max(n, len(robotsBody)))
	b = append(b, robotsBody...)
	const line = "# padding: comment lines after the rules make this robots.txt large."
	for len(b) < n {
		l := min(n-len(b), 80) // bytes of this line, "\n" included
		if l == 1 {
			b = append(b, '\n') // an empty line
			break
		}
		b = append(b, '#')
		for i := 1; i < l-1; i++ {
			b = append(b, line[i%len(line)])
		}
		b = append(b, '\n')
	}
	return b
}
