package sites_test

import (
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"crawler/fetch"
	"crawler/sites"
)

func noEnv(string) (string, bool) { return "", false }

func load(t *testing.T, src string) *sites.Rules {
	t.Helper()
	r, err := sites.Load("t.toml", []byte(src), noEnv)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return r
}

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// The package doc's example file is the one Example loads.
func TestDocFile(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(doc), "// # The file\n//\n")
	var b strings.Builder
	for line := range strings.Lines(after) {
		if !strings.HasPrefix(line, "//\t") && line != "//\n" {
			break
		}
		b.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "//"), "\t"))
	}
	got := strings.TrimRight(b.String(), "\n") + "\n"
	if got != exampleFile {
		t.Errorf("the package doc's file:\n%s\nis not exampleFile:\n%s", got, exampleFile)
	}
}

// matchFile has entries of every kind, each with a distinct user_agent
// (its name) and some with another field, to see precedence field by field.
const matchFile = `
[[site]]
match = "*.example.com"
user_agent = "domain"
delay = "3s"
render = true
headers = { X-A = "domain", X-B = "domain" }

[[site]]
match = "*.a.example.com"
user_agent = "subdomain"
per_host = 4

[[site]]
match = "www.example.com"
user_agent = "host"
delay = "1s"
headers = { X-B = "host" }

[[site]]
match = "www.example.com:8080"
user_agent = "host:8080"
delay = "2s"

[[site]]
match = "https://www.example.com/docs/"
user_agent = "prefix"
cookies = false

[[site]]
match = "https://www.example.com/docs/api/"
user_agent = "longer prefix"
render = false

[[site]]
match = "http://www.example.com/docs/"
user_agent = "http prefix"

[[site]]
match = "Bücher.example"
user_agent = "idn"

[[site]]
match = "[::1]:9000"
user_agent = "ipv6"

[[site]]
match = "127.0.0.1"
user_agent = "ip"
`

func TestFor(t *testing.T) {
	r := load(t, matchFile)
	type want struct {
		ua      string // "" when nothing matched
		delay   time.Duration
		perHost int
		render  string // "", "true", "false"
		cookies string
		headers string
	}
	for _, tc := range []struct {
		url string
		want
	}{
		{"https://example.com/", want{"domain", 3 * time.Second, 0, "true", "", "X-A=domain X-B=domain"}},
		{"https://other.example.com/x", want{"domain", 3 * time.Second, 0, "true", "", "X-A=domain X-B=domain"}},
		{"https://EXAMPLE.com./", want{"domain", 3 * time.Second, 0, "true", "", "X-A=domain X-B=domain"}},
		{"https://notexample.com/", want{}},
		{"https://example.org/", want{}},
		{"https://a.example.com/", want{"subdomain", 3 * time.Second, 4, "true", "", "X-A=domain X-B=domain"}},
		{"https://x.y.a.example.com/", want{"subdomain", 3 * time.Second, 4, "true", "", "X-A=domain X-B=domain"}},
		{"https://www.example.com/", want{"host", time.Second, 0, "true", "", "X-A=domain X-B=host"}},
		{"http://WWW.Example.COM:81/", want{"host", time.Second, 0, "true", "", "X-A=domain X-B=host"}},
		{"http://www.example.com:8080/docs/", want{"host:8080", 2 * time.Second, 0, "true", "", "X-A=domain X-B=host"}},
		{"https://www.example.com/docs/", want{"prefix", time.Second, 0, "true", "false", "X-A=domain X-B=host"}},
		{"https://www.example.com:443/docs/x", want{"prefix", time.Second, 0, "true", "false", "X-A=domain X-B=host"}},
		{"https://www.example.com/docs", want{"host", time.Second, 0, "true", "", "X-A=domain X-B=host"}},
		{"https://www.example.com/DOCS/", want{"host", time.Second, 0, "true", "", "X-A=domain X-B=host"}},
		{"https://www.example.com/docs/api/v1", want{"longer prefix", time.Second, 0, "false", "false", "X-A=domain X-B=host"}},
		{"http://www.example.com/docs/api/v1", want{"http prefix", time.Second, 0, "true", "", "X-A=domain X-B=host"}},
		{"https://www.example.com:8443/docs/", want{"host", time.Second, 0, "true", "", "X-A=domain X-B=host"}},
		{"https://xn--bcher-kva.example/", want{"idn", 0, 0, "", "", ""}},
		{"http://[::1]:9000/", want{"ipv6", 0, 0, "", "", ""}},
		{"http://[::1]:9001/", want{}},
		{"http://127.0.0.1:5000/", want{"ip", 0, 0, "", "", ""}},
	} {
		s := r.For(mustURL(t, tc.url))
		var got want
		if s.UserAgent != nil {
			got.ua = *s.UserAgent
		}
		if s.Delay != nil {
			got.delay = *s.Delay
		}
		if s.PerHost != nil {
			got.perHost = *s.PerHost
		}
		if s.Render != nil {
			got.render = map[bool]string{true: "true", false: "false"}[*s.Render]
		}
		if s.Cookies != nil {
			got.cookies = map[bool]string{true: "true", false: "false"}[*s.Cookies]
		}
		if s.Headers != nil {
			got.headers = "X-A=" + s.Headers["X-A"] + " X-B=" + s.Headers["X-B"]
		}
		if got != tc.want {
			t.Errorf("For(%s) = %+v (match %q), want %+v", tc.url, got, s.Match, tc.want)
		}
		if (s.Match == "") != (tc.ua == "") {
			t.Errorf("For(%s).Match = %q", tc.url, s.Match)
		}
	}
}

func TestForHost(t *testing.T) {
	r := load(t, matchFile)
	for _, tc := range []struct{ host, ua string }{
		{"www.example.com", "host"},
		{"www.example.com:8080", "host:8080"},
		{"WWW.EXAMPLE.COM:8080", "host:8080"},
		{"www.example.com:9", "host"},
		{"b.a.example.com", "subdomain"},
		{"example.com", "domain"},
		{"[::1]:9000", "ipv6"},
		{"[::1]", ""},
		{"example.net", ""},
	} {
		s := r.ForHost(tc.host)
		got := ""
		if s.UserAgent != nil {
			got = *s.UserAgent
		}
		if got != tc.ua {
			t.Errorf("ForHost(%q): user_agent %q, want %q", tc.host, got, tc.ua)
		}
	}
	var none *sites.Rules
	if s := none.ForHost("example.com"); s.Match != "" {
		t.Errorf("nil Rules: %+v", s)
	}
	if s := none.For(mustURL(t, "http://example.com/")); s.Match != "" {
		t.Errorf("nil Rules: %+v", s)
	}
}

func TestAllowed(t *testing.T) {
	r := load(t, `
[[site]]
match = "example.com"
deny = ["/private/", "/a"]
allow = ["/private/open/", "/a"]

[[site]]
match = "only.example.com"
allow = ["/docs/"]
deny = ["/"]

[[site]]
match = "https://only.example.com/docs/old/"
deny = ["/docs/old/"]

[[site]]
match = "*.free.example"
deny = []
`)
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"http://example.com/", true},
		{"http://example.com/private/", false},
		{"http://example.com/private/x", false},
		{"http://example.com/private/open/x", true},
		{"http://example.com/a", false}, // deny wins at equal length
		{"http://example.com/ab", false},
		{"http://only.example.com/", false},
		{"http://only.example.com/docs/x", true},
		{"https://only.example.com/docs/old/x", false}, // the prefix entry's deny, its host's allow
		{"http://free.example/", true},
		{"http://other.example/", true},
	} {
		if got := r.Allowed(mustURL(t, tc.url)); got != tc.want {
			t.Errorf("Allowed(%s) = %v, want %v", tc.url, got, tc.want)
		}
	}
}

func TestSitesAsLoaded(t *testing.T) {
	r := load(t, matchFile)
	all := r.Sites()
	if len(all) != 10 || r.Len() != 10 {
		t.Fatalf("%d sites, Len %d, want 10", len(all), r.Len())
	}
	if all[2].Match != "www.example.com" || all[2].Line != 14 || all[2].Render != nil || len(all[2].Headers) != 1 {
		t.Errorf("third site as loaded: %+v", all[2])
	}
}

func TestEnv(t *testing.T) {
	env := map[string]string{"PW": "p@ss", "LOGIN_PW": "secret", "EMPTY": ""}
	lookup := func(n string) (string, bool) { v, ok := env[n]; return v, ok }
	r, err := sites.Load("t.toml", []byte(`
[[site]]
match = "example.com"
basic_auth = { user = "bob", password_env = "PW" }
[site.login]
url = "https://example.com/login"
fields = { user = "env:EMPTY", password = "env:LOGIN_PW", remember = "yes", literal = "envy:X" }
success.selector = "a.logout"
`), lookup)
	if err != nil {
		t.Fatal(err)
	}
	s := r.For(mustURL(t, "https://example.com/"))
	if s.BasicAuth == nil || *s.BasicAuth != (sites.BasicAuth{User: "bob", Password: "p@ss"}) {
		t.Errorf("basic auth %+v", s.BasicAuth)
	}
	f := s.Login.Fields
	if f["user"] != "" || f["password"] != "secret" || f["remember"] != "yes" || f["literal"] != "envy:X" || len(f) != 4 {
		t.Errorf("fields %q", f)
	}
	if s.Login.Success != (sites.Success{Selector: "a.logout"}) || s.Login.Form != "" {
		t.Errorf("login %+v", s.Login)
	}

	t.Setenv("SITES_TEST_PW", "from-process")
	path := t.TempDir() + "/sites.toml"
	os.WriteFile(path, []byte("[[site]]\nmatch = \"h\"\nbasic_auth = { user = \"u\", password_env = \"SITES_TEST_PW\" }\n"), 0o600)
	r, err = sites.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := r.ForHost("h"); s.BasicAuth.Password != "from-process" {
		t.Errorf("LoadFile: password %q", s.BasicAuth.Password)
	}
	if _, err := sites.LoadFile(t.TempDir() + "/missing.toml"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadFile(missing) = %v", err)
	}
}

// Every kind of error names the file, the line and the key.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"syntax", "[[site]]\nmatch = \"a\"\ndelay = \"1s\n", `t.toml:3: site.delay: strings cannot contain newlines`},
		{"syntax table", "[[site]\nmatch = \"a\"\n", `t.toml:2: expected end of table array name delimiter`},
		{"unknown key", "[[site]]\nmatch = \"a\"\n\n[[site]]\nmatch = \"b\"\nper-host = 3\n", `t.toml:6: site.per-host: unknown key (did you mean "per_host"?)`},
		{"unknown key escaped", "[[site]]\nmatch = \"a\"\n\"x\\e\" = 1\n", `t.toml:3: site."x\u001b": unknown key`},
		{"key case", "[[site]]\nmatch = \"a\"\nDelay = \"1s\"\n", `t.toml:3: site.Delay: unknown key (did you mean "delay"?)`},
		{"keys in a multi-line string", "[[site]]\nmatch = \"a\"\n[site.login]\nurl = \"http://a/\"\nsuccess = { cookie = \"s\" }\n[site.login.fields]\na = \"\"\"\ndelay = \"x\"\n[[site]]\nmatch = 'c'\n\"\"\"\n[[site]]\nmatch = \"b\" # delay = \"y\"\n'delay' = \"z\"\n", `t.toml:14: site.delay: "z" is not a duration`},
		{"bad ban_pattern", "[[site]]\nmatch = \"a\"\nban_pattern = \"(captcha\"\n", `t.toml:3: site.ban_pattern: "(captcha" is not a regular expression`},
		{"bad selector", "[[site]]\nmatch = \"a\"\n[site.login]\nurl = \"http://a/\"\nfields = { a = \"b\" }\nsuccess = { selector = \"a[\" }\n", `t.toml:6: site.login.success.selector: "a[" is not a CSS selector`},
		{"bad form selector", "[[site]]\nmatch = \"a\"\n[site.login]\nurl = \"http://a/\"\nform = \"#\"\nfields = { a = \"b\" }\nsuccess = { cookie = \"s\" }\n", `t.toml:5: site.login.form: "#" is not a CSS selector`},
		{"inline array of sites", "site = [\n  { match = \"a\" },\n  { match = \"b\", delay = \"x\" },\n]\n", `t.toml:3: site.delay: "x" is not a duration`},
		{"unknown top", "[[sites]]\nmatch = \"a\"\n", `t.toml:1: sites: unknown key (did you mean "site"?)`},
		{"unknown in login", "[[site]]\nmatch = \"a\"\n[site.login]\nurl = \"http://a/\"\nfield = {}\n", `t.toml:5: site.login.field: unknown key (did you mean "fields"?)`},
		{"unknown in basic_auth", "[[site]]\nmatch = \"a\"\nbasic_auth = { user = \"u\", password = \"p\" }\n", `t.toml:3: site.basic_auth.password: unknown key`},
		{"unknown in success", "[[site]]\nmatch = \"a\"\n[site.login]\nurl = \"http://a/\"\nfields = { a = \"b\" }\nsuccess = { cookies = \"s\" }\n", `t.toml:6: site.login.success.cookies: unknown key (did you mean "cookie"?)`},
		{"bad duration", "[[site]]\nmatch = \"a\"\ndelay = \"1s\"\n\n[[site]]\nmatch = \"b\"\n\ndelay = \"2 seconds\"\n", `t.toml:8: site.delay: "2 seconds" is not a duration (e.g. "1.5s", "500ms")`},
		{"first of two", "[[site]]\nmatch = \"a\"\ndelay = \"x\"\n\n[[site]]\nmatch = \"b\"\ndelay = \"1s\"\n", `t.toml:3: site.delay: "x" is not a duration`},
		{"negative delay", "[[site]]\nmatch = \"a\"\ndelay = \"-1s\"\n", `t.toml:3: site.delay: must not be negative, not "-1s"`},
		{"delay type", "[[site]]\nmatch = \"a\"\ndelay = 5\n", `t.toml:3: site.delay: must be a string, not an integer`},
		{"negative per_host", "[[site]]\nmatch = \"a\"\n\n  per_host = -2\n", `t.toml:4: site.per_host: must be at least 1 (and below 2^31), not -2`},
		{"zero max_pages", "[[site]]\nmatch = \"a\"\nmax_pages = 0\n", `t.toml:3: site.max_pages: must be at least 1`},
		{"per_host type", "[[site]]\nmatch = \"a\"\nper_host = \"4\"\n", `t.toml:3: site.per_host: must be an integer, not a string`},
		{"bool type", "[[site]]\nmatch = \"a\"\nrender = \"yes\"\n", `t.toml:3: site.render: must be true or false, not a string`},
		{"no match", "[[site]]\nmatch = \"a\"\n[[site]]\ndelay = \"1s\"\n", `t.toml:3: site: has no match`},
		{"empty match", "[[site]]\nmatch = \"\"\n", `t.toml:2: site.match: is empty`},
		{"bad match", "[[site]]\nmatch = \"example.com/docs\"\n", `t.toml:2: site.match: "example.com/docs" is not a host, "*.domain" or URL prefix`},
		{"bad scheme", "[[site]]\nmatch = \"ftp://example.com/\"\n", `t.toml:2: site.match: "ftp://example.com/" is not an http(s) URL prefix`},
		{"query in prefix", "[[site]]\nmatch = \"http://example.com/?q\"\n", `t.toml:2: site.match: "http://example.com/?q": a URL prefix has no query or fragment`},
		{"bad host", "[[site]]\nmatch = \"exa mple.com\"\n", `t.toml:2: site.match: "exa mple.com" is not a host`},
		{"bad port", "[[site]]\nmatch = \"example.com:99999\"\n", `t.toml:2: site.match: "example.com:99999" is not a host`},
		{"port of a tab", "[[site]]\nmatch = \"example.com:\\t\"\n", `t.toml:2: site.match: "example.com:\t" is not a host: port "\t"`},
		{"dot alone", "[[site]]\nmatch = \".\"\n", `t.toml:2: site.match: "." is not a host, "*.domain" or URL prefix`},
		{"domain of a dot", "[[site]]\nmatch = \"*..\"\n", `t.toml:2: site.match: "*.." is not a host, "*.domain" or URL prefix`},
		{"prefix of a dot", "[[site]]\nmatch = \"http://./\"\n", `t.toml:2: site.match: "http://./" is not an http(s) URL prefix`},
		{"domain port", "[[site]]\nmatch = \"*.example.com:80\"\n", `t.toml:2: site.match: "*.example.com:80": a *.domain match has no port`},
		{"duplicate", "[[site]]\nmatch = \"Example.com\"\n[[site]]\nmatch = \"example.COM.\"\n", `t.toml:4: site.match: "example.COM." matches what "Example.com" (line 2) does`},
		{"prefix delay", "[[site]]\nmatch = \"http://a/b/\"\ndelay = \"1s\"\n", `t.toml:2: site.match: "http://a/b/" is a URL prefix: delay and per_host apply to a whole host`},
		{"headers type", "[[site]]\nmatch = \"a\"\nheaders = [\"X-A: b\"]\n", `t.toml:3: site.headers: must be a table, not an array`},
		{"header name", "[[site]]\nmatch = \"a\"\n[site.headers]\n\"X A\" = \"b\"\n", `t.toml:4: site.headers."X A": "X A" is not a valid header name`},
		{"header value", "[[site]]\nmatch = \"a\"\nheaders = { X-A = \"b\\r\\nX-B: c\" }\n", `t.toml:3: site.headers.X-A: "b\r\nX-B: c" is not a valid header value`},
		{"header int", "[[site]]\nmatch = \"a\"\n[site.headers]\nX-A = 1\n", `t.toml:4: site.headers.X-A: must be a string, not an integer`},
		{"password_env missing", "[[site]]\nmatch = \"a\"\n\n[site.basic_auth]\nuser = \"u\"\npassword_env = \"NO_SUCH_VAR\"\n", `t.toml:6: site.basic_auth.password_env: environment variable NO_SUCH_VAR is not set`},
		{"basic_auth incomplete", "[[site]]\nmatch = \"a\"\nbasic_auth = { user = \"u\" }\n", `t.toml:3: site.basic_auth: needs user and password_env`},
		{"env field missing", "[[site]]\nmatch = \"a\"\n[site.login]\nurl = \"http://a/\"\nsuccess.cookie = \"s\"\n[site.login.fields]\nname = \"bob\"\npw = \"env:NO_SUCH_PW\"\n", `t.toml:8: site.login.fields.pw: environment variable NO_SUCH_PW is not set`},
		{"login no url", "[[site]]\nmatch = \"a\"\n[site.login]\nfields = { a = \"b\" }\n", `t.toml:3: site.login: has no url`},
		{"login relative url", "[[site]]\nmatch = \"a\"\n[site.login]\nurl = \"/login\"\n", `t.toml:4: site.login.url: "/login" is not an absolute http(s) URL`},
		{"login no success", "[[site]]\nmatch = \"a\"\n[site.login]\nurl = \"http://a/\"\nfields = { a = \"b\" }\n", `t.toml:3: site.login: has no success`},
		{"login two successes", "[[site]]\nmatch = \"a\"\n[site.login]\nurl = \"http://a/\"\nfields = { a = \"b\" }\nsuccess = { cookie = \"s\", selector = \"p\" }\n", `t.toml:6: site.login.success: needs exactly one of cookie = "NAME" and selector = "..."`},
		{"login empty success", "[[site]]\nmatch = \"a\"\n[site.login]\nurl = \"http://a/\"\nfields = { a = \"b\" }\nsuccess = {}\n", `t.toml:6: site.login.success: needs exactly one`},
		{"cookie name", "[[site]]\nmatch = \"a\"\n[site.login]\nurl = \"http://a/\"\nfields = { a = \"b\" }\nsuccess = { cookie = \"a b\" }\n", `t.toml:6: site.login.success.cookie: "a b" is not a cookie name`},
		{"path prefix", "[[site]]\nmatch = \"a\"\ndeny = [\"/a\", \"b\"]\n", `t.toml:3: site.deny: "b" is not a path prefix (it starts with "/")`},
		{"list type", "[[site]]\nmatch = \"a\"\nallow = \"/a\"\n", `t.toml:3: site.allow: must be an array of strings, not a string`},
		{"list of ints", "[[site]]\nmatch = \"a\"\nignore_query = [1]\n", `t.toml:3: site.ignore_query: must be an array of strings, not of an integer`},
		{"site not array", "[site]\nmatch = \"a\"\n", `t.toml:1: site: must be tables, written [[site]]`},
		{"user agent", "[[site]]\nmatch = \"a\"\nuser_agent = \"\"\n", `t.toml:3: site.user_agent: "" is not a valid header value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sites.Load("t.toml", []byte(tc.src), noEnv)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("got  %v\nwant %s...", err, tc.want)
			}
			if _, ok := errors.AsType[*sites.Error](err); !ok {
				t.Errorf("%T is not a *sites.Error", err)
			}
		})
	}
}

// ban_pattern is compiled when loading and inherited like any field.
func TestBanPattern(t *testing.T) {
	rules, err := sites.Load("t.toml", []byte("[[site]]\nmatch = \"*.shop.example\"\nban_pattern = \"(?i)captcha|access denied\"\n[[site]]\nmatch = \"a.shop.example\"\ndelay = \"1s\"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := rules.ForURL("https://a.shop.example/x")
	if s.BanPattern == nil || !s.BanPattern.MatchString("<h1>Please solve the CAPTCHA</h1>") || s.BanPattern.MatchString("<p>a page") {
		t.Errorf("ban_pattern of a.shop.example: %v", s.BanPattern)
	}
}

// Policy.Banned matches a response's body against its site's ban_pattern.
func TestPolicyBanned(t *testing.T) {
	rules, err := sites.Load("t.toml", []byte("[[site]]\nmatch = \"shop.example\"\nban_pattern = \"captcha\"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &sites.Policy{Rules: rules}
	ban := &fetch.Response{Body: []byte("solve the captcha")}
	for _, tc := range []struct {
		url  string
		resp *fetch.Response
		want bool
	}{
		{"https://shop.example/a", ban, true},
		{"https://shop.example/a", &fetch.Response{Body: []byte("a page")}, false},
		{"https://other.example/a", ban, false},
		{"https://shop.example/a", nil, false},
	} {
		if got := p.Banned(&fetch.Request{URL: tc.url}, tc.resp); got != tc.want {
			t.Errorf("Banned(%s) = %v; want %v", tc.url, got, tc.want)
		}
	}
	var none *sites.Policy
	if none.Banned(&fetch.Request{URL: "https://shop.example/"}, ban) {
		t.Error("a nil Policy bans")
	}
}
