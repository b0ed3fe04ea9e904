package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"crawler/canon"
)

// Errors of a fetch refused before anything was sent.
var (
	// ErrBlockedAddress is wrapped by the error of a fetch refused because
	// the address it would connect to is one [AddressPolicy] does not
	// allow: loopback, private, link-local and the other special-purpose
	// addresses, unless allowed. [Stats] counts these under
	// KindBlockedAddress.
	ErrBlockedAddress = errors.New("fetch: address not allowed")
	// ErrUnsupportedScheme is wrapped by the error of a fetch of a URL
	// whose scheme is not http or https.
	ErrUnsupportedScheme = errors.New("fetch: scheme not http or https")
)

// AddressPolicy says which IP addresses a fetcher may connect to, against
// server-side request forgery (SSRF): a page, a redirect or a DNS answer
// must not steer the crawler into the network it runs in, such as a cloud
// metadata service (169.254.169.254), a router's admin page or a database
// on localhost.
//
// The zero value allows the globally reachable addresses only. It refuses
// these special-purpose ones (IANA's special-purpose registries, RFC 6890):
//
//	IPv4  0.0.0.0/8 unspecified, 10/8 172.16/12 192.168/16 private,
//	      100.64/10 shared (CGNAT), 127/8 loopback, 169.254/16 link-local,
//	      192.0.0/24 IETF protocol assignments, 192.0.2/24 198.51.100/24
//	      203.0.113/24 documentation, 198.18/15 benchmarking,
//	      224/4 multicast, 240/4 reserved (255.255.255.255 included)
//	IPv6  :: unspecified, ::1 loopback, ::/96 IPv4-compatible, 100::/64
//	      discard, 64:ff9b:1::/48 local-use NAT64, 2001:2::/48
//	      benchmarking, 2001:db8::/32 3fff::/20 documentation,
//	      fc00::/7 unique-local, fe80::/10 link-local, fec0::/10
//	      site-local, ff00::/8 multicast
//
// An IPv4-mapped address (::ffff:10.0.0.1) is judged as the IPv4 address
// it maps. So are the IPv4 addresses embedded in the well-known NAT64
// prefix (64:ff9b::/96), in 6to4 (2002::/16) and in Teredo (2001::/32,
// the client's address): 64:ff9b::7f00:1 is loopback. 192.0.0.0/24 is
// refused whole, though two of its addresses (192.0.0.9 and 192.0.0.10)
// are anycast services; no crawl needs them.
//
// [HTTPFetcher] applies its policy twice. Before sending, it refuses a URL
// whose host is a literal address the policy refuses (in any spelling a
// browser accepts: "http://0x7f.1/" is 127.0.0.1) or a "localhost" name.
// Then [DNSCache.DialContext], which the transport of [NewTransport] dials
// through, checks each address a name resolves to before connecting to
// it, so the address checked is the address connected to and DNS
// rebinding cannot get around the check. A proxy the transport was given
// (http.Transport.Proxy) is trusted: it is connected to whatever its
// address, and it resolves the names of the URLs sent through it, so only
// literal addresses and localhost names are refused then. Connections
// kept alive are reused without a second check, so a transport should
// not be shared by fetchers of different policies.
//
// To check the connections of a dialer of your own, call Check from its
// Control function, which net.Dialer runs before connecting:
//
//	d := &net.Dialer{Control: func(_, address string, _ syscall.RawConn) error {
//		ap, err := netip.ParseAddrPort(address)
//		if err != nil {
//			return err
//		}
//		return policy.Check("", ap)
//	}}
//
// An AddressPolicy is safe for concurrent use; do not change its fields
// once in use.
type AddressPolicy struct {
	// Allow lists networks that may be connected to although their
	// addresses are special-purpose, such as 10.1.0.0/16; a single address
	// is a /32 (IPv4) or /128 (IPv6) prefix. IPv4 networks are matched
	// against IPv4 and IPv4-mapped addresses alike.
	Allow []netip.Prefix
	// AllowAddrPorts lists single endpoints, address and port, that may be
	// connected to, such as the loopback address of a test server.
	AllowAddrPorts []netip.AddrPort
	// AllowHosts lists host names (not addresses: see Allow) whose
	// addresses are not checked, compared without regard to letter case or
	// a trailing dot: "intranet.example.com" does not allow
	// "www.intranet.example.com". Whoever controls a name's DNS controls
	// where a name allowed here leads, so list only names of your own.
	AllowHosts []string
	// AllowPrivate, if set, allows every address, special-purpose ones
	// included. Only for crawls of your own network.
	AllowPrivate bool
}

// Check returns nil if the policy allows a connection to addr, made to
// reach host (a host name, or "" when unknown). Otherwise it returns an
// error wrapping [ErrBlockedAddress] that names the address and its class
// ("loopback", "private", ...). Check does not resolve host, and costs
// O(len of the lists).
func (p *AddressPolicy) Check(host string, addr netip.AddrPort) error {
	if p.AllowPrivate || p.allowsHost(host) {
		return nil
	}
	ip := addr.Addr().WithZone("").Unmap()
	class := addressClass(ip)
	if class == "" || p.allowsAddr(ip, addr.Port()) {
		return nil
	}
	if host != "" && host != ip.String() {
		return fmt.Errorf("%w: %s (%s) for %s", ErrBlockedAddress, netip.AddrPortFrom(ip, addr.Port()), class, host)
	}
	return fmt.Errorf("%w: %s (%s)", ErrBlockedAddress, netip.AddrPortFrom(ip, addr.Port()), class)
}

// allowsHost reports whether host is one of AllowHosts.
func (p *AddressPolicy) allowsHost(host string) bool {
	if host == "" {
		return false
	}
	host = strings.TrimSuffix(host, ".")
	for _, h := range p.AllowHosts {
		if strings.EqualFold(strings.TrimSuffix(h, "."), host) {
			return true
		}
	}
	return false
}

// allowsAddr reports whether ip (unmapped, without zone) at port is in
// Allow or AllowAddrPorts.
func (p *AddressPolicy) allowsAddr(ip netip.Addr, port uint16) bool {
	for _, n := range p.Allow {
		if n.Addr().Is4In6() && n.Bits() >= 96 {
			n = netip.PrefixFrom(n.Addr().Unmap(), n.Bits()-96)
		}
		if n.Contains(ip) {
			return true
		}
	}
	for _, ap := range p.AllowAddrPorts {
		if ap.Port() == port && ap.Addr().WithZone("").Unmap() == ip {
			return true
		}
	}
	return false
}

// checkURL refuses, before anything is sent, a URL that is not http(s),
// and one whose host is a literal address or a localhost name that the
// policy does not allow. Other names are left to the dial.
func (p *AddressPolicy) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: %q", ErrUnsupportedScheme, u.Scheme)
	}
	if p.AllowPrivate {
		return nil
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil // not a URL net/http will send
	}
	host := u.Hostname()
	if ip, ok := literalIP(u); ok {
		return p.Check("", netip.AddrPortFrom(ip, uint16(n)))
	}
	if isLocalhost(host) && !p.allowsHost(host) {
		// RFC 6761: such names are the local host's own, wherever
		// resolved (by a proxy, say). Allowed if either loopback
		// address is.
		v4 := p.Check("", netip.AddrPortFrom(loopback4, uint16(n)))
		v6 := p.Check("", netip.AddrPortFrom(netip.IPv6Loopback(), uint16(n)))
		if v4 != nil && v6 != nil {
			return fmt.Errorf("%w: %s (loopback)", ErrBlockedAddress, host)
		}
	}
	return nil
}

// literalIP returns the IP address that the host of u is, if it is one.
// Besides the usual forms, a host whose last label begins with a digit is
// read as a WHATWG URL parser (and many a resolver and proxy) reads it:
// "0x7f.1", "127.1" and "2130706433" are 127.0.0.1.
func literalIP(u *url.URL) (netip.Addr, bool) {
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip, true
	}
	if !lastLabelNumeric(host) {
		return netip.Addr{}, false
	}
	var core *canon.Canonicalizer
	c, err := core.Canonical(u.Scheme + "://" + u.Host + "/")
	if err != nil {
		return netip.Addr{}, false
	}
	hp := canon.Host(c)
	if h, _, err := net.SplitHostPort(hp); err == nil {
		hp = h
	}
	ip, err := netip.ParseAddr(hp)
	return ip, err == nil
}

var loopback4 = netip.AddrFrom4([4]byte{127, 0, 0, 1})

// lastLabelNumeric reports whether the last label of host (a trailing dot
// aside) begins with a digit, as those of the hosts that a WHATWG URL
// parser reads as IPv4 addresses do.
func lastLabelNumeric(host string) bool {
	host = strings.TrimSuffix(host, ".")
	label := host[strings.LastIndexByte(host, '.')+1:]
	return label != "" && '0' <= label[0] && label[0] <= '9'
}

// isLocalhost reports whether host is "localhost" or a name under it.
func isLocalhost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// specialNets are the special-purpose networks, each with its class.
// IPv4-mapped addresses are unmapped before they are looked up here.
var specialNets = func() []struct {
	net   netip.Prefix
	class string
} {
	table := []struct{ net, class string }{
		{"0.0.0.0/8", "unspecified"},
		{"10.0.0.0/8", "private"},
		{"100.64.0.0/10", "shared (CGNAT)"},
		{"127.0.0.0/8", "loopback"},
		{"169.254.0.0/16", "link-local"},
		{"172.16.0.0/12", "private"},
		{"192.0.0.0/24", "IETF protocol assignments"},
		{"192.0.2.0/24", "documentation"},
		{"192.168.0.0/16", "private"},
		{"198.18.0.0/15", "benchmarking"},
		{"198.51.100.0/24", "documentation"},
		{"203.0.113.0/24", "documentation"},
		{"224.0.0.0/4", "multicast"},
		{"240.0.0.0/4", "reserved"},
		{"::/128", "unspecified"},
		{"::1/128", "loopback"},
		{"::/96", "IPv4-compatible"},
		{"64:ff9b:1::/48", "local-use NAT64"},
		{"100::/64", "discard"},
		{"2001:2::/48", "benchmarking"},
		{"2001:db8::/32", "documentation"},
		{"3fff::/20", "documentation"},
		{"fc00::/7", "unique-local"},
		{"fe80::/10", "link-local"},
		{"fec0::/10", "site-local"},
		{"ff00::/8", "multicast"},
	}
	out := make([]struct {
		net   netip.Prefix
		class string
	}, len(table))
	for i, t := range table {
		out[i].net, out[i].class = netip.MustParsePrefix(t.net), t.class
	}
	return out
}()

var (
	nat64Net  = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
	teredoNet = netip.MustParsePrefix("2001::/32")
)

// addressClass returns the class of a special-purpose address ("loopback",
// "private", ...), or "" for a globally reachable one. ip is unmapped and
// has no zone.
func addressClass(ip netip.Addr) string {
	if !ip.IsValid() {
		return "invalid"
	}
	for _, s := range specialNets {
		if s.net.Contains(ip) {
			return s.class
		}
	}
	if !ip.Is6() {
		return ""
	}
	// IPv4 addresses embedded in IPv6 transition addresses.
	b := ip.As16()
	var v4 [4]byte
	var kind string
	switch {
	case nat64Net.Contains(ip):
		copy(v4[:], b[12:])
		kind = "NAT64"
	case sixToFour.Contains(ip):
		copy(v4[:], b[2:6])
		kind = "6to4"
	case teredoNet.Contains(ip):
		for i := range v4 {
			v4[i] = ^b[12+i] // the client's address, inverted
		}
		kind = "Teredo"
	default:
		return ""
	}
	if c := addressClass(netip.AddrFrom4(v4)); c != "" {
		return kind + " of " + c
	}
	return ""
}

// dialPolicyKey is the context key of a *dialPolicy: an HTTPFetcher's
// request carries its policy to the dial (http.Transport keeps the
// request context's values when it dials).
type dialPolicyKey struct{}

// dialPolicy is what a dial of an HTTPFetcher's request checks.
type dialPolicy struct {
	policy *AddressPolicy
	proxy  string // host:port of the proxy the request is sent through, trusted; "" if none
}

// defaultDialPolicy guards the dials of a transport from NewTransport
// that were not made for an HTTPFetcher.
var defaultDialPolicy = &dialPolicy{policy: &AddressPolicy{}}

// dialGuard returns the policy a dial of addr must obey, or nil if none:
// the context carries none, or addr is the request's trusted proxy.
func dialGuard(ctx context.Context, addr string) *AddressPolicy {
	dp, _ := ctx.Value(dialPolicyKey{}).(*dialPolicy)
	if dp == nil || dp.proxy != "" && strings.EqualFold(dp.proxy, addr) {
		return nil
	}
	return dp.policy
}

// proxyAddr returns the host:port of the proxy that rt will send req
// through, as http.Transport dials it, or "" if none or rt is not an
// *http.Transport (nil is http.DefaultTransport).
func proxyAddr(rt http.RoundTripper, req *http.Request) string {
	if rt == nil {
		rt = http.DefaultTransport
	}
	t, ok := rt.(*http.Transport)
	if !ok || t.Proxy == nil {
		return ""
	}
	u, err := t.Proxy(req)
	if err != nil || u == nil {
		return ""
	}
	return proxyHostPort(u)
}
