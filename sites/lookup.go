package sites

import (
	"net"
	"strings"
	"time"
)

// ForURL is For for a URL as a string: best canonical (see crawler/canon),
// "scheme://host[:port]/path?query", which it reads without parsing or
// allocating. A string that is not an absolute http(s) URL matches no
// entry.
func (r *Rules) ForURL(u string) Site {
	if r == nil || len(r.hosts) == 0 {
		return Site{}
	}
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return Site{}
	}
	if !lower(scheme) {
		scheme = strings.ToLower(scheme)
	}
	authority, path := rest, "/"
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	if path == "" {
		path = "/"
	}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	host, port, err := net.SplitHostPort(authority)
	if err != nil {
		host, port = strings.TrimSuffix(strings.TrimPrefix(authority, "["), "]"), ""
	}
	if port == "" {
		port = "80"
		if scheme == "https" {
			port = "443"
		}
	}
	return r.lookup(scheme, hostName(host), port, path)
}

// AllowedURL is Allowed for a URL as a string (see ForURL).
func (r *Rules) AllowedURL(u string) bool {
	s := r.ForURL(u)
	if s.Allow == nil && s.Deny == nil {
		return true
	}
	return allowedPath(s, pathOf(u))
}

// pathOf returns the escaped path of an absolute URL string, "/" if none.
func pathOf(u string) string {
	_, rest, _ := strings.Cut(u, "://")
	i := strings.IndexAny(rest, "/?#")
	if i < 0 || rest[i] != '/' {
		return "/"
	}
	path := rest[i:]
	if j := strings.IndexAny(path, "?#"); j >= 0 {
		path = path[:j]
	}
	return path
}

// IgnoresRobots reports whether the entries for u say ignore_robots.
func (r *Rules) IgnoresRobots(u string) bool {
	s := r.ForURL(u)
	return s.IgnoreRobots != nil && *s.IgnoreRobots
}

// IgnoreQuery returns the query parameter names dropped from u (its
// ignore_query), given u up to its query, as canon.Canonicalizer's
// IgnoreParams hook asks.
func (r *Rules) IgnoreQuery(u string) []string {
	return r.ForURL(u).IgnoreQuery
}

// HostDelay returns the delay the entries set for a host (host[:port]),
// as politeness.Hosts.DelayHosts asks; ok is false where none does.
func (r *Rules) HostDelay(host string) (d time.Duration, ok bool) {
	if s := r.ForHost(host); s.Delay != nil {
		return *s.Delay, true
	}
	return 0, false
}

// HostLimit returns the requests in flight the entries allow a host
// (host[:port]), as frontier.HostLimiter asks; 0 where none sets it.
func (r *Rules) HostLimit(host string) int {
	if s := r.ForHost(host); s.PerHost != nil {
		return *s.PerHost
	}
	return 0
}
