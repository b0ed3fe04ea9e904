package crawlertest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// Defaults of SessionConfig.
const (
	// DefaultSessionPages is the number of members' pages and of
	// cookie-redirect pages of a zero SessionConfig.
	DefaultSessionPages = 10
	// SessionUser and SessionPassword are the credentials the login form
	// takes.
	SessionUser     = "crawler"
	SessionPassword = "s3cret"
	// SessionCookie is the name of the session cookie a login sets;
	// VisitedCookie, that of the cookie the cookie-redirect pages set.
	SessionCookie = "session"
	VisitedCookie = "visited"
)

// SessionConfig describes a SessionSite. The zero value is a valid
// configuration: each zero field means its documented default.
type SessionConfig struct {
	// Pages is the number of members' pages and of cookie-redirect pages;
	// 0: DefaultSessionPages.
	Pages int
	// Expiry is how many members' pages a session serves before it
	// expires: the next request of a members' page is redirected to the
	// login form. 0 or negative: sessions never expire.
	Expiry int
	// Bomb is the number of cookies of 4,000 bytes that /bomb sets, in
	// one response; 0: 1,000.
	Bomb int
	// Forbidden makes each members' page link to /members/<n>/admin as
	// well, a page that answers 403 to every request, a live session's
	// too: a page the members may not see.
	Forbidden bool
}

// A SessionSite is a site that keeps state in cookies, for tests of a
// crawler's cookie jar and logins. It is served on its own listener on
// 127.0.0.1. Create it with NewSessionSite and stop it with Close; its
// methods are safe for concurrent use.
//
// The site serves (P is SessionConfig.Pages):
//
//	/robots.txt      allows everything
//	/                links to /cookie/1, /members/1, /login and /bomb
//	/cookie/<n>      n in 1..P: without the cookie VisitedCookie, sets it
//	                 and redirects to itself (302); with it, a page that
//	                 links to /cookie/<n+1>. A crawler without cookies
//	                 fetches none of them.
//	/login           GET: a form (method POST, action /login) with a
//	                 hidden CSRF token, fields "user" and "password"; POST
//	                 with the token of an earlier GET and the right
//	                 credentials: sets a new SessionCookie and redirects
//	                 (303) to the "next" query parameter of the form page
//	                 (default /members/1); otherwise 403 with the form
//	/members/<n>     n in 1..P: with a live session, a page that links to
//	                 /members/<n+1> and /; without, or once the session
//	                 has served Expiry pages, a redirect (302) to
//	                 /login?next=/members/<n>
//	/members/<n>/admin  with Forbidden, linked from /members/<n>: 403
//	                 to every request
//	/bomb            sets Bomb cookies of 4,000 bytes each, and a page
//
// The site counts what a test asserts against: each members' page served
// to a live session (MemberFetches), logins and failed logins, and the
// largest Cookie header any request carried (MaxCookieHeader).
type SessionSite struct {
	cfg SessionConfig
	srv *httptest.Server

	mu              sync.Mutex
	tokens          map[string]bool // CSRF tokens handed out, not yet used
	sessions        map[string]int  // live session id -> members' pages served
	memberFetches   map[int]int     // members' page -> times served to a live session
	logins, failed  int
	maxCookieHeader int
}

// NewSessionSite starts a SessionSite on 127.0.0.1 and returns it. The
// caller must Close it.
func NewSessionSite(cfg SessionConfig) *SessionSite {
	if cfg.Pages <= 0 {
		cfg.Pages = DefaultSessionPages
	}
	if cfg.Bomb <= 0 {
		cfg.Bomb = 1000
	}
	s := &SessionSite{cfg: cfg, tokens: map[string]bool{}, sessions: map[string]int{}, memberFetches: map[int]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Close stops the site.
func (s *SessionSite) Close() { s.srv.Close() }

// URL returns the site's origin, "http://127.0.0.1:port".
func (s *SessionSite) URL() string { return s.srv.URL }

// Addr returns the site's address, "127.0.0.1:port".
func (s *SessionSite) Addr() string { return s.srv.Listener.Addr().String() }

// Pages returns SessionConfig.Pages, as the site uses it.
func (s *SessionSite) Pages() int { return s.cfg.Pages }

// MemberFetches returns how often each members' page, by number, was
// served to a live session.
func (s *SessionSite) MemberFetches() map[int]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[int]int, len(s.memberFetches))
	for n, c := range s.memberFetches {
		out[n] = c
	}
	return out
}

// Logins returns the logins that succeeded, and those that failed.
func (s *SessionSite) Logins() (ok, failed int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logins, s.failed
}

// MaxCookieHeader returns the length of the largest Cookie header a
// request carried.
func (s *SessionSite) MaxCookieHeader() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxCookieHeader
}

func (s *SessionSite) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if n := len(r.Header.Get("Cookie")); n > s.maxCookieHeader {
		s.maxCookieHeader = n
	}
	s.mu.Unlock()
	path := r.URL.Path
	switch {
	case path == "/robots.txt":
		fmt.Fprint(w, "User-agent: *\nAllow: /\n")
	case path == "/":
		sessionPage(w, `<a href="/cookie/1">cookies</a> <a href="/members/1">members</a> <a href="/login">login</a> <a href="/bomb">bomb</a>`)
	case path == "/login":
		s.login(w, r)
	case path == "/bomb":
		for i := range s.cfg.Bomb {
			http.SetCookie(w, &http.Cookie{Name: "bomb" + strconv.Itoa(i), Value: strings.Repeat("x", 4000), Path: "/"})
		}
		sessionPage(w, `<a href="/">home</a>`)
	case strings.HasPrefix(path, "/cookie/"):
		n, ok := s.number(path, "/cookie/")
		if !ok {
			http.NotFound(w, r)
			return
		}
		if _, err := r.Cookie(VisitedCookie); err != nil {
			http.SetCookie(w, &http.Cookie{Name: VisitedCookie, Value: "1", Path: "/"})
			http.Redirect(w, r, path, http.StatusFound)
			return
		}
		sessionPage(w, s.next("/cookie/", n))
	case s.cfg.Forbidden && strings.HasPrefix(path, "/members/") && strings.HasSuffix(path, "/admin"):
		if _, ok := s.number(strings.TrimSuffix(path, "/admin"), "/members/"); !ok {
			http.NotFound(w, r)
			return
		}
		http.Error(w, "members may not see this page", http.StatusForbidden)
	case strings.HasPrefix(path, "/members/"):
		n, ok := s.number(path, "/members/")
		if !ok {
			http.NotFound(w, r)
			return
		}
		if !s.admit(r, n) {
			http.Redirect(w, r, "/login?next="+url.QueryEscape(path), http.StatusFound)
			return
		}
		links := s.next("/members/", n) + ` <a href="/">home</a>`
		if s.cfg.Forbidden {
			links += fmt.Sprintf(` <a href="/members/%d/admin">admin</a>`, n)
		}
		sessionPage(w, links)
	default:
		http.NotFound(w, r)
	}
}

// number returns the page number of path under prefix, if it is one of
// the site's.
func (s *SessionSite) number(path, prefix string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(path, prefix))
	return n, err == nil && n >= 1 && n <= s.cfg.Pages && strconv.Itoa(n) == strings.TrimPrefix(path, prefix)
}

// next returns the link to the page after n under prefix, if any.
func (s *SessionSite) next(prefix string, n int) string {
	if n == s.cfg.Pages {
		return "the last page"
	}
	return fmt.Sprintf(`<a href="%s%d">next</a>`, prefix, n+1)
}

// admit reports whether r has a live session, and counts members' page n
// served to it.
func (s *SessionSite) admit(r *http.Request, n int) bool {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	served, live := s.sessions[c.Value]
	if !live {
		return false
	}
	if s.cfg.Expiry > 0 && served >= s.cfg.Expiry {
		delete(s.sessions, c.Value)
		return false
	}
	s.sessions[c.Value] = served + 1
	s.memberFetches[n]++
	return true
}

// login serves the form, and takes its submission.
func (s *SessionSite) login(w http.ResponseWriter, r *http.Request) {
	next := r.URL.Query().Get("next")
	if r.Method == http.MethodPost {
		if err := r.ParseForm(); err == nil && s.takeToken(r.PostForm.Get("csrf")) &&
			r.PostForm.Get("user") == SessionUser && r.PostForm.Get("password") == SessionPassword {
			id := token()
			s.mu.Lock()
			s.sessions[id] = 0
			s.logins++
			s.mu.Unlock()
			http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: id, Path: "/", HttpOnly: true})
			if next = r.PostForm.Get("next"); !strings.HasPrefix(next, "/members/") {
				next = "/members/1"
			}
			http.Redirect(w, r, next, http.StatusSeeOther)
			return
		}
		s.mu.Lock()
		s.failed++
		s.mu.Unlock()
		w.WriteHeader(http.StatusForbidden)
	}
	t := token()
	s.mu.Lock()
	s.tokens[t] = true
	s.mu.Unlock()
	sessionPage(w, fmt.Sprintf(`<form method="post" action="/login"><input type="hidden" name="csrf" value="%s">`+
		`<input type="hidden" name="next" value="%s"><input name="user"><input type="password" name="password">`+
		`<button>Log in</button></form>`, t, next))
}

// takeToken reports whether t is a CSRF token the form handed out, and
// forgets it: each is good once.
func (s *SessionSite) takeToken(t string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ok := s.tokens[t]
	delete(s.tokens, t)
	return ok
}

// token returns a random token of 32 hex digits.
func token() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// sessionPage writes an HTML page with body.
func sessionPage(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!DOCTYPE html><html><body>%s</body></html>", body)
}
