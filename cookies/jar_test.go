package cookies_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"crawler/cookies"
	"crawler/frontier"
)

// The behaviours a server sees (domain, path, expiry, Secure, public
// suffixes, a cookie bomb) are tested through the fetcher against servers
// on loopback, in package fetch. These tests are of what only the jar's
// API shows: eviction order, Export and Import, cookies.txt.

// clock is a clock that moves only when told to.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// setRaw stores the Set-Cookie values lines as a response to u would.
func setRaw(j *cookies.Jar, u string, lines ...string) {
	h := http.Header{"Set-Cookie": lines}
	j.SetCookies(mustURL(u), (&http.Response{Header: h}).Cookies())
}

// header returns the Cookie header the jar gives a request for u.
func header(j *cookies.Jar, u string) string {
	var b []string
	for _, c := range j.Cookies(mustURL(u)) {
		b = append(b, c.String())
	}
	return strings.Join(b, "; ")
}

// The least recently used cookie goes first, per site and in all; using a
// cookie (sending it) or setting it again counts as using it.
func TestLRUEviction(t *testing.T) {
	c := newClock()
	j := &cookies.Jar{Limits: cookies.Limits{PerSite: 3, Total: 5}, Now: c.Now}
	const a = "http://www.a.test"
	setRaw(j, a, "a=1; Path=/a", "b=1; Path=/b", "c=1; Path=/c")
	c.Advance(time.Second)
	header(j, a+"/a")            // a used
	setRaw(j, a, "d=1; Path=/d") // the site is full: b goes
	if got := header(j, a+"/b") + "|" + header(j, a+"/a") + header(j, a+"/c") + header(j, a+"/d"); got != "|a=1c=1d=1" {
		t.Errorf("after evicting per site: %q, want b gone alone", got)
	}
	// a, c and d used in that order; c set again makes it the newest.
	setRaw(j, a, "c=2; Path=/c")
	setRaw(j, "http://b.test", "x=1", "y=1") // 5 in all
	setRaw(j, "http://c.test", "z=1")        // one too many: a goes
	if got := header(j, a+"/a") + "|" + header(j, a+"/c") + header(j, a+"/d"); got != "|c=2d=1" {
		t.Errorf("after evicting in all: %q, want a gone alone", got)
	}
	if n := j.Len(); n != 5 {
		t.Errorf("Len = %d, want 5", n)
	}
	// Expired cookies go before the least recently used.
	j = &cookies.Jar{Limits: cookies.Limits{PerSite: 2}, Now: c.Now}
	setRaw(j, a, "old=1", "short=1; Max-Age=10")
	c.Advance(time.Minute)
	setRaw(j, a, "new=1")
	if got := header(j, a); got != "old=1; new=1" {
		t.Errorf("the expired cookie should have gone first: %q", got)
	}
	// Negative limits: no bound.
	j = &cookies.Jar{Limits: cookies.Limits{PerSite: -1, Total: -1, CookieBytes: -1}}
	for i := range 200 {
		setRaw(j, a, fmt.Sprintf("k%d=%s", i, strings.Repeat("v", 5000)))
	}
	if n := j.Len(); n != 200 {
		t.Errorf("unbounded jar: Len = %d, want 200", n)
	}
}

// A cookie above CookieBytes, counted on its Set-Cookie text, is refused.
func TestCookieBytes(t *testing.T) {
	j := &cookies.Jar{Limits: cookies.Limits{CookieBytes: 20}}
	setRaw(j, "http://a.test", "n=123456789012345678", "m=1; Path=/; Secure; HttpOnly", "o=1234567890123456789")
	if got := header(j, "http://a.test"); got != "n=123456789012345678" {
		t.Errorf("got %q: the 20-byte cookie alone should be kept", got)
	}
	j = &cookies.Jar{}
	setRaw(j, "http://a.test", "big="+strings.Repeat("x", 4093), "max="+strings.Repeat("x", 4092))
	if got := header(j, "http://a.test"); !strings.HasPrefix(got, "max=") || j.Len() != 1 {
		t.Errorf("of a 4097- and a 4096-byte cookie, the jar kept %d: %.10q", j.Len(), got)
	}
}

// Replacing a cookie keeps its creation time, and so its place in the
// Cookie header.
func TestReplaceKeepsCreation(t *testing.T) {
	c := newClock()
	j := &cookies.Jar{Now: c.Now}
	setRaw(j, "http://a.test", "first=1")
	c.Advance(time.Second)
	setRaw(j, "http://a.test", "second=1")
	c.Advance(time.Second)
	setRaw(j, "http://a.test", "first=2; HttpOnly")
	e := j.Export()
	if len(e) != 2 || e[1].Name != "first" || !e[1].HttpOnly || !e[1].Created.Equal(c.Now().Add(-2*time.Second)) {
		t.Errorf("Export = %+v: want first last used, HttpOnly, created 2 s ago", e)
	}
	if got := header(j, "http://a.test"); got != "first=2; second=1" {
		t.Errorf("got %q", got)
	}
}

// Export gives every attribute, Import restores them and the order of
// use: a jar imported from another sends the same headers and evicts the
// same cookies.
func TestExportImport(t *testing.T) {
	c := newClock()
	lim := cookies.Limits{PerSite: 4}
	j := &cookies.Jar{Limits: lim, Now: c.Now}
	setRaw(j, "https://www.a.test/x/y", "host=1; HttpOnly; SameSite=Lax", "dom=1; Domain=a.test; Path=/; Secure",
		"exp=1; Max-Age=3600", "p=1; Path=/x")
	c.Advance(time.Second)
	header(j, "https://www.a.test/x/z") // uses exp (path /x) and p, dom; not host... all match: every one used
	header(j, "https://www.a.test/")    // dom alone: the most recently used
	setRaw(j, "http://10.0.0.1/", "ip=1")
	out := j.Export()
	if len(out) != 5 {
		t.Fatalf("Export gave %d entries, want 5: %+v", len(out), out)
	}
	var dom cookies.Entry
	for _, e := range out {
		if e.Name == "dom" {
			dom = e
		}
	}
	want := cookies.Entry{Name: "dom", Value: "1", Domain: "a.test", Path: "/", Secure: true,
		Created: c.Now().Add(-time.Second), LastAccess: c.Now(), Size: len("dom=1; Domain=a.test; Path=/; Secure")}
	if !reflect.DeepEqual(dom, want) {
		t.Errorf("exported\n%+v, want\n%+v", dom, want)
	}

	k := &cookies.Jar{Limits: lim, Now: c.Now}
	if err := k.Import(out); err != nil {
		t.Fatal(err)
	}
	if got := k.Export(); !reflect.DeepEqual(got, out) {
		t.Errorf("round trip:\n%+v\nwant\n%+v", got, out)
	}
	for _, u := range []string{"https://www.a.test/x/y", "http://www.a.test/x", "https://sub.a.test/", "http://10.0.0.1/"} {
		if a, b := header(j, u), header(k, u); a != b {
			t.Errorf("%s: the original sends %q, the imported %q", u, a, b)
		}
	}
	setRaw(j, "http://www.a.test/", "new=1")
	setRaw(k, "http://www.a.test/", "new=1")
	if a, b := header(j, "https://www.a.test/x/y"), header(k, "https://www.a.test/x/y"); a != b {
		t.Errorf("after an eviction: the original sends %q, the imported %q", a, b)
	}
	if got := k.Host("sub.a.test"); len(got) != 1 || got[0].Name != "dom" {
		t.Errorf("Host(sub.a.test) = %+v, want dom alone", got)
	}
	if got := k.Host("WWW.A.TEST."); len(got) != 4 {
		t.Errorf("Host(www.a.test) gave %d entries, want 4", len(got))
	}

	// Entries the jar would refuse are named, the others stored.
	bad := []cookies.Entry{
		{Name: "", Domain: "a.test", Path: "/"},
		{Name: "ps", Domain: "co.uk", Path: "/"},
		{Name: "rel", Domain: "a.test", Path: "x"},
		{Name: "gone", Domain: "a.test", Path: "/", Expires: c.Now().Add(-time.Second)},
		{Name: "ok", Value: "1", Domain: ".A.test", Path: "/"},
	}
	k = &cookies.Jar{Now: c.Now}
	err := k.Import(bad)
	if err == nil || !strings.Contains(err.Error(), `"ps" of "co.uk" refused: a public suffix`) || !strings.Contains(err.Error(), `path "x"`) {
		t.Errorf("Import error: %v", err)
	}
	if got := header(k, "http://b.a.test/"); got != "ok=1" || k.Len() != 1 {
		t.Errorf("after Import: %q, Len %d; want ok=1 alone", got, k.Len())
	}
}

// A cookies.txt as curl writes it (testdata/curl-cookies.txt was written
// by curl 8 from a server on loopback), and the other forms the format
// takes.
func TestReadNetscape(t *testing.T) {
	f, err := os.Open("testdata/curl-cookies.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := cookies.ReadNetscape(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []cookies.Entry{
		{Name: "cart", Value: "", Domain: "a.shop.localhost", HostOnly: true, Path: "/cart"},
		{Name: "pref", Value: "dark", Domain: "shop.localhost", Path: "/", Expires: time.Unix(4102444800, 0)},
		{Name: "sid", Value: "abc123", Domain: "a.shop.localhost", HostOnly: true, Path: "/", HttpOnly: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	j := &cookies.Jar{}
	if err := j.Import(got); err != nil {
		t.Fatal(err)
	}
	if h := header(j, "http://a.shop.localhost/cart/1"); h != "cart=; pref=dark; sid=abc123" {
		t.Errorf("the imported file sends %q", h)
	}

	// CRLF, a 6-field line (curl's empty value), lower-case flags.
	in := "# c\r\n\r\n.b.test\ttrue\t/\tfalse\t0\tv\r\nb.test\tFALSE\t/\tTRUE\t12\tw\tx y\r\n"
	got, err = cookies.ReadNetscape(strings.NewReader(in))
	want = []cookies.Entry{
		{Name: "v", Domain: "b.test", Path: "/"},
		{Name: "w", Value: "x y", Domain: "b.test", HostOnly: true, Path: "/", Secure: true, Expires: time.Unix(12, 0)},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, %v\nwant %+v", got, err, want)
	}
	var buf bytes.Buffer
	if err := cookies.WriteNetscape(&buf, got); err != nil {
		t.Fatal(err)
	}
	if again, err := cookies.ReadNetscape(&buf); err != nil || !reflect.DeepEqual(again, got) {
		t.Errorf("written and read again: %+v, %v", again, err)
	}

	for _, tc := range []struct{ in, err string }{
		{"# ok\na.test\tTRUE\t/\tFALSE\t0\tn\n\na.test\tTRUE\t/\n", "cookies.txt line 4: 3 tab-separated fields, want 7"},
		{"a.test\tYES\t/\tFALSE\t0\tn\tv", `line 1: include-subdomains is "YES"`},
		{"a.test\tTRUE\t/\tno\t0\tn\tv", `line 1: secure is "no"`},
		{"a.test\tTRUE\tx\tFALSE\t0\tn\tv", `line 1: path "x" does not start with /`},
		{"a.test\tTRUE\t/\tFALSE\tsoon\tn\tv", `line 1: expiry "soon" is not Unix seconds`},
		{"a.test\tTRUE\t/\tFALSE\t-1\tn\tv", `line 1: expiry "-1"`},
		{"\tTRUE\t/\tFALSE\t0\tn\tv", `line 1: bad domain ""`},
		{"a b\tTRUE\t/\tFALSE\t0\tn\tv", `line 1: bad domain "a b"`},
		{"a.test\tTRUE\t/\tFALSE\t0\t\tv", "line 1: no cookie name"},
		{"a.test\tTRUE\t/\tFALSE\t0\tn\tv\tw", "line 1: cookie \"n\": a control character"},
		{"a.test\tTRUE\t/\tFALSE\t0\tn\t" + strings.Repeat("v", 2<<20), "line 1: bufio.Scanner: token too long"},
	} {
		if _, err := cookies.ReadNetscape(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%.40q: error %v, want %q", tc.in, err, tc.err)
		}
	}
}

// The jar is safe for concurrent use (run with -race).
func TestConcurrent(t *testing.T) {
	j := &cookies.Jar{Limits: cookies.Limits{PerSite: 10, Total: 30}}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 500 {
				u := fmt.Sprintf("http://h%d.s%d.test/", i%3, (g+i)%5)
				setRaw(j, u, fmt.Sprintf("c%d=%d; Domain=s%d.test", i%20, i, (g+i)%5))
				header(j, u)
				if i%100 == 0 {
					j.Export()
					j.Host("h1.s1.test")
				}
			}
		})
	}
	wg.Wait()
	if n := j.Len(); n > 30 {
		t.Errorf("Len = %d above Total 30", n)
	}
}

// TestChanges checks that Changes grows when a cookie is set or removed,
// and not when cookies are sent.
func TestChanges(t *testing.T) {
	var j cookies.Jar
	u, _ := url.Parse("http://example.com/")
	c0 := j.Changes()
	j.SetCookies(u, []*http.Cookie{{Name: "a", Value: "1"}})
	c1 := j.Changes()
	j.Cookies(u)
	j.Cookies(u)
	if c1 <= c0 || j.Changes() != c1 {
		t.Fatalf("Changes: %d, then %d after a set, %d after sending; want growth on the set only", c0, c1, j.Changes())
	}
	j.SetCookies(u, []*http.Cookie{{Name: "a", MaxAge: -1}}) // deleted
	if j.Changes() <= c1 || j.Len() != 0 {
		t.Errorf("Changes %d after a deletion (was %d), Len %d", j.Changes(), c1, j.Len())
	}
}

// Delete removes the cookies named by entries (by name, domain and path),
// whatever their value, and no other: what a crawl that gives a host up
// does with the entries Host gave.
func TestDelete(t *testing.T) {
	j := &cookies.Jar{}
	setRaw(j, "http://www.a.test/x/y", "host=1", "dom=1; Domain=a.test; Path=/", "p=1; Path=/x")
	setRaw(j, "http://b.test/", "b=1")
	c := j.Changes()
	gone := j.Host("www.a.test")
	if len(gone) != 3 {
		t.Fatalf("Host(www.a.test) = %+v, want 3 cookies", gone)
	}
	gone[0].Value = "another value" // named, not matched by value
	gone = append(gone, cookies.Entry{Name: "none", Domain: "a.test", Path: "/"}, cookies.Entry{Name: "b", Domain: "B.test", Path: "/x"})
	j.Delete(gone)
	if got := header(j, "http://www.a.test/x/y"); got != "" || j.Len() != 1 || header(j, "http://b.test/") != "b=1" {
		t.Errorf("after Delete: www.a.test gets %q, b.test %q, Len %d; want none, b=1, 1", got, header(j, "http://b.test/"), j.Len())
	}
	if j.Changes() <= c {
		t.Errorf("Changes %d after a Delete (was %d)", j.Changes(), c)
	}
	j.Delete([]cookies.Entry{{Name: "b", Domain: ".B.TEST", Path: "/"}})
	if j.Len() != 0 {
		t.Errorf("Len %d after deleting b by its domain spelled .B.TEST", j.Len())
	}
}

// holder is a cookies.Holder over a frontier.Keeper that keeps nothing.
type holder struct {
	frontier.Keeper
	got *cookies.Jar
}

func (h *holder) HoldCookies(j *cookies.Jar) error {
	h.got = j
	return nil
}

// Restore hands the jar to a Holder, and keeps nothing in it itself.
func TestRestoreHolder(t *testing.T) {
	h := &holder{}
	j := &cookies.Jar{}
	if err := j.Restore(h); err != nil || h.got != j {
		t.Errorf("Restore(a Holder): %v, handed %p; want the jar %p", err, h.got, j)
	}
}

// HostCount counts what Host returns, the port ignored.
func TestHostCount(t *testing.T) {
	jar := &cookies.Jar{}
	if n := jar.HostCount("a.example.com:8080"); n != 0 {
		t.Errorf("empty jar: %d", n)
	}
	u, _ := url.Parse("http://a.example.com:8080/")
	jar.SetCookies(u, []*http.Cookie{{Name: "h", Value: "1"}, {Name: "d", Value: "2", Domain: "example.com"}})
	for host, want := range map[string]int{"a.example.com:8080": 2, "A.example.com": 2, "b.example.com": 1, "other.org": 0} {
		if n := jar.HostCount(host); n != want || len(jar.Host(strings.Split(host, ":")[0])) != want {
			t.Errorf("HostCount(%q) = %d; want %d, as Host", host, n, want)
		}
	}
}
