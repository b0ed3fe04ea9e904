package crawlertest_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"crawler/crawlertest"
)

func TestLogFields(t *testing.T) {
	cfg := behaving(3, map[int]crawlertest.Behavior{1: {RobotsRedirects: 2}, 2: {ThrottleEvery: 1, RetryAfter: "1"}})
	cfg.Log = true
	w := newWeb(t, cfg)
	c := w.Client()
	do := func(method, u, ua string) {
		t.Helper()
		req, err := http.NewRequest(method, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("User-Agent", ua)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, u, err)
		}
		resp.Body.Close()
	}
	before := time.Now()
	do("GET", "http://h0.crawler.test/", "bot/1")
	do("GET", "http://h1.crawler.test/robots.txt", "bot/2") // follows 2 hops
	do("GET", "HTTP://H0.Crawler.Test:80/x/../p/%35", "bot/3")
	do("HEAD", "http://h2.crawler.test/p/1", "bot/4")
	do("GET", "http://h9.crawler.test/p/1", "bot/5")
	do("GET", "http://h0.crawler.test/nope?a=b", "bot/6")
	after := time.Now()
	want := []crawlertest.LoggedRequest{
		{Host: "h0.crawler.test", Target: "/", URL: "http://h0.crawler.test/", Status: 200, UserAgent: "bot/1"},
		{Host: "h1.crawler.test", Target: "/robots.txt", URL: "http://h1.crawler.test/robots.txt", Robots: true, Status: 301, UserAgent: "bot/2"},
		{Host: "h1.crawler.test", Target: "/robots-hop/1", URL: "http://h1.crawler.test/robots-hop/1", Robots: true, Status: 302, UserAgent: "bot/2"},
		{Host: "h1.crawler.test", Target: "/robots-hop/2", URL: "http://h1.crawler.test/robots-hop/2", Robots: true, Status: 200, UserAgent: "bot/2"},
		{Host: "h0.crawler.test", Target: "/x/../p/%35", URL: "http://h0.crawler.test/p/5", Status: 200, UserAgent: "bot/3"},
		{Host: "h2.crawler.test", Target: "/p/1", URL: "http://h2.crawler.test/p/1", Status: 429, UserAgent: "bot/4"},
		{Host: "", Target: "/p/1", URL: "", Status: 404, UserAgent: "bot/5"},
		{Host: "h0.crawler.test", Target: "/nope?a=b", URL: "http://h0.crawler.test/nope?a=b", Status: 404, UserAgent: "bot/6"},
	}
	log := w.Log()
	if len(log) != len(want) {
		t.Fatalf("Log has %d entries, want %d: %+v", len(log), len(want), log)
	}
	for i, l := range log {
		if l.Start.Before(before) || l.End.After(after) || l.End.Before(l.Start) {
			t.Errorf("entry %d: Start %v End %v, outside the requests' %v..%v", i, l.Start, l.End, before, after)
		}
		if i > 0 && l.Start.Before(log[i-1].End) {
			t.Errorf("entry %d started before entry %d (sequential) ended", i, i-1)
		}
		l.Start, l.End = time.Time{}, time.Time{}
		if l != want[i] {
			t.Errorf("entry %d: %+v\nwant %+v", i, l, want[i])
		}
	}
	// Log returns a copy.
	log[0].Status = 999
	if w.Log()[0].Status != 200 {
		t.Error("Log shares its slice")
	}
	w.ResetCounts()
	if l := w.Log(); l == nil || len(l) != 0 {
		t.Errorf("Log after ResetCounts: %v", l)
	}
}

func TestLogProxyTarget(t *testing.T) {
	w := newWeb(t, crawlertest.Config{Log: true})
	tr := &http.Transport{Proxy: http.ProxyURL(w.ProxyURL())}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("http://h1.crawler.test/p/%33?q=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if l := w.Log(); len(l) != 1 || l[0].Target != "/p/%33?q=1" || l[0].URL != "http://h1.crawler.test/p/3?q=1" || l[0].Host != "h1.crawler.test" {
		t.Errorf("Log = %+v", l)
	}
}

func TestLogCutShort(t *testing.T) {
	arrived := make(chan struct{})
	var once sync.Once
	w := crawlertest.NewWeb(crawlertest.Config{Log: true, HostLatency: func(string) time.Duration {
		once.Do(func() { close(arrived) })
		return time.Hour
	}})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://h2.crawler.test/p/4", nil)
		_, err := w.Client().Do(req)
		errc <- err
	}()
	<-arrived
	cancel()
	if err := <-errc; err == nil {
		t.Error("cancelled request succeeded")
	}
	w.Close() // waits for the handler, which logs
	l := w.Log()
	if len(l) != 1 || l[0].Status != 0 || l[0].URL != "http://h2.crawler.test/p/4" || l[0].End.Before(l[0].Start) {
		t.Errorf("Log = %+v, want one entry with Status 0", l)
	}
}

func TestLogSlowDownAndRobotsLatency(t *testing.T) {
	const step, robotsLat = 10 * time.Millisecond, 25 * time.Millisecond
	cfg := behaving(2, map[int]crawlertest.Behavior{1: {SlowDown: step, RobotsLatency: robotsLat, RobotsRedirects: 1}})
	cfg.Log = true
	w := newWeb(t, cfg)
	c := w.Client()
	const n = 5
	for k := range n {
		get(t, c, hostURL(1, "/robots.txt")) // two robots requests, not counted as pages
		get(t, c, hostURL(1, fmt.Sprintf("/p/%d", k)))
		get(t, c, hostURL(0, fmt.Sprintf("/p/%d", k))) // another host: no slow down
	}
	k := 0
	for _, l := range w.Log() {
		d := l.End.Sub(l.Start)
		switch {
		case l.Host != "h1.crawler.test":
		case l.Robots:
			if d < robotsLat {
				t.Errorf("%s took %v, want >= %v", l.Target, d, robotsLat)
			}
		default:
			if d < time.Duration(k)*step {
				t.Errorf("page request %d (%s) took %v, want >= %v", k, l.Target, d, time.Duration(k)*step)
			}
			k++
		}
	}
	if k != n {
		t.Errorf("%d page requests of h1 logged, want %d", k, n)
	}
}

func TestLogConcurrent(t *testing.T) {
	cfg := small
	cfg.Log = true
	w := newWeb(t, cfg)
	var urls []string
	for h := range cfg.Hosts {
		for p := range cfg.PagesPerHost {
			urls = append(urls, w.URL(h, p))
		}
	}
	c := w.Client()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < len(urls); i += 4 {
				resp, err := c.Get(urls[i])
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	log := w.Log()
	var got []string
	for i, l := range log {
		if i > 0 && l.Start.Before(log[i-1].Start) {
			t.Errorf("entry %d starts before entry %d", i, i-1)
		}
		got = append(got, l.URL)
	}
	slices.Sort(got)
	slices.Sort(urls)
	if !slices.Equal(got, urls) {
		t.Errorf("Log has %d URLs, want the %d requested", len(got), len(urls))
	}
}
