package fetch

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
	"time"
)

// Defaults of the HTTP fetcher, each overridable by a field.
const (
	// DefaultUserAgent is sent when a Request names no User-Agent (the
	// crawler always names one: Crawler.UserAgent). Its product token,
	// "crawler", is what robots.txt groups are matched against.
	DefaultUserAgent = "crawler/0.1 (+https://pkg.go.dev/crawler)"
	// DefaultMaxBodyBytes caps a response body, counted after gzip
	// decoding; the rest is not read and the page is marked Truncated.
	DefaultMaxBodyBytes = 10 << 20
	// DefaultTimeout bounds one fetch, body included.
	DefaultTimeout = 30 * time.Second
)

// Request is one fetch the crawler asks of a [Fetcher].
type Request struct {
	URL       string // absolute URL to fetch (canonical)
	UserAgent string // User-Agent header; "": DefaultUserAgent
	MaxBytes  int64  // body cap; 0 means the fetcher's, negative no cap

	// ETag and LastModified, the validators of an earlier response for
	// URL (its ETag and Last-Modified headers, as sent), make the request
	// conditional (If-None-Match, If-Modified-Since): a server whose copy
	// has not changed since answers 304 Not Modified, with no body.
	ETag, LastModified string

	// Header holds extra request headers (a site's rules: its headers,
	// its credentials), set after the fetcher's own, so that they win.
	// Nil: none.
	Header http.Header
	// Method is the request method; "": GET. Body is the request body
	// (a login form's fields; its Content-Type goes in Header). A request
	// with a Body is never given to a Recorder: it carries credentials.
	Method string
	Body   []byte
	// NoCookies, if set, neither sends nor keeps cookies for this request
	// (a site whose rules say cookies = false), whatever the Jar.
	NoCookies bool
}

// Response is the outcome of a fetch that reached the server. Redirects are
// not followed: a 3xx response is returned as is, with its Location header.
type Response struct {
	URL       string        // the URL fetched
	Status    int           // HTTP status code
	Header    http.Header   // response header
	Body      []byte        // body, decoded from gzip, at most the cap
	Truncated bool          // the body was longer than the cap and was cut
	Duration  time.Duration // from sending the request to the end of the body

	// Replayed is set on a response that was not fetched but answered
	// from an archive (package replay): nothing was sent, so the host's
	// pacing need not wait after it (politeness.Outcome.Replayed).
	Replayed bool
}

// IsRedirect reports whether status is a redirect that has a Location to
// follow: 301, 302, 303, 307 or 308 (not 300 Multiple Choices, nor 304
// Not Modified, nor 305 Use Proxy).
func IsRedirect(status int) bool {
	switch status {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

// Fetcher fetches one URL. Implementations must be safe for concurrent use,
// must not follow redirects, and must return promptly when ctx is done.
// A non-nil error means no usable response (network error, timeout); HTTP
// error statuses are responses, not errors.
type Fetcher interface {
	Fetch(ctx context.Context, req *Request) (*Response, error)
}

// FetchError is the error of a failed fetch: what was being done, to which
// URL, and why. Like net/url's Error, its text names no package: "fetch
// http://example.com/: dial tcp ...".
type FetchError struct {
	Op  string // "fetch" or "read body"
	URL string
	Err error
}

func (e *FetchError) Error() string { return fmt.Sprintf("%s %s: %v", e.Op, e.URL, e.Err) }

// Unwrap returns the underlying error.
func (e *FetchError) Unwrap() error { return e.Err }

// Timeout reports whether the fetch failed by running out of time.
func (e *FetchError) Timeout() bool {
	var t interface{ Timeout() bool }
	return errors.Is(e.Err, context.DeadlineExceeded) || errors.As(e.Err, &t) && t.Timeout()
}

// HTTPFetcher is the default [Fetcher], over net/http. Its zero value is
// ready to use with the defaults below. It is safe for concurrent use; set
// its fields before the first Fetch and do not change them after.
type HTTPFetcher struct {
	// Client sends the requests. Nil means a client over [NewTransport],
	// which caches DNS answers (see [DNSCache]) and checks the addresses
	// it connects to against Addresses, and has no cookie jar.
	// The fetcher uses a copy of it whose CheckRedirect stops at the first
	// response, since redirects are the crawler's to schedule. Cookies are
	// sent and kept only if the fetcher or the Client has a Jar.
	Client *http.Client
	// Jar, if not nil, holds the crawl's cookies (such as a
	// [crawler/cookies.Jar], bounded and persistent): a request gets the
	// Cookie header that Jar.Cookies gives for its URL, and the
	// Set-Cookie headers of its response are given to Jar.SetCookies for
	// the URL requested. Each redirect hop, being a fetch of its own, gets
	// and sets its own URL's cookies. It takes the place of the Client's
	// Jar. Nil: the Client's Jar, which is nil by default: no cookies are
	// sent or kept.
	Jar http.CookieJar
	// MaxBodyBytes caps bodies when the Request names no cap. 0 means
	// DefaultMaxBodyBytes; a negative value, no cap (for your own servers
	// only). The cap counts bytes as the body is decoded (the transport's
	// transparent gzip), so a small body that inflates to gigabytes is cut
	// at the cap like any other.
	MaxBodyBytes int64
	// Timeout bounds one fetch, body included. 0 means DefaultTimeout; a
	// negative value, no bound but the context's.
	Timeout time.Duration
	// Addresses says which IP addresses the fetcher may connect to. The
	// zero value refuses loopback, private, link-local and the other
	// special-purpose addresses (see [AddressPolicy]); a fetch refused
	// fails with an error wrapping [ErrBlockedAddress]. Connections are
	// checked by the dial of [DNSCache.DialContext], which the transport
	// of [NewTransport] uses; with a transport that dials otherwise, only
	// literal addresses and localhost names in URLs are refused.
	Addresses AddressPolicy
	// Recorder, if set, is given every exchange that Fetch returns a
	// response for, as the bytes that crossed the connection (see
	// [Exchange]), before Fetch returns; its error fails the fetch. The
	// Client's Transport must then be an *http.Transport (nil means
	// [NewTransport]); the fetcher uses a copy that speaks HTTP/1.1 only
	// and records above TLS. An https request through a proxy cannot be
	// recorded and fails with [ErrUnrecordable].
	Recorder Recorder
	// DNS, if not nil, is the DNS cache that the Client's transport dials
	// through (see NewTransportWith), whose counts DNSStats reports; with
	// a nil Client, the transport made dials through it. Nil: with a nil
	// Client, a cache of the fetcher's own.
	DNS *DNSCache
	// Proxies, if not nil, is the pool of proxies the requests go
	// through (see [ProxyPool]): each request is sent through the proxy
	// the pool picks for it, and the pool hears how it went. The
	// Client's Transport must then be an *http.Transport (nil means
	// [NewTransport]); the fetcher uses a copy whose Proxy is the pool's,
	// whatever the Transport's was. Unlike a proxy of the Transport, the
	// pool's are not trusted: their addresses must be ones Addresses
	// allows. Nil: the Transport's Proxy, if any, trusted (see
	// [AddressPolicy]). A pool serves one fetcher.
	Proxies *ProxyPool

	once      sync.Once
	client    *http.Client
	noCookies *http.Client      // client without the Jar, for Request.NoCookies
	transport http.RoundTripper // the Client's, which client wraps
	dns       *DNSCache         // DNS, or the cache of the transport made for a nil Client; nil without either
	direct    *dialPolicy       // the dial policy of requests without a proxy
	proxied   bool              // the transport may send requests through a proxy
	initErr   error             // why the fetcher cannot fetch, as configured
}

// NewTransport returns the transport the default fetcher uses: keep-alive,
// HTTP/2 where offered, transparent gzip, connection pools sized for a crawl
// of many hosts, bounded dial, TLS and header times, and no proxy (the
// library reads no environment; set Proxy to http.ProxyFromEnvironment to
// honour HTTP_PROXY and its kin; an [HTTPFetcher] trusts the proxy).
//
// It keeps up to 1024 idle connections, any number of them to one host: a
// crawl without a proxy keeps one or two per host, but through a proxy
// every request for an http URL goes to one host, the proxy, which then
// needs one for each worker. With more than 1024 workers, raise
// MaxIdleConns and MaxIdleConnsPerHost to their number.
//
// Its DialContext is that of a new [DNSCache] with the default settings,
// of its own: a host's name is looked up once per DefaultDNSTTL (a failure
// once per DefaultDNSErrorTTL), not once per connection. To cache DNS
// otherwise, replace DialContext with that of a DNSCache of your own.
// Either way, the addresses dialled for an [HTTPFetcher] are checked
// against its Addresses policy; the DialContext of NewTransport checks the
// other requests against the zero [AddressPolicy].
func NewTransport() *http.Transport {
	return NewTransportWith(&DNSCache{})
}

// NewTransportWith returns the transport of NewTransport dialling through
// dns, with its settings, and counted in its Stats: set the fetcher's DNS
// to dns for HTTPFetcher.DNSStats to report them.
func NewTransportWith(dns *DNSCache) *http.Transport {
	return &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if ctx.Value(dialPolicyKey{}) == nil {
				ctx = context.WithValue(ctx, dialPolicyKey{}, defaultDialPolicy)
			}
			return dns.DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           1024,
		MaxIdleConnsPerHost:    1024, // as many as in all: see above
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  20 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 256 << 10,
	}
}

// DNSCaching is a Fetcher that caches DNS answers, such as [HTTPFetcher].
// The crawler publishes its counts in its Stats (DNSLookups,
// DNSCacheHits), and has it forget a name that was not found before the
// host is tried again.
type DNSCaching interface {
	Fetcher
	// DNSStats returns the counts of the cache; safe to call at any time.
	DNSStats() DNSStats
	// ForgetDNS drops what the cache keeps for host.
	ForgetDNS(host string)
}

var _ DNSCaching = (*HTTPFetcher)(nil)

// DNSStats returns the counts of the fetcher's DNS cache: DNS, or the
// cache of the transport it made for a nil Client; zero counts when it
// has neither. It is safe to call at any time.
func (f *HTTPFetcher) DNSStats() DNSStats {
	f.once.Do(f.init)
	if f.dns == nil {
		return DNSStats{}
	}
	return f.dns.Stats()
}

// ForgetDNS drops what the fetcher's DNS cache (DNS, or the cache of the
// transport made for a nil Client) keeps for host, so that the next
// request to it looks its name up again (see [DNSCache.Forget]); without
// such a cache it does nothing. A crawler retrying a host whose name was
// not found calls it, so that the retry asks the resolver rather than the
// cache's negative answer.
func (f *HTTPFetcher) ForgetDNS(host string) {
	f.once.Do(f.init)
	if f.dns != nil {
		f.dns.Forget(host)
	}
}

func (f *HTTPFetcher) init() {
	var c http.Client
	if f.Client != nil {
		c = *f.Client
	} else {
		f.dns = cmp.Or(f.DNS, &DNSCache{})
		c.Transport = NewTransportWith(f.dns)
	}
	if f.DNS != nil {
		f.dns = f.DNS
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if f.Jar != nil {
		c.Jar = f.Jar // net/http's Client sends and keeps the cookies of each request it sends
	}
	f.direct = &dialPolicy{policy: &f.Addresses}
	f.transport = c.Transport
	if f.transport == nil {
		f.transport = http.DefaultTransport
	}
	if f.Recorder != nil {
		t, ok := f.transport.(*http.Transport)
		if !ok {
			f.initErr = fmt.Errorf("fetch: a Recorder needs the Client's Transport to be an *http.Transport, not %T", f.transport)
		} else {
			f.transport = recordingTransport(t)
		}
	}
	if f.Proxies != nil {
		t, ok := f.transport.(*http.Transport)
		if !ok {
			f.initErr = fmt.Errorf("fetch: Proxies need the Client's Transport to be an *http.Transport, not %T", f.transport)
		} else {
			t = t.Clone()
			t.Proxy = proxyOf
			f.transport = t
		}
		f.Proxies.init(&f.Addresses)
		f.initErr = cmp.Or(f.initErr, f.Proxies.initErr)
	} else if t, ok := f.transport.(*http.Transport); ok && t.Proxy != nil {
		f.proxied = true
	}
	c.Transport = hideBadLocation{f.transport}
	f.client = &c
	f.noCookies = new(http.Client)
	*f.noCookies = c
	f.noCookies.Jar = nil
}

// badLocationKey is the context key of the *[]string in which
// hideBadLocation keeps the Location values of a request's response that
// it took out.
type badLocationKey struct{}

// hideBadLocation wraps a transport so that a redirect whose Location does
// not parse reaches the fetcher as a response: net/http's Client would fail
// it with an error, losing the response, before asking CheckRedirect. The
// header goes to the slot in the request's context, and Fetch puts it back.
type hideBadLocation struct{ http.RoundTripper }

func (t hideBadLocation) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.RoundTripper.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	slot, _ := req.Context().Value(badLocationKey{}).(*[]string)
	if loc := resp.Header.Get("Location"); loc != "" && slot != nil {
		if _, perr := req.URL.Parse(loc); perr != nil {
			*slot = resp.Header.Values("Location")
			resp.Header.Del("Location")
		}
	}
	return resp, nil
}

// CloseIdleConnections closes the idle connections of the wrapped
// transport, if it keeps any.
func (t hideBadLocation) CloseIdleConnections() {
	if c, ok := t.RoundTripper.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// Fetch sends a GET for req.URL and reads the body up to the cap. A URL
// that is not http(s) fails with [ErrUnsupportedScheme], and one whose
// address the Addresses policy refuses with [ErrBlockedAddress], before
// anything is sent.
func (f *HTTPFetcher) Fetch(ctx context.Context, req *Request) (*Response, error) {
	f.once.Do(f.init)
	if f.initErr != nil {
		return nil, &FetchError{Op: "fetch", URL: req.URL, Err: f.initErr}
	}
	var reqBody io.Reader
	if req.Body != nil {
		reqBody = bytes.NewReader(req.Body)
	}
	hreq, err := http.NewRequestWithContext(ctx, cmp.Or(req.Method, http.MethodGet), req.URL, reqBody)
	if err != nil {
		return nil, &FetchError{Op: "fetch", URL: req.URL, Err: err}
	}
	if err := f.Addresses.checkURL(hreq.URL); err != nil {
		return nil, &FetchError{Op: "fetch", URL: req.URL, Err: err}
	}
	var px *proxyState // the pool's proxy of the request; nil if none
	if f.Proxies != nil {
		// Waiting for a proxy back from its bench is not the fetch's
		// time: the Timeout starts after.
		if px, err = f.Proxies.pick(ctx, hostKey(hreq.URL)); err != nil {
			return nil, &FetchError{Op: "fetch", URL: req.URL, Err: err}
		}
	}
	if f.Timeout >= 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cmp.Or(f.Timeout, DefaultTimeout))
		defer cancel()
	}

	dp := f.direct // the pool's proxies are dialled under the policy, as any server
	if f.proxied {
		dp = &dialPolicy{policy: &f.Addresses}
	}
	var badLocation []string // a Location that does not parse, taken out by hideBadLocation
	ctx = context.WithValue(context.WithValue(ctx, dialPolicyKey{}, dp), badLocationKey{}, &badLocation)
	if px != nil {
		ctx = context.WithValue(ctx, proxyKey{}, px)
	}
	hreq = hreq.WithContext(ctx)
	if f.proxied {
		dp.proxy = proxyAddr(f.transport, hreq)
	}
	hreq.Header.Set("User-Agent", cmp.Or(req.UserAgent, DefaultUserAgent))
	hreq.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
	if req.ETag != "" {
		hreq.Header.Set("If-None-Match", req.ETag)
	}
	if req.LastModified != "" {
		hreq.Header.Set("If-Modified-Since", req.LastModified)
	}
	for k, vs := range req.Header {
		hreq.Header.Del(k)
		for _, v := range vs {
			hreq.Header.Add(k, v)
		}
	}

	var rec *recording
	if f.Recorder != nil && req.Body == nil {
		rec = &recording{}
		defer rec.detach()
		hreq = hreq.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: rec.gotConn}))
	}
	start := time.Now()
	client := f.client
	if req.NoCookies {
		client = f.noCookies
	}
	hresp, err := client.Do(hreq)
	if err != nil {
		err = unwrapURLError(err)
		if px != nil {
			err = f.proxyFailed(px, hreq.URL, err)
		}
		return nil, &FetchError{Op: "fetch", URL: req.URL, Err: err}
	}
	defer hresp.Body.Close()
	if len(badLocation) > 0 {
		hresp.Header["Location"] = badLocation
	}
	if px != nil && hresp.StatusCode == http.StatusProxyAuthRequired {
		f.Proxies.report(px, hostKey(hreq.URL), true, false)
		return nil, &FetchError{Op: "fetch", URL: req.URL, Err: &ProxyError{Proxy: px.name, Status: hresp.StatusCode, Err: ErrProxyAuth}}
	}

	limit := cmp.Or(req.MaxBytes, f.MaxBodyBytes, DefaultMaxBodyBytes)
	if limit < 0 {
		limit = math.MaxInt64 - 1 // no cap; readBody needs room for limit+1
	}
	body, truncated, err := readBody(hresp.Body, hresp.ContentLength, limit)
	if err != nil {
		if px != nil {
			err = f.proxyFailed(px, hreq.URL, err)
		}
		return nil, &FetchError{Op: "read body", URL: req.URL, Err: err}
	}
	resp := &Response{
		URL:       req.URL,
		Status:    hresp.StatusCode,
		Header:    hresp.Header,
		Body:      body,
		Truncated: truncated,
	}
	if px != nil {
		banned := f.Proxies.banned(req, resp)
		f.Proxies.report(px, hostKey(hreq.URL), banned, banned)
		if banned {
			return nil, &FetchError{Op: "fetch", URL: req.URL, Err: &ProxyError{Proxy: px.name, Status: resp.Status, Err: ErrProxyBanned}}
		}
	}
	if rec != nil {
		if err := f.record(ctx, rec, req.URL, start, truncated); err != nil {
			return nil, &FetchError{Op: "record", URL: req.URL, Err: err}
		}
	}
	resp.Duration = time.Since(start)
	return resp, nil
}

// proxyFailed tells the pool of err, the failure of a request to u
// through px, and returns it wrapped in a *ProxyError. A cancelled
// fetch, or an address the policy refused, is not the proxy's fault and
// is not counted against it.
func (f *HTTPFetcher) proxyFailed(px *proxyState, u *url.URL, err error) error {
	if !errors.Is(err, ErrBlockedAddress) && !errors.Is(err, context.Canceled) {
		f.Proxies.report(px, hostKey(u), true, false)
	}
	return &ProxyError{Proxy: px.name, Err: err}
}

// record hands what rec recorded of the fetch of url, sent at start, to
// the Recorder.
func (f *HTTPFetcher) record(ctx context.Context, rec *recording, url string, start time.Time, truncated bool) error {
	rec.detach()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.unrecordable {
		return ErrUnrecordable
	}
	x := &Exchange{URL: url, IP: rec.ip, Date: start.UTC(), Request: rec.request, Response: rec.response}
	if truncated {
		x.Truncated = "length"
	}
	return f.Recorder.Record(ctx, x)
}

// CookieJar returns the jar the fetcher keeps its cookies in: Jar, else
// the Client's; nil if none.
func (f *HTTPFetcher) CookieJar() http.CookieJar {
	if f.Jar == nil && f.Client != nil {
		return f.Client.Jar
	}
	return f.Jar
}

// CloseIdleConnections closes the idle keep-alive connections of the
// fetcher's client. Run calls it at its end on a fetcher it made itself.
func (f *HTTPFetcher) CloseIdleConnections() {
	f.once.Do(f.init)
	f.client.CloseIdleConnections()
}

// maxSizeHint bounds the buffer that a response's Content-Length sizes
// before its body arrives, since a server may announce anything.
const maxSizeHint = 1 << 20

// readBody reads at most limit bytes of r and reports whether more were
// there. size is the announced length (-1 if unknown), a hint for the
// first buffer only. The buffer doubles as the body comes but never
// passes limit+1 bytes, so a body costs at most limit+1 bytes once read,
// and 1.5 times that during the last doubling.
func readBody(r io.Reader, size, limit int64) ([]byte, bool, error) {
	first := int64(512)
	if size >= 0 {
		first = min(size+1, maxSizeHint) // +1: room to see the end without growing
	}
	buf := make([]byte, 0, min(first, limit+1))
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return buf[:limit], true, nil
			}
			buf = append(make([]byte, 0, min(2*int64(cap(buf)), limit+1)), buf...)
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF && int64(len(buf)) > limit:
			return buf[:limit], true, nil
		case err == io.EOF:
			return buf, false, nil
		case err != nil:
			return nil, false, err
		}
	}
}

// unwrapURLError drops the *url.Error layer that net/http adds, since
// FetchError already says what and where.
func unwrapURLError(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}
