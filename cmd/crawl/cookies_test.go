package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crawler/crawlertest"
)

// The CLI keeps cookies by default: a site that greets each new visitor
// with a cookie and a redirect to the page itself is crawled whole;
// -cookies=false gets none of its pages; -cookie-file gives the crawl the
// cookie before it starts, so that no redirect is needed.
func TestCookies(t *testing.T) {
	t.Parallel()
	s := crawlertest.NewSessionSite(crawlertest.SessionConfig{Pages: 6})
	t.Cleanup(s.Close)
	host, _, _ := strings.Cut(s.Addr(), ":")
	file := filepath.Join(t.TempDir(), "cookies.txt")
	txt := fmt.Sprintf("# Netscape HTTP Cookie File\n%s\tFALSE\t/\tFALSE\t0\t%s\t1\n", host, crawlertest.VisitedCookie)
	if err := os.WriteFile(file, []byte(txt), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flags              []string
		fetched, redirects int64
	}{
		{nil, 6 + 1, 1},                        // the first visit is redirected, then every page fetched once
		{[]string{"-cookies=false"}, 11, 10},   // /cookie/1 redirects to itself 10 times, then is too-many-redirects
		{[]string{"-cookie-file", file}, 6, 0}, // the session given: no redirect
	} {
		args := append(tc.flags, "-allow", s.Addr(), "-delay", "-1s", "-progress", "-1s", "-json", s.URL()+"/cookie/1")
		r := runCrawl(t, nil, args...)
		var sum summary
		if err := json.Unmarshal([]byte(r.stdout), &sum); r.code != 0 || err != nil {
			t.Fatalf("%q: exit %d, %v\n%s", tc.flags, r.code, err, r.stderr)
		}
		if sum.Fetched != tc.fetched || sum.Redirects != tc.redirects {
			t.Errorf("%q: %d responses, %d redirects; want %d and %d", tc.flags, sum.Fetched, sum.Redirects, tc.fetched, tc.redirects)
		}
	}
}

// A -cookie-file that cannot be read, or holds a line the format does
// not allow, or a cookie the jar refuses, is a usage error: exit 2, a
// message naming the flag, the file and the line.
func TestCookieFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, txt string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(txt), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-cookie-file", filepath.Join(dir, "missing.txt")}, "-cookie-file " + filepath.Join(dir, "missing.txt") + ": open"},
		{[]string{"-cookie-file", write("short.txt", "# ok\nexample.com\tFALSE\t/\n")}, "line 2"},
		{[]string{"-cookie-file", write("suffix.txt", "co.uk\tTRUE\t/\tFALSE\t0\tn\tv\n")}, "public suffix"},
		{[]string{"-cookies=false", "-cookie-file", write("ok.txt", "")}, "cookies are off"},
	} {
		r := runCrawl(t, nil, append(tc.flags, "-demo")...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit 2 and %q", tc.flags, r.code, r.stderr, tc.want)
		}
	}
}

// With -state the cookies are kept with the crawl: the resumed run needs
// no redirect for the cookie the first run got.
func TestCookiesKeptInState(t *testing.T) {
	t.Parallel()
	s := crawlertest.NewSessionSite(crawlertest.SessionConfig{Pages: 6})
	t.Cleanup(s.Close)
	state := filepath.Join(t.TempDir(), "state")
	for i, tc := range []struct {
		args               []string
		redirects, fetched int64
	}{
		{[]string{"-max-pages", "3", s.URL() + "/cookie/1"}, 1, 3}, // the first visit redirected, then 2 pages
		{[]string{s.URL() + "/cookie/1"}, 0, 4},                    // the same seed: the 4 pages left, the cookie kept
	} {
		args := append([]string{"-state", state, "-allow", s.Addr(), "-delay", "-1s", "-progress", "-1s", "-json"}, tc.args...)
		r := runCrawl(t, nil, args...)
		var sum summary
		if err := json.Unmarshal([]byte(r.stdout), &sum); r.code != 0 || err != nil {
			t.Fatalf("run %d: exit %d, %v\n%s", i+1, r.code, err, r.stderr)
		}
		if sum.Redirects != tc.redirects || sum.Fetched != tc.fetched {
			t.Errorf("run %d: %d redirects, %d responses; want %d and %d", i+1, sum.Redirects, sum.Fetched, tc.redirects, tc.fetched)
		}
	}
}
