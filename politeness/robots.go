package politeness

import (
	"bytes"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/temoto/robotstxt"
)

// MaxRobotsSize is the number of bytes of a robots.txt body that [ParseRobots]
// reads (500 KiB, the minimum RFC 9309 section 2.5 asks parsers to handle).
// Bytes past it are ignored, cut back to the last complete line. A [FetchFunc]
// may stop reading the body at this size.
const MaxRobotsSize = 500 << 10

// maxCrawlDelay caps a Crawl-delay value; larger values are taken as this.
const maxCrawlDelay = 24 * time.Hour

// Robots is one parsed robots.txt. It is read-only after parsing and safe for
// concurrent use by multiple goroutines. The zero Robots has no rules and
// allows everything. Obtain one from [ParseRobots], [AllowAll], [DisallowAll]
// or [RobotsCache.Get].
type Robots struct {
	data     *robotstxt.RobotsData // nil: no rules, everything allowed
	sitemaps []string
	denyAll  bool
}

var (
	allowAll    = &Robots{}
	disallowAll = &Robots{denyAll: true}
)

// AllowAll returns a Robots without restrictions, the meaning of a robots.txt
// that is unavailable (4xx). It returns the same shared, immutable value on
// every call.
func AllowAll() *Robots { return allowAll }

// DisallowAll returns a Robots that allows nothing but /robots.txt itself, the
// meaning (for now) of a robots.txt that is unreachable (5xx, network error).
// It returns the same shared, immutable value on every call.
func DisallowAll() *Robots { return disallowAll }

// ParseRobots parses a robots.txt body. It never fails: lines it does not
// understand are skipped and every valid line is kept, so an empty or HTML body
// allows everything. At most [MaxRobotsSize] bytes are read. The cost is linear
// in the body size plus one regular expression compiled per rule that holds a
// wildcard ('*' inside or '$'). body is not retained.
//
// Lines are "key: value" (the colon may be replaced by white space); keys are
// case-insensitive and a few common misspellings are accepted ("useragent",
// "disalow", "crawldelay", ...). Rules and Crawl-delay lines before the first
// User-agent line are ignored. Non-ASCII bytes, spaces and control characters in
// a path pattern are percent-encoded, as they are in the targets given to
// [Robots.Allowed]. See the package documentation for how matching works and
// where it still differs from RFC 9309.
func ParseRobots(body []byte) *Robots {
	body = truncate(body)
	clean, sitemaps, rules := sanitize(body)
	if rules == 0 {
		if len(sitemaps) == 0 {
			return allowAll
		}
		return &Robots{sitemaps: sitemaps}
	}
	data, err := robotstxt.FromBytes(clean)
	if err != nil {
		// Unreachable: sanitize removes every cause of error temoto v1.1.2
		// has. Fail closed should a later version add one.
		return disallowAll
	}
	return &Robots{data: data, sitemaps: sitemaps}
}

// Allowed reports whether userAgent may fetch target. target is a path with an
// optional query ("/a/b?x=1") or an absolute URL, of which the path and query
// are used (the fragment is ignored; an empty path is "/"). /robots.txt is
// always allowed. An absolute URL that does not parse is not allowed.
//
// The group of rules is chosen by the product token of userAgent, the leading
// run of letters, '_' and '-', so "crawler" for
// "Crawler/0.1 (+https://example.com/bot)": the group naming that token
// (case-insensitively, exactly) applies, else the "*" group, else nothing is
// disallowed. See the package documentation for how rules match.
//
// The cost is O(groups + rules of the group), each rule holding a wildcard
// being a regular-expression match; it allocates only when target is an
// absolute URL or needs escaping.
func (r *Robots) Allowed(userAgent, target string) bool {
	path, ok := targetPath(target)
	if !ok {
		return false
	}
	if path == "/robots.txt" || strings.HasPrefix(path, "/robots.txt?") {
		return true
	}
	if r.denyAll {
		return false
	}
	if r.data == nil {
		return true
	}
	return r.data.TestAgent(path, productToken(userAgent)+".")
}

// CrawlDelay returns the Crawl-delay of the group that applies to userAgent
// (chosen as in [Robots.Allowed]), or 0 when that group has none. Values are
// capped at 24 hours. Use [HostDelay] to turn it into a wait.
func (r *Robots) CrawlDelay(userAgent string) time.Duration {
	if r.data == nil {
		return 0
	}
	return r.data.FindGroup(productToken(userAgent) + ".").CrawlDelay
}

// Sitemaps returns the Sitemap URLs listed in the robots.txt, in file order,
// as written (not validated). It returns a new slice the caller may modify, or
// nil when there are none.
func (r *Robots) Sitemaps() []string {
	return slices.Clone(r.sitemaps)
}

// agentKey returns the key under which a group's User-agent value goes to
// temoto: "*", or the value's product token followed by '.', or "" when the
// value has no product token. [Robots.Allowed] passes the crawler's token the
// same way, so that temoto's prefix match of agent names becomes an exact
// match, and a one-letter name is longer than "*" (which temoto needs to prefer
// it).
func agentKey(value []byte) string {
	if string(firstField(value)) == "*" {
		return "*"
	}
	tok := productToken(string(value))
	if tok == "" {
		return ""
	}
	return tok + "."
}

// productToken returns the lowercased leading run of [A-Za-z_-] of a
// User-Agent header value.
func productToken(ua string) string {
	ua = strings.TrimLeft(ua, " \t")
	i := 0
	for i < len(ua) {
		c := ua[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-') {
			break
		}
		i++
	}
	return strings.ToLower(ua[:i])
}

// targetPath returns the path and query of target as matched against rules,
// with bytes outside printable ASCII percent-encoded.
func targetPath(target string) (string, bool) {
	if i := strings.IndexByte(target, '#'); i >= 0 {
		target = target[:i]
	}
	if target == "" {
		return "/", true
	}
	if target[0] != '/' {
		if i := strings.IndexAny(target, ":/?"); i > 0 && target[i] == ':' {
			u, err := url.Parse(target)
			if err != nil {
				return "", false
			}
			target = u.EscapedPath()
			if u.RawQuery != "" || u.ForceQuery {
				target += "?" + u.RawQuery
			}
		}
		if !strings.HasPrefix(target, "/") {
			target = "/" + target
		}
	}
	if !needsEscape(target) {
		return target, true
	}
	return string(appendEscaped(nil, []byte(target))), true
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return true
		}
	}
	return false
}

// appendEscaped appends v to dst with bytes outside printable ASCII (and space)
// percent-encoded.
func appendEscaped(dst, v []byte) []byte {
	const hex = "0123456789ABCDEF"
	for _, c := range v {
		if c <= ' ' || c >= 0x7f {
			dst = append(dst, '%', hex[c>>4], hex[c&15])
		} else {
			dst = append(dst, c)
		}
	}
	return dst
}

// truncate cuts body to MaxRobotsSize, back to the last line break, and drops
// a UTF-8 byte order mark.
func truncate(body []byte) []byte {
	body = bytes.TrimPrefix(body, []byte("\uFEFF"))
	if len(body) <= MaxRobotsSize {
		return body
	}
	body = body[:MaxRobotsSize]
	if i := bytes.LastIndexAny(body, "\r\n"); i >= 0 {
		return body[:i]
	}
	return nil
}

type lineKind int

const (
	kOther lineKind = iota
	kUserAgent
	kAllow
	kDisallow
	kCrawlDelay
	kSitemap
)

func classify(key []byte) lineKind {
	if len(key) > len("crawl-delay") {
		return kOther
	}
	switch strings.ToLower(string(key)) {
	case "user-agent", "useragent", "user agent":
		return kUserAgent
	case "allow":
		return kAllow
	case "disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw":
		return kDisallow
	case "crawl-delay", "crawldelay", "crawl delay":
		return kCrawlDelay
	case "sitemap", "site-map":
		return kSitemap
	}
	return kOther
}

const asciiSpace = " \t\v\f"

// splitLine splits one line (without its line break) into key and value,
// dropping a comment and surrounding white space.
func splitLine(line []byte) (key, value []byte) {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = bytes.Trim(line, asciiSpace)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		key, value = line[:i], line[i+1:]
	} else if i := bytes.IndexAny(line, asciiSpace); i >= 0 {
		key, value = line[:i], line[i+1:]
	} else {
		key = line
	}
	return bytes.Trim(key, asciiSpace), bytes.Trim(value, asciiSpace)
}

// firstField returns v up to its first white space.
func firstField(v []byte) []byte {
	if i := bytes.IndexAny(v, asciiSpace); i >= 0 {
		return v[:i]
	}
	return v
}

// neverMatches is a rule path that no target matches: targets are ASCII after
// escaping. Emitting it gives a group with no effective rules an entry of its
// own in temoto, so its agents do not fall back to the "*" group.
const neverMatches = "disallow: /\u00ff\n"

// sanitize rewrites body into a robots.txt that temoto parses without error
// and without misreading: one "key: value" per line, values without white
// space, no rule outside a group, no invalid Crawl-delay, group boundaries as
// RFC 9309 draws them. It returns the sitemaps separately and the number of
// rule and Crawl-delay lines kept.
func sanitize(body []byte) (clean []byte, sitemaps []string, rules int) {
	clean = make([]byte, 0, len(body)/2+64)
	var (
		inAgents    bool   // the current group is still collecting User-agent lines
		groupAgents int    // User-agent lines emitted for the current group
		groupRules  int    // rules emitted for the current group
		allows      []byte // the current group's Allow lines
		disallows   []byte // the current group's Disallow lines
	)
	// endGroup emits the group's rules, Allow lines first: temoto picks the
	// first of equally long matches, and RFC 9309 prefers Allow on a tie.
	endGroup := func() {
		if groupAgents > 0 && groupRules == 0 {
			clean = append(clean, neverMatches...)
			rules++
		}
		clean = append(clean, allows...)
		clean = append(clean, disallows...)
		allows, disallows = allows[:0], disallows[:0]
	}
	for len(body) > 0 {
		var line []byte
		if i := bytes.IndexAny(body, "\r\n"); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			line, body = body, nil
		}
		key, value := splitLine(line)
		kind := classify(key)
		switch kind {
		case kUserAgent:
			if !inAgents {
				endGroup()
				inAgents, groupAgents, groupRules = true, 0, 0
			}
			agent := agentKey(value)
			if agent == "" {
				continue // no product token: a group member nobody matches
			}
			clean = append(clean, "user-agent: "...)
			clean = append(clean, agent...)
			clean = append(clean, '\n')
			groupAgents++
		case kAllow, kDisallow:
			inAgents = false
			if groupAgents == 0 || len(value) == 0 {
				continue
			}
			dst := &disallows
			if kind == kAllow {
				dst = &allows
			}
			if kind == kAllow {
				*dst = append(*dst, "allow: "...)
			} else {
				*dst = append(*dst, "disallow: "...)
			}
			if value[0] != '/' {
				*dst = append(*dst, '/')
			}
			*dst = appendEscaped(*dst, value)
			*dst = append(*dst, '\n')
			groupRules++
			rules++
		case kCrawlDelay:
			inAgents = false
			if groupAgents == 0 {
				continue
			}
			secs, err := strconv.ParseFloat(string(firstField(value)), 64)
			if errors.Is(err, strconv.ErrRange) {
				err = nil // ±Inf, capped or dropped below; or an underflow to 0
			}
			if err != nil || !(secs >= 0) {
				continue // not a number, negative or NaN
			}
			secs = min(secs, maxCrawlDelay.Seconds())
			clean = append(clean, "crawl-delay: "...)
			clean = strconv.AppendFloat(clean, secs, 'f', -1, 64)
			clean = append(clean, '\n')
			groupRules++
			rules++
		case kSitemap:
			if len(value) > 0 {
				sitemaps = append(sitemaps, string(value))
			}
		}
	}
	endGroup()
	return clean, sitemaps, rules
}
