package sites

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"crawler/canon"
	"crawler/cookies"
	"crawler/fetch"
	"crawler/frontier"
	"crawler/politeness"
)

// Policy applies Rules to a crawl: the Crawler consults it (its Sites
// field) for what each URL may be and how it is fetched. Set its fields
// before the crawl; a Policy keeps the crawl's sessions (logins) and
// counts, across the Runs that use it. It is safe for concurrent use.
type Policy struct {
	// Rules are the entries. Nil: none; the Policy changes nothing.
	Rules *Rules
	// Plain fetches robots.txt and logins, when the crawl's Fetcher
	// renders (a crawler/render Fetcher, whose Render may be Renders).
	// Nil: the crawl's Fetcher.
	Plain fetch.Fetcher
	// NoCookies switches cookies off, except on the sites whose rules
	// say cookies = true (the CLI's -cookies=false).
	NoCookies bool
	// Login, if not nil, logs in to the sites with a login in place of
	// the form flow, for what a form cannot express: a script of
	// requests, a token from elsewhere. It returns nil once the session is
	// in s.Jar; an error counts as a failed attempt.
	Login func(ctx context.Context, s *Session) error

	mu       sync.Mutex
	sessions map[*Login]*session // by the entry's Login, shared by the Sites it applies to
	budgets  map[*int]*atomic.Int64
}

// Session is what a scripted login (Policy.Login) works with.
type Session struct {
	Site Site   // the effective settings of the page that needed the login
	URL  string // that page
	// Fetch sends a request as the crawl would: the site's headers and
	// credentials, its cookies, the address policy, robots.txt.
	Fetch func(ctx context.Context, req *fetch.Request) (*fetch.Response, error)
	Jar   http.CookieJar // the crawl's cookies; nil if the crawl keeps none
}

// Env is what the crawler lends a Policy's fetcher (see Policy.Fetcher).
type Env struct {
	// Jar holds the crawl's cookies, where a login's success cookie is
	// looked for. Nil: the one cookies.Find finds in Plain, else in the
	// crawl's Fetcher.
	Jar http.CookieJar
	// Robots, if not nil, is the crawl's robots.txt cache, which a
	// login's requests obey (unless the site says ignore_robots), as
	// Agent, the crawl's product token. Nil: the crawl ignores robots.txt.
	Robots *politeness.RobotsCache
	Agent  string
	// Delay is the least gap between a login's requests to a host whose
	// rules set no delay: the crawl's.
	Delay time.Duration
	// Logger receives a line for each login. Nil: none.
	Logger *slog.Logger
	// Logins, Relogins and LoginsFailed, if not nil, count the logins
	// that worked (first ones, and again after an expiry) and the
	// attempts that failed, for the crawl's Stats.
	Logins, Relogins, LoginsFailed *atomic.Int64
}

// add adds 1 to c, if not nil.
func add(c *atomic.Int64) {
	if c != nil {
		c.Add(1)
	}
}

// Kinds of the errors of this package, as fetch.ErrorKind names them and
// the crawler counts them (Stats.Errors).
const (
	KindLoginFailed = "login-failed" // a LoginError: the site's login failed twice
	KindMaxPages    = "max-pages"    // ErrMaxPages: the entry's max_pages is spent
)

// ErrMaxPages is the error of a page not fetched because the max_pages of
// its entry is spent. It wraps fetch.ErrNotSent; its kind
// (fetch.ErrorKind) is KindMaxPages.
var ErrMaxPages error = maxPagesError{}

type maxPagesError struct{}

func (maxPagesError) Error() string     { return "sites: the entry's max_pages is spent" }
func (maxPagesError) ErrorKind() string { return KindMaxPages }
func (maxPagesError) Unwrap() error     { return fetch.ErrNotSent }

// LoginError is the error of the pages of a site whose login failed twice:
// the form was not found, the credentials were refused, robots.txt
// disallows it. Its kind is "login-failed" (fetch.ErrorKind), and it
// retires the page's host.
type LoginError struct {
	Site string // the entry's match
	URL  string // the login page
	Err  error  // why the last attempt failed
}

func (e *LoginError) Error() string {
	return fmt.Sprintf("sites: login to %s (%s) failed: %v", e.Site, e.URL, e.Err)
}

// Unwrap returns Err.
func (e *LoginError) Unwrap() error { return e.Err }

// ErrorKind returns "login-failed".
func (*LoginError) ErrorKind() string { return KindLoginFailed }

// RetiresHost reports true: the host's pages can no longer be fetched.
func (*LoginError) RetiresHost() bool { return true }

// Follow reports whether a link to u is to be crawled: the entries'
// allow and deny, and a max_pages not yet spent.
func (p *Policy) Follow(u string) bool {
	if p == nil || p.Rules == nil {
		return true
	}
	s := p.Rules.ForURL(u)
	if s.MaxPages != nil && p.budget(s.MaxPages).Load() >= int64(*s.MaxPages) {
		return false
	}
	return s.Allow == nil && s.Deny == nil || allowedPath(s, pathOf(u))
}

// IgnoresRobots reports whether the rules for u say ignore_robots.
func (p *Policy) IgnoresRobots(u string) bool {
	return p != nil && p.Rules.IgnoresRobots(u)
}

// Canonicalizer returns c with the rules' ignore_query applied (see
// canon.Canonicalizer.IgnoreParams), or c itself if no entry sets one.
func (p *Policy) Canonicalizer(c *canon.Canonicalizer) *canon.Canonicalizer {
	if p == nil || !slices.ContainsFunc(p.Rules.Sites(), func(s Site) bool { return s.IgnoreQuery != nil }) {
		return c
	}
	cc := new(canon.Canonicalizer)
	if c != nil {
		*cc = *c
	}
	cc.IgnoreParams = p.Rules.IgnoreQuery
	return cc
}

// budget returns the counter of the pages fetched under the entry whose
// max_pages is max.
func (p *Policy) budget(max *int) *atomic.Int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.budgets == nil {
		p.budgets = map[*int]*atomic.Int64{}
	}
	b := p.budgets[max]
	if b == nil {
		b = new(atomic.Int64)
		p.budgets[max] = b
	}
	return b
}

// Apply puts the rules to work in the parts of a crawl, as the Crawler
// does at the start of each Run: it returns f as Fetcher applies the
// rules, and c as Canonicalizer does, and gives hosts each host's delay
// (Rules.HostDelay) and fr, if it is a frontier.HostLimiter, each host's
// per_host (Rules.HostLimit). A nil p, or one without Rules, returns f
// and c and changes nothing.
func (p *Policy) Apply(f fetch.Fetcher, c *canon.Canonicalizer, hosts *politeness.Hosts, fr frontier.Frontier, env Env) (fetch.Fetcher, *canon.Canonicalizer) {
	if p == nil || p.Rules == nil {
		return f, c
	}
	hosts.DelayHosts(p.Rules.HostDelay)
	if l, ok := fr.(frontier.HostLimiter); ok {
		l.LimitHosts(p.Rules.HostLimit)
	}
	return p.Fetcher(f, env), p.Canonicalizer(c)
}

// Fetcher returns f with the rules applied to each request: the site's
// User-Agent, headers and Basic credentials (each request matched on its
// own URL, so a redirect to another host carries none of the first's),
// cookies off where the rules say so (robots.txt and logins through
// Plain), the entry's max_pages, and the site's login.
func (p *Policy) Fetcher(f fetch.Fetcher, env Env) fetch.Fetcher {
	if env.Jar == nil {
		if jar := cookies.Find(cmp.Or(p.Plain, f)); jar != nil {
			env.Jar = jar
		}
	}
	if env.Logger == nil {
		env.Logger = slog.New(slog.DiscardHandler)
	}
	return &siteFetcher{p: p, f: f, env: env}
}

// siteFetcher is a Policy's fetcher for one Run.
type siteFetcher struct {
	p   *Policy
	f   fetch.Fetcher // the crawl's
	env Env
}

// Fetch fetches req by its site's rules (see Policy.Fetcher).
func (sf *siteFetcher) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	rules := sf.p.Rules
	if rules == nil || rules.Len() == 0 {
		return sf.f.Fetch(ctx, req)
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		return sf.f.Fetch(ctx, req)
	}
	s := rules.For(u)
	robots := u.Path == "/robots.txt" && u.RawQuery == ""
	if robots || s.Login != nil && sameDoc(u, s.Login.URL) {
		return sf.send(ctx, s, req, true)
	}
	if s.MaxPages != nil && sf.p.budget(s.MaxPages).Add(1) > int64(*s.MaxPages) {
		return nil, ErrMaxPages
	}
	if s.Login == nil {
		return sf.send(ctx, s, req, false)
	}
	sess := sf.p.session(s.Login)
	gen, err := sess.ensure(ctx, sf, s, req.URL)
	if err != nil {
		return nil, err
	}
	resp, err := sf.send(ctx, s, req, false)
	if err != nil || !expired(resp, u, s.Login) || !sess.mayExpire(resp) {
		return resp, err
	}
	if err := sess.again(ctx, sf, s, req.URL, gen); err != nil {
		return nil, err
	}
	resp, err = sf.send(ctx, s, req, false)
	if err == nil {
		sess.afterRelogin(sf, s, !expired(resp, u, s.Login))
	}
	return resp, err
}

// send fetches req with the site's settings s, by the plain fetcher if
// plain.
func (sf *siteFetcher) send(ctx context.Context, s Site, req *fetch.Request, plain bool) (*fetch.Response, error) {
	f := sf.f
	if plain {
		f = cmp.Or(sf.p.Plain, sf.f)
	}
	return f.Fetch(ctx, sf.p.decorate(s, req))
}

// Banned reports whether resp, the answer to req, matches the ban_pattern
// of req's site: the site refused the crawl (a ban or captcha page). A
// proxy pool counts it against the proxy that got it.
func (p *Policy) Banned(req *fetch.Request, resp *fetch.Response) bool {
	if p == nil || resp == nil {
		return false
	}
	re := p.Rules.ForURL(req.URL).BanPattern
	return re != nil && re.Match(resp.Body)
}

// Renders reports whether the page at u is rendered: as its rules say
// (render), else dflt. A crawler/render Fetcher's Render may be
// func(u string) bool { return p.Renders(u, false) }: render = true takes
// effect through it.
func (p *Policy) Renders(u string, dflt bool) bool {
	if p == nil {
		return dflt
	}
	if r := p.Rules.ForURL(u).Render; r != nil {
		return *r
	}
	return dflt
}

// Decorate returns f with each request given its own URL's User-Agent,
// headers, credentials and cookie setting, and nothing else of the rules
// (no login, no max_pages): for the requests a rendered page makes (a
// crawler/render Fetcher's Fetcher), which are no pages of the crawl.
func (p *Policy) Decorate(f fetch.Fetcher) fetch.Fetcher {
	return decorated{p, f}
}

// FilterJar returns jar seen through the rules: it gives no cookies for,
// and keeps none from, a URL whose rules say cookies = false (or, with
// NoCookies, do not say cookies = true or have a login). For a fetcher
// that keeps cookies itself (a crawler/render Fetcher's Jar). A nil p
// returns jar.
func (p *Policy) FilterJar(jar http.CookieJar) http.CookieJar {
	if p == nil || p.Rules == nil {
		return jar
	}
	return filteredJar{p, jar}
}

type filteredJar struct {
	p   *Policy
	jar http.CookieJar
}

func (j filteredJar) off(u *url.URL) bool {
	return j.p.noCookies(j.p.Rules.For(u))
}

// Unwrap returns the jar seen through the rules.
func (j filteredJar) Unwrap() http.CookieJar { return j.jar }

func (j filteredJar) SetCookies(u *url.URL, cs []*http.Cookie) {
	if !j.off(u) {
		j.jar.SetCookies(u, cs)
	}
}

func (j filteredJar) Cookies(u *url.URL) []*http.Cookie {
	if j.off(u) {
		return nil
	}
	return j.jar.Cookies(u)
}

type decorated struct {
	p *Policy
	f fetch.Fetcher
}

func (d decorated) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	return d.f.Fetch(ctx, d.p.decorate(d.p.Rules.ForURL(req.URL), req))
}

// noCookies reports whether a URL whose settings are s keeps no cookies:
// its rules say cookies = false, or, with NoCookies, do not say cookies =
// true and set no login.
func (p *Policy) noCookies(s Site) bool {
	if s.Cookies != nil {
		return !*s.Cookies
	}
	return p.NoCookies && s.Login == nil
}

// decorate returns req with the site's User-Agent, headers, credentials
// and cookie setting; req itself if s sets none of them. A site with a
// login keeps cookies unless its rules say cookies = false.
func (p *Policy) decorate(s Site, req *fetch.Request) *fetch.Request {
	noCookies := p.noCookies(s)
	if s.UserAgent == nil && s.Headers == nil && s.BasicAuth == nil && noCookies == req.NoCookies {
		return req
	}
	r := *req
	r.NoCookies = noCookies
	if s.UserAgent != nil {
		r.UserAgent = *s.UserAgent
	}
	if s.Headers != nil || s.BasicAuth != nil {
		r.Header = make(http.Header, len(req.Header)+len(s.Headers)+1)
		for k, v := range s.Headers {
			r.Header.Set(k, v)
		}
		if a := s.BasicAuth; a != nil {
			r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(a.User+":"+a.Password)))
		}
		for k, vs := range req.Header { // the request's own win
			r.Header[k] = vs
		}
	}
	return &r
}

// sameDoc reports whether u is the page at raw (a login URL), its query
// aside.
func sameDoc(u *url.URL, raw string) bool {
	l, err := url.Parse(raw)
	return err == nil && strings.EqualFold(u.Host, l.Host) && u.EscapedPath() == l.EscapedPath()
}

// expired reports whether resp, the answer for u on a site with login l,
// says that the session is gone: a redirect to the login page, or 401 or
// 403.
func expired(resp *fetch.Response, u *url.URL, l *Login) bool {
	switch {
	case resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden:
		return true
	case fetch.IsRedirect(resp.Status):
		loc, err := u.Parse(resp.Header.Get("Location"))
		return err == nil && sameDoc(loc, l.URL)
	}
	return false
}

// session returns the session of the entry whose login is l.
func (p *Policy) session(l *Login) *session {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sessions == nil {
		p.sessions = map[*Login]*session{}
	}
	s := p.sessions[l]
	if s == nil {
		s = &session{login: l}
		p.sessions[l] = s
	}
	return s
}

// maxFutile is how many logins again in a row may leave their pages
// answering 401 or 403 before a site's 401 and 403 are taken for the
// pages' own answers (pages the account may not see) rather than for a
// session gone, but for one a doubtInterval, in case the session did go
// meanwhile; a redirect to the login page is always believed.
const maxFutile = 3

// doubtInterval is how often a site whose 401 and 403 are doubted (see
// maxFutile) logs in again for one.
const doubtInterval = time.Minute

// maxAttempts bounds the login attempts of a site whose logins fail: after
// this many in a row, its pages end with a LoginError.
const maxAttempts = 2

// session is the login state of one entry's login. Its mutex is held
// through a login, so that the pages waiting for it log in once.
type session struct {
	login *Login

	mu       sync.Mutex
	gen      int       // logins done, in this process; 0: none yet
	known    bool      // whether the jar was checked for a session kept from before
	failed   error     // the LoginError its pages end with; nil while logins may work
	futile   int       // logins again in a row after which the page still said the session was gone
	tried    time.Time // the last login again for a 401 or 403
	logins   atomic.Int64
	relogins atomic.Int64
	failures atomic.Int64
}

// ensure logs in unless the site has a session, and returns its
// generation, for again.
func (s *session) ensure(ctx context.Context, sf *siteFetcher, site Site, page string) (gen int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed != nil {
		return 0, s.failed
	}
	if s.gen > 0 {
		return s.gen, nil
	}
	if !s.known {
		s.known = true
		if hasCookie(sf.env.Jar, s.login.URL, s.login.Success.Cookie) {
			s.gen = 1 // a session kept from an earlier run of the crawl
			sf.env.Logger.Info("login: session kept from before", "site", site.Match)
			return s.gen, nil
		}
	}
	return s.gen, s.logIn(ctx, sf, site, page, false)
}

// again logs in once more for a page fetched in generation gen whose
// answer said the session had expired, unless another page did already.
func (s *session) again(ctx context.Context, sf *siteFetcher, site Site, page string, gen int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed != nil {
		return s.failed
	}
	if s.gen != gen {
		return nil // logged in again since
	}
	return s.logIn(ctx, sf, site, page, true)
}

// mayExpire reports whether resp, an answer that says the session is gone
// (see expired), is to be believed: a redirect to the login page is; a
// 401 or 403 is until maxFutile logins again in a row have left their
// pages answering so, and after that once a doubtInterval.
func (s *session) mayExpire(resp *fetch.Response) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fetch.IsRedirect(resp.Status) {
		return true
	}
	if s.futile >= maxFutile && time.Since(s.tried) < doubtInterval {
		return false
	}
	s.tried = time.Now()
	return true
}

// afterRelogin takes whether the page fetched again after a login again
// was answered as a live session's (helped).
func (s *session) afterRelogin(sf *siteFetcher, site Site, helped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if helped {
		s.futile = 0
		return
	}
	if s.futile++; s.futile == maxFutile {
		sf.env.Logger.Warn("login: pages still answer 401 or 403 after logging in again; those answers are now taken as the pages' own",
			"site", site.Match, "logins again", maxFutile)
	}
}

// logIn makes up to maxAttempts login attempts; with s.mu held.
func (s *session) logIn(ctx context.Context, sf *siteFetcher, site Site, page string, again bool) error {
	var err error
	for range maxAttempts {
		if err = sf.attempt(ctx, site, page); err == nil {
			s.gen++
			if again {
				s.relogins.Add(1)
				add(sf.env.Relogins)
			} else {
				s.logins.Add(1)
				add(sf.env.Logins)
			}
			sf.env.Logger.Info("login", "site", site.Match, "url", s.login.URL, "again", again)
			return nil
		}
		if ctx.Err() != nil {
			return err // the crawl ends: not the site's failure
		}
		s.failures.Add(1)
		add(sf.env.LoginsFailed)
		sf.env.Logger.Warn("login failed", "site", site.Match, "url", s.login.URL, "err", err)
	}
	s.failed = &LoginError{Site: site.Match, URL: s.login.URL, Err: err}
	return s.failed
}

// hasCookie reports whether jar would send a cookie named name to raw.
func hasCookie(jar http.CookieJar, raw, name string) bool {
	u, err := url.Parse(raw)
	if jar == nil || name == "" || err != nil {
		return false
	}
	return slices.ContainsFunc(jar.Cookies(u), func(c *http.Cookie) bool { return c.Name == name })
}

// LoginStats are the counts of one entry's logins.
type LoginStats struct {
	Site     string // the entry's match
	Logins   int64  // first logins that worked
	Relogins int64  // logins again after a session expired
	Failed   int64  // attempts that failed
}

// Logins returns the counts of each entry's logins tried so far, by
// entry, in file order.
func (p *Policy) Logins() []LoginStats {
	if p == nil || p.Rules == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []LoginStats
	for _, site := range p.Rules.sites {
		if s := p.sessions[site.Login]; site.Login != nil && s != nil {
			out = append(out, LoginStats{Site: site.Match, Logins: s.logins.Load(), Relogins: s.relogins.Load(), Failed: s.failures.Load()})
		}
	}
	return out
}

// errNoLogin is a bug guard: a login attempt for a site without one.
var errNoLogin = errors.New("sites: the site has no login")
