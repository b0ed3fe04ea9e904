package crawler_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"crawler"
	"crawler/cookies"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/sites"
)

// loadSites loads a sites file given as text, with env as the
// environment.
func loadSites(t *testing.T, text string, env map[string]string) *sites.Rules {
	t.Helper()
	rules, err := sites.Load("sites.toml", []byte(text), func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

// loginRules are the rules of a SessionSite at origin whose members'
// pages need a login with password.
func loginRules(t *testing.T, origin, password string) *sites.Rules {
	return loadSites(t, fmt.Sprintf(`
[[site]]
match = "%[1]s/members/"
[site.login]
url = "%[1]s/login"
fields = { user = "%[2]s", password = "env:PASSWORD" }
success = { cookie = "%[3]s" }

[[site]]
match = "%[1]s/"
deny = ["/bomb"]
`, origin, crawlertest.SessionUser, crawlertest.SessionCookie), map[string]string{"PASSWORD": password})
}

// crawlSessionSite crawls a SessionSite of cfg from its root, through a
// jar, with loginRules and password, and returns the site (closed when
// the test ends), the crawler, what it handled and its sites policy.
func crawlSessionSite(t *testing.T, cfg crawlertest.SessionConfig, password string) (*crawlertest.SessionSite, *crawler.Crawler, *collect, *sites.Policy) {
	t.Helper()
	s := crawlertest.NewSessionSite(cfg)
	t.Cleanup(s.Close)
	col := &collect{}
	c := fast(col)
	c.Fetcher = &fetch.HTTPFetcher{Addresses: testLoopback, Jar: &cookies.Jar{}}
	policy := &sites.Policy{Rules: loginRules(t, s.URL(), password)}
	c.Sites = policy
	if err := c.Run(context.Background(), s.URL()+"/"); err != nil {
		t.Fatal(err)
	}
	return s, c, col, policy
}

// A site behind a login whose sessions expire every few pages: every
// members' page is fetched once with a live session, the crawl logs in
// once per session, and no page is reported as the login page.
func TestLoginAcrossExpiries(t *testing.T) {
	t.Parallel()
	const pages, expiry = 10, 3
	s, c, col, policy := crawlSessionSite(t, crawlertest.SessionConfig{Pages: pages, Expiry: expiry}, crawlertest.SessionPassword)
	for n, got := range s.MemberFetches() {
		if got != 1 {
			t.Errorf("members' page %d served %d times to a session; want 1", n, got)
		}
	}
	if got := len(s.MemberFetches()); got != pages {
		t.Errorf("%d members' pages served; want %d", got, pages)
	}
	expiries := (pages - 1) / expiry
	ok, failed := s.Logins()
	if ok != expiries+1 || failed != 0 {
		t.Errorf("logins: %d ok, %d failed; want %d (expiries + 1), 0", ok, failed, expiries+1)
	}
	st := policy.Logins()
	if len(st) != 1 || st[0].Logins != 1 || st[0].Relogins != int64(expiries) || st[0].Failed != 0 {
		t.Errorf("Policy.Logins = %+v; want 1 login, %d relogins", st, expiries)
	}
	if cs := c.Stats(); cs.Logins != 1 || cs.Relogins != int64(expiries) || cs.LoginsFailed != 0 {
		t.Errorf("Stats: %d logins, %d relogins, %d failed; want 1, %d, 0", cs.Logins, cs.Relogins, cs.LoginsFailed, expiries)
	}
	for i := 1; i <= pages; i++ {
		p := col.page(fmt.Sprintf("%s/members/%d", s.URL(), i))
		if p == nil || p.Err != nil || p.Status != 200 || strings.Contains(string(p.Body), "<form") {
			t.Errorf("members' page %d: %+v; want the page itself", i, p)
		}
	}
	if p := col.page(s.URL() + "/bomb"); p != nil {
		t.Errorf("/bomb fetched, though denied")
	}
	hosts := c.HostStats()
	if len(hosts) != 1 || hosts[0].Cookies != 2 { // the session, and the visited cookie of /cookie/1
		t.Errorf("HostStats = %+v; want the site's 2 cookies counted", hosts)
	}
}

// Members' pages that answer 403 to a live session too (pages the
// account may not see): the first few cost a login again each, then their
// 403s are taken as their own, and the crawl stops logging in for them.
func TestLoginForbiddenPages(t *testing.T) {
	t.Parallel()
	const pages = 10
	s, _, col, _ := crawlSessionSite(t, crawlertest.SessionConfig{Pages: pages, Forbidden: true}, crawlertest.SessionPassword)
	if got := len(s.MemberFetches()); got != pages {
		t.Errorf("%d members' pages served; want %d", got, pages)
	}
	// 3 (maxFutile) logins again that did not help, where each of the 10
	// admin pages cost one.
	if ok, _ := s.Logins(); ok != 1+3 {
		t.Errorf("%d logins; want 4: the first, and 3 again before the 403s were believed", ok)
	}
	for i := 1; i <= pages; i++ {
		p := col.page(fmt.Sprintf("%s/members/%d/admin", s.URL(), i))
		if p == nil || p.Status != http.StatusForbidden {
			t.Errorf("admin page %d: %+v; want its 403", i, p)
		}
	}
}

// A wrong password: two login attempts, then the members' pages end as
// login-failed and the crawl goes on to its end.
func TestLoginFailed(t *testing.T) {
	t.Parallel()
	s, c, col, _ := crawlSessionSite(t, crawlertest.SessionConfig{Pages: 5}, "wrong")
	if ok, failed := s.Logins(); ok != 0 || failed != 2 {
		t.Errorf("logins: %d ok, %d failed; want 0, 2", ok, failed)
	}
	p := col.page(s.URL() + "/members/1")
	if p == nil || fetch.ErrorKind(p.Err) != "login-failed" {
		t.Fatalf("members' page 1: %+v; want a login-failed error", p)
	}
	if len(s.MemberFetches()) != 0 {
		t.Errorf("members' pages served: %v", s.MemberFetches())
	}
	if n := c.Stats().LoginsFailed; n != 2 {
		t.Errorf("Stats.LoginsFailed = %d; want 2", n)
	}
	if n := c.Stats().Errors["login-failed"]; n == 0 {
		t.Errorf("Stats.Errors = %v; want login-failed counted", c.Stats().Errors)
	}
}

// headerServer records, per path, the X-Token and Authorization headers
// of each request; its pages are given by pages (path to body; a body
// "redirect:URL" redirects there).
type headerServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen map[string][]string // path -> "X-Token|Authorization" of each request
}

func newHeaderServer(t *testing.T, pages map[string]string) *headerServer {
	hs := &headerServer{seen: map[string][]string{}}
	hs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hs.mu.Lock()
		hs.seen[r.URL.Path] = append(hs.seen[r.URL.Path], r.Header.Get("X-Token")+"|"+r.Header.Get("Authorization"))
		hs.mu.Unlock()
		body, ok := pages[r.URL.Path]
		switch {
		case !ok:
			http.NotFound(w, r)
		case strings.HasPrefix(body, "redirect:"):
			http.Redirect(w, r, strings.TrimPrefix(body, "redirect:"), http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, body)
		}
	}))
	t.Cleanup(hs.Close)
	return hs
}

func (hs *headerServer) requests() map[string][]string {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	out := map[string][]string{}
	for k, v := range hs.seen {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// Headers and Basic credentials go to the hosts whose rules set them,
// robots.txt included, and never to another host: not by a link, not
// across a redirect.
func TestSiteHeadersStayOnTheirHost(t *testing.T) {
	t.Parallel()
	other := newHeaderServer(t, map[string]string{"/": "<p>other", "/landing": "<p>landing", "/robots.txt": ""})
	api := newHeaderServer(t, map[string]string{
		"/":           fmt.Sprintf(`<a href="%s/">other</a> <a href="/away">away</a> <a href="/api/x">api</a>`, other.URL),
		"/away":       "redirect:" + other.URL + "/landing",
		"/api/x":      "<p>x",
		"/robots.txt": "",
	})
	rules := loadSites(t, fmt.Sprintf(`
[[site]]
match = "%[1]s"
headers = { X-Token = "t1" }
[[site]]
match = "%[2]s/api/"
basic_auth = { user = "bot", password_env = "API_PASSWORD" }
`, strings.TrimPrefix(api.URL, "http://"), api.URL), map[string]string{"API_PASSWORD": "pw"})
	c := fast(nil)
	c.Sites = &sites.Policy{Rules: rules}
	if err := c.Run(context.Background(), api.URL+"/"); err != nil {
		t.Fatal(err)
	}
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("bot:pw"))
	want := map[string]string{"/": "t1|", "/away": "t1|", "/api/x": "t1|" + auth, "/robots.txt": "t1|"}
	for path, seen := range api.requests() {
		for _, h := range seen {
			if h != want[path] {
				t.Errorf("api %s got %q; want %q", path, h, want[path])
			}
		}
	}
	if len(api.requests()) != len(want) {
		t.Errorf("api requests %v; want each of %v", api.requests(), want)
	}
	got := other.requests()
	for _, path := range []string{"/", "/landing", "/robots.txt"} {
		if len(got[path]) == 0 {
			t.Errorf("other %s not fetched: %v", path, got)
		}
	}
	for path, seen := range got {
		for _, h := range seen {
			if h != "|" {
				t.Errorf("other host %s got %q; want no X-Token, no Authorization", path, h)
			}
		}
	}
}

// The rules that decide which URLs a site's crawl takes: allow and deny
// (the longest prefix wins), ignore_query (two spellings, one page),
// max_pages (requests under the entry, then no more), ignore_robots (for
// its URLs only).
func TestSiteURLRules(t *testing.T) {
	t.Parallel()
	s := newSite(t, map[string]response{
		"/robots.txt":          {ctype: "text/plain", body: "User-agent: *\nDisallow: /private/\n"},
		"/":                    html("/docs/a?utm_source=x&id=1", "/docs/a?id=1", "/docs/old/b", "/blog/1", "/shop/1", "/private/p", "/docs/"),
		"/docs/":               html(),
		"/docs/a?id=1":         html(),
		"/docs/old/b":          html(),
		"/blog/1":              html("/blog/2"),
		"/blog/2":              html("/blog/3"),
		"/blog/3":              html("/blog/4"),
		"/blog/4":              html(),
		"/shop/1":              html(),
		"/private/p":           html(),
		"/docs/a?utm_source=x": html(),
	})
	rules := loadSites(t, fmt.Sprintf(`
[[site]]
match = "%[2]s"
deny = ["/"]
allow = ["/docs/", "/blog/", "/private/"]
ignore_query = ["utm_source"]
[[site]]
match = "%[1]s/docs/old/"
deny = ["/docs/old/"]
[[site]]
match = "%[1]s/blog/"
max_pages = 2
[[site]]
match = "%[1]s/private/"
ignore_robots = true
`, s.URL, strings.TrimPrefix(s.URL, "http://")), nil)
	var col collect
	c := fast(&col)
	c.Sites = &sites.Policy{Rules: rules}
	if err := c.Run(context.Background(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	got := s.requests()
	want := map[string]int{"/robots.txt": 1, "/": 1, "/docs/": 1, "/docs/a?id=1": 1, "/blog/1": 1, "/blog/2": 1, "/private/p": 1}
	for path, n := range want {
		if got[path] != n {
			t.Errorf("%s requested %d times; want %d (all: %v)", path, got[path], n, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("requests %v; want those of %v alone", got, want)
	}
	if st := c.Stats(); st.Errors[sites.KindMaxPages] > 1 {
		t.Errorf("Stats.Errors = %v: the links past max_pages should be out of scope, not pages", st.Errors)
	}
}

// A scripted login (Policy.Login) in place of the form: it is given the
// site, a Fetch through the crawl's rules and the jar, and its session
// serves the members' pages.
func TestScriptedLogin(t *testing.T) {
	t.Parallel()
	s := crawlertest.NewSessionSite(crawlertest.SessionConfig{Pages: 4})
	defer s.Close()
	c := fast(nil)
	c.Fetcher = &fetch.HTTPFetcher{Addresses: testLoopback, Jar: &cookies.Jar{}}
	var scripted int
	c.Sites = &sites.Policy{
		Rules: loginRules(t, s.URL(), "not used"),
		Login: func(ctx context.Context, sess *sites.Session) error {
			scripted++
			form, err := sess.Fetch(ctx, &fetch.Request{URL: sess.Site.Login.URL})
			if err != nil {
				return err
			}
			_, token, _ := strings.Cut(string(form.Body), `name="csrf" value="`)
			token, _, _ = strings.Cut(token, `"`)
			body := "csrf=" + token + "&user=" + crawlertest.SessionUser + "&password=" + crawlertest.SessionPassword
			_, err = sess.Fetch(ctx, &fetch.Request{URL: sess.Site.Login.URL, Method: "POST", Body: []byte(body),
				Header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}})
			return err
		},
	}
	if err := c.Run(context.Background(), s.URL()+"/"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Logins(); ok != 1 || scripted != 1 || len(s.MemberFetches()) != s.Pages() {
		t.Errorf("%d logins, script ran %d times, %d members' pages; want 1, 1, %d", ok, scripted, len(s.MemberFetches()), s.Pages())
	}
}

// pacedServer serves n pages linked from / (each after a pause), and
// records by its own clock when each request started and ended, and the
// most in flight at once.
type pacedServer struct {
	*httptest.Server
	mu          sync.Mutex
	starts      []time.Time
	ends        []time.Time
	inflight    int
	maxInflight int
}

func newPacedServer(t *testing.T, n int, pause time.Duration, robots string) *pacedServer {
	ps := &pacedServer{}
	ps.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, robots)
			return
		}
		ps.mu.Lock()
		ps.starts = append(ps.starts, time.Now())
		ps.inflight++
		ps.maxInflight = max(ps.maxInflight, ps.inflight)
		ps.mu.Unlock()
		time.Sleep(pause)
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/" {
			for i := range n {
				fmt.Fprintf(w, `<a href="/p%d">p</a>`, i)
			}
		}
		ps.mu.Lock()
		ps.inflight--
		ps.ends = append(ps.ends, time.Now())
		ps.mu.Unlock()
	}))
	t.Cleanup(ps.Close)
	return ps
}

// minGap returns the shortest time from the end of a request to the start
// of the next, with one in flight at a time.
func (ps *pacedServer) minGap() time.Duration {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	gap := time.Duration(math.MaxInt64)
	for i := 1; i < len(ps.starts) && i <= len(ps.ends); i++ {
		gap = min(gap, ps.starts[i].Sub(ps.ends[i-1]))
	}
	return gap
}

// Per-site pacing by the servers' clocks: a slow site's delay and one
// request at a time, a fast site's three in flight, and a robots.txt
// Crawl-delay above a site's delay that still holds.
func TestSitePacing(t *testing.T) {
	t.Parallel()
	const pages = 6
	slow := newPacedServer(t, pages, 0, "")
	wide := newPacedServer(t, pages, 50*time.Millisecond, "")
	crawlDelay := newPacedServer(t, 3, 0, "User-agent: *\nCrawl-delay: 1\n")
	host := func(s *pacedServer) string { return strings.TrimPrefix(s.URL, "http://") }
	rules := loadSites(t, fmt.Sprintf(`
[[site]]
match = "%s"
delay = "150ms"
per_host = 1
[[site]]
match = "%s"
per_host = 3
[[site]]
match = "%s"
delay = "100ms"
`, host(slow), host(wide), host(crawlDelay)), nil)
	c := fast(nil)
	c.Workers = 8
	c.Sites = &sites.Policy{Rules: rules}
	if err := c.Run(context.Background(), slow.URL+"/", wide.URL+"/", crawlDelay.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if gap := slow.minGap(); slow.maxInflight != 1 || gap < 150*time.Millisecond {
		t.Errorf("slow site: %d in flight at most, shortest gap %v; want 1 and 150ms or more", slow.maxInflight, gap)
	}
	if wide.maxInflight != 3 {
		t.Errorf("wide site: %d in flight at most; want 3", wide.maxInflight)
	}
	if gap := crawlDelay.minGap(); gap < time.Second {
		t.Errorf("Crawl-delay site: shortest gap %v; want the Crawl-delay, 1s, over the rule's 100ms", gap)
	}
}

// selectorSite is a site whose login is judged by a selector on the page
// after it, and whose sessions answer 401 once they served two pages. Its
// robots.txt is robots.
type selectorSite struct {
	*httptest.Server
	mu       sync.Mutex
	sessions map[string]int // session id -> pages served
	logins   int
	posts    int
	served   map[string]int // page path -> times served to a session
}

func newSelectorSite(t *testing.T, robots string) *selectorSite {
	s := &selectorSite{sessions: map[string]int{}, served: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		switch {
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(w, robots)
		case r.URL.Path == "/login" && r.Method == "POST":
			s.posts++
			if r.ParseForm() == nil && r.PostForm.Get("pw") == "right" {
				s.logins++
				id := fmt.Sprint("s", s.logins)
				s.sessions[id] = 0
				http.SetCookie(w, &http.Cookie{Name: "sid", Value: id, Path: "/"})
				http.Redirect(w, r, "/welcome", http.StatusSeeOther)
				return
			}
			fmt.Fprint(w, `<p class="error">wrong`)
		case r.URL.Path == "/login":
			fmt.Fprint(w, `<form id="search"><input name="q"></form><form id="in" method="post"><input name="pw"></form>`)
		case r.URL.Path == "/welcome":
			fmt.Fprint(w, `<a class="logout" href="/logout">log out</a>`)
		case strings.HasPrefix(r.URL.Path, "/page/"):
			c, err := r.Cookie("sid")
			if err != nil || s.sessions[c.Value] >= 2 {
				http.Error(w, "log in", http.StatusUnauthorized)
				return
			}
			s.sessions[c.Value]++
			s.served[r.URL.Path]++
			var n int
			fmt.Sscanf(r.URL.Path, "/page/%d", &n)
			if n < 5 {
				fmt.Fprintf(w, `<a href="/page/%d">next</a>`, n+1)
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// A login judged by a selector on the page after it, a form chosen by its
// selector among two, sessions that answer 401 when they expire, and a
// site that keeps no cookies of its own (cookies = false) on another
// host. Then the same site whose robots.txt disallows the login page: the
// login is not tried, the pages end as login-failed and the host retired.
func TestLoginSelectorAnd401(t *testing.T) {
	t.Parallel()
	s := newSelectorSite(t, "")
	var plainCookies []string // the Cookie headers the site without cookies got
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		plainCookies = append(plainCookies, r.Header.Get("Cookie")) // one request at a time: robots.txt, then /
		http.SetCookie(w, &http.Cookie{Name: "set", Value: "1"})
	}))
	defer plain.Close()
	rules := func(s *selectorSite, pw string) *sites.Rules {
		return loadSites(t, fmt.Sprintf(`
[[site]]
match = %q
deny = ["/logout"]
[site.login]
url = "%s/login"
form = "form#in"
fields = { pw = %q }
success = { selector = "a.logout" }
[[site]]
match = %q
cookies = false
`, strings.TrimPrefix(s.URL, "http://"), s.URL, pw, strings.TrimPrefix(plain.URL, "http://")), nil)
	}
	var col collect
	c := fast(&col)
	jar := &cookies.Jar{}
	c.Fetcher = &fetch.HTTPFetcher{Addresses: testLoopback, Jar: jar}
	c.Sites = &sites.Policy{Rules: rules(s, "right")}
	jar.SetCookies(mustURL(t, plain.URL), []*http.Cookie{{Name: "kept", Value: "1"}})
	if err := c.Run(context.Background(), s.URL+"/page/1", plain.URL+"/"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 5; i++ {
		if n := s.served[fmt.Sprint("/page/", i)]; n != 1 {
			t.Errorf("/page/%d served %d times; want 1", i, n)
		}
	}
	if s.logins != 3 || s.posts != 3 { // 2 pages a session: 5 pages need 3
		t.Errorf("%d logins of %d posts; want 3 of 3", s.logins, s.posts)
	}
	if st := c.Stats(); st.Logins != 1 || st.Relogins != 2 {
		t.Errorf("Stats: %d logins, %d relogins; want 1, 2", st.Logins, st.Relogins)
	}
	if p := col.page(s.URL + "/welcome"); p != nil {
		t.Errorf("the page after the login was reported: %+v", p)
	}
	// Cookies ignore ports: the jar holds the other site's sid, and the
	// kept cookie, for 127.0.0.1; the site without cookies got neither,
	// and its own was not kept.
	var names []string
	for _, e := range jar.Host("127.0.0.1") {
		names = append(names, e.Name)
	}
	if len(plainCookies) != 2 || plainCookies[0] != "" || plainCookies[1] != "" || slices.Contains(names, "set") {
		t.Errorf("the site with cookies = false got Cookie headers %q, and the jar holds %q; want none sent, its own not kept", plainCookies, names)
	}

	blocked := newSelectorSite(t, "User-agent: *\nDisallow: /login\n")
	var col2 collect
	c2 := fast(&col2)
	c2.Fetcher = &fetch.HTTPFetcher{Addresses: testLoopback, Jar: &cookies.Jar{}}
	c2.Sites = &sites.Policy{Rules: rules(blocked, "right")}
	err := c2.Run(context.Background(), blocked.URL+"/page/1")
	var noPages *crawler.NoPagesError
	if !errors.As(err, &noPages) || blocked.posts != 0 {
		t.Fatalf("robots.txt disallows the login: Run = %v, %d posts; want no pages, no post", err, blocked.posts)
	}
	if p := col2.page(blocked.URL + "/page/1"); p == nil || fetch.ErrorKind(p.Err) != sites.KindLoginFailed {
		t.Errorf("the page: %+v; want login-failed", p)
	}
	if h := c2.HostStats(); len(h) != 1 || !strings.Contains(h[0].Retired, "robots.txt disallows") {
		t.Errorf("HostStats = %+v; want the host retired, saying why", h)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
