package crawler_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"crawler"
	"crawler/fetch"
	"crawler/internal/dnstest"
	"crawler/politeness"
)

// The README's ten-line program, with the default settings but for a
// resolver that asks a DNS server on loopback: its seed's name does not
// exist (NXDOMAIN), so the host is asked again twice, a second then two
// later, and retired, and Run returns, about 3 s after it began, a
// NoPagesError that names the host.
func TestRunHostNotFound(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out two not-found backoffs in real time: about 3 s")
	}
	t.Parallel()
	dns := dnstest.New(t, nil)
	var got collect
	c := &crawler.Crawler{
		Handler:  &got,
		MaxPages: 100,
		Fetcher:  &fetch.HTTPFetcher{DNS: &fetch.DNSCache{Resolver: dns.Resolver()}},
	}
	const seed = "https://nosuchhost.test/"
	start := time.Now()
	err := c.Run(context.Background(), seed)
	took := time.Since(start)

	// The retries wait politeness.DefaultNotFoundBackoff, then twice
	// that; the bound above leaves room for a loaded machine.
	least := politeness.DefaultNotFoundBackoff * 3
	if took < least || took > least+10*time.Second {
		t.Errorf("Run took %v; want %v to %v", took, least, least+10*time.Second)
	}
	noPages, ok := errors.AsType[*crawler.NoPagesError](err)
	if !ok || len(noPages.Seeds) != 1 || noPages.Seeds[0].URL != seed ||
		!errors.Is(err, crawler.ErrNoPages) || !errors.Is(err, politeness.ErrHostRetired) || errors.Is(err, crawler.ErrSeedsRefused) {
		t.Fatalf("Run = %v; want a NoPagesError of the seed, its host retired", err)
	}
	want := "crawler: no seed yielded a page: " + seed + ": crawler: host retired: nosuchhost.test: name not found, 3 answers in a row: lookup nosuchhost.test"
	if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), ": no such host") {
		t.Errorf("Run = %q; want %q...: no such host", err, want)
	}
	if dnsErr, ok := errors.AsType[*net.DNSError](err); !ok || !dnsErr.IsNotFound || dnsErr.Name != "nosuchhost.test" {
		t.Errorf("Run = %v; want it to wrap the not-found *net.DNSError of nosuchhost.test", err)
	}
	if n := dns.Queries("nosuchhost.test"); n != 1+politeness.DefaultNotFoundRetries {
		t.Errorf("%d queries for the name; want %d: each retry asks the DNS, not the fetcher's cache", n, 1+politeness.DefaultNotFoundRetries)
	}

	st := c.Stats()
	if st.Errors[fetch.KindDNS] != 4 || st.Errors[crawler.KindRobotsUnavailable] != 0 || st.Errors[crawler.KindHostRetired] != 0 ||
		st.RobotsFetched != 3 || st.Requests != 0 || st.HostsRetired != 1 {
		t.Errorf("stats %+v; want 4 dns errors (3 robots.txt tries, 1 URL), 3 robots.txt requests, no page request, 1 host retired", st)
	}
	hs := c.HostStats()
	if len(hs) != 1 || hs[0].Host != "nosuchhost.test" || !strings.HasPrefix(hs[0].Retired, "name not found, 3 answers in a row: lookup nosuchhost.test") ||
		hs[0].RobotsRequests != 3 || hs[0].Errors != 3 {
		t.Errorf("HostStats = %+v", hs)
	}
	if p := got.page(seed); p == nil || !errors.Is(p.Err, politeness.ErrHostRetired) || crawler.ErrorKind(p.Err) != fetch.KindDNS {
		t.Errorf("page = %+v; want the seed given to the Handler, its host retired, of kind %q", p, fetch.KindDNS)
	}
}

// A page (robots.txt not asked) whose host's name does not exist is
// retried like any failed request, but on the host's short not-found
// backoff, and its last try retires the host: the Page has the fetch
// error, Run's error the host retired.
func TestFetchHostNotFound(t *testing.T) {
	dns := dnstest.New(t, nil)
	var got collect
	c := &crawler.Crawler{
		Handler:      &got,
		IgnoreRobots: true,
		Pacing:       politeness.Pacing{Delay: -1, NotFoundBackoff: time.Millisecond},
		Fetcher:      &fetch.HTTPFetcher{DNS: &fetch.DNSCache{Resolver: dns.Resolver()}},
	}
	const seed = "http://nosuchhost.test/a"
	err := c.Run(context.Background(), seed)
	if !errors.Is(err, crawler.ErrNoPages) || !errors.Is(err, politeness.ErrHostRetired) || !strings.Contains(err.Error(), "host retired: nosuchhost.test: name not found, 3 answers") {
		t.Fatalf("Run = %v; want a NoPagesError, the seed's host retired", err)
	}
	p := got.page(seed)
	if fe, ok := errors.AsType[*fetch.FetchError](p.Err); !ok || !politeness.HostNotFound(p.Err) || errors.Is(p.Err, politeness.ErrHostRetired) {
		t.Errorf("page error %v (%T); want the fetch error, name not found", p.Err, fe)
	}
	st := c.Stats()
	if st.Requests != 3 || st.Retries != 2 || st.Errors[fetch.KindDNS] != 3 || st.HostsRetired != 1 || dns.Queries("nosuchhost.test") != 3 {
		t.Errorf("stats %+v, %d queries; want 3 requests (2 retries), each a dns error and a query, the host retired", st, dns.Queries("nosuchhost.test"))
	}
}

// A lookup that fails for a while (SERVFAIL: IsTemporary) is no name not
// found: the robots.txt is unavailable, the host deferred (by default a
// minute; politeness tests RetryAt) and retired only after
// Pacing.MaxFailures failures in a row.
func TestRobotsDNSTemporary(t *testing.T) {
	dns := dnstest.New(t, nil)
	dns.Fail("flaky.test")
	const seed = "http://flaky.test/"

	// The defaults: deferred for politeness.DefaultErrorTTL, until ctx
	// ends the Run, which is no NoPagesError.
	deferred := make(chan struct{}, 1)
	c := &crawler.Crawler{
		Fetcher: &fetch.HTTPFetcher{DNS: &fetch.DNSCache{Resolver: dns.Resolver()}},
		Logger:  slog.New(&signalHandler{msg: "robots.txt unavailable: host deferred", ch: deferred}),
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, seed) }()
	select {
	case <-deferred:
	case err := <-done:
		t.Fatalf("Run = %v before the host was deferred", err)
	}
	// The host's own backoff is the ordinary one; its URL waits for
	// robots.txt to be asked again, a minute later.
	hs := c.HostStats()
	if len(hs) != 1 || hs[0].Retired != "" || hs[0].Failures != 1 || hs[0].Delay != politeness.DefaultBackoff {
		t.Errorf("HostStats = %+v; want the host deferred, backing off %v, not retired", hs, politeness.DefaultBackoff)
	}
	cancel()
	err := <-done
	if _, stopped := errors.AsType[*crawler.StoppedError](err); !stopped || errors.Is(err, crawler.ErrNoPages) {
		t.Errorf("Run stopped before any page = %v; want a StoppedError only", err)
	}
	if st := c.Stats(); st.Errors[crawler.KindRobotsUnavailable] != 1 || st.Errors[fetch.KindDNS] != 0 || st.HostsRetired != 0 {
		t.Errorf("stats %+v; want 1 robots-unavailable error, none dns", st)
	}

	// Shorter waits: retired after MaxFailures (3) failures in a row.
	var got collect
	c = fast(&got)
	c.Fetcher = &fetch.HTTPFetcher{DNS: &fetch.DNSCache{Resolver: dns.Resolver(), ErrorTTL: -1}}
	c.Pacing.MaxFailures = 3
	err = c.Run(context.Background(), seed)
	if dnsErr, ok := errors.AsType[*net.DNSError](err); !ok || !dnsErr.IsTemporary || !errors.Is(err, crawler.ErrNoPages) || !strings.Contains(err.Error(), "3 failures in a row") {
		t.Errorf("Run = %v; want a NoPagesError, the host retired after 3 failures of a temporary DNS error", err)
	}
	st := c.Stats()
	if st.Errors[crawler.KindRobotsUnavailable] != 3 || st.Errors[crawler.KindHostRetired] != 1 || st.Errors[fetch.KindDNS] != 0 || st.HostsRetired != 1 {
		t.Errorf("stats %+v; want 3 robots-unavailable errors, the URL host-retired", st)
	}
	if hs := c.HostStats(); len(hs) != 1 || !strings.HasPrefix(hs[0].Retired, "3 failures in a row") {
		t.Errorf("HostStats = %+v", hs)
	}
}

// signalHandler is a slog.Handler that sends on ch (without blocking)
// when a record with the message msg is logged.
type signalHandler struct {
	msg string
	ch  chan struct{}
}

func (h *signalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *signalHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *signalHandler) WithGroup(string) slog.Handler            { return h }
func (h *signalHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		select {
		case h.ch <- struct{}{}:
		default:
		}
	}
	return nil
}

// A crawl one of whose seeds does not resolve and another does ends
// without error, having retired only the host that does not resolve.
func TestSeedHostNotFoundAmongOthers(t *testing.T) {
	s := newSite(t, map[string]response{"/": html("/a"), "/a": html()})
	_, port, _ := net.SplitHostPort(s.Listener.Addr().String())
	dns := dnstest.New(t, map[string][]netip.Addr{"good.test": {netip.MustParseAddr("127.0.0.1")}})
	var got collect
	c := fast(&got)
	c.Pacing.NotFoundBackoff = time.Millisecond
	c.Fetcher = &fetch.HTTPFetcher{Addresses: testLoopback, DNS: &fetch.DNSCache{Resolver: dns.Resolver()}}
	good := "http://good.test:" + port
	if err := c.Run(context.Background(), "http://nosuchhost.test/", good+"/"); err != nil {
		t.Fatalf("Run = %v; want nil, one seed fetched", err)
	}
	if p := got.page(good + "/a"); p == nil || p.Status != 200 {
		t.Errorf("page %s = %+v; want it fetched", good+"/a", p)
	}
	if p := got.page("http://nosuchhost.test/"); p == nil || crawler.ErrorKind(p.Err) != fetch.KindDNS {
		t.Errorf("page of the host not found = %+v", p)
	}
	retired := map[string]string{}
	for _, h := range c.HostStats() {
		retired[h.Host] = h.Retired
	}
	if len(retired) != 2 || !strings.HasPrefix(retired["nosuchhost.test"], "name not found") || retired["good.test:"+port] != "" {
		t.Errorf("hosts retired: %q; want nosuchhost.test alone", retired)
	}
	if st := c.Stats(); st.HostsRetired != 1 {
		t.Errorf("HostsRetired = %d, want 1", st.HostsRetired)
	}
}

// Run fails with a NoPagesError when no seed got a response, whatever the
// reason of each, listed a line each; not when one did, whatever its
// status, nor when a budget cut the crawl short.
func TestRunNoPages(t *testing.T) {
	s := newSite(t, map[string]response{
		"/robots.txt": {ctype: "text/plain", body: "User-agent: *\nDisallow: /private\n"},
		"/missing":    {status: 404},
	})
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL + "/"
	dead.Close()

	err := fast(nil).Run(context.Background(), s.URL+"/private")
	if noPages, ok := errors.AsType[*crawler.NoPagesError](err); !ok || !errors.Is(err, crawler.ErrDisallowed) ||
		len(noPages.Seeds) != 1 || err.Error() != "crawler: no seed yielded a page: "+s.URL+"/private: crawler: disallowed by robots.txt" {
		t.Errorf("a seed disallowed: Run = %v", err)
	}
	if err := fast(nil).Run(context.Background(), s.URL+"/missing"); err != nil {
		t.Errorf("a seed answered 404: Run = %v, want nil", err)
	}

	c := fast(nil)
	c.IgnoreRobots = true
	if err := c.Run(context.Background(), s.URL+"/private"); err != nil {
		t.Errorf("a seed not disallowed under IgnoreRobots, answered 404: Run = %v, want nil", err)
	}

	c = fast(nil)
	err = c.Run(context.Background(), s.URL+"/private", deadURL, s.URL+"/private", "http://127.0.0.2/")
	noPages, ok := errors.AsType[*crawler.NoPagesError](err)
	if !ok || len(noPages.Seeds) != 3 || noPages.Seeds[0].URL != s.URL+"/private" || noPages.Seeds[1].URL != deadURL || noPages.Seeds[2].URL != "http://127.0.0.2/" ||
		!errors.Is(noPages.Seeds[0].Err, crawler.ErrDisallowed) || !errors.Is(noPages.Seeds[2].Err, fetch.ErrBlockedAddress) || errors.Is(err, crawler.ErrSeedsRefused) {
		t.Fatalf("three seeds, each failing: Run = %v; want a NoPagesError of the 3 seeds in order", err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 4 || lines[0] != "crawler: no seed yielded a page (3 seeds):" || !strings.HasPrefix(lines[2], deadURL+": crawler: host retired: ") {
		t.Errorf("error text:\n%s\nwant a line for each seed", err)
	}

	// MaxPages spent on a dead host's tries: no NoPagesError.
	c = fast(nil)
	c.IgnoreRobots, c.MaxPages = true, 2
	if err := c.Run(context.Background(), deadURL); err != nil {
		t.Errorf("MaxPages spent: Run = %v, want nil", err)
	}
}
