package status_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"crawler/fetch"
	"crawler/internal/proxytest"
	"crawler/politeness"
	"crawler/status"
)

// A crawl through a pool of proxies: /status.json gives each proxy's
// counts, the banning one benched, and the page has the proxy table; a
// crawl without a pool gives none.
func TestProxyTable(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<a href="/a">a</a><a href="/b">b</a>`)
	}))
	defer site.Close()
	healthy := proxytest.NewHTTP(t, site.Listener.Addr().String(), proxytest.Healthy, false)
	banning := proxytest.NewHTTP(t, site.Listener.Addr().String(), proxytest.Ban, false)
	pool := &fetch.ProxyPool{Proxies: []*url.URL{banning.URL, healthy.URL}, Rotate: fetch.RoundRobin, MaxFailures: 1, Bench: time.Hour}
	c := loopbackCrawler()
	c.Fetcher.(*fetch.HTTPFetcher).Proxies = pool
	c.Robots = &politeness.RobotsCache{ErrorTTL: time.Millisecond} // robots.txt banned: asked again at once
	m := status.New(c, status.Options{Proxies: pool})
	c.Handler = m.Wrap(nil)
	if err := c.Run(context.Background(), "http://site.test/"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m.Handler(status.ServerOptions{}))
	defer srv.Close()
	_, body := get(t, srv, "GET", "/status.json", nil, "")
	var s struct {
		Proxies []status.ProxyRow `json:"proxies"`
	}
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Proxies) != 2 || s.Proxies[0].Proxy != banning.URL.String() || s.Proxies[0].Bans != 1 || s.Proxies[0].BenchedUntil == nil ||
		s.Proxies[1].Requests != 4 || s.Proxies[1].BenchedUntil != nil {
		t.Errorf("proxies %+v, want the banning one benched after 1 ban, the healthy one with robots.txt and 3 pages", s.Proxies)
	}
	if _, page := get(t, srv, "GET", "/", nil, ""); !strings.Contains(page, `id="proxies-section"`) {
		t.Error("the page has no proxy table")
	}

	c = loopbackCrawler()
	m = status.New(c, status.Options{})
	srv2 := httptest.NewServer(m.Handler(status.ServerOptions{}))
	defer srv2.Close()
	if _, body := get(t, srv2, "GET", "/status.json", nil, ""); !strings.Contains(body, `"proxies":[]`) {
		t.Errorf("without proxies: %.300s, want \"proxies\":[]", body)
	}
}
