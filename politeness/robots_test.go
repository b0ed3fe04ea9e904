package politeness

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const ua = "crawler/0.1 (+https://example.com/bot)"

// robotsCase is one parse+match case: body parsed, then Allowed(ua, target).
type robotsCase struct {
	name   string
	body   string
	ua     string // "" means ua
	target string
	want   bool
}

// robotsCases are this package's own cases; rfc9309Cases (rfc9309_test.go)
// are written from the RFC's text.
var robotsCases = []robotsCase{
	{"empty body", "", "", "/a", true},
	{"html body", "<html><body>Not found</body></html>", "", "/a", true},
	{"disallow all", "User-agent: *\nDisallow: /\n", "", "/a", false},
	{"disallow all root", "User-agent: *\nDisallow: /\n", "", "/", false},
	{"disallow prefix hit", "User-agent: *\nDisallow: /private\n", "", "/private/x", false},
	{"disallow prefix hit bare", "User-agent: *\nDisallow: /private\n", "", "/privateer", false},
	{"disallow prefix miss", "User-agent: *\nDisallow: /private/\n", "", "/private", true},
	{"case-sensitive path", "User-agent: *\nDisallow: /Private\n", "", "/private", true},
	{"empty disallow", "User-agent: *\nDisallow:\n", "", "/a", true},
	{"longest wins allow", "User-agent: *\nDisallow: /a\nAllow: /a/b\n", "", "/a/b/c", true},
	{"longest wins disallow", "User-agent: *\nAllow: /a\nDisallow: /a/b\n", "", "/a/b/c", false},
	{"longest independent of order", "User-agent: *\nAllow: /a/b\nDisallow: /a\n", "", "/a/b", true},
	{"tie goes to allow", "User-agent: *\nDisallow: /page\nAllow: /page\n", "", "/page", true},
	{"tie goes to allow root", "User-agent: *\nDisallow: /\nAllow: /\n", "", "/x", true},
	{"wildcard middle", "User-agent: *\nDisallow: /*.gif\n", "", "/img/a.gif", false},
	{"wildcard middle miss", "User-agent: *\nDisallow: /*.gif\n", "", "/img/a.png", true},
	{"wildcard with query", "User-agent: *\nDisallow: /*?sid=\n", "", "/a?sid=1", false},
	{"dollar anchor hit", "User-agent: *\nDisallow: /*.php$\n", "", "/a.php", false},
	{"dollar anchor miss", "User-agent: *\nDisallow: /*.php$\n", "", "/a.php?x=1", true},
	{"allow homepage only", "User-agent: *\nAllow: /$\nDisallow: /\n", "", "/", true},
	{"allow homepage only other", "User-agent: *\nAllow: /$\nDisallow: /\n", "", "/a", false},
	{"trailing star", "User-agent: *\nDisallow: /a*\n", "", "/abc", false},
	{"leading star", "User-agent: *\nDisallow: *\n", "", "/abc", false},
	{"leading star gif", "User-agent: *\nDisallow: *.gif\n", "", "/x/a.gif", false},
	{"no leading slash", "User-agent: *\nDisallow: private\n", "", "/private", false},
	{"longer wildcard allow wins", "User-agent: *\nDisallow: /a/\nAllow: /a/*.css\n", "", "/a/x.css", true},
	// Groups.
	{"specific group wins", "User-agent: *\nDisallow: /\n\nUser-agent: crawler\nDisallow: /x\n", "", "/a", true},
	{"specific group applies", "User-agent: *\nDisallow: /\n\nUser-agent: crawler\nDisallow: /x\n", "", "/x", false},
	{"other agent gets star", "User-agent: *\nDisallow: /\n\nUser-agent: crawler\nDisallow: /x\n", "otherbot/1.0", "/a", false},
	{"agent case-insensitive", "User-agent: CRAWLER\nDisallow: /\n", "Crawler/2", "/a", false},
	{"agent with version in file", "User-agent: crawler/1.0\nDisallow: /\n", "", "/a", false},
	{"agent exact not prefix", "User-agent: crawl\nDisallow: /\n", "", "/a", true},
	{"agent one letter beats star", "User-agent: c\nAllow: /\nUser-agent: *\nDisallow: /\n", "c", "/a", true},
	{"no group matches", "User-agent: otherbot\nDisallow: /\n", "", "/a", true},
	{"two agents one group", "User-agent: a\nUser-agent: crawler\nDisallow: /x\n", "", "/x", false},
	{"blank line inside agent list", "User-agent: a\n\nUser-agent: crawler\nDisallow: /x\n", "", "/x", false},
	{"empty group allows", "User-agent: crawler\nDisallow:\n\nUser-agent: *\nDisallow: /\n", "", "/a", true},
	{"group without rules allows", "User-agent: *\nDisallow: /\nUser-agent: crawler\n", "", "/a", true},
	{"groups for same agent merge", "User-agent: crawler\nDisallow: /a\n\nUser-agent: crawler\nDisallow: /b\n", "", "/b", false},
	{"rule before any group ignored", "Disallow: /\nUser-agent: *\nDisallow: /z\n", "", "/a", true},
	{"rule after agentless line not kept", "User-agent: crawler\nDisallow: /a\nUser-agent: 123\nDisallow: /\n", "", "/b", true},
	{"sitemap between groups", "User-agent: crawler\nDisallow: /a\nSitemap: https://x/s.xml\nDisallow: /b\n", "", "/b", false},
	{"empty user agent gets star", "User-agent: *\nDisallow: /\n", "", "/a", false},
	{"star only ua string", "User-agent: *\nDisallow: /\n", "*", "/a", false},
	// Syntax.
	{"comments", "# hi\nUser-agent: * # all\nDisallow: /a # no\n", "", "/a", false},
	{"crlf", "User-agent: *\r\nDisallow: /a\r\n", "", "/a", false},
	{"cr only", "User-agent: *\rDisallow: /a\r", "", "/a", false},
	{"bom", "\uFEFFUser-agent: *\nDisallow: /a\n", "", "/a", false},
	{"key case", "USER-AGENT: *\nDISALLOW: /a\n", "", "/a", false},
	{"no colon", "User-agent *\nDisallow /a\n", "", "/a", false},
	{"no space after colon", "User-agent:*\nDisallow:/a\n", "", "/a", false},
	{"typo disalow", "User-agent: *\nDisalow: /a\n", "", "/a", false},
	{"typo useragent", "Useragent: *\nDisallow: /a\n", "", "/a", false},
	{"unknown lines", "Foo: bar\nUser-agent: *\nNoindex: /a\nDisallow: /b\n", "", "/a", true},
	{"bad crawl-delay keeps rules", "User-agent: *\nCrawl-delay: soon\nDisallow: /a\n", "", "/a", false},
	{"space in path", "User-agent: *\nDisallow: /a b\n", "", "/a%20b", false},
	{"space in target", "User-agent: *\nDisallow: /a b\n", "", "/a b", false},
	{"utf8 path", "User-agent: *\nDisallow: /café\n", "", "/caf%C3%A9", false},
	{"utf8 target", "User-agent: *\nDisallow: /caf%C3%A9\n", "", "/café", false},
	{"invalid utf8", "User-agent: *\nDisallow: /\xff\xfe\n", "", "/%FF%FE", false},
	{"colon in path", "User-agent: *\nDisallow: /a:b\n", "", "/a:b", false},
	// Targets.
	{"absolute url", "User-agent: *\nDisallow: /a\n", "", "https://example.com/a/b", false},
	{"absolute url allowed", "User-agent: *\nDisallow: /a\n", "", "https://example.com/b", true},
	{"absolute url empty path", "User-agent: *\nDisallow: /$\n", "", "https://example.com", false},
	{"absolute url query", "User-agent: *\nDisallow: /*?x\n", "", "http://h:8080/p?x=1", false},
	{"absolute url fragment", "User-agent: *\nDisallow: /a$\n", "", "http://h/a#frag", false},
	{"absolute url invalid", "", "", "http://[::1/a", false},
	{"path fragment", "User-agent: *\nDisallow: /a$\n", "", "/a#x", false},
	{"query", "User-agent: *\nDisallow: /a?b\n", "", "/a?b=1", false},
	{"empty target is root", "User-agent: *\nDisallow: /$\n", "", "", false},
	{"relative target", "User-agent: *\nDisallow: /a\n", "", "a/b", false},
	{"robots.txt always allowed", "User-agent: *\nDisallow: /\n", "", "/robots.txt", true},
	{"robots.txt url always allowed", "User-agent: *\nDisallow: /\n", "", "https://h/robots.txt", true},
	{"robots.txt prefix not special", "User-agent: *\nDisallow: /\n", "", "/robots.txt.bak", false},

	// temoto's departures from RFC 9309 (the former "Known gaps"): want is
	// now the RFC's answer.
	{"was gap: wildcard allow anchored at path start", "User-agent: *\nDisallow: /x/\nAllow: /p*q\n", "", "/x/pq", false},
	{"was gap: wildcard disallow anchored at path start", "User-agent: *\nDisallow: /a*b\n", "", "/x/ab", true},
	{"was gap: dollar in middle is literal", "User-agent: *\nDisallow: /a$b\n", "", "/a$b", false},
	{"was gap: length is the rule's octets", "User-agent: *\nAllow: /a.b*c\nDisallow: /a.b/cc\n", "", "/a.b/cc", false},
	{"was gap: percent-encoded tilde", "User-agent: *\nDisallow: /~a\n", "", "/%7Ea", false},
	{"was gap: percent hex case", "User-agent: *\nDisallow: /a%3c\n", "", "/a%3C", false},
	{"was gap: tie across merged groups goes to allow", "User-agent: crawler\nDisallow: /p\n\nUser-agent: crawler\nAllow: /p\n", "", "/p", true},
}

// TestAllowed is parse+match over robotsCases and rfc9309Cases.
func TestAllowed(t *testing.T) {
	seen := map[string]bool{}
	for _, tt := range slices.Concat(robotsCases, rfc9309Cases) {
		if seen[tt.name] {
			t.Errorf("duplicate case name %q", tt.name)
		}
		seen[tt.name] = true
		t.Run(tt.name, func(t *testing.T) {
			agent := tt.ua
			if agent == "" {
				agent = ua
			}
			r := ParseRobots([]byte(tt.body))
			if got := r.Allowed(agent, tt.target); got != tt.want {
				t.Errorf("Allowed(%q, %q) = %v, want %v\nrobots.txt:\n%s", agent, tt.target, got, tt.want, tt.body)
			}
		})
	}
}

func TestAllowAllDisallowAll(t *testing.T) {
	var zero Robots
	for _, tt := range []struct {
		name   string
		r      *Robots
		target string
		want   bool
	}{
		{"allow all", AllowAll(), "/a", true},
		{"disallow all", DisallowAll(), "/a", false},
		{"disallow all root", DisallowAll(), "/", false},
		{"disallow all robots.txt", DisallowAll(), "/robots.txt", true},
		{"zero value", &zero, "/a", true},
	} {
		if got := tt.r.Allowed(ua, tt.target); got != tt.want {
			t.Errorf("%s: Allowed(%q) = %v, want %v", tt.name, tt.target, got, tt.want)
		}
		if d := tt.r.CrawlDelay(ua); d != 0 {
			t.Errorf("%s: CrawlDelay = %v, want 0", tt.name, d)
		}
		if s := tt.r.Sitemaps(); s != nil {
			t.Errorf("%s: Sitemaps = %q, want nil", tt.name, s)
		}
	}
}

func TestCrawlDelay(t *testing.T) {
	tests := []struct {
		name string
		body string
		ua   string
		want time.Duration
	}{
		{"none", "User-agent: *\nDisallow: /\n", ua, 0},
		{"star", "User-agent: *\nCrawl-delay: 5\n", ua, 5 * time.Second},
		{"fraction", "User-agent: *\nCrawl-delay: 0.5\n", ua, 500 * time.Millisecond},
		{"specific group", "User-agent: *\nCrawl-delay: 5\n\nUser-agent: crawler\nCrawl-delay: 2\n", ua, 2 * time.Second},
		{"specific group without delay", "User-agent: *\nCrawl-delay: 5\n\nUser-agent: crawler\nDisallow: /x\n", ua, 0},
		{"other agent", "User-agent: otherbot\nCrawl-delay: 5\n", ua, 0},
		{"typo crawldelay", "User-agent: *\nCrawldelay: 3\n", ua, 3 * time.Second},
		{"trailing words", "User-agent: *\nCrawl-delay: 3 seconds\n", ua, 3 * time.Second},
		{"last wins", "User-agent: *\nCrawl-delay: 3\nCrawl-delay: 4\n", ua, 4 * time.Second},
		{"invalid ignored", "User-agent: *\nCrawl-delay: 3\nCrawl-delay: soon\n", ua, 3 * time.Second},
		{"negative ignored", "User-agent: *\nCrawl-delay: -3\n", ua, 0},
		{"nan ignored", "User-agent: *\nCrawl-delay: NaN\n", ua, 0},
		{"huge capped", "User-agent: *\nCrawl-delay: 1e12\n", ua, 24 * time.Hour},
		{"overflow capped", "User-agent: *\nCrawl-delay: 1e400\n", ua, 24 * time.Hour},
		{"inf capped", "User-agent: *\nCrawl-delay: +Inf\n", ua, 24 * time.Hour},
		{"before group ignored", "Crawl-delay: 9\nUser-agent: *\nDisallow: /a\n", ua, 0},
		{"merged groups last wins", "User-agent: crawler\nCrawl-delay: 3\n\nUser-agent: crawler\nCrawl-delay: 7\n", ua, 7 * time.Second},
		{"merged groups invalid ignored", "User-agent: crawler\nCrawl-delay: 3\n\nUser-agent: crawler\nCrawl-delay: x\n", ua, 3 * time.Second},
		{"merged star groups", "User-agent: *\nCrawl-delay: 3\n\nUser-agent: *\nDisallow: /\n", ua, 3 * time.Second},
		{"bare token", "User-agent: crawler\nCrawl-delay: 2\n", "Crawler", 2 * time.Second},
		{"prefix agent not matched", "User-agent: crawl\nCrawl-delay: 2\n", ua, 0},
		{"empty own group not star", "User-agent: crawler\nDisallow:\n\nUser-agent: *\nCrawl-delay: 5\n", ua, 0},
		{"tiny fraction", "User-agent: *\nCrawl-delay: 0.001\n", ua, time.Millisecond},
		{"shared group", "User-agent: a\nUser-agent: crawler\nCrawl-delay: 4\n", ua, 4 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseRobots([]byte(tt.body)).CrawlDelay(tt.ua); got != tt.want {
				t.Errorf("CrawlDelay(%q) = %v, want %v\nrobots.txt:\n%s", tt.ua, got, tt.want, tt.body)
			}
		})
	}
}

func TestSitemaps(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"none", "User-agent: *\nDisallow: /\n", nil},
		{"anywhere", "Sitemap: https://h/a.xml\nUser-agent: *\nSitemap: https://h/b.xml # c\nDisallow: /\nsitemap:https://h/c.xml",
			[]string{"https://h/a.xml", "https://h/b.xml", "https://h/c.xml"}},
		{"only sitemaps", "Sitemap: https://h/a.xml\n", []string{"https://h/a.xml"}},
		{"empty value", "Sitemap:\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ParseRobots([]byte(tt.body))
			got := r.Sitemaps()
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Sitemaps() = %q, want %q", got, tt.want)
			}
			if len(got) > 0 {
				got[0] = "changed"
				if r.Sitemaps()[0] == "changed" {
					t.Error("Sitemaps() returned the Robots' own slice")
				}
			}
		})
	}
}

func TestParseRobotsLimit(t *testing.T) {
	// A rule past MaxRobotsSize is ignored; one before it is kept; a line cut
	// by the limit is dropped whole.
	pad := "# " + strings.Repeat("x", 1000) + "\n"
	var b strings.Builder
	b.WriteString("User-agent: *\nDisallow: /early\n")
	for b.Len() < MaxRobotsSize-100 {
		b.WriteString(pad)
	}
	b.WriteString("Disallow: /cut/")
	for b.Len() < MaxRobotsSize {
		b.WriteString("x")
	}
	b.WriteString("\nDisallow: /late\n")
	r := ParseRobots([]byte(b.String()))
	for _, tt := range []struct {
		target string
		want   bool
	}{{"/early", false}, {"/cut/", true}, {"/late", true}} {
		if got := r.Allowed(ua, tt.target); got != tt.want {
			t.Errorf("Allowed(%q) = %v, want %v", tt.target, got, tt.want)
		}
	}
	// One giant line without a break within the limit is dropped.
	giant := "User-agent: * Disallow: /" + strings.Repeat("a", MaxRobotsSize)
	if !ParseRobots([]byte(giant)).Allowed(ua, "/a") {
		t.Error("a line longer than MaxRobotsSize was kept")
	}
}

func TestParseRobotsManyWildcards(t *testing.T) {
	// A huge wildcard pattern must not make the whole file fail, nor make
	// matching slow.
	body := "User-agent: *\nDisallow: /a\nDisallow: /" + strings.Repeat("x*", 20<<10) + "\n"
	r := ParseRobots([]byte(body))
	if r.Allowed(ua, "/a") {
		t.Error("/a allowed; the rules before the huge pattern were lost")
	}
	if !r.Allowed(ua, "/"+strings.Repeat("x", 10<<10)) {
		t.Error("the huge pattern matched a path with too few x")
	}
	if r.Allowed(ua, "/"+strings.Repeat("x", 30<<10)) {
		t.Error("the huge pattern did not match")
	}
}

func TestProductToken(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"crawler/0.1 (+https://x)", "crawler"},
		{"Crawler", "crawler"},
		{"  My_Bot-2", "my_bot-"},
		{"Mozilla/5.0 (compatible; Foo)", "mozilla"},
		{"", ""},
		{"123bot", ""},
		{"*", ""},
	} {
		if got := ProductToken(tt.in); got != tt.want {
			t.Errorf("ProductToken(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzParseRobots checks, for any body and target: no panic; /robots.txt is
// always allowed; answers are deterministic; CrawlDelay is within bounds;
// rules for another agent and comments change nothing; and a file without
// rules allows everything. Then it builds a "*" group from the body's lines
// (each as an Allow or a Disallow pattern) and checks Allowed against
// refAllowed, a slow regexp-based reference matcher.
func FuzzParseRobots(f *testing.F) {
	for _, s := range []string{
		"",
		"User-agent: *\nDisallow: /\n",
		"User-agent: crawler\nAllow: /a/*.css$\nDisallow: /a\nCrawl-delay: 1.5\nSitemap: https://h/s.xml\n",
		"Disallow: /x\r\nUser-agent: a\r\nUser-agent: *\r\n\r\nDisallow:\r\n",
		"User-agent: *\nDisallow: /a$b*c\nAllow: *\nCrawl-delay: 1e400\n",
		"\uFEFFuseragent *\ndisalow /caf\xc3\xa9\xff # x\n",
		"User-agent: *\nDisallow: /%7e%2A*%2f$\nAllow: /*a*a*a*b\n",
	} {
		f.Add([]byte(s), "/a/b.css?x=1")
	}
	f.Fuzz(func(t *testing.T, body []byte, target string) {
		if len(body) > 64<<10 || len(target) > 4<<10 {
			return
		}
		r := ParseRobots(body)
		allowed := r.Allowed(ua, target)
		if again := ParseRobots(body).Allowed(ua, target); again != allowed || r.Allowed(ua, target) != allowed {
			t.Fatalf("Allowed(%q) not deterministic", target)
		}
		r.Allowed("", target)
		if d := r.CrawlDelay(ua); d < 0 || d > 24*time.Hour {
			t.Fatalf("CrawlDelay = %v", d)
		}
		r.Sitemaps()
		if !r.Allowed(ua, "/robots.txt") || !r.Allowed(ua, "https://h/robots.txt?x") {
			t.Fatal("/robots.txt not allowed")
		}
		// Rules for another agent, and comments, never change the answer.
		for _, variant := range [][]byte{
			append([]byte("User-agent: zzzother\nDisallow: /\nAllow: /x\n\n"), bytes.TrimPrefix(body, []byte("\uFEFF"))...),
			append(bytes.Clone(body), "\n# Disallow: /\n"...),
		} {
			if got := ParseRobots(variant).Allowed(ua, target); got != allowed {
				t.Fatalf("Allowed(%q) = %v for %q, but %v for %q", target, allowed, body, got, variant)
			}
		}
		// A file without Allow/Disallow rules allows everything.
		if !allowed && !hasRule(body) {
			if _, ok := targetPath(target); ok {
				t.Fatalf("Allowed(%q) = false without any rule in %q", target, body)
			}
		}

		// Differential: the body's lines as patterns, against refAllowed.
		path := "/" + strings.SplitN(target, "#", 2)[0]
		var rules []refRule
		var b strings.Builder
		b.WriteString("User-agent: *\n")
		for i, line := range strings.FieldsFunc(string(body), func(c rune) bool { return c == '\n' || c == '\r' || c == '#' }) {
			line = strings.Trim(line, asciiSpace)
			if line == "" || len(rules) == 50 {
				continue
			}
			rr := refRule{allow: i%2 == 0, pattern: line}
			rules = append(rules, rr)
			if rr.allow {
				b.WriteString("Allow: ")
			} else {
				b.WriteString("Disallow: ")
			}
			b.WriteString(line + "\n")
		}
		want, ok := refAllowed(rules, path)
		if !ok {
			return // a pattern too large for the regexp package
		}
		if got := ParseRobots([]byte(b.String())).Allowed(ua, path); got != want {
			t.Fatalf("Allowed(%q) = %v, reference says %v\nrobots.txt:\n%s", path, got, want, b.String())
		}
	})
}

// hasRule reports whether body has an Allow or Disallow line with a value.
func hasRule(body []byte) bool {
	for _, line := range bytes.FieldsFunc(truncate(body), func(c rune) bool { return c == '\n' || c == '\r' }) {
		if kind, value := splitLine(line); (kind == kAllow || kind == kDisallow) && len(value) > 0 {
			return true
		}
	}
	return false
}

func TestRobotsConcurrent(t *testing.T) {
	// Robots is read-only after parsing: concurrent use is race-free (run
	// with -race) and gives the answers of sequential use.
	r := ParseRobots([]byte("User-agent: *\nDisallow: /a\nAllow: /a/*.css$\nCrawl-delay: 2\nSitemap: https://h/s.xml\n\nUser-agent: crawler\nUser-agent: crawler\nDisallow: /b%7e\n"))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 200 {
				if r.Allowed("otherbot", "/a/x.css") != true || r.Allowed("otherbot", "https://h/a/x") != false ||
					r.Allowed(ua, "/b~c") != false || r.CrawlDelay("OtherBot") != 2*time.Second || len(r.Sitemaps()) != 1 {
					t.Errorf("goroutine %d: wrong answer", i)
					return
				}
			}
		})
	}
	wg.Wait()
}
