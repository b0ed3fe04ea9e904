package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync"

	"crawler"
	"crawler/fetch"
)

// addressFlags are the exceptions to the fetcher's refusal of loopback,
// private and other special-purpose addresses (fetch.AddressPolicy).
type addressFlags struct {
	policy fetch.AddressPolicy
}

// register binds -allow-private and -allow to a.
func (a *addressFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&a.policy.AllowPrivate, "allow-private", false, "allow fetching from every address, loopback, private and link-local included (only for crawls of your own network)")
	fs.Func("allow", "allow these addresses although special-purpose: comma-separated networks (10.1.0.0/16), addresses (10.1.2.3), address:port (127.0.0.1:8080) and host names (intranet.example.com); repeatable", a.add)
}

// add parses the entries of one -allow flag into the policy.
func (a *addressFlags) add(list string) error {
	for s := range strings.SplitSeq(list, ",") {
		s = strings.TrimSpace(s)
		p := &a.policy
		if pr, err := netip.ParsePrefix(s); err == nil {
			p.Allow = append(p.Allow, pr.Masked())
		} else if ip, err := netip.ParseAddr(s); err == nil {
			p.Allow = append(p.Allow, netip.PrefixFrom(ip, ip.BitLen()))
		} else if ap, err := netip.ParseAddrPort(s); err == nil {
			p.AllowAddrPorts = append(p.AllowAddrPorts, ap)
		} else if validHostName(s) {
			p.AllowHosts = append(p.AllowHosts, s)
		} else {
			return fmt.Errorf("%q is not a network, address, address:port or host name", s)
		}
	}
	return nil
}

// validHostName reports whether s looks like a DNS name: letters, digits,
// '-', '_' and dots, and not empty. A name whose last label begins with a
// digit is not one: URLs read it as an IPv4 address ("300.1.1.1" is an
// invalid one, not a name).
func validHostName(s string) bool {
	if s == "" || strings.Contains(s, "..") || strings.HasPrefix(s, ".") {
		return false
	}
	last := strings.TrimSuffix(s, ".")
	last = last[strings.LastIndex(last, ".")+1:]
	if last == "" || '0' <= last[0] && last[0] <= '9' {
		return false
	}
	for _, c := range s {
		if !(c == '.' || c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// seedHint is a Handler that, the first time a seed is refused for its
// address (loopback, private, ...), writes to w how to allow it.
type seedHint struct {
	once sync.Once
	w    io.Writer
}

// Handle writes the hint if p is a seed refused for its address, and no
// hint was written before.
func (h *seedHint) Handle(_ context.Context, p *crawler.Page) error {
	if p.Referrer == "" && errors.Is(p.Err, fetch.ErrBlockedAddress) {
		h.once.Do(func() { fmt.Fprintln(h.w, "crawl:", allowHint(p.URL)) })
	}
	return nil
}

// allowHint tells how to allow the refused seed u (a canonical URL):
// -allow with its address and port, or with its host name if it has one
// (the name is what is allowed then, whatever it resolves to), or
// -allow-private.
func allowHint(u string) string {
	allow := "ADDR:PORT"
	if pu, err := url.Parse(u); err == nil {
		allow = allowEntry(pu)
	}
	return fmt.Sprintf("seed %s was refused: its address is loopback, private or otherwise special-purpose; "+
		"to crawl it, give -allow %s (before the URLs), or -allow-private to allow every address", shortURL(u), allow)
}

// allowEntry is the -allow entry that allows u: its address and port
// (the scheme's default port if none), or its host name.
func allowEntry(u *url.URL) string {
	ip, err := netip.ParseAddr(u.Hostname())
	if err != nil {
		return u.Hostname()
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(ip.String(), port)
}
