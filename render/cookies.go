package render

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"crawler/fetch"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"
)

// pageRequest returns the request of the page itself, req with the
// headers of Headers and the cookies of Jar for its URL added (req's
// Header winning name by name), and the cookies it is sent. Without
// Headers and Jar it is req.
func (f *Fetcher) pageRequest(req *fetch.Request) (*fetch.Request, []*http.Cookie) {
	if f.Headers == nil && f.Jar == nil {
		return req, nil
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		return req, nil // Fetcher says what is wrong with it
	}
	out := *req
	var sent []*http.Cookie
	out.Header, sent = f.header(u, req.Header)
	return &out, sent
}

// header returns the extra headers of a request for u: those of Headers,
// then over them those of over, name by name, and Jar's cookies for u
// after any Cookie header these gave. It returns the cookies of Jar too.
func (f *Fetcher) header(u *url.URL, over http.Header) (http.Header, []*http.Cookie) {
	var h http.Header
	if f.Headers != nil {
		h = f.Headers(u).Clone()
	}
	if h == nil {
		h = make(http.Header)
	}
	for k, vs := range over {
		h.Del(k)
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	var sent []*http.Cookie
	if f.Jar != nil {
		sent = f.Jar.Cookies(u)
		r := &http.Request{Header: h}
		for _, c := range sent {
			r.AddCookie(c) // one Cookie header, after any given
		}
	}
	if len(h) == 0 {
		return nil, sent
	}
	return h, sent
}

// keepCookies gives Jar the cookies that resp, the response for rawURL,
// sets.
func (f *Fetcher) keepCookies(rawURL string, resp *fetch.Response) {
	if f.Jar == nil || len(resp.Header.Values("Set-Cookie")) == 0 {
		return
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return
	}
	if cs := (&http.Response{Header: resp.Header}).Cookies(); len(cs) > 0 {
		f.Jar.SetCookies(u, cs)
	}
}

// cookieKey names a cookie of the browser: two with the same key are one.
type cookieKey struct{ domain, path, name string }

// browserCookie is what the page's last look at the browser's store saw
// of a cookie.
type browserCookie struct {
	value   string
	expires float64
}

// seedCookies gives the browser's store the cookies of the response
// resp for u, before the browser gets resp (without its Set-Cookie), so
// that the page's scripts find them there, and then looks at the store.
// If the request was for a document, sent are the cookies of Jar it was
// sent, which the store gets first, for document.cookie: as cookies of
// u's host, path "/", readable by script, since Jar says no more of them.
// The cookies resp sets go to the store with their attributes; one that
// expires deletes the store's.
func (p *page) seedCookies(ctx context.Context, u string, sent []*http.Cookie, resp *fetch.Response) {
	set := (&http.Response{Header: resp.Header}).Cookies()
	if len(sent) == 0 && len(set) == 0 {
		return
	}
	params := make([]*network.CookieParam, 0, len(sent)+len(set))
	for _, c := range sent {
		params = append(params, &network.CookieParam{Name: c.Name, Value: c.Value, URL: u, Path: "/"})
	}
	for _, c := range set {
		params = append(params, setCookieParam(u, c, time.Now()))
	}
	p.cookieMu.Lock()
	defer p.cookieMu.Unlock()
	_, err := chromedp.CallBrowser(ctx, storage.SetCookies, storage.SetCookiesParams{Cookies: params, BrowserContextID: p.browserContext})
	if err != nil && ctx.Err() == nil {
		// One the browser refuses (a name it takes for invalid, say)
		// fails them all: give them one by one.
		for _, cp := range params {
			_, err := chromedp.CallBrowser(ctx, storage.SetCookies, storage.SetCookiesParams{Cookies: []*network.CookieParam{cp}, BrowserContextID: p.browserContext})
			if err != nil && ctx.Err() == nil {
				p.f.log.Debug("cookie refused by the browser", "page", p.req.URL, "url", u, "name", cp.Name, "err", err)
			}
		}
	}
	p.syncLocked(ctx) // Jar's, or Jar has them: seen, not given back
}

// setCookieParam returns c, a cookie that the response for u sets, as
// the browser's store takes it at now.
func setCookieParam(u string, c *http.Cookie, now time.Time) *network.CookieParam {
	cp := &network.CookieParam{
		Name:     c.Name,
		Value:    c.Value,
		URL:      u, // the default domain (host-only) and path
		Domain:   c.Domain,
		Path:     c.Path,
		Secure:   c.Secure,
		HTTPOnly: c.HttpOnly,
	}
	for _, m := range sameSites {
		if m.http == c.SameSite {
			cp.SameSite = m.browser
		}
	}
	expires := c.Expires
	switch {
	case c.MaxAge < 0:
		expires = time.Unix(1, 0) // expired: deletes the store's
	case c.MaxAge > 0:
		expires = now.Add(time.Duration(c.MaxAge) * time.Second)
	}
	if !expires.IsZero() {
		cp.Expires = cdp.TimeSinceEpoch(float64(expires.UnixNano()) / 1e9)
	}
	return cp
}

// syncCookies gives Jar what changed in the browser's store since the
// last look: a cookie new, or with a value or expiry of its own, is set
// in Jar with the browser's attributes, unless new and already in Jar
// (the browser got it from Jar, or from a response whose cookies Jar
// has); a cookie gone is deleted from Jar.
func (p *page) syncCookies(ctx context.Context) {
	p.cookieMu.Lock()
	defer p.cookieMu.Unlock()
	p.syncLocked(ctx)
}

func (p *page) syncLocked(ctx context.Context) {
	res, err := chromedp.CallBrowser(ctx, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: p.browserContext})
	if err != nil {
		if ctx.Err() == nil {
			p.f.log.Warn("browser's cookies not read", "page", p.req.URL, "err", err)
		}
		return
	}
	now := make(map[cookieKey]browserCookie, len(res.Cookies))
	for _, c := range res.Cookies {
		if c.PartitionKey != nil {
			continue // a frame's cookie partitioned by its top site: Jar has no partitions
		}
		k := cookieKey{c.Domain, c.Path, c.Name}
		bc := browserCookie{c.Value, c.Expires}
		now[k] = bc
		old, seen := p.cookies[k]
		switch {
		case seen && old == bc:
		case !seen && p.jarHas(c):
		default:
			u, hc := jarCookie(c)
			p.f.Jar.SetCookies(u, []*http.Cookie{hc})
			p.f.log.Debug("cookie from the browser", "page", p.req.URL, "url", u, "name", c.Name)
		}
	}
	for k := range p.cookies {
		if _, ok := now[k]; ok {
			continue
		}
		u, hc := jarCookie(&network.Cookie{Name: k.name, Domain: k.domain, Path: k.path})
		hc.MaxAge = -1
		p.f.Jar.SetCookies(u, []*http.Cookie{hc})
		p.f.log.Debug("cookie deleted by the browser", "page", p.req.URL, "url", u, "name", k.name)
	}
	p.cookies = now
}

// jarHas reports whether Jar sends c, a cookie of the browser, with the
// same value to c's own URL.
func (p *page) jarHas(c *network.Cookie) bool {
	u, _ := jarCookie(c)
	return slices.ContainsFunc(p.f.Jar.Cookies(u), func(j *http.Cookie) bool {
		return j.Name == c.Name && j.Value == c.Value
	})
}

// jarCookie returns c, a cookie of the browser, as Jar takes it, and the
// URL to set it for: its domain and path, https if it is Secure.
func jarCookie(c *network.Cookie) (*url.URL, *http.Cookie) {
	host := strings.TrimPrefix(c.Domain, ".")
	if strings.Contains(host, ":") && !strings.HasPrefix(host, "[") {
		host = "[" + host + "]" // an IPv6 address
	}
	scheme := "http"
	if c.Secure {
		scheme = "https"
	}
	hc := &http.Cookie{
		Name:     c.Name,
		Value:    c.Value,
		Path:     c.Path,
		Secure:   c.Secure,
		HttpOnly: c.HTTPOnly,
	}
	if strings.HasPrefix(c.Domain, ".") {
		hc.Domain = host // a domain cookie; without a dot the browser's is host-only
	}
	if !c.Session && c.Expires > 0 && !math.IsInf(c.Expires, 0) {
		sec, frac := math.Modf(c.Expires)
		hc.Expires = time.Unix(int64(sec), int64(frac*1e9))
	}
	for _, m := range sameSites {
		if m.browser == c.SameSite {
			hc.SameSite = m.http
		}
	}
	return &url.URL{Scheme: scheme, Host: host, Path: c.Path}, hc
}

// cookiesDiffer reports whether the Cookie header the browser gave a
// request, from its own store, is not what Jar sends the request (sent):
// the page's scripts may have changed the store since the last look.
func cookiesDiffer(h network.Headers, sent []*http.Cookie) bool {
	var browser []string
	for k, v := range h {
		if s, ok := v.(string); ok && strings.EqualFold(k, "Cookie") {
			for pair := range strings.SplitSeq(s, ";") {
				if pair = strings.TrimSpace(pair); pair != "" {
					browser = append(browser, pair)
				}
			}
		}
	}
	jar := make([]string, 0, len(sent))
	for _, c := range sent {
		jar = append(jar, c.Name+"="+c.Value)
	}
	slices.Sort(browser)
	slices.Sort(jar)
	return !slices.Equal(browser, jar)
}

// sameSites pairs the SameSite modes of net/http and of the browser; a
// mode in neither column (http.SameSiteDefaultMode, or none) is left
// unset on the other side.
var sameSites = [...]struct {
	http    http.SameSite
	browser network.CookieSameSite
}{
	{http.SameSiteStrictMode, network.CookieSameSiteStrict},
	{http.SameSiteLaxMode, network.CookieSameSiteLax},
	{http.SameSiteNoneMode, network.CookieSameSiteNone},
}
