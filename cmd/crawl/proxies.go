package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"crawler/fetch"
	"crawler/frontier"
)

// proxyFlags are -proxy, -proxies and -proxy-rotate: the proxies of a
// fetch.ProxyPool.
type proxyFlags struct {
	urls   []*url.URL // of -proxy, then of -proxies
	file   string     // -proxies
	rotate string     // -proxy-rotate
	pool   *fetch.ProxyPool
	before []proxyStat // the counts earlier runs of a -state crawl kept (keep)
}

// register binds the proxy flags to p.
func (p *proxyFlags) register(fs *flag.FlagSet) {
	fs.Func("proxy", "send the requests through this proxy (http://, https:// or socks5://, with user:password@ if it needs them); repeatable: a pool, whose proxies are benched for a while when they fail or are banned (403, 429, 503) several times in a row; its address must be allowed (-allow 127.0.0.1:3128 for one on loopback)", func(s string) error {
		u, err := parseProxy(s)
		if err == nil {
			p.urls = append(p.urls, u)
		}
		return err
	})
	fs.StringVar(&p.file, "proxies", "", "add the proxies listed in this `file`, one URL a line (as -proxy; blank lines and # comments ignored)")
	fs.StringVar(&p.rotate, "proxy-rotate", string(fetch.Sticky), "with -proxy or -proxies: sticky (each host keeps its proxy while it serves it well) or round-robin (each request the next proxy)")
}

// parseProxy parses a proxy's URL, as -proxy and -proxies take it. Its
// errors do not quote the URL, which may hold a password.
func parseProxy(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return nil, errors.New("not a proxy URL: want scheme://host:port, such as http://127.0.0.1:3128 or socks5://10.0.0.2:1080")
	}
	switch u.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		return nil, fmt.Errorf("scheme %q: want http, https or socks5", u.Scheme)
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%s: a proxy URL has no path, query or fragment", u.Redacted())
	}
	return u, nil
}

// load reads -proxies and checks -proxy-rotate and the proxies against
// policy, making the pool; nil without proxies. Each error names its flag
// (and file and line).
func (p *proxyFlags) load(policy *fetch.AddressPolicy) error {
	var errs []error
	if p.file != "" {
		urls, err := readProxies(p.file)
		if err != nil {
			errs = append(errs, fmt.Errorf("-proxies %w", err))
		}
		p.urls = append(p.urls, urls...)
	}
	rotate := fetch.Rotation(p.rotate)
	if rotate != fetch.Sticky && rotate != fetch.RoundRobin {
		errs = append(errs, fmt.Errorf("-proxy-rotate %q: want sticky or round-robin", p.rotate))
	}
	if len(errs) > 0 || len(p.urls) == 0 {
		return errors.Join(errs...)
	}
	for _, u := range p.urls {
		one := &fetch.ProxyPool{Proxies: []*url.URL{u}}
		if err := one.Validate(policy); err != nil {
			if errors.Is(err, fetch.ErrBlockedAddress) {
				err = fmt.Errorf("%w; to use it, give -allow %s", err, u.Host)
			}
			errs = append(errs, fmt.Errorf("-proxy: %w", err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	p.pool = &fetch.ProxyPool{Proxies: p.urls, Rotate: rotate}
	return nil
}

// readProxies reads the proxy URLs of a -proxies file. A bad line's
// error names the file and line.
func readProxies(name string) ([]*url.URL, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var urls []*url.URL
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		u, err := parseProxy(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		urls = append(urls, u)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return urls, nil
}

// proxyStat is a proxy's line of the -json summary.
type proxyStat struct {
	Proxy        string     `json:"proxy"` // its URL, the password redacted
	Requests     int64      `json:"requests"`
	Failures     int64      `json:"failures"`                // no answer, or 407
	Bans         int64      `json:"bans"`                    // 403, 429, 503 answers
	Benched      int64      `json:"benched"`                 // times benched
	BenchedUntil *time.Time `json:"benched_until,omitempty"` // while benched
}

// keptProxies names the proxies' counts in a -state: every run's, added
// proxy by proxy, for -stats.
const keptProxies = "crawl/proxies"

// keep has k, a -state's keeper, keep the pool's counts with the crawl's
// commits, added to those earlier runs kept; and has proxyStats add them
// too, for the totals.
func (p *proxyFlags) keep(k frontier.Keeper) error {
	if p.pool == nil {
		return nil
	}
	if _, err := frontier.KeptJSON(k, keptProxies, &p.before); err != nil {
		return fmt.Errorf("-state: the proxies' counts: %w", err)
	}
	moved := func() uint64 { // grows with each count
		var n int64
		for _, s := range p.pool.Stats() {
			n += s.Requests + s.Failures + s.Bans + s.Benched
		}
		return uint64(n)
	}
	frontier.KeepJSON(k, keptProxies, 0, moved, p.totals)
	return nil
}

// totals returns the counts of the pool's proxies with those of earlier
// runs (keep) added, and the earlier runs' other proxies after them.
func (p *proxyFlags) totals() []proxyStat {
	out := p.proxyStats()
	for _, b := range p.before {
		i := slices.IndexFunc(out, func(s proxyStat) bool { return s.Proxy == b.Proxy })
		if i < 0 {
			b.BenchedUntil = nil
			out = append(out, b)
			continue
		}
		out[i].Requests += b.Requests
		out[i].Failures += b.Failures
		out[i].Bans += b.Bans
		out[i].Benched += b.Benched
	}
	return out
}

// proxyStats returns the counts of the pool's proxies; nil without a pool.
func (p *proxyFlags) proxyStats() []proxyStat {
	if p.pool == nil {
		return nil
	}
	var out []proxyStat
	for _, s := range p.pool.Stats() {
		ps := proxyStat{Proxy: s.Proxy, Requests: s.Requests, Failures: s.Failures, Bans: s.Bans, Benched: s.Benched}
		if !s.BenchedUntil.IsZero() {
			ps.BenchedUntil = &s.BenchedUntil
		}
		out = append(out, ps)
	}
	return out
}

// writeProxyStats writes a line per proxy of the pool to con, for the
// text summary.
func writeProxyStats(con io.Writer, stats []proxyStat) {
	for _, s := range stats {
		fmt.Fprintf(con, "crawl: proxy %s: %d requests, %d failed, %d banned", s.Proxy, s.Requests, s.Failures, s.Bans)
		if s.BenchedUntil != nil {
			fmt.Fprintf(con, ", benched until %s", s.BenchedUntil.Format(time.TimeOnly))
		}
		fmt.Fprintln(con)
	}
}
