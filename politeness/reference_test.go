package politeness

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// refRule is an Allow or Disallow pattern as written, for refAllowed.
type refRule struct {
	allow   bool
	pattern string
}

var refEscape = regexp.MustCompile(`%[0-9A-Fa-f]{2}`)

// refNormalize is a slow, separately written version of the normalization in
// the package documentation.
func refNormalize(s string, pattern bool) string {
	var b strings.Builder
	for len(s) > 0 {
		if loc := refEscape.FindStringIndex(s); loc != nil && loc[0] == 0 {
			v, _ := strconv.ParseUint(s[1:3], 16, 8)
			if c := string(rune(v)); strings.Contains("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~", c) {
				b.WriteString(c)
			} else {
				b.WriteString(strings.ToUpper(s[:3]))
			}
			s = s[3:]
			continue
		}
		c := s[0]
		s = s[1:]
		switch {
		case c == '*' && pattern:
			b.WriteByte(c)
		case c > ' ' && c < 0x7f && !strings.ContainsRune("\"<>\\^`{|}*$%", rune(c)):
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// refAllowed is a slow reference of RFC 9309 matching for one group of rules,
// a regular expression per rule; path must start with '/'. ok is false when a
// pattern is too large for the regexp package.
func refAllowed(rules []refRule, path string) (allowed, ok bool) {
	t := refNormalize(path, false)
	if t == "/robots.txt" || strings.HasPrefix(t, "/robots.txt?") {
		return true, true
	}
	best, allowed := -1, true
	for _, r := range rules {
		p := r.pattern
		anchored := strings.HasSuffix(p, "$")
		p = strings.TrimSuffix(p, "$")
		if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "*") {
			p = "/" + p
		}
		p = refNormalize(p, true)
		length := len(p)
		expr := "^"
		for i, seg := range strings.Split(p, "*") {
			if i > 0 {
				expr += ".*"
			}
			expr += regexp.QuoteMeta(seg)
		}
		if anchored {
			expr += "$"
			length++
		}
		re, err := regexp.Compile("(?s)" + expr)
		if err != nil {
			return false, false
		}
		if re.MatchString(t) && (length > best || length == best && r.allow) {
			best, allowed = length, r.allow
		}
	}
	return allowed, true
}

func TestRefAllowed(t *testing.T) {
	// The reference itself, on a few cases from rfc9309Cases.
	for _, tt := range []struct {
		rules []refRule
		path  string
		want  bool
	}{
		{[]refRule{{false, "/a"}, {true, "/a/b"}}, "/a/b", true},
		{[]refRule{{false, "/%7Ea"}}, "/~a", false},
		{[]refRule{{false, "/a$b"}}, "/a$b", false},
		{[]refRule{{false, "/a$"}}, "/ab", true},
		{[]refRule{{true, "/p*"}, {false, "/pa"}}, "/pa", true},
		{[]refRule{{false, "*"}}, "/robots.txt", true},
	} {
		if got, _ := refAllowed(tt.rules, tt.path); got != tt.want {
			t.Errorf("refAllowed(%v, %q) = %v, want %v", tt.rules, tt.path, got, tt.want)
		}
	}
}

func TestAllowedVersusReference(t *testing.T) {
	// Random small patterns and paths over an alphabet dense in special
	// characters and escapes, against refAllowed. Deterministic: fixed seed.
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "/ab*$%2A4E7e~?"
	word := func(n int) string {
		b := make([]byte, rng.IntN(n+1))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 20000 {
		var rules []refRule
		body := "User-agent: *\n"
		for range rng.IntN(5) {
			rr := refRule{allow: rng.IntN(2) == 0, pattern: word(8)}
			if rr.pattern == "" {
				continue
			}
			rules = append(rules, rr)
			if rr.allow {
				body += "Allow: " + rr.pattern + "\n"
			} else {
				body += "Disallow: " + rr.pattern + "\n"
			}
		}
		path := "/" + word(10)
		want, _ := refAllowed(rules, path)
		if got := ParseRobots([]byte(body)).Allowed(ua, path); got != want {
			t.Fatalf("Allowed(%q) = %v, reference says %v\nrobots.txt:\n%s", path, got, want, body)
		}
	}
}
