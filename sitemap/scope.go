package sitemap

import (
	"cmp"
	"net/url"
	"strings"
)

// Allowed reports whether the sitemap at sitemap may list loc, by the
// protocol's rule: loc has the sitemap's scheme, host and port, and a
// path under the sitemap's directory (a sitemap at /catalog/sitemap.xml
// may list /catalog/… only). A sitemap that a robots.txt lists may list
// any URL of that robots.txt's origin too: robotsOrigin is it
// ("https://example.com", or "https://example.com:8443"), or "" for a
// sitemap found otherwise. The sitemaps of an index found through
// robots.txt inherit its robotsOrigin.
func Allowed(sitemap, loc *url.URL, robotsOrigin string) bool {
	return allowedIn(loc, dirOf(sitemap), robotsOrigin)
}

// allowedIn is Allowed for a sitemap whose directory, as dirOf gives it,
// is dir.
func allowedIn(loc *url.URL, dir, robotsOrigin string) bool {
	if robotsOrigin != "" && loc.Opaque == "" && loc.User == nil && Origin(loc) == robotsOrigin {
		return true
	}
	return dir != "" && under(loc, dir)
}

// dirOf returns the origin and directory of u, the URL of a sitemap:
// "http://example.com/maps/" for http://example.com/maps/index.xml; ""
// if u is not an absolute http(s) URL.
func dirOf(u *url.URL) string {
	o := Origin(u)
	if o == "" {
		return ""
	}
	p := u.EscapedPath()
	return o + cmp.Or(p[:strings.LastIndexByte(p, '/')+1], "/")
}

// under reports whether loc is an absolute http(s) URL with no user
// info, under dir, a directory as dirOf gives it.
func under(loc *url.URL, dir string) bool {
	if loc.Opaque != "" || loc.User != nil {
		return false
	}
	o := Origin(loc)
	p := loc.EscapedPath()
	if p == "" {
		p = "/"
	}
	return o != "" && strings.HasPrefix(o+p, dir)
}

// Origin returns u's scheme, host and port, lower-cased and without the
// scheme's default port ("http://example.com"), or "" if u is not an
// absolute http or https URL.
func Origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	if (scheme != "http" && scheme != "https") || u.Host == "" {
		return ""
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" || (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		return scheme + "://" + host
	}
	return scheme + "://" + host + ":" + port
}
