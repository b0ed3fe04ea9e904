package store_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"crawler/cookies"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/store"
)

// A crawl resumed from its store keeps its cookies: a new process (a new
// fetcher and jar) needs no redirect for the cookie the first one got.
func TestResumeKeepsCookies(t *testing.T) {
	t.Parallel()
	s := crawlertest.NewSessionSite(crawlertest.SessionConfig{Pages: 6})
	t.Cleanup(s.Close)
	fs := vfs.NewMem()
	crawl := func(st *store.Store, maxPages int64, seeds ...string) (redirects int64, jar *cookies.Jar) {
		c := loopbackCrawler()
		jar = &cookies.Jar{}
		c.Fetcher.(*fetch.HTTPFetcher).Jar = jar
		c.Workers, c.MaxPages = 1, maxPages
		c.Seen, c.Frontier = st.Seen(), st.Frontier()
		if err := c.Run(context.Background(), seeds...); err != nil {
			t.Fatal(err)
		}
		return c.Stats().Redirects, jar
	}
	st := restart(t, fs, nil)
	if redirects, jar := crawl(st, 3, s.URL()+"/cookie/1"); redirects != 1 || jar.Len() != 1 {
		t.Fatalf("first run: %d redirects, %d cookies; want 1 and 1", redirects, jar.Len())
	}
	st = restart(t, fs, st)
	redirects, jar := crawl(st, 0)
	if redirects != 0 || jar.Len() != 1 {
		t.Errorf("resumed run: %d redirects, %d cookies; want 0 (the cookie kept) and 1", redirects, jar.Len())
	}
	st = restart(t, fs, st) // nothing left: the kept jar still loads
	if _, jar := crawl(st, 0, s.URL()+"/"); jar.Len() == 0 {
		t.Error("a third run has no cookies")
	}
}

// cookies.Jar.Restore against the store: kept with the commits in which
// the jar changed only, back in a new jar; damaged state is an error, and
// a kept cookie the jar refuses is left out, with ErrRefused.
func TestJarRestore(t *testing.T) {
	t.Parallel()
	fs := vfs.NewMem()
	st := restart(t, fs, nil)
	u, _ := url.Parse("http://example.com/")
	first := &cookies.Jar{}
	if err := first.Restore(st.Frontier()); err != nil {
		t.Fatal(err)
	}
	first.SetCookies(u, []*http.Cookie{{Name: "session", Value: "abc"}})
	if err := st.Frontier().Commit(); err != nil {
		t.Fatal(err)
	}
	st = restart(t, fs, st)
	second := &cookies.Jar{}
	if err := second.Restore(st.Frontier()); err != nil {
		t.Fatal(err)
	}
	if got := second.Cookies(u); len(got) != 1 || got[0].Value != "abc" {
		t.Errorf("restored cookies %v; want session=abc", got)
	}

	for _, tc := range []struct {
		kept    string
		refused bool
	}{
		{"{", false},
		{`[{"Name":"x","Value":"1","Domain":"co.uk","Path":"/"}]`, true},
	} {
		st.Frontier().Keep("crawler/cookies", func() []byte { return []byte(tc.kept) })
		st = restart(t, fs, st) // a store writes what it keeps as it closes
		err := (&cookies.Jar{}).Restore(st.Frontier())
		if err == nil || errors.Is(err, cookies.ErrRefused) != tc.refused {
			t.Errorf("Restore of %s = %v; want an error, ErrRefused: %v", tc.kept, err, tc.refused)
		}
	}
}
