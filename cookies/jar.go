package cookies

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/publicsuffix"
)

// Default bounds of a [Jar], after RFC 6265 section 6.1 and what browsers
// keep.
const (
	// DefaultPerSite is the number of cookies kept for one site, the
	// registrable domain (eTLD+1) of the cookies' domain.
	DefaultPerSite = 50
	// DefaultCookieBytes is the size of the largest cookie kept: its
	// Set-Cookie value as received, name, value and attributes.
	DefaultCookieBytes = 4096
	// DefaultTotal is the number of cookies kept in all.
	DefaultTotal = 3000
)

// Limits bounds what a [Jar] keeps. As everywhere in this SDK, a field's 0
// means its default and a negative value no bound.
type Limits struct {
	// PerSite bounds the cookies of one site, the registrable domain
	// (eTLD+1) of their domain, as browsers count: example.com,
	// a.example.com and b.example.com are one site; an IP address or a
	// host that is itself a public suffix is a site of its own. When a new
	// cookie finds its site full, the site's expired cookies go first,
	// then its least recently used. 0 means DefaultPerSite.
	PerSite int
	// CookieBytes is the size of the largest cookie kept, counted as its
	// Set-Cookie header value as received (the cookie's Raw text, or its
	// String when it has none); a larger cookie is refused. 0 means
	// DefaultCookieBytes.
	CookieBytes int
	// Total bounds the cookies kept in all; the least recently used go
	// first. 0 means DefaultTotal.
	Total int
}

func bound(n, def int) int {
	switch {
	case n == 0:
		return def
	case n < 0:
		return int(^uint(0) >> 1)
	}
	return n
}

// Entry is a stored cookie with every attribute the jar keeps (RFC 6265
// section 5.3), as [Jar.Export] gives it and [Jar.Import] takes it: what a
// durable store keeps of a jar.
type Entry struct {
	Name, Value string
	// Domain is the host (HostOnly) or the domain the cookie is sent to,
	// in lower case and without a leading dot.
	Domain string
	// HostOnly says the cookie goes to Domain only, not its subdomains: it
	// had no Domain attribute.
	HostOnly bool
	Path     string // starts with "/"
	Secure   bool   // sent over https only
	HttpOnly bool   // kept, and sent: a crawler is no script
	SameSite http.SameSite
	// Expires is when the cookie expires; the zero time means a session
	// cookie, which lives as long as the jar (and its durable copy).
	Expires time.Time
	// Created is when the cookie was first stored; replacing it keeps
	// the time. It orders cookies of equal path length in a Cookie header.
	Created time.Time
	// LastAccess is when the cookie was last stored or sent; the least
	// recently used go first when a bound is reached.
	LastAccess time.Time
	// Size is the bytes the cookie counts against Limits.CookieBytes; 0
	// in an Entry given to Import means len(Name)+len(Value).
	Size int
}

// expired reports whether e has an expiry time not after now.
func (e *Entry) expired(now time.Time) bool {
	return !e.Expires.IsZero() && !e.Expires.After(now)
}

type key struct{ domain, path, name string }

// cookie is an Entry in the jar: in its site's map, and in the jar's
// list from least to most recently used.
type cookie struct {
	Entry
	site       string
	seq        uint64 // creation order, to order cookies created in the same instant
	tick       uint64 // order of last access
	prev, next *cookie
}

// Jar is an [http.CookieJar] implementing RFC 6265's storage model
// (section 5.3) and Cookie header (section 5.4), bounded as section 6.1
// allows (see [Limits]), whose cookies can be enumerated ([Jar.Export],
// [Jar.Host]) and restored ([Jar.Import]) so that a crawl's durable state
// keeps its sessions.
//
// It is its own code rather than net/http/cookiejar, which keeps every
// cookie a site sends, with no bound, and cannot list what it holds.
//
// A Domain attribute naming a public suffix (by
// golang.org/x/net/publicsuffix), or a domain the request's host is not
// in, refuses the cookie; a Secure cookie set over http is refused, as
// browsers do (RFC 6265bis). Max-Age wins over Expires; a Max-Age of 0 or
// less, or an Expires in the past, deletes the cookie of the same name,
// domain and path. Cookies of URLs other than http and https are neither
// kept nor sent.
//
// The zero value is ready to use, with the default limits. A Jar is safe
// for concurrent use; set its fields before the first use and do not
// change them after. Its memory is bounded by Limits whatever sites send:
// at most Total cookies of at most CookieBytes each, and a Cookie header
// holds the cookies of one site, so at most PerSite of them.
type Jar struct {
	Limits Limits
	// Now returns the current time. Nil means time.Now.
	Now func() time.Time

	mu         sync.Mutex
	sites      map[string]map[key]*cookie // by site (eTLD+1)
	n          int
	seq, tick  uint64
	changes    uint64  // cookies set, replaced or removed (see Changes)
	head, tail *cookie // least and most recently used
}

var _ http.CookieJar = (*Jar)(nil)

func (j *Jar) now() time.Time {
	if j.Now != nil {
		return j.Now()
	}
	return time.Now()
}

// Len returns the number of cookies in the jar, expired ones not yet
// dropped included. It is O(1).
func (j *Jar) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.n
}

// canonicalHost returns the host of u in lower case, without port or
// final dot, or "" if u is neither http nor https.
func canonicalHost(u *url.URL) string {
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
}

// siteOf returns the registrable domain of host (eTLD+1), or host itself
// when it is an IP address or has none.
func siteOf(host string) string {
	if isIP(host) {
		return host
	}
	s, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return s
}

func isIP(host string) bool { return net.ParseIP(host) != nil }

// domainMatch reports whether host domain-matches domain (RFC 6265
// section 5.1.3): equal, or a subdomain of it when host is a name.
func domainMatch(host, domain string) bool {
	if host == domain {
		return true
	}
	return len(host) > len(domain) && host[len(host)-len(domain)-1] == '.' &&
		strings.HasSuffix(host, domain) && !isIP(host)
}

// pathMatch reports whether the request path p path-matches cookie path
// cp (RFC 6265 section 5.1.4).
func pathMatch(p, cp string) bool {
	if !strings.HasPrefix(p, cp) {
		return false
	}
	return len(p) == len(cp) || cp[len(cp)-1] == '/' || p[len(cp)] == '/'
}

// defaultPath returns the default-path of a request path (RFC 6265
// section 5.1.4): up to, not including, its last slash, or "/".
func defaultPath(p string) string {
	if p == "" || p[0] != '/' {
		return "/"
	}
	i := strings.LastIndexByte(p, '/')
	if i == 0 {
		return "/"
	}
	return p[:i]
}

// requestPath returns the path of u as a Cookie or Set-Cookie sees it.
func requestPath(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		return "/"
	}
	return p
}

// SetCookies stores the cookies of a response to a request for u, as RFC
// 6265 section 5.3 says, within the jar's Limits: a cookie too large, or
// whose Domain the request's host may not set, is refused; one that is
// expired deletes the cookie it would replace.
func (j *Jar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	host := canonicalHost(u)
	if host == "" || len(cookies) == 0 {
		return
	}
	now := j.now()
	secure := u.Scheme == "https"
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, c := range cookies {
		e, ok := j.entry(c, host, requestPath(u), secure, now)
		if ok {
			j.store(e, now)
		}
	}
}

// entry turns c, received from host for a request of path, into an Entry,
// or reports it refused.
func (j *Jar) entry(c *http.Cookie, host, path string, secure bool, now time.Time) (Entry, bool) {
	size := len(c.Raw)
	if size == 0 {
		size = len(c.String())
	}
	if c.Name == "" || size > bound(j.Limits.CookieBytes, DefaultCookieBytes) || c.Secure && !secure {
		return Entry{}, false
	}
	e := Entry{
		Name: c.Name, Value: c.Value, Path: c.Path,
		Secure: c.Secure, HttpOnly: c.HttpOnly, SameSite: c.SameSite, Size: size,
	}
	domain := strings.TrimPrefix(strings.ToLower(c.Domain), ".")
	switch {
	case domain == "" || domain == host:
		e.Domain, e.HostOnly = host, true
	case isIP(host):
		return Entry{}, false // an IP address sets host-only cookies only
	case !domainMatch(host, domain):
		return Entry{}, false
	case isPublicSuffix(domain):
		return Entry{}, false // a public suffix, not the host: refused
	default:
		e.Domain = domain
	}
	if e.Path == "" || e.Path[0] != '/' {
		e.Path = defaultPath(path)
	}
	switch {
	case c.MaxAge < 0:
		e.Expires = time.Unix(0, 0) // Max-Age=0 or less: expired
	case c.MaxAge > 0:
		e.Expires = now.Add(time.Duration(c.MaxAge) * time.Second)
	case !c.Expires.IsZero():
		e.Expires = c.Expires
		if !e.Expires.After(time.Unix(0, 0)) {
			e.Expires = time.Unix(0, 0)
		}
	}
	return e, true
}

// store puts e in the jar in place of a cookie of the same name, domain
// and path, keeping that one's creation time, or deletes that cookie if
// e has expired; then it applies the bounds. j.mu is held.
func (j *Jar) store(e Entry, now time.Time) {
	j.changes++
	site := siteOf(e.Domain)
	k := key{e.Domain, e.Path, e.Name}
	m := j.sites[site]
	old := m[k]
	if e.expired(now) {
		if old != nil {
			j.remove(old)
		}
		return
	}
	if e.LastAccess.IsZero() {
		e.LastAccess = now
	}
	if old != nil {
		e.Created = old.Created
		old.Entry = e
		j.touch(old)
		return
	}
	if j.sites == nil {
		j.sites = map[string]map[key]*cookie{}
	}
	if m == nil {
		m = map[key]*cookie{}
		j.sites[site] = m
	}
	if e.Created.IsZero() {
		e.Created = now
	}
	j.seq++
	c := &cookie{Entry: e, site: site, seq: j.seq}
	m[k] = c
	j.n++
	j.touch(c)
	if perSite := bound(j.Limits.PerSite, DefaultPerSite); len(m) > perSite {
		for _, o := range m {
			if o.expired(now) {
				j.remove(o)
			}
		}
		for len(m) > perSite {
			var lru *cookie
			for _, o := range m {
				if lru == nil || o.tick < lru.tick {
					lru = o
				}
			}
			j.remove(lru)
		}
	}
	for total := bound(j.Limits.Total, DefaultTotal); j.n > total; {
		j.remove(j.head)
	}
}

// touch makes c the most recently used. j.mu is held.
func (j *Jar) touch(c *cookie) {
	j.tick++
	c.tick = j.tick
	if j.tail == c {
		return
	}
	if c.prev != nil || j.head == c {
		j.unlink(c)
	}
	c.prev, c.next = j.tail, nil
	if j.tail != nil {
		j.tail.next = c
	} else {
		j.head = c
	}
	j.tail = c
}

func (j *Jar) unlink(c *cookie) {
	if c.prev != nil {
		c.prev.next = c.next
	} else {
		j.head = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	} else {
		j.tail = c.prev
	}
	c.prev, c.next = nil, nil
}

// remove drops c from the jar. j.mu is held.
func (j *Jar) remove(c *cookie) {
	j.changes++
	j.unlink(c)
	m := j.sites[c.site]
	delete(m, key{c.Domain, c.Path, c.Name})
	if len(m) == 0 {
		delete(j.sites, c.site)
	}
	j.n--
}

// Cookies returns the cookies to send in a request for u, in the order
// of RFC 6265 section 5.4: longer paths first, then earlier created. It
// marks them used now, and drops the expired cookies of u's site.
func (j *Jar) Cookies(u *url.URL) []*http.Cookie {
	host := canonicalHost(u)
	if host == "" {
		return nil
	}
	now := j.now()
	path := requestPath(u)
	https := u.Scheme == "https"
	j.mu.Lock()
	defer j.mu.Unlock()
	m := j.sites[siteOf(host)]
	sel := make([]*cookie, 0, len(m))
	for _, c := range m {
		switch {
		case c.expired(now):
			j.remove(c)
		case c.HostOnly && c.Domain != host, !c.HostOnly && !domainMatch(host, c.Domain),
			c.Secure && !https, !pathMatch(path, c.Path):
		default:
			sel = append(sel, c)
		}
	}
	slices.SortFunc(sel, func(a, b *cookie) int {
		if c := cmp.Compare(len(b.Path), len(a.Path)); c != 0 {
			return c
		}
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	out := make([]*http.Cookie, len(sel))
	cs := make([]http.Cookie, len(sel)) // one allocation for all
	for i, c := range sel {
		c.LastAccess = now
		j.touch(c)
		cs[i] = http.Cookie{Name: c.Name, Value: c.Value}
		out[i] = &cs[i]
	}
	return out
}

// Changes returns a number that grows whenever a cookie is set, replaced
// or removed (sending cookies does not change it), so that a durable
// store keeps the jar only when it changed since it last did.
func (j *Jar) Changes() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.changes
}

// Export returns a copy of every cookie in the jar that has not expired,
// from the least to the most recently used, for a durable store to keep;
// [Jar.Import] restores them. It does not change their last access.
func (j *Jar) Export() []Entry {
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]Entry, 0, j.n)
	for c := j.head; c != nil; c = c.next {
		if !c.expired(now) {
			out = append(out, c.Entry)
		}
	}
	return out
}

// Host returns a copy of the cookies of the jar that a request to host
// could be sent (whatever its path and scheme), those of host's
// registrable domain included: what a crawl moving host elsewhere (a
// cluster's partition) hands over. It does not change their last access.
func (j *Jar) Host(host string) []Entry {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	now := j.now()
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []Entry
	for _, c := range j.sites[siteOf(host)] {
		if !c.expired(now) && (c.HostOnly && c.Domain == host || !c.HostOnly && domainMatch(host, c.Domain)) {
			out = append(out, c.Entry)
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return a.LastAccess.Compare(b.LastAccess) })
	return out
}

// Delete removes from the jar the cookies of the same name, domain and
// path as entries (Domain compared in lower case, without a leading dot),
// as a Set-Cookie that expires them would; entries the jar does not hold
// are ignored. A crawl that gives hosts up to another process (a
// cluster's partition moving, see [Jar.Host]) deletes their cookies so.
func (j *Jar) Delete(entries []Entry) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, e := range entries {
		domain := strings.TrimPrefix(strings.ToLower(e.Domain), ".")
		if c := j.sites[siteOf(domain)][key{domain, e.Path, e.Name}]; c != nil {
			j.remove(c)
		}
	}
}

// Import stores entries, as exported by [Jar.Export] or read by
// [ReadNetscape], in the order of their LastAccess (entries without one
// count as used now), each replacing a cookie of the same name, domain
// and path and subject to the jar's Limits. Expired entries are skipped.
// An entry the jar would refuse from a server (no name or domain, a path
// not starting with "/", a domain that is a public suffix and not
// HostOnly, too large) is skipped too, and named in the error, which
// joins one error for each; the others are stored all the same.
func (j *Jar) Import(entries []Entry) error {
	now := j.now()
	sorted := slices.Clone(entries)
	slices.SortStableFunc(sorted, func(a, b Entry) int {
		return cmp.Or(a.LastAccess, now).Compare(cmp.Or(b.LastAccess, now))
	})
	maxBytes := bound(j.Limits.CookieBytes, DefaultCookieBytes)
	var errs []error
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, e := range sorted {
		e.Domain = strings.TrimPrefix(strings.ToLower(e.Domain), ".")
		if e.Size == 0 {
			e.Size = len(e.Name) + len(e.Value)
		}
		var why string
		switch {
		case e.Name == "":
			why = "no name"
		case e.Domain == "":
			why = "no domain"
		case e.Path == "" || e.Path[0] != '/':
			why = fmt.Sprintf("path %q does not start with /", e.Path)
		case e.Size > maxBytes:
			why = fmt.Sprintf("%d bytes, above the limit of %d", e.Size, maxBytes)
		case !e.HostOnly && isIP(e.Domain):
			why = "an IP address as a domain cookie's domain"
		case !e.HostOnly && isPublicSuffix(e.Domain):
			why = "a public suffix as a domain cookie's domain"
		}
		if why != "" {
			errs = append(errs, fmt.Errorf("cookies: cookie %q of %q refused: %s", e.Name, e.Domain, why))
			continue
		}
		if e.expired(now) {
			continue
		}
		j.store(e, now)
	}
	return errors.Join(errs...)
}

func isPublicSuffix(domain string) bool {
	ps, _ := publicsuffix.PublicSuffix(domain)
	return ps == domain
}
