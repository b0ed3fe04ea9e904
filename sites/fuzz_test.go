package sites

import (
	"cmp"
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
)

// FuzzLoad loads arbitrary files: no panic; an error is an *Error with a
// line; a loaded file's entries each match their own representative URL
// (the entry itself wins, or one more specific).
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"doc.go"} {
		if doc, err := os.ReadFile(name); err == nil {
			_, after, _ := strings.Cut(string(doc), "// # The file\n//\n")
			var b strings.Builder
			for line := range strings.Lines(after) {
				if !strings.HasPrefix(line, "//\t") && line != "//\n" {
					break
				}
				b.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "//"), "\t"))
			}
			f.Add(b.String())
		}
	}
	f.Add("[[site]]\nmatch = \"*.example.com\"\ndelay = \"1s\"\n[[site]]\nmatch = \"www.example.com:8080\"\n[[site]]\nmatch = \"https://www.example.com/a/\"\n")
	f.Add("site = [{ match = \"a\" }, { match = \"b\", delay = \"x\" }]\n")
	f.Add("[[site]]\nmatch = 'a'\n\"headers\" = { \"X A\" = \"b\" }\n")
	f.Add("[[site]]\nmatch = \"a\"\nuser_agent = \"\"\"\n[[site]]\nmatch = \"b\"\n\"\"\"\nper_host = 0\n")
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return
		}
		env := func(name string) (string, bool) { return "v", strings.HasPrefix(name, "SET") }
		r, err := Load("f.toml", []byte(src), env)
		if err != nil {
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("%T is not an *Error: %v", err, err)
			}
			if e.Line < 1 || e.Line > strings.Count(src, "\n")+1 {
				t.Fatalf("error without a line in the file: %v", err)
			}
			return
		}
		for _, s := range r.Sites() {
			p, err := parseMatch(s.Match)
			if err != nil {
				t.Fatalf("loaded %q: %v", s.Match, err)
			}
			u := representative(p)
			got := r.For(u)
			if got.Match == "" {
				t.Fatalf("For(%s) matches nothing; %q should", u, s.Match)
			}
			gp, _ := parseMatch(got.Match)
			if specificity(gp, p) < 0 {
				t.Fatalf("For(%s) = %q, less specific than %q", u, got.Match, s.Match)
			}
			if got.Match == s.Match && got.Line != s.Line {
				t.Fatalf("For(%s): line %d, the entry's is %d", u, got.Line, s.Line)
			}
			r.Allowed(u)
			if p.kind != prefixMatch {
				if hs := r.ForHost(u.Host); hs.Match == "" {
					t.Fatalf("ForHost(%s) matches nothing; %q should", u.Host, s.Match)
				}
			}
		}
	})
}

// representative returns a URL that p matches. A pattern's host is kept
// without its trailing dot, as a URL's host is looked up: one that still
// ends in a dot (the match ".." or "a..") is given that dot back.
func representative(p pattern) *url.URL {
	host := p.host
	if strings.HasSuffix(host, ".") {
		host += "."
	}
	u := &url.URL{Scheme: "http", Host: host, Path: "/"}
	if strings.Contains(host, ":") {
		u.Host = "[" + host + "]"
	}
	switch p.kind {
	case portMatch:
		u.Host = net.JoinHostPort(host, p.port)
	case prefixMatch:
		u.Scheme, u.Host = p.scheme, net.JoinHostPort(host, p.port)
		u.RawPath = p.path
		u.Path, _ = url.PathUnescape(p.path)
	}
	return u
}

// specificity compares two patterns by how specific they are.
func specificity(a, b pattern) int {
	return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(len(a.host), len(b.host)), cmp.Compare(len(a.path), len(b.path)))
}
