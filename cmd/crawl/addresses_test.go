package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"crawler/fetch"

	"crawler"
)

// A crawl of a server on loopback is refused, and counted as
// blocked-address, unless -allow names it or -allow-private is given; a
// crawl whose only seed is refused fails with crawler.ErrSeedsRefused.
func TestAllowFlags(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "<html>hi</html>")
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name    string
		flags   []string
		fetched int64
	}{
		{"default", nil, 0},
		{"-allow address:port", []string{"-allow", srv.Listener.Addr().String()}, 1},
		{"-allow another port", []string{"-allow", "127.0.0.1:1"}, 0},
		{"-allow networks", []string{"-allow", "10.0.0.0/8, 127.0.0.0/8"}, 1},
		{"-allow address, twice", []string{"-allow", "::1", "-allow", "127.0.0.1"}, 1},
		{"-allow-private", []string{"-allow-private"}, 1},
	} {
		hits.Store(0)
		var stdout, stderr bytes.Buffer
		args := append(slices.Clone(tc.flags), "-json", "-delay", "-1s", "-progress", "-1s", srv.URL+"/")
		err := run(context.Background(), args, &stdout, &stderr)
		if refused := errors.Is(err, crawler.ErrSeedsRefused); refused != (tc.fetched == 0) || err != nil && !refused {
			t.Fatalf("%s: %v\n%s", tc.name, err, stderr.String())
		}
		var s summary
		if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		switch {
		case tc.fetched == 0 && (s.Fetched != 0 || s.Errors[fetch.KindBlockedAddress] != 1 || hits.Load() != 0):
			t.Errorf("%s: summary %+v, server hit %d times; want the seed refused", tc.name, s, hits.Load())
		case tc.fetched > 0 && (s.Fetched != tc.fetched || len(s.Errors) != 0 || hits.Load() != 2):
			t.Errorf("%s: summary %+v, server hit %d times; want robots.txt and the seed fetched", tc.name, s, hits.Load())
		}
	}
}

// -allow takes networks, addresses, address:port pairs and host names,
// comma-separated and repeated, and refuses anything else, an invalid
// address that looks like a name included.
func TestAllowFlagParsing(t *testing.T) {
	t.Parallel()
	o, _, err := parseFlags([]string{"-allow", "10.1.0.0/16,192.168.1.7, [fd00::1]:8443", "-allow", "Intranet.example.com", "http://x.test/"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	p := o.addresses.policy
	if !slices.Equal(p.Allow, []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("192.168.1.7/32")}) ||
		!slices.Equal(p.AllowAddrPorts, []netip.AddrPort{netip.MustParseAddrPort("[fd00::1]:8443")}) ||
		!slices.Equal(p.AllowHosts, []string{"Intranet.example.com"}) || p.AllowPrivate {
		t.Errorf("policy %+v", p)
	}
	for _, bad := range []string{"10.0.0.0/33", "exa mple.com", "http://x.test/", "", "a..b", "300.1.1.1", "1.2.3.4.5", "127.0.0.1:99999", "[::1]", "host.123"} {
		if _, _, err := parseFlags([]string{"-allow", bad, "http://x.test/"}, io.Discard); err == nil {
			t.Errorf("-allow %q accepted", bad)
		}
	}
}

// A crawl whose only seed is on loopback fails (exit 1) without a request,
// saying so, with a warning from the Crawler's logger and a hint naming
// the -allow that lets the seed through; with that -allow it succeeds.
func TestSeedRefusedHint(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	r := runCrawl(t, nil, "-delay", "-1s", "-max-pages", "5", s.URL+"/")
	hint := "-allow " + s.addr() + " (before the URLs), or -allow-private"
	if r.code != 1 || s.requests.Load() != 0 {
		t.Errorf("refused seed: exit %d, %d requests; want 1, none", r.code, s.requests.Load())
	}
	for _, want := range []string{`level=WARN msg="address not allowed" url=` + s.URL + "/", hint,
		"crawl: crawler: every seed was refused by the address policy"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
		}
	}
	if strings.Count(r.stderr, hint) != 1 || strings.Contains(r.stderr, "time=") {
		t.Errorf("stderr: want the hint once and no log times:\n%s", r.stderr)
	}

	r = runCrawl(t, nil, "-allow", s.addr(), "-delay", "-1s", "-max-pages", "5", s.URL+"/")
	if r.code != 0 || s.requests.Load() != 4 || strings.Contains(r.stderr, "refused") {
		t.Errorf("-allow %s: exit %d, %d requests, stderr:\n%s\nwant 0, 4 (robots.txt and 3 pages), no refusal", s.addr(), r.code, s.requests.Load(), r.stderr)
	}
}

// The hint names the address and port of a literal-address seed, the
// scheme's port if the URL has none, and the name of a named one.
func TestAllowHint(t *testing.T) {
	t.Parallel()
	for seed, want := range map[string]string{
		"http://127.0.0.1:8080/":   "-allow 127.0.0.1:8080 ",
		"http://10.1.2.3/":         "-allow 10.1.2.3:80 ",
		"https://[fd00::1]/x":      "-allow [fd00::1]:443 ",
		"http://localhost:3000/":   "-allow localhost ",
		"https://wiki.corp:8443/a": "-allow wiki.corp ",
	} {
		if h := allowHint(seed); !strings.Contains(h, want) || !strings.Contains(h, "-allow-private") {
			t.Errorf("allowHint(%q) = %q, want %q and -allow-private", seed, h, want)
		}
	}
}

// The Crawler logs warnings only, unless -v asks for a debug line per
// page.
func TestVerboseLogsPages(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	args := []string{"-allow", s.addr(), "-delay", "-1s", s.URL + "/"}
	if r := runCrawl(t, nil, args...); r.code != 0 || strings.Contains(r.stderr, "level=") {
		t.Errorf("exit %d, stderr:\n%s\nwant 0 and no log line", r.code, r.stderr)
	}
	r := runCrawl(t, nil, append([]string{"-v"}, args...)...)
	if r.code != 0 || strings.Count(r.stderr, "level=DEBUG msg=fetched url=") != 3 {
		t.Errorf("-v: exit %d, stderr:\n%s\nwant 0 and a debug line for each of 3 pages", r.code, r.stderr)
	}
}
