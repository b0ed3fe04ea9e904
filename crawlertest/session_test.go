package crawlertest_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"crawler/crawlertest"
)

// getSession fetches path of s with c and returns the final status and body.
func getSession(t *testing.T, c *http.Client, s *crawlertest.SessionSite, path string) (int, string) {
	t.Helper()
	resp, err := c.Get(s.URL() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

func TestSessionSite(t *testing.T) {
	s := crawlertest.NewSessionSite(crawlertest.SessionConfig{Pages: 3, Expiry: 2, Bomb: 60})
	defer s.Close()

	// Without cookies, a cookie-redirect page only redirects to itself.
	noJar := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if code, _ := getSession(t, noJar, s, "/cookie/1"); code != http.StatusFound {
		t.Errorf("/cookie/1 without cookies: %d, want 302", code)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if code, body := getSession(t, c, s, "/cookie/1"); code != 200 || !strings.Contains(body, `href="/cookie/2"`) {
		t.Errorf("/cookie/1 with a jar: %d %q", code, body)
	}

	// The members' pages need a login, which needs the form's token.
	code, form := getSession(t, c, s, "/members/2")
	m := csrfField.FindStringSubmatch(form)
	if code != 200 || m == nil || !strings.Contains(form, `name="next" value="/members/2"`) {
		t.Fatalf("/members/2 before login: %d %q; want the login form", code, form)
	}
	post := func(token, password string) (int, string) {
		resp, err := c.PostForm(s.URL()+"/login", url.Values{"csrf": {token}, "user": {crawlertest.SessionUser},
			"password": {password}, "next": {"/members/2"}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := post(m[1], "wrong"); code != http.StatusForbidden {
		t.Errorf("wrong password: %d, want 403", code)
	}
	if code, _ := post(m[1], crawlertest.SessionPassword); code != http.StatusForbidden {
		t.Errorf("a token used twice: %d, want 403", code)
	}
	_, form = getSession(t, c, s, "/login")
	code, body := post(csrfField.FindStringSubmatch(form)[1], crawlertest.SessionPassword)
	if code != 200 || !strings.Contains(body, `href="/members/3"`) {
		t.Fatalf("login: %d %q; want /members/2 after the redirect", code, body)
	}
	// The session serves Expiry (2) pages, then sends to the login form.
	if _, body := getSession(t, c, s, "/members/3"); !strings.Contains(body, "the last page") {
		t.Errorf("/members/3 in the session: %q", body)
	}
	if _, body := getSession(t, c, s, "/members/1"); !strings.Contains(body, `name="csrf"`) {
		t.Errorf("/members/1 after expiry: %q; want the login form", body)
	}
	if ok, failed := s.Logins(); ok != 1 || failed != 2 {
		t.Errorf("Logins = %d, %d failed; want 1 and 2", ok, failed)
	}
	if got := s.MemberFetches(); len(got) != 2 || got[2] != 1 || got[3] != 1 {
		t.Errorf("MemberFetches = %v; want pages 2 and 3 once", got)
	}

	// The bomb sets its cookies; the site measures the Cookie header.
	getSession(t, c, s, "/bomb")
	getSession(t, c, s, "/")
	if n := s.MaxCookieHeader(); n < 60*4000 {
		t.Errorf("MaxCookieHeader = %d after the bomb with net/http's unbounded jar; want >= %d", n, 60*4000)
	}
}
