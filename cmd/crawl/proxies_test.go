package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"crawler/internal/proxytest"
)

// -proxy and -proxies: the crawl goes through the proxies given, round-
// robin, skipping the one that bans it; the -json summary and the text
// summary give each proxy's counts, its password redacted.
func TestProxyFlags(t *testing.T) {
	t.Parallel()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		var page int
		fmt.Sscanf(r.URL.Path, "/%d", &page)
		if page < 9 {
			fmt.Fprintf(w, `<a href="/%d">next</a>`, page+1)
		}
	}))
	t.Cleanup(origin.Close)
	target := origin.Listener.Addr().String()
	healthy := proxytest.NewHTTP(t, target, proxytest.Healthy, false)
	banning := proxytest.NewHTTP(t, target, proxytest.Ban, false)
	socks := proxytest.NewSOCKS5(t, target, proxytest.Healthy)
	file := filepath.Join(t.TempDir(), "proxies.txt")
	list := fmt.Sprintf("# the pool\n%s\n\n  socks5://user:s3cret@%s  \n", banning.URL, socks.URL.Host)
	if err := os.WriteFile(file, []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	// Only the proxies are allowed: the seed's name is resolved by them.
	allow := strings.Join([]string{healthy.URL.Host, banning.URL.Host, socks.URL.Host}, ",")
	args := []string{"-allow", allow, "-delay", "-1s", "-backoff", "-1s", "-progress", "-1s", "-max-retries", "5",
		"-proxy", healthy.URL.String(), "-proxies", file, "-proxy-rotate", "round-robin"}

	r := runCrawl(t, nil, append(args, "-json", "http://site.test/0")...)
	var sum summary
	if err := json.Unmarshal([]byte(r.stdout), &sum); r.code != 0 || err != nil {
		t.Fatalf("exit %d, %v\n%s", r.code, err, r.stderr)
	}
	if sum.Status[200] != 10 {
		t.Errorf("%v 200s, want the 10 pages: %s", sum.Status, r.stdout)
	}
	if len(sum.Proxies) != 3 || sum.Proxies[0].Proxy != healthy.URL.String() || sum.Proxies[1].Proxy != banning.URL.String() ||
		sum.Proxies[2].Proxy != "socks5://user:xxxxx@"+socks.URL.Host {
		t.Fatalf("proxies %+v, want -proxy's then -proxies' in order, the password redacted", sum.Proxies)
	}
	if b := sum.Proxies[1]; b.Bans == 0 || b.Bans > 3 || b.Benched != 1 || b.BenchedUntil == nil {
		t.Errorf("banning proxy %+v: want benched after at most 3 bans", b)
	}
	// The SOCKS5 proxy counts connections, not requests.
	if n := sum.Proxies[0].Requests; n+sum.Proxies[2].Requests != 11 || healthy.Forwarded.Load() != n || socks.Forwarded.Load() == 0 {
		t.Errorf("proxies %+v, of which the http one forwarded %d: want 11 requests through the healthy ones (robots.txt and 10 pages)", sum.Proxies, healthy.Forwarded.Load())
	}
	if strings.Contains(r.stdout+r.stderr, "s3cret") {
		t.Errorf("the password is shown:\n%s\n%s", r.stdout, r.stderr)
	}

	r = runCrawl(t, nil, append(args, "http://site.test/0")...)
	if want := "crawl: proxy " + banning.URL.String() + ": 0 requests"; r.code != 0 || !strings.Contains(r.stderr, "crawl: proxy "+healthy.URL.String()+": ") ||
		!strings.Contains(r.stderr, "banned, benched until ") || strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant a line per proxy", r.code, r.stderr)
	}
}

// Bad proxy flags are usage errors: exit 2, naming the flag (and the
// file and line).
func TestProxyFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("# ok\nhttp://127.0.0.1:3128\n127.0.0.1:3129\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-proxy", "127.0.0.1:3128"}, `invalid value "127.0.0.1:3128" for flag -proxy: not a proxy URL`},
		{[]string{"-proxy", "ftp://127.0.0.1:21"}, `scheme "ftp": want http, https or socks5`},
		{[]string{"-proxy", "http://127.0.0.1:3128/path"}, "no path"},
		{[]string{"-proxy", "http://u:pw@127.0.0.1:3128"}, "-proxy: proxy http://u:xxxxx@127.0.0.1:3128: fetch: address not allowed: 127.0.0.1:3128 (loopback); to use it, give -allow 127.0.0.1:3128"},
		{[]string{"-allow", "127.0.0.1", "-proxies", bad}, "-proxies " + bad + ":3: not a proxy URL"},
		{[]string{"-proxies", filepath.Join(dir, "missing.txt")}, "-proxies open " + filepath.Join(dir, "missing.txt")},
		{[]string{"-allow", "127.0.0.1", "-proxy", "http://127.0.0.1:3128", "-proxy-rotate", "random"}, `-proxy-rotate "random": want sticky or round-robin`},
	} {
		r := runCrawl(t, nil, append(tc.flags, "http://example.com/")...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "pw@") {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit 2 and %q", tc.flags, r.code, r.stderr, tc.want)
		}
	}
	if r := runCrawl(t, nil, "-proxy", "http://10.0.0.1:3128", "-allow", "10.0.0.1", "-demo"); r.code != 2 || !strings.Contains(r.stderr, "-demo crawls its own web") {
		t.Errorf("-demo with -proxy: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// With -http, /metrics and /status.json give each proxy's counts while
// the crawl runs.
func TestProxyMetrics(t *testing.T) {
	t.Parallel()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		var page int
		fmt.Sscanf(r.URL.Path, "/%d", &page)
		fmt.Fprintf(w, `<a href="/%d">next</a>`, page+1) // endless: the crawl lasts until stopped
	}))
	t.Cleanup(origin.Close)
	p := proxytest.NewHTTP(t, origin.Listener.Addr().String(), proxytest.Healthy, false)
	var stdout bytes.Buffer
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), []string{"-delay", "20ms", "-progress", "-1s", "-http", "127.0.0.1:0",
			"-allow", p.URL.Host, "-proxy", p.URL.String(), "-json", "http://site.test/0"}, &stdout, &stderr)
	}()
	base := statusURL(t, &stderr, done)
	series := `crawler_proxy_requests_total{proxy="` + p.URL.String() + `"}`
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := get(t, http.MethodGet, base+"metrics", "")
		if code != http.StatusOK {
			t.Fatalf("GET /metrics = %d: %s", code, body)
		}
		if i := bytes.Index(body, []byte(series+" ")); i >= 0 && !bytes.HasPrefix(body[i+len(series)+1:], []byte("0\n")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s above 0 in /metrics:\n%s", series, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	code, body := get(t, http.MethodGet, base+"status.json", "")
	var snap struct {
		Proxies []struct {
			Proxy    string `json:"proxy"`
			Requests int64  `json:"requests"`
		} `json:"proxies"`
	}
	if err := json.Unmarshal(body, &snap); code != http.StatusOK || err != nil || len(snap.Proxies) != 1 || snap.Proxies[0].Proxy != p.URL.String() || snap.Proxies[0].Requests == 0 {
		t.Errorf("GET /status.json = %d, %v: proxies %+v", code, err, snap.Proxies)
	}
	if code, body := get(t, http.MethodPost, base+"control/stop", ""); code/100 != 2 {
		t.Fatalf("stop: %d %s", code, body)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A site's ban_pattern (-sites) counts a ban page served with 200 against
// the proxy that got it: the page is fetched again through another.
func TestProxyBanPattern(t *testing.T) {
	t.Parallel()
	var served atomic.Int64
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		if served.Add(1) == 1 {
			fmt.Fprint(w, `<p>Please solve the CAPTCHA`)
			return
		}
		fmt.Fprint(w, `<p>the page`)
	}))
	t.Cleanup(origin.Close)
	target := origin.Listener.Addr().String()
	one := proxytest.NewHTTP(t, target, proxytest.Healthy, false)
	two := proxytest.NewHTTP(t, target, proxytest.Healthy, false)
	file := filepath.Join(t.TempDir(), "sites.toml")
	if err := os.WriteFile(file, []byte("[[site]]\nmatch = \"site.test\"\nban_pattern = \"(?i)captcha\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCrawl(t, nil, "-allow", one.URL.Host+","+two.URL.Host, "-delay", "-1s", "-backoff", "-1s", "-progress", "-1s",
		"-proxy", one.URL.String(), "-proxy", two.URL.String(), "-sites", file, "-json", "http://site.test/")
	var sum summary
	if err := json.Unmarshal([]byte(r.stdout), &sum); r.code != 0 || err != nil {
		t.Fatalf("exit %d, %v\n%s", r.code, err, r.stderr)
	}
	bans := sum.Proxies[0].Bans + sum.Proxies[1].Bans
	if bans != 1 || sum.Status[200] != 1 || served.Load() != 2 {
		t.Errorf("%d bans, statuses %v, %d served; want 1 ban, the page once (200) after the ban page", bans, sum.Status, served.Load())
	}
}
