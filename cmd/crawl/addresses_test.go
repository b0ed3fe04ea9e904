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
	"sync/atomic"
	"testing"

	"crawler"
)

// A crawl of a server on loopback is refused, and counted as
// blocked-address, unless -allow names it or -allow-private is given.
func TestAllowFlags(t *testing.T) {
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
		args := append(slices.Clone(tc.flags), "-json", "-delay", "0", "-progress", "0", srv.URL+"/")
		err := run(context.Background(), args, &stdout, &stderr)
		refused := errors.Is(err, crawler.ErrSeedsRefused)
		if refused != (tc.fetched == 0) || err != nil && !refused {
			t.Fatalf("%s: %v\n%s", tc.name, err, stderr.String())
		}
		if refused && hits.Load() == 0 {
			continue // refused, as wanted, and no summary to read
		}
		var s summary
		if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		switch {
		case tc.fetched == 0 && (s.Fetched != 0 || s.Errors[crawler.KindBlockedAddress] != 1 || hits.Load() != 0):
			t.Errorf("%s: summary %+v, server hit %d times; want the seed refused", tc.name, s, hits.Load())
		case tc.fetched > 0 && (s.Fetched != tc.fetched || len(s.Errors) != 0 || hits.Load() != 2):
			t.Errorf("%s: summary %+v, server hit %d times; want robots.txt and the seed fetched", tc.name, s, hits.Load())
		}
	}
}

func TestAllowFlagParsing(t *testing.T) {
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
	for _, bad := range []string{"10.0.0.0/33", "exa mple.com", "http://x.test/", "", "a..b"} {
		if _, _, err := parseFlags([]string{"-allow", bad, "http://x.test/"}, io.Discard); err == nil {
			t.Errorf("-allow %q accepted", bad)
		}
	}
}
