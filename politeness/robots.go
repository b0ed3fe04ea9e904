package politeness

import (
	"bytes"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"crawler/internal/hexdigit"
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
	agents   map[string]*ruleSet // by product token (lowercase); nil if none
	star     *ruleSet            // the merged "*" groups; nil if none
	sitemaps []string
	denyAll  bool
}

// ruleSet is the merged groups naming one agent: the rules of each group
// with rules, sorted longest first, Allow before Disallow among equally long
// rules, so that the first rule of a group matching a target is the group's
// best match.
type ruleSet struct {
	groups [][]rule
	delay  time.Duration // the last valid Crawl-delay; 0 if none
}

// allowed reports whether the rules allow target, a normalized path and query:
// the longest matching rule decides, Allow winning a tie.
func (s *ruleSet) allowed(target string) bool {
	best, allow := 0, true
	for _, rules := range s.groups {
		for i := range rules {
			ru := &rules[i]
			if ru.length < best || ru.length == best && (allow || !ru.allow) {
				break // no later rule of this group can win
			}
			if ru.match(target) {
				best, allow = ru.length, ru.allow
				break
			}
		}
	}
	return allow
}

// rule is one Allow or Disallow line, its pattern normalized (see
// appendNormalized): a raw '*' in it is a wildcard, and a '$' ending the
// written pattern is recorded as anchored and removed.
type rule struct {
	allow    bool
	anchored bool     // the pattern ended with '$': it must match the whole target
	length   int      // the normalized pattern's length, '*' and the final '$' counted
	segs     []string // the pattern split at '*': segs[0] is a prefix of the target
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

// ParseRobots parses a robots.txt body as RFC 9309 defines it. It never fails:
// lines it does not understand are skipped and every valid line is kept, so an
// empty or HTML body allows everything. At most [MaxRobotsSize] bytes are read.
// The cost is linear in the body size (plus sorting each group's rules); body
// is not retained. It is safe to call concurrently.
//
// Lines are "key: value" (the colon may be replaced by white space); keys are
// case-insensitive and a few common misspellings are accepted ("useragent",
// "disalow", "crawldelay", ...). '#' starts a comment anywhere in a line.
// Rules and Crawl-delay lines before the first User-agent line are ignored. See
// the package documentation for how groups are formed and rules match.
func ParseRobots(body []byte) *Robots {
	p := parser{}
	p.parse(truncate(body))
	return p.build()
}

// Allowed reports whether userAgent may fetch target. target is a path with an
// optional query ("/a/b?x=1") or an absolute URL, of which the path and query
// are used (the fragment is ignored; an empty path is "/"). /robots.txt is
// always allowed. An absolute URL that does not parse is not allowed.
//
// The group of rules is chosen by the product token of userAgent, the leading
// run of letters, '_' and '-', so "crawler" for
// "Crawler/0.1 (+https://example.com/bot)": the groups naming that token
// (case-insensitively, exactly) apply, else the "*" groups, else nothing is
// disallowed. See the package documentation for how rules match.
//
// The cost is one map lookup plus, per rule of the group until the deciding one,
// a prefix comparison, or for a rule holding '*' one substring search per '*'.
// It allocates only when target is an absolute URL, needs normalizing (see the
// package documentation), or userAgent holds upper-case letters.
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
	set := r.group(userAgent)
	return set == nil || set.allowed(path)
}

// CrawlDelay returns the Crawl-delay of the groups that apply to userAgent
// (chosen as in [Robots.Allowed]), or 0 when they have none. Values are capped
// at 24 hours. Use [Pacing] to turn it into a wait. The cost is one map
// lookup.
func (r *Robots) CrawlDelay(userAgent string) time.Duration {
	if set := r.group(userAgent); set != nil {
		return set.delay
	}
	return 0
}

// Sitemaps returns the Sitemap URLs listed in the robots.txt, in file order,
// as written (not validated). It returns a new slice the caller may modify, or
// nil when there are none.
func (r *Robots) Sitemaps() []string {
	return slices.Clone(r.sitemaps)
}

// group returns the merged groups that apply to userAgent, or nil when no
// group does.
func (r *Robots) group(userAgent string) *ruleSet {
	if tok := ProductToken(userAgent); tok != "" {
		if set, ok := r.agents[tok]; ok {
			return set
		}
	}
	return r.star
}

// ProductToken returns the product token of a User-Agent header value, the
// name robots.txt groups, X-Robots-Tag prefixes and agent meta tags use: its
// leading run of [A-Za-z_-], lowercased ("crawler" from
// "Crawler/0.1 (+https://example.com/bot)"; RFC 9309 section 2.2.1).
func ProductToken(ua string) string {
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

// pathAndQuery returns the path and query of target, a path[?query] or an
// absolute URL, as given (not normalized): the fragment dropped, a leading
// '/' ensured, "/" for an empty path. ok is false for an absolute URL that
// does not parse.
func pathAndQuery(target string) (string, bool) {
	target, _, _ = strings.Cut(target, "#")
	if strings.HasPrefix(target, "/") {
		return target, true
	}
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
	return target, true
}

// match reports whether the rule matches target, a normalized path and query.
// Segments are matched leftmost-first, which is exact for patterns whose only
// wildcard is '*': the cost is at most one substring search per segment, so
// O(len(target) * len(pattern)) in the worst case and linear in practice.
func (ru *rule) match(target string) bool {
	segs := ru.segs
	if !strings.HasPrefix(target, segs[0]) {
		return false
	}
	if len(segs) == 1 {
		return !ru.anchored || len(target) == len(segs[0])
	}
	t := target[len(segs[0]):]
	last := len(segs) - 1
	for _, s := range segs[1:last] {
		i := strings.Index(t, s)
		if i < 0 {
			return false
		}
		t = t[i+len(s):]
	}
	if ru.anchored {
		return strings.HasSuffix(t, segs[last])
	}
	return strings.Contains(t, segs[last])
}

// newRule returns the rule for an Allow or Disallow value (not empty, comment
// and surrounding white space removed).
func newRule(allow bool, value []byte) rule {
	anchored := false
	if value[len(value)-1] == '$' {
		anchored, value = true, value[:len(value)-1]
	}
	var buf []byte
	if len(value) == 0 || value[0] != '/' && value[0] != '*' {
		buf = append(buf, '/')
	}
	buf = appendNormalized(buf, value, true)
	pattern := string(buf)
	length := len(pattern)
	if anchored {
		length++
	}
	return rule{allow: allow, anchored: anchored, length: length, segs: strings.Split(pattern, "*")}
}

// targetPath returns the normalized path and query of target as matched
// against rules.
func targetPath(target string) (string, bool) {
	target, ok := pathAndQuery(target)
	if !ok {
		return "", false
	}
	if isNormalized(target) {
		return target, true
	}
	return string(appendNormalized(nil, target, false)), true
}

// Normalization. Rule patterns and targets are compared in one form, in which
// equivalent spellings of a URI are the same string:
//
//   - "%XX" of an unreserved character (ALPHA DIGIT - . _ ~) is decoded;
//   - the hex digits of every other "%XX" are upper-cased;
//   - a '%' not starting a valid "%XX" is a literal '%', encoded "%25";
//   - bytes that may not appear raw in a URI (controls, space, DEL, non-ASCII,
//     and " < > \ ^ ` { | }) are percent-encoded;
//   - '*' and '$' of a target, and a '$' in a pattern that is not its last
//     byte, are encoded ("%2A", "%24"), so that a raw '*' of a pattern is
//     always a wildcard and "%2A" in a pattern matches a literal '*'.
//
// Reserved characters are neither decoded nor encoded otherwise: "%2F" stays
// distinct from '/'.

const upperHex = "0123456789ABCDEF"

// rawOK[c] is true for a byte that stays as it is in a normalized target (in a
// pattern '*' too); '%' is handled apart.
var rawOK = func() (t [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		t[c] = true
	}
	for _, c := range "\"<>\\^`{|}*$%" {
		t[c] = false
	}
	return t
}()

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// escape decodes the "%XX" at s[i:], if valid.
func escape[S string | []byte](s S, i int) (byte, bool) {
	if i+2 >= len(s) {
		return 0, false
	}
	hi, ok1 := hexdigit.Value(s[i+1])
	lo, ok2 := hexdigit.Value(s[i+2])
	return hi<<4 | lo, ok1 && ok2
}

// isNormalized reports whether target is already in normalized form, so that
// [Robots.Allowed] need not allocate.
func isNormalized(target string) bool {
	for i := 0; i < len(target); i++ {
		c := target[i]
		if rawOK[c] {
			continue
		}
		if c != '%' {
			return false
		}
		v, ok := escape(target, i)
		if !ok || isUnreserved(v) || target[i+1] >= 'a' || target[i+2] >= 'a' {
			return false
		}
		i += 2
	}
	return true
}

// appendNormalized appends the normalized form of s to dst. In a pattern, '*'
// stays a raw wildcard; in a target it is encoded.
func appendNormalized[S string | []byte](dst []byte, s S, pattern bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case rawOK[c] || c == '*' && pattern:
			dst = append(dst, c)
		case c == '%':
			v, ok := escape(s, i)
			switch {
			case !ok:
				dst = append(dst, "%25"...)
			case isUnreserved(v):
				dst = append(dst, v)
				i += 2
			default:
				dst = append(dst, '%', upperHex[v>>4], upperHex[v&15])
				i += 2
			}
		default:
			dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
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
	var lower [len("crawl-delay")]byte
	for i, c := range key {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	switch string(lower[:len(key)]) {
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

// splitLine splits one line (without its line break) into its kind and value,
// dropping a comment and surrounding white space. The key ends at a colon
// ("user-agent : x") or, when that does not give a known key, at the first
// white space ("Disallow /a:b"), a colon after it being skipped.
func splitLine(line []byte) (lineKind, []byte) {
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = bytes.Trim(line, asciiSpace)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		if kind := classify(bytes.TrimRight(line[:i], asciiSpace)); kind != kOther {
			return kind, bytes.Trim(line[i+1:], asciiSpace)
		}
	}
	i := bytes.IndexAny(line, asciiSpace)
	if i < 0 {
		return classify(line), nil
	}
	value := bytes.TrimLeft(line[i:], asciiSpace)
	value = bytes.TrimPrefix(value, []byte(":"))
	return classify(line[:i]), bytes.TrimLeft(value, asciiSpace)
}

// firstField returns v up to its first white space.
func firstField(v []byte) []byte {
	if i := bytes.IndexAny(v, asciiSpace); i >= 0 {
		return v[:i]
	}
	return v
}

// group is one group of a robots.txt as written.
type group struct {
	agents   []string // product tokens, lowercase
	star     bool     // one of the User-agent lines is "*"
	rules    []rule
	delay    time.Duration
	hasDelay bool
}

type parser struct {
	groups   []group
	inAgents bool // the last group line was a User-agent line
	sitemaps []string
}

// parse reads body line by line into p.groups and p.sitemaps.

func (p *parser) parse(body []byte) {
	for len(body) > 0 {
		var line []byte
		if i := bytes.IndexAny(body, "\r\n"); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			line, body = body, nil
		}
		kind, value := splitLine(line)
		switch kind {
		case kUserAgent:
			if !p.inAgents {
				p.groups = append(p.groups, group{})
				p.inAgents = true
			}
			g := &p.groups[len(p.groups)-1]
			if string(firstField(value)) == "*" {
				g.star = true
			} else if tok := ProductToken(string(value)); tok != "" {
				g.agents = append(g.agents, tok) // repeats are dropped in build
			}
			// A value without a product token names nobody, but the line
			// still belongs to the group.
		case kAllow, kDisallow, kCrawlDelay:
			if len(p.groups) == 0 {
				continue // before the first User-agent line
			}
			p.inAgents = false
			g := &p.groups[len(p.groups)-1]
			if kind == kCrawlDelay {
				if d, ok := parseDelay(value); ok {
					g.delay, g.hasDelay = d, true
				}
			} else if len(value) > 0 {
				g.rules = append(g.rules, newRule(kind == kAllow, value))
			}
		case kSitemap:
			if len(value) > 0 {
				p.sitemaps = append(p.sitemaps, string(value))
			}
		}
	}
}

// parseDelay parses a Crawl-delay value: seconds, fractions allowed, capped at
// maxCrawlDelay; words after the number are ignored.
func parseDelay(value []byte) (time.Duration, bool) {
	secs, err := strconv.ParseFloat(string(firstField(value)), 64)
	if errors.Is(err, strconv.ErrRange) {
		err = nil // ±Inf, capped or dropped below; or an underflow to 0
	}
	if err != nil || !(secs >= 0) {
		return 0, false // not a number, negative or NaN
	}
	if secs >= maxCrawlDelay.Seconds() {
		return maxCrawlDelay, true
	}
	return time.Duration(secs * float64(time.Second)), true
}

// build sorts each group's rules and indexes the groups by agent.
func (p *parser) build() *Robots {
	r := &Robots{sitemaps: p.sitemaps}
	if len(p.groups) == 0 {
		if len(r.sitemaps) == 0 {
			return allowAll
		}
		return r
	}
	var starGroups []int
	byAgent := map[string][]int{} // agent token -> indexes of its groups
	for i := range p.groups {
		g := &p.groups[i]
		slices.SortStableFunc(g.rules, func(a, b rule) int {
			if a.length != b.length {
				return b.length - a.length
			}
			if a.allow != b.allow {
				if a.allow {
					return -1
				}
				return 1
			}
			return 0
		})
		if g.star {
			starGroups = append(starGroups, i)
		}
		for _, a := range g.agents {
			if idx := byAgent[a]; len(idx) == 0 || idx[len(idx)-1] != i {
				byAgent[a] = append(idx, i)
			}
		}
	}
	// An agent named by one group shares that group's ruleSet; one named by
	// several gets its own, listing them (not copying their rules, so that the
	// size stays linear in the body's).
	single := make([]*ruleSet, len(p.groups))
	merge := func(idx []int) *ruleSet {
		if len(idx) == 1 && single[idx[0]] != nil {
			return single[idx[0]]
		}
		set := &ruleSet{groups: make([][]rule, 0, len(idx))}
		for _, i := range idx {
			g := &p.groups[i]
			if len(g.rules) > 0 {
				set.groups = append(set.groups, g.rules)
			}
			if g.hasDelay {
				set.delay = g.delay
			}
		}
		if len(idx) == 1 {
			single[idx[0]] = set
		}
		return set
	}
	if len(starGroups) > 0 {
		r.star = merge(starGroups)
	}
	if len(byAgent) > 0 {
		r.agents = make(map[string]*ruleSet, len(byAgent))
		for a, idx := range byAgent {
			r.agents[a] = merge(idx)
		}
	}
	return r
}
