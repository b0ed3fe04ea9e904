package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"crawler/crawlertest"
	"crawler/internal/browsertest"
	"crawler/internal/proxytest"
)

// writeSites writes a sites file for a SessionSite at origin whose
// members' pages need a login, the password read from $SITE_PASSWORD.
func writeSites(t *testing.T, origin string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "sites.toml")
	txt := fmt.Sprintf(`
[[site]]
match = "%[1]s/members/"
[site.login]
url = "%[1]s/login"
fields = { user = "%[2]s", password = "env:SITE_PASSWORD" }
success = { cookie = "%[3]s" }

[[site]]
match = "%[1]s/"
deny = ["/bomb"]
`, origin, crawlertest.SessionUser, crawlertest.SessionCookie)
	if err := os.WriteFile(file, []byte(txt), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// crawlSites returns the command that crawls s with the sites file and
// the password given, with flags.
func crawlSites(ctx context.Context, s *crawlertest.SessionSite, file, password string, flags ...string) *exec.Cmd {
	args := append([]string{"-sites", file, "-allow", s.Addr(), "-progress", "-1s"}, flags...)
	cmd := crawlCommand(ctx, append(args, s.URL()+"/")...)
	cmd.Env = append(cmd.Env, "SITE_PASSWORD="+password)
	return cmd
}

// -sites with a login, through the CLI: every members' page once across
// the session's expiries, logins = expiries + 1, each logged with -v; a
// wrong password makes two attempts, and the crawl ends with exit 0, the
// members' pages counted as login-failed.
func TestSitesLogin(t *testing.T) {
	t.Parallel()
	const pages, expiry = 8, 3
	for _, password := range []string{crawlertest.SessionPassword, "wrong"} {
		s := crawlertest.NewSessionSite(crawlertest.SessionConfig{Pages: pages, Expiry: expiry})
		t.Cleanup(s.Close)
		hostStats := filepath.Join(t.TempDir(), "hosts.jsonl")
		cmd := crawlSites(t.Context(), s, writeSites(t, s.URL()), password, "-delay", "-1s", "-json", "-v", "-host-stats", hostStats)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var sum summary
		if jerr := json.Unmarshal([]byte(out.String()), &sum); err != nil || jerr != nil {
			t.Fatalf("password %q: %v, %v\n%s", password, err, jerr, errOut.String())
		}
		ok, failed := s.Logins()
		if password == "wrong" {
			if ok != 0 || failed != 2 || sum.LoginsFailed != 2 || sum.Errors["login-failed"] == 0 || len(s.MemberFetches()) != 0 {
				t.Errorf("wrong password: %d logins, %d failed, summary %d failed, errors %v; want 0, 2, 2, login-failed",
					ok, failed, sum.LoginsFailed, sum.Errors)
			}
			continue
		}
		want := (pages-1)/expiry + 1
		if ok != want || sum.Logins != 1 || sum.Relogins != int64(want-1) {
			t.Errorf("%d logins (summary: %d, %d again); want %d", ok, sum.Logins, sum.Relogins, want)
		}
		for n := 1; n <= pages; n++ {
			if got := s.MemberFetches()[n]; got != 1 {
				t.Errorf("members' page %d served %d times; want 1", n, got)
			}
		}
		var host hostRecord
		if b, err := os.ReadFile(hostStats); err != nil || json.Unmarshal(b, &host) != nil || host.Cookies != 2 {
			t.Errorf("-host-stats: %s (%v); want the session's and the visited cookie counted", b, err)
		}
		if n := strings.Count(errOut.String(), "msg=login "); n != want {
			t.Errorf("-v logged %d logins; want %d:\n%s", n, want, errOut.String())
		}
	}
}

// A -sites file that cannot be read or is not valid is a usage error:
// exit 2, the message naming the flag, the file, the line and the key.
func TestSitesFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("[[site]]\nmatch = \"a.example\"\n\ndelay = \"2 seconds\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noEnv := filepath.Join(dir, "env.toml")
	if err := os.WriteFile(noEnv, []byte("[[site]]\nmatch = \"a.example\"\nbasic_auth = { user = \"u\", password_env = \"CRAWL_TEST_UNSET\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		bad:                             "-sites: " + bad + `:4: site.delay: "2 seconds" is not a duration`,
		noEnv:                           "-sites: " + noEnv + ":3: site.basic_auth.password_env:",
		filepath.Join(dir, "none.toml"): "-sites: ",
	} {
		r := runCrawl(t, nil, "-sites", file, "-demo")
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 2 and %q", file, r.code, r.stderr, want)
		}
	}
}

// kill -9 with -state after the login: the resumed crawl goes on with the
// session kept in the state, and logs in no more.
func TestSitesSessionSurvivesKill9(t *testing.T) {
	t.Parallel()
	const pages = 20
	s := crawlertest.NewSessionSite(crawlertest.SessionConfig{Pages: pages})
	t.Cleanup(s.Close)
	file, dir := writeSites(t, s.URL()), t.TempDir()
	flags := []string{"-state", dir, "-delay", "20ms"}
	cmd := crawlSites(t.Context(), s, file, crawlertest.SessionPassword, flags...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(s.MemberFetches()) < pages/2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	before := len(s.MemberFetches())
	if before == 0 || before == pages {
		t.Fatalf("killed after %d of %d members' pages; want some, not all", before, pages)
	}
	var errOut strings.Builder
	cmd = crawlSites(t.Context(), s, file, crawlertest.SessionPassword, flags...)
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("resumed: %v\n%s", err, errOut.String())
	}
	if ok, failed := s.Logins(); ok != 1 || failed != 0 {
		t.Errorf("%d logins, %d failed; want 1 (the session kept), 0", ok, failed)
	}
	if got := len(s.MemberFetches()); got != pages {
		t.Errorf("%d members' pages served to the session; want %d", got, pages)
	}
}

// A site whose rules say render = true, crawled without -render: its
// page's script sets a cookie that the next page needs, the renderer
// shares the jar with the browser, so the next page is fetched with it;
// the site's header goes with every request, the browser's too.
func TestSitesRenderSharesCookies(t *testing.T) {
	if testing.Short() {
		t.Skip("a crawl through a browser")
	}
	t.Parallel()
	browsertest.Need(t)
	var mu sync.Mutex
	noToken := []string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Token") != "t" {
			mu.Lock()
			noToken = append(noToken, r.URL.Path)
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<script src="/app.js"></script><a href="/members">members</a>`)
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `document.cookie = "js=1; path=/";`)
		case "/members":
			if c, err := r.Cookie("js"); err != nil || c.Value != "1" {
				http.Error(w, "no cookie", http.StatusForbidden)
				return
			}
			fmt.Fprint(w, `<p>members`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	file := filepath.Join(t.TempDir(), "sites.toml")
	txt := fmt.Sprintf("[[site]]\nmatch = %q\nrender = true\nheaders = { X-Token = \"t\" }\n", strings.TrimPrefix(srv.URL, "http://"))
	if err := os.WriteFile(file, []byte(txt), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "pages.jsonl")
	var stdout, stderr bytes.Buffer
	args := []string{"-sites", file, "-allow", strings.TrimPrefix(srv.URL, "http://"), "-delay", "-1s", "-out", out, srv.URL + "/"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]int{}
	for line := range strings.Lines(string(data)) {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		status[strings.TrimPrefix(r.URL, srv.URL)] = r.Status
	}
	if status["/"] != 200 || status["/members"] != 200 {
		t.Errorf("statuses %v; want / and /members 200 (the script's cookie sent)", status)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(noToken) > 0 {
		t.Errorf("requests without the site's header: %v", noToken)
	}
}

// A site's delay and per_host through the CLI, by the server's clock:
// -delay -1s for the crawl, 200ms and one at a time for the site.
func TestSitesPacing(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var starts, ends []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			return
		}
		mu.Lock()
		starts = append(starts, time.Now())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/" {
			fmt.Fprint(w, `<a href="/1">1</a><a href="/2">2</a><a href="/3">3</a>`)
		}
		mu.Lock()
		ends = append(ends, time.Now())
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")
	file := filepath.Join(t.TempDir(), "sites.toml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf("[[site]]\nmatch = %q\ndelay = \"200ms\"\nper_host = 1\n", addr)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCrawl(t, nil, "-sites", file, "-allow", addr, "-delay", "-1s", "-per-host", "4", "-progress", "-1s", srv.URL+"/")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(starts) != 4 {
		t.Fatalf("%d page requests; want 4", len(starts))
	}
	for i := 1; i < len(starts); i++ {
		if gap := starts[i].Sub(ends[i-1]); gap < 200*time.Millisecond {
			t.Errorf("request %d started %v after the end of the one before; want 200ms or more", i, gap)
		}
	}
}

// -stats reads from a -state what its crawls kept of their sessions and
// proxies: the cookies the jar holds, by host, and each proxy's counts,
// every run's added.
func TestStatsCookiesAndProxies(t *testing.T) {
	t.Parallel()
	s := crawlertest.NewSessionSite(crawlertest.SessionConfig{Pages: 4})
	t.Cleanup(s.Close)
	proxy := proxytest.NewHTTP(t, s.Addr(), proxytest.Healthy, false)
	dir := t.TempDir()
	flags := []string{"-state", dir, "-allow", s.Addr() + "," + proxy.URL.Host, "-delay", "-1s", "-progress", "-1s", "-proxy", proxy.URL.String()}
	for _, budget := range []string{"3", "0"} { // two runs of one crawl: three pages, then the rest
		if r := runCrawl(t, nil, append(flags, "-max-pages", budget, s.URL()+"/cookie/1")...); r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
	}
	r := runCrawl(t, nil, "-stats", "-state", dir)
	var got struct {
		Cookies map[string]int `json:"cookies"`
		Total   summary        `json:"total"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); r.code != 0 || err != nil {
		t.Fatalf("-stats: exit %d, %v\n%s", r.code, err, r.stderr)
	}
	host, _, _ := strings.Cut(s.Addr(), ":")
	if got.Cookies[host] != 1 { // the visited cookie
		t.Errorf("cookies %v; want 1 for %s", got.Cookies, host)
	}
	p := got.Total.Proxies
	if len(p) != 1 || p[0].Proxy != proxy.URL.String() || p[0].Requests != got.Total.Requests+got.Total.RobotsFetched {
		t.Errorf("proxies %+v; want %s with every request of both runs (%d pages, %d robots.txt)", p, proxy.URL, got.Total.Requests, got.Total.RobotsFetched)
	}
}
