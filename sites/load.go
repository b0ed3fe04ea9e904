package sites

import (
	"errors"
	"fmt"
	"net/http"
	"net/textproto"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/andybalholm/cascadia"

	"github.com/BurntSushi/toml"
	"golang.org/x/net/http/httpguts"
)

// Error is the error [Load] and [LoadFile] return for a file they reject:
// a syntax error, an unknown key, a value of the wrong type or out of
// range, a bad match, or an environment variable that is not set. It
// reads "FILE:LINE: KEY: what is wrong", e.g.
//
//	sites.toml:7: site.delay: "2 seconds" is not a duration (e.g. "1.5s", "500ms")
type Error struct {
	File string // the name given to Load, or the path given to LoadFile
	Line int    // from 1; 0 when unknown
	Key  string // the dotted TOML key, e.g. "site.login.url"; "" when none
	Err  error  // what is wrong
}

// Error implements error.
func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	if e.Key != "" {
		s += ": " + e.Key
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// LoadFile reads and loads the sites file at path (see [Load]), reading
// environment variables from the process environment.
func LoadFile(path string) (*Rules, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Load(path, src, os.LookupEnv)
}

// Load parses a sites file (TOML, see the package doc), validates it, and
// returns its rules. name is the file's name, for errors. lookupEnv reads
// the environment variables that password_env and "env:NAME" values name;
// nil means [os.LookupEnv]. Every error is an [*Error].
func Load(name string, src []byte, lookupEnv func(string) (string, bool)) (*Rules, error) {
	if lookupEnv == nil {
		lookupEnv = os.LookupEnv
	}
	var f rawFile
	md, err := toml.Decode(string(src), &f)
	if pe, ok := errors.AsType[toml.ParseError](err); ok {
		line := pe.Position.Line
		if line < 1 { // the lexer leaves some errors without one
			line = 1 + strings.Count(string(src[:min(max(pe.Position.Start, 0), len(src))]), "\n")
		}
		return nil, &Error{File: name, Line: line, Key: pe.LastKey, Err: errors.New(pe.Message)}
	}
	l := &loader{name: name, env: lookupEnv}
	l.index(string(src), md.Keys())
	if err == nil {
		for _, k := range md.Undecoded() {
			return nil, l.errorf(-2, k.String(), "unknown key%s", hint(k[len(k)-1], siteKeys))
		}
	}
	// The decoder matches keys to fields ignoring case; TOML keys have it.
	for _, k := range md.Keys() {
		if k[0] != "site" || len(k) > 1 && !slices.Contains(siteKeys[1:], k[1]) {
			return nil, l.errorf(-2, k.String(), "unknown key%s", hint(k[len(k)-1], siteKeys))
		}
	}
	if err != nil {
		// With every leaf decoded by val, only the shape of site can be wrong.
		return nil, l.errorf(-1, "site", "must be tables, written [[site]]")
	}
	sites := make([]Site, 0, len(f.Site))
	matchLines := make([]int, 0, len(f.Site))
	for i, r := range f.Site {
		s, err := l.site(i, r)
		if err != nil {
			return nil, err
		}
		sites = append(sites, s)
		matchLines = append(matchLines, l.line(i, "site.match"))
	}
	return compile(name, sites, matchLines)
}

// val holds a value of any TOML type, checked by the loader, which knows
// the key and its line (the decoder's type errors may name a wrong line).
type val struct {
	v   any
	set bool
}

// UnmarshalTOML implements toml.Unmarshaler.
func (v *val) UnmarshalTOML(data any) error {
	v.v, v.set = data, true
	return nil
}

type rawFile struct {
	Site []rawSite `toml:"site"`
}

type rawSite struct {
	Match        val `toml:"match"`
	Delay        val `toml:"delay"`
	PerHost      val `toml:"per_host"`
	MaxPages     val `toml:"max_pages"`
	UserAgent    val `toml:"user_agent"`
	Headers      val `toml:"headers"`
	BasicAuth    val `toml:"basic_auth"`
	Render       val `toml:"render"`
	Cookies      val `toml:"cookies"`
	IgnoreQuery  val `toml:"ignore_query"`
	Allow        val `toml:"allow"`
	Deny         val `toml:"deny"`
	IgnoreRobots val `toml:"ignore_robots"`
	Login        val `toml:"login"`
	BanPattern   val `toml:"ban_pattern"`
}

// siteKeys are the keys of a [[site]] and the file's, for hints.
var siteKeys = []string{"site", "match", "delay", "per_host", "max_pages", "user_agent", "headers", "basic_auth",
	"render", "cookies", "ignore_query", "allow", "deny", "ignore_robots", "login", "ban_pattern"}

// hint suggests which of keys an unknown key k was likely meant to be:
// one spelled with "-" for "_", in another case, or without or with a
// plural "s".
func hint(k string, keys []string) string {
	norm := strings.ToLower(strings.ReplaceAll(k, "-", "_"))
	for _, s := range keys {
		if s == norm || s+"s" == norm || norm+"s" == s {
			return fmt.Sprintf(" (did you mean %q?)", s)
		}
	}
	return ""
}

// sub returns the dotted key of k in table key, quoting k as TOML does.
func sub(key, k string) string {
	return key + "." + toml.Key{k}.String()
}

type loader struct {
	name  string
	env   func(string) (string, bool)
	lines map[lineKey]int // the line of the first occurrence of a key in a site (-1: outside sites)
	first map[string]int  // the line of the first occurrence of a key
}

type lineKey struct {
	site int
	key  string
}

// index finds the lines of the keys.
func (l *loader) index(src string, keys []toml.Key) {
	lines := keyLines(src, keys)
	l.lines = make(map[lineKey]int, len(keys))
	l.first = make(map[string]int, len(keys))
	site := -1
	for i, k := range keys {
		if len(k) == 1 && k[0] == "site" {
			site++
		}
		// The key and the tables it makes implicitly ("a" of a.b = 1).
		for j := len(k); j > 0; j-- {
			s := k[:j].String()
			if _, ok := l.lines[lineKey{site, s}]; !ok {
				l.lines[lineKey{site, s}] = lines[i]
			}
			if _, ok := l.first[s]; !ok {
				l.first[s] = lines[i]
			}
		}
	}
}

// line returns the line of key in the site'th [[site]], or its first line
// anywhere (site < 0, or sites written as an inline array).
func (l *loader) line(site int, key string) int {
	if n, ok := l.lines[lineKey{site, key}]; ok && n > 0 && site >= 0 {
		return n
	}
	return l.first[key]
}

func (l *loader) errorf(site int, key, format string, args ...any) error {
	return &Error{File: l.name, Line: l.line(site, key), Key: key, Err: fmt.Errorf(format, args...)}
}

// typeName names a decoded TOML value's type for errors.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case map[string]any:
		return "a table"
	case []any, []map[string]any:
		return "an array"
	}
	return "a date or time"
}

func (l *loader) str(i int, key string, v val) (*string, error) {
	return scalar[string](l, i, key, v, "a string")
}

func (l *loader) boolean(i int, key string, v val) (*bool, error) {
	return scalar[bool](l, i, key, v, "true or false")
}

func (l *loader) count(i int, key string, v val) (*int, error) {
	n, err := scalar[int64](l, i, key, v, "an integer")
	if n == nil || err != nil {
		return nil, err
	}
	if *n < 1 || *n > 1<<31-1 {
		return nil, l.errorf(i, key, "must be at least 1 (and below 2^31), not %d", *n)
	}
	c := int(*n)
	return &c, nil
}

// scalar returns the value of key, v, as a T, or an error saying it must
// be what; nil if it is not set.
func scalar[T any](l *loader, i int, key string, v val, what string) (*T, error) {
	if !v.set {
		return nil, nil
	}
	x, ok := v.v.(T)
	if !ok {
		return nil, l.errorf(i, key, "must be %s, not %s", what, typeName(v.v))
	}
	return &x, nil
}

func (l *loader) list(i int, key string, v val, check func(string) string) ([]string, error) {
	if !v.set {
		return nil, nil
	}
	a, ok := v.v.([]any)
	if !ok {
		return nil, l.errorf(i, key, "must be an array of strings, not %s", typeName(v.v))
	}
	out := make([]string, 0, len(a))
	for _, e := range a {
		s, ok := e.(string)
		if !ok {
			return nil, l.errorf(i, key, "must be an array of strings, not of %s", typeName(e))
		}
		if msg := check(s); msg != "" {
			return nil, l.errorf(i, key, "%q %s", s, msg)
		}
		out = append(out, s)
	}
	return out, nil
}

// table checks that v is a table whose keys are among known.
func (l *loader) table(i int, key string, v val, known ...string) (map[string]any, error) {
	t, ok := v.v.(map[string]any)
	if !ok {
		return nil, l.errorf(i, key, "must be a table, not %s", typeName(v.v))
	}
	if known != nil {
		for _, k := range sortedKeys(t) {
			if !slices.Contains(known, k) {
				return nil, l.errorf(i, sub(key, k), "unknown key%s", hint(k, known))
			}
		}
	}
	return t, nil
}

func sortedKeys(t map[string]any) []string {
	ks := make([]string, 0, len(t))
	for k := range t {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// resolve returns s, or the value of the variable it names as "env:NAME".
func (l *loader) resolve(i int, key, s string) (string, error) {
	name, ok := strings.CutPrefix(s, "env:")
	if !ok {
		return s, nil
	}
	v, ok := l.env(name)
	if !ok {
		return "", l.errorf(i, key, "environment variable %s is not set", name)
	}
	return v, nil
}

// site checks the i'th [[site]] and returns its settings.
func (l *loader) site(i int, r rawSite) (s Site, err error) {
	s.Line = l.line(i, "site")
	if !r.Match.set {
		return s, &Error{File: l.name, Line: s.Line, Key: "site", Err: errors.New(`has no match (a host, "*.domain" or a URL prefix)`)}
	}
	m, err := l.str(i, "site.match", r.Match)
	if err != nil {
		return s, err
	}
	s.Match = *m
	if _, err := parseMatch(s.Match); err != nil {
		return s, l.errorf(i, "site.match", "%v", err)
	}
	if d, err := l.str(i, "site.delay", r.Delay); err != nil {
		return s, err
	} else if d != nil {
		t, perr := time.ParseDuration(*d)
		if perr != nil {
			return s, l.errorf(i, "site.delay", "%q is not a duration (e.g. \"1.5s\", \"500ms\")", *d)
		}
		if t < 0 {
			return s, l.errorf(i, "site.delay", "must not be negative, not %q", *d)
		}
		s.Delay = &t
	}
	if s.PerHost, err = l.count(i, "site.per_host", r.PerHost); err != nil {
		return s, err
	}
	if s.MaxPages, err = l.count(i, "site.max_pages", r.MaxPages); err != nil {
		return s, err
	}
	if s.UserAgent, err = l.str(i, "site.user_agent", r.UserAgent); err != nil {
		return s, err
	}
	if s.UserAgent != nil && (*s.UserAgent == "" || !httpguts.ValidHeaderFieldValue(*s.UserAgent)) {
		return s, l.errorf(i, "site.user_agent", "%q is not a valid header value", *s.UserAgent)
	}
	pattern, err := l.str(i, "site.ban_pattern", r.BanPattern)
	if err != nil {
		return s, err
	}
	if pattern != nil {
		if s.BanPattern, err = regexp.Compile(*pattern); err != nil || *pattern == "" {
			return s, l.errorf(i, "site.ban_pattern", "%q is not a regular expression (RE2 syntax)", *pattern)
		}
	}
	if r.Headers.set {
		t, err := l.table(i, "site.headers", r.Headers)
		if err != nil {
			return s, err
		}
		s.Headers = make(map[string]string, len(t))
		for _, k := range sortedKeys(t) {
			key := sub("site.headers", k)
			v, ok := t[k].(string)
			if !ok {
				return s, l.errorf(i, key, "must be a string, not %s", typeName(t[k]))
			}
			if !httpguts.ValidHeaderFieldName(k) {
				return s, l.errorf(i, key, "%q is not a valid header name", k)
			}
			if !httpguts.ValidHeaderFieldValue(v) {
				return s, l.errorf(i, key, "%q is not a valid header value", v)
			}
			s.Headers[textproto.CanonicalMIMEHeaderKey(k)] = v
		}
	}
	if r.BasicAuth.set {
		t, err := l.table(i, "site.basic_auth", r.BasicAuth, "user", "password_env")
		if err != nil {
			return s, err
		}
		user, err := l.str(i, "site.basic_auth.user", val{t["user"], t["user"] != nil})
		if err != nil {
			return s, err
		}
		env, err := l.str(i, "site.basic_auth.password_env", val{t["password_env"], t["password_env"] != nil})
		if err != nil {
			return s, err
		}
		if user == nil || env == nil || *env == "" {
			return s, l.errorf(i, "site.basic_auth", "needs user and password_env (the name of an environment variable)")
		}
		if strings.Contains(*user, ":") {
			return s, l.errorf(i, "site.basic_auth.user", "must not contain a colon")
		}
		pw, ok := l.env(*env)
		if !ok {
			return s, l.errorf(i, "site.basic_auth.password_env", "environment variable %s is not set", *env)
		}
		s.BasicAuth = &BasicAuth{User: *user, Password: pw}
	}
	if s.Render, err = l.boolean(i, "site.render", r.Render); err != nil {
		return s, err
	}
	if s.Cookies, err = l.boolean(i, "site.cookies", r.Cookies); err != nil {
		return s, err
	}
	if s.IgnoreRobots, err = l.boolean(i, "site.ignore_robots", r.IgnoreRobots); err != nil {
		return s, err
	}
	if s.IgnoreQuery, err = l.list(i, "site.ignore_query", r.IgnoreQuery, func(p string) string {
		if p == "" || strings.ContainsAny(p, "&=#") {
			return "is not a query parameter name"
		}
		return ""
	}); err != nil {
		return s, err
	}
	path := func(p string) string {
		if !strings.HasPrefix(p, "/") {
			return `is not a path prefix (it starts with "/")`
		}
		return ""
	}
	if s.Allow, err = l.list(i, "site.allow", r.Allow, path); err != nil {
		return s, err
	}
	if s.Deny, err = l.list(i, "site.deny", r.Deny, path); err != nil {
		return s, err
	}
	if r.Login.set {
		if s.Login, err = l.login(i, r.Login); err != nil {
			return s, err
		}
	}
	return s, nil
}

func (l *loader) login(i int, v val) (*Login, error) {
	t, err := l.table(i, "site.login", v, "url", "fields", "form", "success")
	if err != nil {
		return nil, err
	}
	get := func(k string) val { return val{t[k], t[k] != nil} }
	var lg Login
	u, err := l.str(i, "site.login.url", get("url"))
	if err != nil {
		return nil, err
	}
	if u == nil {
		return nil, l.errorf(i, "site.login", "has no url (the page holding the form)")
	}
	if !absoluteHTTP(*u) {
		return nil, l.errorf(i, "site.login.url", "%q is not an absolute http(s) URL", *u)
	}
	lg.URL = *u
	if !get("fields").set {
		return nil, l.errorf(i, "site.login", "has no fields (input names to values)")
	}
	ft, err := l.table(i, "site.login.fields", get("fields"))
	if err != nil {
		return nil, err
	}
	lg.Fields = make(map[string]string, len(ft))
	for _, k := range sortedKeys(ft) {
		key := sub("site.login.fields", k)
		s, ok := ft[k].(string)
		if !ok {
			return nil, l.errorf(i, key, "must be a string, not %s", typeName(ft[k]))
		}
		if lg.Fields[k], err = l.resolve(i, key, s); err != nil {
			return nil, err
		}
	}
	if f, err := l.str(i, "site.login.form", get("form")); err != nil {
		return nil, err
	} else if f != nil {
		if strings.TrimSpace(*f) == "" {
			return nil, l.errorf(i, "site.login.form", "is an empty selector")
		}
		if _, err := cascadia.Compile(*f); err != nil {
			return nil, l.errorf(i, "site.login.form", "%q is not a CSS selector: %v", *f, err)
		}
		lg.Form = *f
	}
	if !get("success").set {
		return nil, l.errorf(i, "site.login", `has no success (cookie = "NAME" or selector = "...")`)
	}
	st, err := l.table(i, "site.login.success", get("success"), "cookie", "selector")
	if err != nil {
		return nil, err
	}
	c, err := l.str(i, "site.login.success.cookie", val{st["cookie"], st["cookie"] != nil})
	if err != nil {
		return nil, err
	}
	sel, err := l.str(i, "site.login.success.selector", val{st["selector"], st["selector"] != nil})
	if err != nil {
		return nil, err
	}
	if (c == nil) == (sel == nil) || c != nil && *c == "" || sel != nil && strings.TrimSpace(*sel) == "" {
		return nil, l.errorf(i, "site.login.success", `needs exactly one of cookie = "NAME" and selector = "..."`)
	}
	if c != nil {
		if !validCookieName(*c) {
			return nil, l.errorf(i, "site.login.success.cookie", "%q is not a cookie name", *c)
		}
		lg.Success.Cookie = *c
	} else {
		if _, err := cascadia.Compile(*sel); err != nil {
			return nil, l.errorf(i, "site.login.success.selector", "%q is not a CSS selector: %v", *sel, err)
		}
		lg.Success.Selector = *sel
	}
	return &lg, nil
}

func validCookieName(s string) bool {
	if s == "" {
		return false
	}
	c := &http.Cookie{Name: s, Value: "v"}
	return c.Valid() == nil
}
