package sites

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"crawler/canon"
)

// Rules is a loaded sites file: the entries, and what finds the effective
// settings for a URL. Build one with [Load] or [LoadFile]. A Rules is
// read-only once loaded: its methods are safe for concurrent use. The zero
// value and nil have no entries (every lookup returns an empty Site).
type Rules struct {
	sites []Site            // as loaded, in file order
	hosts map[string]*entry // by lower-case host name (no port, no brackets)
}

// entry holds, for one host name, the entries whose match names it.
type entry struct {
	prefixes []prefix        // URL prefixes on this host, longest path first
	ports    map[string]Site // host:port matches, by port; effective
	host     *Site           // the host match; effective
	domain   *Site           // the *.host match; effective
}

type prefix struct {
	scheme, port, path string
	site               Site // effective
}

// kind of a match, from least to most specific.
type kind int

const (
	domainMatch kind = iota // *.example.com
	hostMatch               // example.com
	portMatch               // example.com:8080
	prefixMatch             // https://example.com/docs/
)

// pattern is a parsed match.
type pattern struct {
	kind         kind
	host         string // lower-case, Punycode, no brackets
	scheme, port string // prefixMatch: both; portMatch: port
	path         string // prefixMatch: escaped, from "/"
}

// parseMatch parses a match: a host (port allowed), "*.domain", or an
// http(s) URL prefix. Hosts are canonicalized as the canon package does.
func parseMatch(m string) (pattern, error) {
	var c canon.Canonicalizer
	if m == "" {
		return pattern{}, errors.New(`is empty (a host, "*.domain" or a URL prefix)`)
	}
	if strings.Contains(m, "://") {
		if strings.ContainsAny(m, "?#") {
			return pattern{}, fmt.Errorf("%q: a URL prefix has no query or fragment", m)
		}
		u, err := url.Parse(m)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.User != nil || u.Host == "" {
			return pattern{}, fmt.Errorf("%q is not an http(s) URL prefix (e.g. \"https://example.com/docs/\")", m)
		}
		cu, err := c.Canonical(m)
		if err != nil {
			return pattern{}, fmt.Errorf("%q: %v", m, err)
		}
		p, _ := canon.PathQuery(cu)
		pu, err := url.Parse(cu)
		if err != nil {
			return pattern{}, fmt.Errorf("%q: %v", m, err)
		}
		host := strings.TrimSuffix(pu.Hostname(), ".")
		if host == "" { // "http://./": a host's trailing dot is not looked up
			return pattern{}, fmt.Errorf("%q is not an http(s) URL prefix (e.g. \"https://example.com/docs/\")", m)
		}
		return pattern{kind: prefixMatch, scheme: pu.Scheme, host: host, port: portOf(pu), path: p}, nil
	}
	kindOf, h := hostMatch, m
	if rest, ok := strings.CutPrefix(m, "*."); ok {
		kindOf, h = domainMatch, rest
	}
	if strings.ContainsAny(h, "/?#@*\\ ") {
		return pattern{}, fmt.Errorf(`%q is not a host, "*.domain" or URL prefix`, m)
	}
	_, port, err := net.SplitHostPort(h)
	if err == nil && kindOf == domainMatch {
		return pattern{}, fmt.Errorf("%q: a *.domain match has no port", m)
	}
	if strings.Trim(port, "0123456789") != "" { // "a:\t": the URL parser drops tabs, so that the port would not be checked
		return pattern{}, fmt.Errorf("%q is not a host: port %q", m, port)
	}
	cu, err := c.Canonical("http://" + h + "/")
	if err != nil {
		return pattern{}, fmt.Errorf("%q is not a host: %v", m, err)
	}
	pu, err := url.Parse(cu)
	if err != nil {
		return pattern{}, fmt.Errorf("%q: %v", m, err)
	}
	p := pattern{kind: kindOf, host: strings.TrimSuffix(pu.Hostname(), ".")}
	if p.host == "" { // ".", "*..": a host's trailing dot is not looked up
		return pattern{}, fmt.Errorf(`%q is not a host, "*.domain" or URL prefix`, m)
	}
	if port != "" {
		p.kind, p.port = portMatch, strings.TrimLeft(port, "0")
		if p.port == "" {
			return pattern{}, fmt.Errorf("%q: port 0", m)
		}
	}
	return p, nil
}

// portOf returns u's port, or its scheme's default.
func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

func absoluteHTTP(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// compile builds the lookup structures, each entry's effective settings
// merged over those of the entries less specific than it that match every
// URL it matches (a chain: shorter prefixes, then host:port, host and the
// *.domains up from the host).
func compile(name string, sites []Site, matchLines []int) (*Rules, error) {
	r := &Rules{sites: sites, hosts: map[string]*entry{}}
	pats := make([]pattern, len(sites))
	seen := map[pattern]int{}
	for i, s := range sites {
		pats[i], _ = parseMatch(s.Match) // checked by the loader
		if j, ok := seen[pats[i]]; ok {
			return nil, &Error{File: name, Line: matchLines[i], Key: "site.match",
				Err: fmt.Errorf("%q matches what %q (line %d) does", s.Match, sites[j].Match, matchLines[j])}
		}
		seen[pats[i]] = i
		if pats[i].kind == prefixMatch && (s.Delay != nil || s.PerHost != nil) {
			return nil, &Error{File: name, Line: matchLines[i], Key: "site.match",
				Err: fmt.Errorf("%q is a URL prefix: delay and per_host apply to a whole host (match it as a host)", s.Match)}
		}
	}
	// Less specific first, so that each entry's parent is compiled before it.
	order := make([]int, len(sites))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		pa, pb := pats[a], pats[b]
		return cmp.Or(cmp.Compare(pa.kind, pb.kind), cmp.Compare(len(pa.host), len(pb.host)), cmp.Compare(len(pa.path), len(pb.path)))
	})
	for _, i := range order {
		p, s := pats[i], sites[i]
		e := r.hosts[p.host]
		if e == nil {
			e = &entry{}
			r.hosts[p.host] = e
		}
		switch p.kind {
		case domainMatch:
			s = merge(r.domain(parentDomain(p.host)), s)
			e.domain = &s
		case hostMatch:
			s = merge(r.domain(p.host), s)
			e.host = &s
		case portMatch:
			s = merge(r.hostLevel(p.host, p.port), s)
			if e.ports == nil {
				e.ports = map[string]Site{}
			}
			e.ports[p.port] = s
		case prefixMatch:
			s = merge(r.lookup(p.scheme, p.host, p.port, p.path), s)
			// Longest first: the next prefix compiled finds its parent first.
			e.prefixes = append(e.prefixes, prefix{p.scheme, p.port, p.path, s})
			slices.SortStableFunc(e.prefixes, func(a, b prefix) int { return cmp.Compare(len(b.path), len(a.path)) })
		}
	}
	return r, nil
}

// parentDomain returns host without its first label, or "".
func parentDomain(host string) string {
	if i := strings.IndexByte(host, '.'); i >= 0 {
		return host[i+1:]
	}
	return ""
}

// domain returns the effective settings of the longest *.domain match
// of host (host itself or one of its parent domains).
func (r *Rules) domain(host string) Site {
	for h := host; h != ""; h = parentDomain(h) {
		if e := r.hosts[h]; e != nil && e.domain != nil {
			return *e.domain
		}
	}
	return Site{}
}

// hostLevel returns the effective settings of host on port, leaving URL
// prefixes out; port "" matches no host:port entry.
func (r *Rules) hostLevel(host, port string) Site {
	if e := r.hosts[host]; e != nil {
		if s, ok := e.ports[port]; ok && port != "" {
			return s
		}
		if e.host != nil {
			return *e.host
		}
	}
	return r.domain(host)
}

// lookup returns the effective settings for a URL by its parts.
func (r *Rules) lookup(scheme, host, port, path string) Site {
	if e := r.hosts[host]; e != nil {
		for i := range e.prefixes {
			p := &e.prefixes[i]
			if p.port == port && p.scheme == scheme && strings.HasPrefix(path, p.path) {
				return p.site
			}
		}
	}
	return r.hostLevel(host, port)
}

// For returns the effective settings for u: those of the most specific
// entry that matches u, each field it leaves unset taken from the next
// most specific, and so on. From most to least specific: a URL prefix
// (the longer first), the host with u's port (the scheme's default when u
// has none), the host, then "*.domain" entries, the longer domain first.
// Fields no entry sets are unset (the crawl's defaults apply).
//
// Hosts match case-insensitively; u is best canonical (see crawler/canon):
// For then does not allocate. A URL prefix matches u's escaped path.
func (r *Rules) For(u *url.URL) Site {
	if r == nil || len(r.hosts) == 0 {
		return Site{}
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	scheme := u.Scheme
	if !lower(scheme) {
		scheme = strings.ToLower(scheme)
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if scheme == "https" {
			port = "443"
		}
	}
	return r.lookup(scheme, hostName(u.Hostname()), port, path)
}

// ForHost returns the effective settings for a host, as the pacing of
// requests wants them (delay, per_host): the entries that match a host
// (host:port, host, *.domain), leaving URL prefixes out. host is
// host[:port], as in a canonical URL: a host:port entry applies only when
// host names that port.
func (r *Rules) ForHost(host string) Site {
	if r == nil || len(r.hosts) == 0 {
		return Site{}
	}
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		name, port = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), ""
	}
	return r.hostLevel(hostName(name), port)
}

// hostName returns a host name lower-cased and without a trailing dot,
// allocating only when it has upper-case letters.
func hostName(h string) string {
	h = strings.TrimSuffix(h, ".")
	if !lower(h) {
		h = strings.ToLower(h)
	}
	return h
}

func lower(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return false
		}
	}
	return true
}

// Allowed reports whether the entries let the crawl fetch u, by the
// effective allow and deny path prefixes (see [Rules.For]), as robots.txt
// rules: the longest prefix that u's escaped path starts with decides,
// deny winning over allow at equal length, and a path no prefix matches
// is allowed. To crawl only /docs/: deny = ["/"], allow = ["/docs/"].
func (r *Rules) Allowed(u *url.URL) bool {
	s := r.For(u)
	if s.Allow == nil && s.Deny == nil {
		return true
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return allowedPath(s, path)
}

// allowedPath reports whether s's allow and deny prefixes let path be
// fetched (see Rules.Allowed).
func allowedPath(s Site, path string) bool {
	best, allowed := -1, true
	for _, p := range s.Allow {
		if len(p) > best && strings.HasPrefix(path, p) {
			best, allowed = len(p), true
		}
	}
	for _, p := range s.Deny {
		if len(p) >= best && strings.HasPrefix(path, p) {
			best, allowed = len(p), false
		}
	}
	return allowed
}

// Sites returns the entries as loaded, in file order (each with only
// its own fields set). The slice is the caller's; the Sites share their
// maps and pointers with r.
func (r *Rules) Sites() []Site {
	if r == nil {
		return nil
	}
	return slices.Clone(r.sites)
}

// Len returns the number of entries.
func (r *Rules) Len() int {
	if r == nil {
		return 0
	}
	return len(r.sites)
}
