package canon

import (
	"net"
	"strings"
)

// InDomains reports whether host, the host[:port] of a canonical URL, is
// one of domains or a subdomain of one ("www.example.com" is in
// "example.com"). The domains are lower-case, without a trailing dot.
func InDomains(host string, domains []string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	for _, d := range domains {
		if host == d || strings.HasSuffix(host, d) && host[len(host)-len(d)-1] == '.' {
			return true
		}
	}
	return false
}
