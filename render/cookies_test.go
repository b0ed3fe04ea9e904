package render

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"crawler/cookies"
	"crawler/fetch"

	"github.com/chromedp/cdproto/network"
)

// headerLog keeps the headers of the last request for each path.
type headerLog struct {
	mu   sync.Mutex
	last map[string]http.Header
}

// record returns a resource that records each request's headers, then
// answers with ctype and body and the Set-Cookie headers setCookies.
func (l *headerLog) record(ctype, body string, setCookies ...string) resource {
	return resource{serve: func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		if l.last == nil {
			l.last = make(map[string]http.Header)
		}
		l.last[r.URL.Path] = r.Header.Clone()
		l.mu.Unlock()
		for _, c := range setCookies {
			w.Header().Add("Set-Cookie", c)
		}
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Write([]byte(body))
	}}
}

// header returns the headers of the last request for path, nil if none.
func (l *headerLog) header(path string) http.Header {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last[path]
}

// cookieNames returns the name=value pairs of the Cookie headers of h,
// sorted.
func cookieNames(h http.Header) []string {
	var out []string
	for _, v := range h.Values("Cookie") {
		for pair := range strings.SplitSeq(v, ";") {
			if pair = strings.TrimSpace(pair); pair != "" {
				out = append(out, pair)
			}
		}
	}
	slices.Sort(out)
	return out
}

// jarPairs returns the name=value pairs that jar sends to rawURL, sorted.
func jarPairs(t *testing.T, jar http.CookieJar, rawURL string) []string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range jar.Cookies(u) {
		out = append(out, c.Name+"="+c.Value)
	}
	slices.Sort(out)
	return out
}

// cookiePage sets cookies every way a page can, and reads them: its
// response sets srv, ho (HttpOnly) and tmp; its script app.js sets sub
// and deletes drop (the jar's);
// its inline script shows document.cookie, sets js, deletes tmp (a
// response's) and gone (the jar's), fetches /api, and sets late once the
// answer came, after which the page makes no request.
const cookiePage = `<!doctype html><html><body><script src="/app.js"></script>
<script>
document.body.insertAdjacentHTML("beforeend", '<p id="seen">' + document.cookie + '</p>');
document.cookie = "js=2; path=/";
document.cookie = "tmp=; max-age=0; path=/";
document.cookie = "gone=; max-age=0; path=/";
fetch("/api").then(r => r.text()).then(t => {
	document.body.insertAdjacentHTML("beforeend", '<p id="api">' + t + '</p>');
	setTimeout(() => { document.cookie = "late=3; path=/"; }, 50);
});
</script></body></html>`

func TestJarSharedWithBrowser(t *testing.T) {
	t.Parallel()
	var log headerLog
	s := newSite(t, map[string]resource{
		"/set":    log.record("text/plain", "set", "plain=1; Path=/", "gone=1; Path=/", "drop=1; Path=/"),
		"/":       log.record("text/html", cookiePage, "srv=1; Path=/", "ho=1; Path=/; HttpOnly", "tmp=1; Path=/"),
		"/app.js": log.record("text/javascript", "1", "sub=4; Path=/", "drop=; Max-Age=0; Path=/"),
		"/api":    log.record("text/plain", "answer"),
		"/check":  log.record("text/plain", "check"),
	})
	jar := &cookies.Jar{}
	plain := onlySite(s)
	plain.Jar = jar
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := plain.Fetch(ctx, &fetch.Request{URL: s.URL + "/set"}); err != nil {
		t.Fatal(err)
	}

	f := newFetcher(t, s, func(f *Fetcher) { f.Jar = jar })
	resp := get(t, f, s, "/")

	// Jar to browser: every request of the page is sent the jar's cookies
	// for its URL, once each.
	if got, want := cookieNames(log.header("/")), []string{"drop=1", "gone=1", "plain=1"}; !slices.Equal(got, want) {
		t.Errorf("the page's own request was sent cookies %q, want %q", got, want)
	}
	if got, want := cookieNames(log.header("/app.js")), []string{"drop=1", "gone=1", "ho=1", "plain=1", "srv=1", "tmp=1"}; !slices.Equal(got, want) {
		t.Errorf("the script's request was sent cookies %q, want %q", got, want)
	}
	// The page's scripts read what its document was sent and what the
	// responses before set, not HttpOnly ones.
	body := string(resp.Body)
	if !strings.Contains(body, `<p id="seen">`) {
		t.Fatalf("the page's script did not run:\n%s", body)
	}
	seen := body[strings.LastIndex(body, `<p id="seen">`)+len(`<p id="seen">`):] // the element, not the script's text
	seen = seen[:strings.Index(seen, "</p>")]
	for _, want := range []string{"plain=1", "gone=1", "srv=1", "tmp=1", "sub=4"} {
		if !slices.Contains(strings.Split(seen, "; "), want) {
			t.Errorf("document.cookie %q lacks %s", seen, want)
		}
	}
	if strings.Contains(seen, "ho=") || strings.Contains(seen, "drop=") {
		t.Errorf("document.cookie %q shows the HttpOnly cookie, or the one a response deleted", seen)
	}

	// Browser to jar: what the script set before the fetch is sent with
	// it; what it deleted is not.
	if !strings.Contains(body, `<p id="api">answer</p>`) {
		t.Fatalf("the page's fetch did not answer:\n%s", body)
	}
	if got, want := cookieNames(log.header("/api")), []string{"ho=1", "js=2", "plain=1", "srv=1", "sub=4"}; !slices.Equal(got, want) {
		t.Errorf("the page's fetch was sent cookies %q, want %q", got, want)
	}
	// By the time Fetch returned, the jar has all of it, the cookie set
	// after the last request included, with the browser's attributes.
	want := []string{"ho=1", "js=2", "late=3", "plain=1", "srv=1", "sub=4"}
	if got := jarPairs(t, jar, s.URL+"/"); !slices.Equal(got, want) {
		t.Errorf("jar after the render: %q, want %q", got, want)
	}
	for _, e := range jar.Host("127.0.0.1") {
		if e.Name == "js" && (!e.HostOnly || e.Path != "/" || e.HttpOnly || !e.Expires.IsZero()) {
			t.Errorf("the script's cookie is in the jar as %+v, want a host-only session cookie of path /", e)
		}
		if e.Name == "ho" && !e.HttpOnly {
			t.Errorf("the HttpOnly cookie lost its attribute in the jar: %+v", e)
		}
	}
	// And a plain fetch after the render sends them.
	if _, err := plain.Fetch(ctx, &fetch.Request{URL: s.URL + "/check"}); err != nil {
		t.Fatal(err)
	}
	if got := cookieNames(log.header("/check")); !slices.Equal(got, want) {
		t.Errorf("a plain fetch after the render sent %q, want %q", got, want)
	}
}

// TestPagesApart checks that two renders share cookies through the Jar
// only, and, without a Jar, not at all.
func TestPagesApart(t *testing.T) {
	t.Parallel()
	var log headerLog
	s := newSite(t, map[string]resource{
		"/one": log.record("text/html", `<html><body><script>document.cookie = "one=1; path=/";</script></body></html>`, "srv=1; Path=/"),
		"/two": log.record("text/html", `<html><body><script>
document.body.insertAdjacentHTML("beforeend", '<p id="seen">[' + document.cookie + ']</p>');
fetch("/two-api");
</script></body></html>`),
		"/two-api": log.record("text/plain", "x"),
	})

	t.Run("no jar", func(t *testing.T) {
		f := newFetcher(t, s, nil)
		get(t, f, s, "/one")
		resp := get(t, f, s, "/two")
		if !strings.Contains(string(resp.Body), `<p id="seen">[]</p>`) {
			t.Errorf("the second page sees cookies of the first:\n%s", resp.Body)
		}
		if got := cookieNames(log.header("/two-api")); len(got) != 0 {
			t.Errorf("the second page's fetch was sent cookies %q", got)
		}
	})
	t.Run("jar", func(t *testing.T) {
		jar := &cookies.Jar{}
		f := newFetcher(t, s, func(f *Fetcher) { f.Jar = jar })
		get(t, f, s, "/one")
		resp := get(t, f, s, "/two")
		if !strings.Contains(string(resp.Body), `<p id="seen">[one=1; srv=1]</p>`) && !strings.Contains(string(resp.Body), `<p id="seen">[srv=1; one=1]</p>`) {
			t.Errorf("the second page does not see the jar's cookies:\n%s", resp.Body)
		}
		if got, want := cookieNames(log.header("/two-api")), []string{"one=1", "srv=1"}; !slices.Equal(got, want) {
			t.Errorf("the second page's fetch was sent cookies %q, want %q", got, want)
		}
	})
}

// newSiteOn is newSite listening on addr (such as 127.0.0.2:0, another
// host on loopback).
func newSiteOn(t *testing.T, addr string, pages map[string]resource) *site {
	t.Helper()
	s := newSite(t, pages)
	s.Close()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("no second loopback host: %v", err)
	}
	s.Server = httptest.NewUnstartedServer(s.Config.Handler)
	s.Listener.Close()
	s.Listener = l
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func TestHeadersPerHost(t *testing.T) {
	t.Parallel()
	var log, otherLog headerLog
	other := newSiteOn(t, "127.0.0.2:0", map[string]resource{
		"/lib.js":    otherLog.record("text/javascript", "1"),
		"/data.json": otherLog.record("application/json", "{}"),
	})
	page := strings.ReplaceAll(`<html><body><script src="{{other}}/lib.js"></script>
<script>fetch("/api"); fetch("{{other}}/data.json");</script></body></html>`, "{{other}}", other.URL)
	s := newSite(t, map[string]resource{
		"/":    log.record("text/html", page),
		"/api": log.record("text/plain", "x"),
	})
	siteHost, otherHost := s.Listener.Addr().String(), other.Listener.Addr().String()
	jar := &cookies.Jar{}
	u, _ := url.Parse(s.URL)
	jar.SetCookies(u, []*http.Cookie{{Name: "session", Value: "s1", Path: "/"}})

	var mu sync.Mutex
	var asked []string
	f := newFetcher(t, s, func(f *Fetcher) {
		f.Fetcher = &fetch.HTTPFetcher{Addresses: fetch.AddressPolicy{AllowAddrPorts: []netip.AddrPort{s.addrPort(), other.addrPort()}}}
		f.Jar = jar
		f.Headers = func(u *url.URL) http.Header {
			mu.Lock()
			asked = append(asked, u.Host+u.Path)
			mu.Unlock()
			switch u.Host {
			case siteHost:
				return http.Header{"Authorization": {"Basic c2l0ZTpwdw=="}, "X-Site": {"site"}}
			case otherHost:
				return http.Header{"X-Site": {"other"}}
			}
			return nil
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := f.Fetch(ctx, &fetch.Request{URL: s.URL + "/", Header: http.Header{"X-Page": {"1"}, "X-Site": {"page"}}}); err != nil {
		t.Fatal(err)
	}

	check := func(what string, h http.Header, want map[string]string) {
		t.Helper()
		if h == nil {
			t.Errorf("%s: no request", what)
			return
		}
		for _, name := range []string{"Authorization", "X-Site", "X-Page", "Cookie"} {
			if got := h.Get(name); got != want[name] {
				t.Errorf("%s: %s %q, want %q", what, name, got, want[name])
			}
		}
	}
	check("the page", log.header("/"), map[string]string{"Authorization": "Basic c2l0ZTpwdw==", "X-Site": "page", "X-Page": "1", "Cookie": "session=s1"})
	check("its fetch", log.header("/api"), map[string]string{"Authorization": "Basic c2l0ZTpwdw==", "X-Site": "site", "Cookie": "session=s1"})
	check("the other host's script", otherLog.header("/lib.js"), map[string]string{"X-Site": "other"})
	check("the other host's fetch", otherLog.header("/data.json"), map[string]string{"X-Site": "other"})
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{siteHost + "/", siteHost + "/api", otherHost + "/lib.js", otherHost + "/data.json"} {
		if !slices.Contains(asked, want) {
			t.Errorf("Headers not asked for %s: %q", want, asked)
		}
	}
}

// TestSameSiteBothWays checks that a cookie's SameSite mode crosses
// between the jar and the browser both ways, and that the default mode
// is left for the browser's own.
func TestSameSiteBothWays(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	for _, mode := range []http.SameSite{http.SameSiteStrictMode, http.SameSiteLaxMode, http.SameSiteNoneMode} {
		cp := setCookieParam("https://a.test/", &http.Cookie{Name: "n", Value: "v", SameSite: mode}, now)
		if cp.SameSite == "" {
			t.Fatalf("mode %v: no SameSite for the browser", mode)
		}
		_, hc := jarCookie(&network.Cookie{Name: "n", Value: "v", Domain: "a.test", Path: "/", SameSite: cp.SameSite})
		if hc.SameSite != mode {
			t.Errorf("mode %v: back from the browser as %v (via %q)", mode, hc.SameSite, cp.SameSite)
		}
	}
	if cp := setCookieParam("https://a.test/", &http.Cookie{Name: "n", Value: "v", SameSite: http.SameSiteDefaultMode}, now); cp.SameSite != "" {
		t.Errorf("the default mode went to the browser as %q", cp.SameSite)
	}
}
