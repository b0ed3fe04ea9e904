package crawler

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"crawler/canon"
	"crawler/fetch"
	"crawler/frontier"
	"crawler/internal/links"
)

// FuzzReadResponse reads a fuzzed HTML page, with a known link planted
// first, as a response of pages at several URLs. It checks that every
// resolved link (and the canonical link) is an absolute, canonical
// http(s) URL with a host, no fragment and at most canon.MaxLength bytes,
// each once, and that the planted link resolves first.
func FuzzReadResponse(f *testing.F) {
	f.Add([]byte(`<a href="/a" rel="nofollow"><base href="x"><meta name=robots content=none>`), "/p")
	f.Add([]byte(`<a href='`), "")
	f.Add([]byte(`<area href=/x><link rel=canonical href=/c>`), "http://other.example/y#f")
	f.Add([]byte(`<base href="//h/"><a href=a><a href=./a><a href=mailto:x>`), "javascript:void(0)")
	f.Add([]byte(`<a href="HTTP://EXAMPLE.com:80/%7e/">`), "?q&amp;r")
	// The page URLs the links are resolved against, by readResponse as in
	// a crawl.
	pages := []string{"http://example.com/a/b?q", "https://[::1]:8443/x/", "http://127.0.0.1/"}
	r := new(Crawler).newRun(nil)
	f.Fuzz(func(t *testing.T, body []byte, href string) {
		if len(body) > 64<<10 || len(href) > 4<<10 {
			return
		}
		doc := append([]byte(`<a href="`+html.EscapeString(href)+`">x</a>`), body...)
		ex := links.Extract(doc, false, "crawler", DefaultMaxLinksPerPage)
		// The tokenizer turns CR and CR LF into LF and NUL into U+FFFD.
		planted := !strings.ContainsAny(href, "\r\x00")

		for _, page := range pages {
			u, err := url.Parse(page)
			if err != nil {
				t.Fatal(err)
			}
			p := &Page{URL: page}
			resp := &fetch.Response{URL: page, Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: doc}
			o := outcome{entry: frontier.Entry{URL: page}}
			if r.readResponse(t.Context(), p, u, &o, resp); !o.html {
				t.Fatal("readResponse did not read the page as HTML")
			}
			if len(p.Links) > len(ex.Hrefs) {
				t.Fatalf("%d links from %d hrefs", len(p.Links), len(ex.Hrefs))
			}
			seen := map[string]bool{}
			for _, l := range p.Links {
				checkLink(t, l)
				if seen[l] {
					t.Fatalf("link %q listed twice", l)
				}
				seen[l] = true
			}
			if p.Canonical != "" {
				checkLink(t, p.Canonical)
			}
			if want, err := r.canon.Resolve(u, href); planted && ex.Base == "" && err == nil {
				if len(p.Links) == 0 || p.Links[0] != want {
					t.Fatalf("planted link %q resolves against %s to %q, but the links are %q", href, page, want, p.Links)
				}
			}
		}
	})
}

// checkLink fails t unless l is an absolute, canonical http(s) URL with a
// host, no fragment and at most canon.MaxLength bytes.
func checkLink(t *testing.T, l string) {
	t.Helper()
	if len(l) > canon.MaxLength {
		t.Fatalf("link of %d bytes, over canon.MaxLength", len(l))
	}
	pu, err := url.Parse(l)
	if err != nil || pu.Scheme != "http" && pu.Scheme != "https" || pu.Host == "" || pu.Fragment != "" || strings.Contains(l, "#") {
		t.Fatalf("link %q is not an absolute http(s) URL without fragment (%v)", l, err)
	}
	if c, err := (*canon.Canonicalizer)(nil).Canonical(l); err != nil || c != l {
		t.Fatalf("link %q is not canonical: %q, %v", l, c, err)
	}
	if canon.Host(l) != pu.Host {
		t.Fatalf("link %q: canon.Host %q, net/url %q", l, canon.Host(l), pu.Host)
	}
}
