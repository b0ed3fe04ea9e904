package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// Every bad flag value is refused before the crawl starts: exit 2, one
// line on stderr naming the flag, nothing on stdout, no request sent (the
// seed is allowed, so a crawl that started would reach the server), and
// with -demo no demo web started (it would say so on stderr).
func TestBadFlagValues(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	missing := filepath.Join(t.TempDir(), "no-such-dir", "file.jsonl")
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string // in the error line
	}{
		{[]string{"-workers", "-5"}, "-workers -5"},
		{[]string{"-rate", "NaN"}, "-rate NaN"},
		{[]string{"-rate", "+Inf"}, "-rate +Inf"},
		{[]string{"-rate", "-Inf"}, "-rate -Inf"},
		{[]string{"-seen-size", "-1"}, "-seen-size -1"},
		{[]string{"-seen", "bloom", "-seen-size", "-1"}, "-seen-size -1"},
		{[]string{"-delay-factor", "-Inf"}, "-delay-factor -Inf"},
		{[]string{"-delay-factor", "NaN"}, "-delay-factor NaN"},
		{[]string{"-allow", "300.1.1.1"}, "flag -allow"},
		{[]string{"-allow", "10.0.0.0/33"}, "flag -allow"},
		{[]string{"-user-agent", "bot/1\r\nX-Injected: 1"}, "-user-agent"},
		{[]string{"-user-agent", "bot/1\x01"}, "-user-agent"},
		{[]string{"-user-agent", "bot/1\t(+x)"}, "-user-agent"},
		{[]string{"-host-stats", missing}, "-host-stats"},
		{[]string{"-out", missing}, "-out"},
		{[]string{"-seen", "cuckoo"}, "-seen"},
		{[]string{"-frontier", "dfs"}, "-frontier"},
		{[]string{"-sitemaps", "yes"}, "-sitemaps"},
		{[]string{"-recrawl"}, "-recrawl needs -rate"},
		{[]string{"-recrawl", "-rate", "-1"}, "-recrawl needs -rate"},
		{[]string{"-recrawl", "-rate", "10", "-recrawl-share", "1.5"}, "-recrawl-share 1.5"},
		{[]string{"-recrawl-share", "NaN"}, "-recrawl-share NaN"},
		{[]string{"-max-pages", "x"}, "flag -max-pages"},
		{[]string{"-delay", "1"}, "flag -delay"},
		{[]string{"-no-such-flag"}, "-no-such-flag"},
		{[]string{"-demo", "-workers", "-1"}, "-workers -1"},
		{[]string{"-demo", "-out", missing}, "-out"},
		{[]string{"-demo", "-rate", "NaN"}, "-rate NaN"},
		{[]string{"-near-dups", "-near-dups-distance", "64"}, "-near-dups-distance 64"},
		{[]string{"-graph", missing}, "-graph"},
		{[]string{"-frontier", "priority", "-state", filepath.Join(t.TempDir(), "state")}, "-frontier priority"},
		{[]string{"-warc", filepath.Join(notDir, "warc")}, "-warc"},
		{[]string{"-demo", "-warc", filepath.Join(notDir, "warc")}, "-warc"},
		{[]string{"-demo", "-graph", missing}, "-graph"},
	} {
		args := append([]string{"-allow", s.addr(), "-delay", "-1s", "-max-pages", "3"}, tc.args...)
		r := runCrawl(t, nil, append(args, s.URL+"/")...)
		line := strings.TrimSuffix(r.stderr, "\n")
		if r.code != 2 || strings.Contains(line, "\n") || !strings.HasPrefix(line, "crawl: ") || !strings.Contains(line, tc.want) || r.stdout != "" {
			t.Errorf("crawl %q: exit %d, stdout %q, stderr:\n%s\nwant exit 2, one line naming %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
		if n := s.requests.Load(); n != 0 {
			t.Fatalf("crawl %q: %d requests reached the server, want none", tc.args, n)
		}
	}
}

// The values the rule reads as the default (0) or as off (negative) are
// not errors: the crawl runs.
func TestDefaultAndOffValuesAccepted(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	for _, args := range [][]string{
		{"-per-host", "0"}, {"-per-host", "-1"}, {"-seen-size", "0"}, {"-seen", "bitmap", "-seen-size", "0"},
		{"-workers", "0"}, {"-rate", "-1"}, {"-progress", "-1s"}, {"-progress", "0"}, {"-delay-factor", "-1"},
		{"-user-agent", "bot/1 (+https://example.com/bot; é)"},
		{"-sitemaps=false"}, {"-sitemaps=true"}, {"-sitemaps", "auto"}, {"-recrawl-share", "-1"}, {"-recrawl-max", "-1s"},
	} {
		before := s.requests.Load()
		r := runCrawl(t, nil, append(append([]string{"-allow", s.addr(), "-delay", "-1s"}, args...), s.URL+"/")...)
		if r.code != 0 || s.requests.Load()-before != 4 {
			t.Errorf("crawl %q: exit %d, %d requests, stderr:\n%s\nwant 0 and 4 requests", args, r.code, s.requests.Load()-before, r.stderr)
		}
	}
}

// An error or warning quotes at most about maxURLBytes of a URL: a seed
// of 5,000 bytes that is invalid, or refused.
func TestLongURLsShortened(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	long := strings.Repeat("a", 5000)
	for _, tc := range []struct {
		seed string
		code int
		want string
	}{
		{"http://bad host/" + long, 2, "bad seed: canon: invalid host"},
		{"ftp://example.com/" + long, 2, "bad seed: canon: scheme"},
		{s.URL + "/" + long, 1, "…" + long[:40] + " was refused"}, // in the hint
		{s.URL + "/" + long, 1, "-allow " + s.addr() + " "},
		{s.URL + "/" + long, 1, `msg="address not allowed" url=` + s.URL + "/aaa"}, // the warning
	} {
		r := runCrawl(t, nil, "-delay", "-1s", tc.seed)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("seed of %d bytes: exit %d, stderr:\n%s\nwant exit %d and %q", len(tc.seed), r.code, r.stderr, tc.code, tc.want)
		}
		for line := range strings.Lines(r.stderr) {
			if len(line) > 600 || strings.Contains(line, long[:maxURLBytes]) {
				t.Errorf("seed of %d bytes: a stderr line of %d bytes quotes too much: %.300s", len(tc.seed), len(line), line)
			}
		}
	}
	if n := s.requests.Load(); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}

// shortURL keeps short URLs, and cuts long ones to maxURLBytes around an
// ellipsis, keeping their start and end and valid UTF-8; shortenURLs does
// it to the long words of a message, quoted or not.
func TestShortURL(t *testing.T) {
	t.Parallel()
	if u := "http://example.com/" + strings.Repeat("a", maxURLBytes-19); shortURL(u) != u {
		t.Errorf("shortURL changed a URL of %d bytes", len(u))
	}
	for _, u := range []string{
		"http://example.com/" + strings.Repeat("a", maxURLBytes-18) + "/end",
		"http://example.com/" + strings.Repeat("é", 5000) + "/end",
		"http://example.com/" + strings.Repeat("日本", 5000) + "/end",
	} {
		got := shortURL(u)
		if len(got) > maxURLBytes || !utf8.ValidString(got) || !strings.HasPrefix(got, "http://example.com/") ||
			!strings.HasSuffix(got, "/end") || !strings.Contains(got, "…") {
			t.Errorf("shortURL of %d bytes = %q (%d bytes)", len(u), got, len(got))
		}
	}

	long := "http://example.com/" + strings.Repeat("a", 1000)
	msg := `fetch ` + long + ` failed: canon: invalid host: "` + long + `" and "short" "unterminated ` + long
	want := `fetch ` + shortURL(long) + ` failed: canon: invalid host: "` + shortURL(long) + `" and "short" ` + shortURL(`"unterminated `+long)
	if got := shortenURLs(msg); got != want {
		t.Errorf("shortenURLs(%.80q...) =\n%s\nwant\n%s", msg, got, want)
	}
	if short := `fetch "http://example.com/": refused`; shortenURLs(short) != short {
		t.Errorf("shortenURLs changed %q", short)
	}
}
