package traps

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/zeebo/xxh3"

	"crawler/canon"
	"crawler/frontier"
	"crawler/seen"
)

// Defaults of [Config].
const (
	// DefaultMaxURLLength is the longest URL followed, in bytes (the
	// common limit of browsers and sitemaps).
	DefaultMaxURLLength = 2048
	// DefaultMaxPathDepth is the most segments a followed URL's path has.
	DefaultMaxPathDepth = 20
	// DefaultMaxSegmentRepeats is the most times one segment occurs in a
	// followed URL's path.
	DefaultMaxSegmentRepeats = 3
	// DefaultDuplicatePages is how many pages of one host and path
	// pattern must repeat content already seen before the pattern is no
	// longer followed.
	DefaultDuplicatePages = 10
	// DefaultDuplicateWindow is how many distinct contents, the latest,
	// the duplicate rule remembers at most: 16 MiB of fingerprints, which
	// span a rotation of half a million hosts.
	DefaultDuplicateWindow = 1 << 20
)

// Names of the trap rules: the keys of the crawler's Stats.Traps, which
// the CLI prints and metrics label. They do not change.
const (
	URLLength      = "url-length"        // URL longer than MaxURLLength, or than canon.MaxLength whatever MaxURLLength says
	PathDepth      = "path-depth"        // more path segments than MaxPathDepth
	SegmentRepeats = "segment-repeats"   // a path segment repeated more than MaxSegmentRepeats times
	HostBudget     = "host-budget"       // the host already has MaxPagesPerHost URLs
	QueryValues    = "query-values"      // a query parameter with more than MaxQueryValues values on the host
	Duplicates     = "duplicate-pattern" // a host and path pattern that kept serving content already seen
)

// ErrTrap is the Err of a page that was not fetched because its URL
// pattern was found to be a trap after it had been queued (see
// [Guard.Stopped]). Its text is the one it had as crawler.ErrTrap, since
// pages' errors reach users' outputs (the CLI's -out records).
var ErrTrap = errors.New("crawler: URL pattern is a trap")

// Config is a crawl's defences against crawler traps (the crawler's
// Crawler.Traps). An importance-ordered frontier ([frontier.AOPIC])
// already starves most traps of credit; these rules bound what is left,
// whatever the frontier. A URL a rule rejects is not followed and is
// counted in the crawler's Stats.Traps under the rule's name.
//
// In each field, 0 means the default and a negative value turns the rule
// off, as everywhere in the crawler. The rules that could cut a
// legitimate site short (a budget per host, a bound on a parameter's
// values) are off by default. For rules of your own, use the crawler's
// Scope.Allow, or a Handler that edits Page.Links.
//
// What the rules have counted is the crawl's, not one Run's: a Run that
// resumes a crawl on the same Frontier carries on with it (see the
// package doc on durable state).
type Config struct {
	// MaxURLLength is the longest URL followed, in bytes. 0:
	// DefaultMaxURLLength; negative: no limit but canon.MaxLength.
	MaxURLLength int
	// MaxPathDepth is the most segments a followed URL's path may have.
	// 0: DefaultMaxPathDepth; negative: no limit.
	MaxPathDepth int
	// MaxSegmentRepeats is the most times one segment may occur in a
	// followed URL's path ("/a/b/a/b/a/b" has "a" three times). 0:
	// DefaultMaxSegmentRepeats; negative: no limit.
	MaxSegmentRepeats int
	// MaxPagesPerHost is the most URLs of one host that the crawl queues
	// (seeds included), in all the Runs that resume it (see Config). 0 or
	// negative: no limit.
	MaxPagesPerHost int
	// MaxQueryValues is the most distinct values one query parameter name
	// may take on one host (?month=, ?sid=) in the crawl; URLs bringing a
	// new value beyond it are not followed. 0 or negative: no limit, since
	// a shop's ?id= may rightly take millions of values.
	MaxQueryValues int
	// DuplicatePages stops a path pattern: once this many HTML pages of
	// one host and pattern in a row had content already seen in the crawl
	// (and remembered: see DuplicateWindow), or this many and at least 80%
	// of the pattern's pages, the crawl no longer follows links into the
	// pattern, and its URLs still queued reach the Handler unfetched with
	// ErrTrap. Content is the page's text, tag names and links without
	// their queries, fingerprinted with xxh3, so pages that differ only in
	// the session ids of their links are duplicates. A pattern is the
	// host, the first path segment with its digits replaced by '*', and
	// the query's parameter names, as in "example.com/calendar?month". 0:
	// DefaultDuplicatePages; negative: never.
	DuplicatePages int
	// DuplicateWindow bounds the memory of content seen, which would
	// otherwise grow by 11 to 21 bytes a page: the rule remembers the
	// latest distinct contents, at least half of DuplicateWindow and at
	// most all of it, and content that is seen again stays remembered. So
	// a host that keeps serving one page (a soft 404, an empty calendar
	// month) is caught as long as its pages are fewer than
	// DuplicateWindow/2 fetches apart, the hosts the crawl takes turns
	// with. 0: DefaultDuplicateWindow; negative: every content seen.
	DuplicateWindow int
}

// Guard applies the rules of a Config, defaults filled in, and holds the
// state of the stateful rules, which the Runs on one frontier share (one
// at a time). Check and Stopped are safe for concurrent use; Admit,
// Observe, Record and Restore are called by one goroutine at a time (the
// crawler's scheduler), alongside them; Configure by nothing else at the
// time. Make one with New.
type Guard struct {
	maxURLLength, maxPathDepth, maxSegmentRepeats   int
	maxPagesPerHost, maxQueryValues, duplicatePages int

	// rec, if set, keeps the counts of the host budgets and the query
	// values in records written with the scheduler's steps; dirty are the
	// hosts whose count the step in progress changed.
	rec   frontier.Recorder
	dirty map[string]struct{}

	perHost     map[string]int                 // scheduler only: URLs queued per host
	queryValues map[string]map[uint64]struct{} // scheduler only: host "\x00" name -> value hashes
	content     contentWindow                  // scheduler only: content fingerprints seen
	patterns    map[hostPattern]*patternCount  // scheduler only: pages and duplicates per pattern

	mu       sync.RWMutex
	blocked  map[string]map[string]bool // host -> patterns no longer followed
	nBlocked int                        // patterns in blocked
}

// hostPattern is a host and a path pattern of it (see urlPattern).
type hostPattern struct{ host, pattern string }

// patternCount counts the HTML pages of one host and pattern, those whose
// content was seen before, and those in a row up to the last.
type patternCount struct{ pages, duplicates, streak int }

// New returns a Guard of the rules of c, with nothing counted yet.
func New(c Config) *Guard {
	r := &Guard{
		dirty:       map[string]struct{}{},
		perHost:     map[string]int{},
		queryValues: map[string]map[uint64]struct{}{},
		patterns:    map[hostPattern]*patternCount{},
		blocked:     map[string]map[string]bool{},
	}
	r.Configure(c)
	return r
}

// Configure sets the rules' limits from c, for a Run that resumes the
// crawl. The counts stay; the contents seen stay unless c changes their
// window. No other method may run meanwhile.
func (t *Guard) Configure(c Config) {
	t.maxURLLength = or(c.MaxURLLength, DefaultMaxURLLength)
	t.maxPathDepth = or(c.MaxPathDepth, DefaultMaxPathDepth)
	t.maxSegmentRepeats = or(c.MaxSegmentRepeats, DefaultMaxSegmentRepeats)
	t.maxPagesPerHost = max(c.MaxPagesPerHost, 0)
	t.maxQueryValues = max(c.MaxQueryValues, 0)
	t.duplicatePages = or(c.DuplicatePages, DefaultDuplicatePages)
	if limit := or(c.DuplicateWindow, DefaultDuplicateWindow); t.content.newer == nil || windowHalf(limit) != t.content.half {
		t.content = newContentWindow(limit)
	}
}

// or is v, or def if v is 0: a field of Config and its default.
func or(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// Check applies the rules that need nothing but the canonical URL u
// (URLLength, PathDepth, SegmentRepeats), and returns the name of the
// first that rejects it, or "". The crawler's workers call it on each
// link, before it is queued. It is safe for concurrent use.
func (t *Guard) Check(u string) string {
	if t.maxURLLength > 0 && len(u) > t.maxURLLength {
		return URLLength
	}
	if t.maxPathDepth <= 0 && t.maxSegmentRepeats <= 0 {
		return ""
	}
	path, _ := canon.PathQuery(u)
	segs := strings.Count(path, "/")
	if t.maxPathDepth > 0 && segs > t.maxPathDepth {
		return PathDepth
	}
	if t.maxSegmentRepeats > 0 && segs > t.maxSegmentRepeats && repeatsSegment(path, t.maxSegmentRepeats) {
		return SegmentRepeats
	}
	return ""
}

// repeatsSegment reports whether a non-empty segment of path occurs more
// than n times. Paths are short (MaxPathDepth bounds them), so it compares
// segments pairwise rather than allocating a map.
func repeatsSegment(path string, n int) bool {
	for rest := path; rest != ""; {
		seg, tail := nextSegment(rest)
		rest = tail
		if seg == "" {
			continue
		}
		count := 1
		for later := tail; later != ""; {
			s, t := nextSegment(later)
			later = t
			if s == seg {
				count++
			}
		}
		if count > n {
			return true
		}
	}
	return false
}

// nextSegment splits "/seg/rest..." into "seg" and "/rest...".
func nextSegment(path string) (seg, rest string) {
	path = strings.TrimPrefix(path, "/")
	if i := strings.IndexByte(path, '/'); i >= 0 {
		return path[:i], path[i:]
	}
	return path, ""
}

// Admit applies the stateful rules (HostBudget, Duplicates, QueryValues)
// to u, a canonical URL of host new to the crawl, and returns the name of
// the first that rejects it, or "". The crawler's scheduler calls it after
// the seen-test, before it queues u. An admitted URL counts against its
// host's budget. A seed is always admitted, and counted.
func (t *Guard) Admit(u, host string, seed bool) string {
	switch {
	case seed:
	case t.maxPagesPerHost > 0 && t.perHost[host] >= t.maxPagesPerHost:
		return HostBudget
	case t.isBlocked(u, host):
		return Duplicates
	case t.maxQueryValues > 0 && !t.admitQuery(u, host):
		return QueryValues
	}
	if t.maxPagesPerHost > 0 {
		t.perHost[host]++
		if t.rec != nil {
			t.dirty[host] = struct{}{}
		}
	}
	return ""
}

// admitQuery records the values of u's query parameters for host and
// reports whether none of them is a new value beyond MaxQueryValues.
func (t *Guard) admitQuery(u, host string) bool {
	_, query := canon.PathQuery(u)
	type pending struct {
		key string
		set map[uint64]struct{}
		v   uint64
	}
	var news []pending
	for query != "" {
		var pair string
		pair, query, _ = strings.Cut(query, "&")
		name, value, _ := strings.Cut(pair, "=")
		key := host + "\x00" + name
		set := t.queryValues[key]
		if set == nil {
			set = map[uint64]struct{}{}
			t.queryValues[key] = set
		}
		v := xxh3.HashString(value)
		if _, ok := set[v]; ok {
			continue
		}
		if len(set) >= t.maxQueryValues {
			return false
		}
		news = append(news, pending{key, set, v})
	}
	for _, p := range news { // only an admitted URL's values count
		p.set[p.v] = struct{}{}
		if t.rec != nil {
			b := queryValueRecord(p.key, p.v)
			t.rec.Record(keptQueryValues, xxh3.Hash(b), b)
		}
	}
	return true
}

// Observe records content, the fingerprint of a fetched HTML page at u of
// host, and reports whether it was seen before (and remembered: see
// Config.DuplicateWindow) and the pattern it stopped, as host and pattern
// ("example.com/calendar?month"), if this page was the one that tipped
// it. The crawler's scheduler calls it with each HTML page's outcome.
func (t *Guard) Observe(u, host string, content uint64) (stopped string, duplicate bool) {
	duplicate = !t.content.add(content)
	if t.duplicatePages <= 0 {
		return "", duplicate
	}
	pat := urlPattern(u)
	key := hostPattern{host, pat}
	c := t.patterns[key]
	if c == nil {
		c = new(patternCount)
		t.patterns[key] = c
	}
	c.pages++
	if !duplicate {
		c.streak = 0
		return "", false
	}
	c.duplicates++
	c.streak++
	if c.streak < t.duplicatePages && (c.duplicates < t.duplicatePages || c.duplicates*5 < c.pages*4) {
		return "", true
	}
	if !t.block(host, pat) {
		return "", true
	}
	return host + pat, true
}

// block stops the path pattern pat of host, and reports whether it was not
// stopped yet. It is safe for concurrent use.
func (t *Guard) block(host, pat string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.blocked[host][pat] {
		return false
	}
	if t.blocked[host] == nil {
		t.blocked[host] = map[string]bool{}
	}
	t.blocked[host][pat] = true
	t.nBlocked++
	return true
}

// blockedCount reports how many patterns are stopped.
func (t *Guard) blockedCount() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.nBlocked
}

// blockedPatterns returns the stopped patterns of each host, sorted.
func (t *Guard) blockedPatterns() map[string][]string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	m := make(map[string][]string, len(t.blocked))
	for host, pats := range t.blocked {
		m[host] = slices.Sorted(maps.Keys(pats))
	}
	return m
}

// Stopped returns an error wrapping ErrTrap, which names the host and
// pattern, if u's pattern on host is no longer followed (the Duplicates
// rule stopped it after u was queued), or nil. The crawler's workers call
// it before they fetch u. It is safe for concurrent use, and cheap for
// hosts without a stopped pattern.
func (t *Guard) Stopped(u, host string) error {
	if !t.isBlocked(u, host) {
		return nil
	}
	return fmt.Errorf("%w: %s%s", ErrTrap, host, urlPattern(u))
}

// isBlocked reports whether u's pattern is no longer followed. It is safe
// for concurrent use, and cheap for hosts without a stopped pattern.
func (t *Guard) isBlocked(u, host string) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	pats := t.blocked[host]
	return pats != nil && pats[urlPattern(u)]
}

// urlPattern returns the path pattern of the canonical URL u: its first
// path segment with runs of digits replaced by '*', and the names of its
// query parameters, as in "/calendar?month" or "/p*".
func urlPattern(u string) string {
	path, query := canon.PathQuery(u)
	first, _ := nextSegment(path)
	var b strings.Builder
	b.WriteByte('/')
	digits := false
	for i := 0; i < len(first); i++ {
		c := first[i]
		if '0' <= c && c <= '9' {
			if !digits {
				b.WriteByte('*')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteByte(c)
	}
	sep := byte('?')
	for query != "" {
		var pair string
		pair, query, _ = strings.Cut(query, "&")
		name, _, _ := strings.Cut(pair, "=")
		b.WriteByte(sep)
		b.WriteString(name)
		sep = '&'
	}
	return b.String()
}

// contentWindow is the content fingerprints of a crawl's latest pages: an
// exact set in two generations, a newer and an older, each of at most
// half of limit distinct fingerprints. When the newer is full it becomes
// the older, and the older, cleared, the newer; a fingerprint found in the
// older is added to the newer again. So a fingerprint is forgotten only
// after half of limit others were added since it was last, whatever
// recurs stays, and the memory is bounded by two tables that are never
// allocated again. With limit <= 0 the newer never fills: every
// fingerprint is kept.
type contentWindow struct {
	half       int // fingerprints in a full generation; 0: no limit
	newer, old *seen.Exact
}

func newContentWindow(limit int) contentWindow {
	return contentWindow{half: windowHalf(limit), newer: seen.NewExact(0), old: seen.NewExact(0)}
}

// windowHalf is the size of a full generation of a window of limit
// fingerprints: half of it, or 0 (no limit) for limit <= 0.
func windowHalf(limit int) int {
	if limit <= 0 {
		return 0
	}
	return (limit + 1) / 2
}

// add records fp as seen and reports whether it was not remembered.
func (w *contentWindow) add(fp uint64) (added bool) {
	if w.newer.Contains(fp) {
		return false
	}
	added = !w.old.Contains(fp)
	if w.half > 0 && w.newer.Len() >= w.half {
		w.newer, w.old = w.old, w.newer
		w.newer.Clear()
	}
	w.newer.Add(fp)
	return added
}

// remembered reports how many fingerprints are remembered.
func (w *contentWindow) remembered() int { return w.newer.Len() + w.old.Len() }

// memoryBytes reports the size of the tables.
func (w *contentWindow) memoryBytes() int { return w.newer.MemoryBytes() + w.old.MemoryBytes() }
