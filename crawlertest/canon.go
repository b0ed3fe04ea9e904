package crawlertest

import (
	"net/url"
	"strconv"
	"strings"
)

// hostIndex returns the index of virtual host name h ("h3.crawler.test",
// any case, optionally with port 80), or -1 if h is not one of the web's
// hosts. It does not allocate.
func (g *gen) hostIndex(h string) int {
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		if p := h[i+1:]; p != "" && p != "80" {
			return -1
		}
		h = h[:i]
	}
	if len(h) <= len(domain)+1 || !strings.EqualFold(h[len(h)-len(domain):], domain) {
		return -1
	}
	name := h[:len(h)-len(domain)]
	if name[0] != 'h' && name[0] != 'H' {
		return -1
	}
	n, ok := num(name[1:], g.hosts)
	if !ok {
		return -1
	}
	return int(n)
}

// hasDotSegment reports whether path p has a "." or ".." segment.
func hasDotSegment(p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] != '.' || (i > 0 && p[i-1] != '/') {
			continue
		}
		j := i + 1
		if j < len(p) && p[j] == '.' {
			j++
		}
		if j == len(p) || p[j] == '/' {
			return true
		}
	}
	return false
}

// removeDotSegments removes "." and ".." segments from absolute path p as
// RFC 3986 section 5.2.4 does ("/a/b/../c/./d" is "/a/c/d"; ".." at the root
// is dropped; a trailing "." or ".." leaves a trailing slash). It returns p
// itself, without allocating, when p has no dot segment.
func removeDotSegments(p string) string {
	if !hasDotSegment(p) || p == "" || p[0] != '/' {
		return p
	}
	segs := strings.Split(p[1:], "/")
	out := segs[:0]
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, s)
			continue
		}
		if last {
			out = append(out, "")
		}
	}
	return "/" + strings.Join(out, "/")
}

// parseURL parses raw as a URL of the web and returns its host index and
// its decoded, dot-segment-free path and raw query. ok is false for other
// schemes and hosts and for unparsable input.
func (g *gen) parseURL(raw string) (host int, path, query string, ok bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Opaque != "" {
		return 0, "", "", false
	}
	host = g.hostIndex(u.Host)
	if host < 0 {
		return 0, "", "", false
	}
	path = u.Path
	if path == "" {
		path = "/"
	}
	return host, removeDotSegments(path), u.RawQuery, true
}

// isPlainPath reports whether p needs no escaping in a URL.
func isPlainPath(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !isAlnum(c) && c != '/' && c != '-' && c != '.' && c != '_' && c != '~' {
			return false
		}
	}
	return true
}

// canonicalString returns the canonical URL of host h, decoded path p and
// raw query q: "http://h<h>.crawler.test" + escaped path + ("?" + q).
func canonicalString(h int, p, q string) string {
	var sb strings.Builder
	sb.Grow(len(domain) + len(p) + len(q) + 20)
	sb.WriteString("http://h")
	sb.WriteString(strconv.Itoa(h))
	sb.WriteString(domain)
	if isPlainPath(p) {
		sb.WriteString(p)
	} else {
		sb.WriteString((&url.URL{Path: p}).EscapedPath())
	}
	if q != "" {
		sb.WriteByte('?')
		sb.WriteString(q)
	}
	return sb.String()
}
