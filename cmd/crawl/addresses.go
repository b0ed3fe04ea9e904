package main

import (
	"crawler/fetch"
	"flag"
	"fmt"
	"net/netip"
	"strings"
)

// addressFlags are the exceptions to the fetcher's refusal of loopback,
// private and other special-purpose addresses (fetch.AddressPolicy).
type addressFlags struct {
	policy fetch.AddressPolicy
}

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
// '-', '_' and dots, and not empty.
func validHostName(s string) bool {
	if s == "" || strings.Contains(s, "..") || strings.HasPrefix(s, ".") {
		return false
	}
	for _, c := range s {
		if !(c == '.' || c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}
