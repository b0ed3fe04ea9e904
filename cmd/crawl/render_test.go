package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"crawler/crawlertest"
	"crawler/internal/browsertest"
)

// crawlScriptSite crawls site with the flags given, allowed its address
// only, and returns the -out records by URL.
func crawlScriptSite(t *testing.T, site *crawlertest.ScriptSite, flags ...string) map[string]record {
	t.Helper()
	out := filepath.Join(t.TempDir(), "pages.jsonl")
	args := append([]string{"-allow", site.Addr(), "-delay", "20ms", "-out", out,
		"-extract", "product=.product .name"}, flags...)
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), append(args, site.Seed()), &stdout, &stderr); err != nil {
		t.Fatalf("run %q: %v\n%s", flags, err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	records := map[string]record{}
	for line := range strings.Lines(string(data)) {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		records[r.URL] = r
	}
	return records
}

// The acceptance test of rendering: on a site whose links and content
// script makes, a crawl without -render reaches only the static pages; with
// it, every page, with the script-made products extracted, and without a
// request to a robots.txt-disallowed path or to an address the crawl does
// not allow (another port of 127.0.0.1).
func TestRenderScriptSite(t *testing.T) {
	if testing.Short() {
		t.Skip("two crawls, one through a browser: about 7 s")
	}
	t.Parallel()
	browsertest.Need(t)
	site := crawlertest.NewScriptSite(crawlertest.ScriptConfig{Pages: 2})
	defer site.Close()

	static := crawlScriptSite(t, site)
	for _, u := range site.StaticPages() {
		if static[u].Status != 200 {
			t.Errorf("without -render: %s not fetched", u)
		}
	}
	for _, u := range site.ScriptOnlyPages() {
		if _, ok := static[u]; ok {
			t.Errorf("without -render, the script-only page %s was reached", u)
		}
	}

	rendered := crawlScriptSite(t, site, "-render", "-render-tabs", "2", "-per-host", "2")
	products := site.Products()
	for _, u := range append(site.StaticPages(), site.ScriptOnlyPages()...) {
		r, ok := rendered[u]
		if !ok || r.Status != 200 {
			t.Errorf("with -render: %s not reached (%+v)", u, r)
			continue
		}
		if want := products[u]; !slices.Equal(r.Extract["product"], want) && len(want) > 0 {
			t.Errorf("%s: products %q, want %q", u, r.Extract["product"], want)
		}
	}
	for _, p := range site.Forbidden() {
		if n := site.Requests(p); n != 0 {
			t.Errorf("the disallowed %s was requested %d times", p, n)
		}
	}
	for _, p := range []string{"/js/private/1", "/js/private/2"} {
		if n := site.Requests(p); n != 0 {
			t.Errorf("%s, linked only by disallowed resources, was requested %d times", p, n)
		}
	}
	if n := site.CanaryRequests(); n != 0 {
		t.Errorf("the address the crawl does not allow got %d requests", n)
	}
}

// With -render, the crawl's delay holds between every two requests to a
// host, the browser's included: the page's own request, then each of its
// scripts' requests, then the host's next page, by the site's clock.
func TestRenderPacesHost(t *testing.T) {
	if testing.Short() {
		t.Skip("a browser crawl paced at 500 ms a request: about 10 s")
	}
	t.Parallel()
	browsertest.Need(t)
	site := crawlertest.NewScriptSite(crawlertest.ScriptConfig{Pages: 1})
	defer site.Close()
	const delay = 500 * time.Millisecond // more than a tab takes to open and ask
	rendered := crawlScriptSite(t, site, "-render", "-render-tabs", "1", "-delay", delay.String(), "-delay-factor", "-1")
	for _, u := range site.ScriptOnlyPages() {
		if _, ok := rendered[u]; !ok {
			t.Errorf("%s not reached", u)
		}
	}
	arrivals := site.Arrivals()
	// robots.txt, the pages, and the browser's: /api/links.json and a fetch
	// page's JSON at least.
	if len(arrivals) < 1+len(rendered)+2 {
		t.Fatalf("%d requests for %d pages: the browser's requests are missing", len(arrivals), len(rendered))
	}
	for i := 1; i < len(arrivals); i++ {
		// The crawler counts its delay from the end of a request, the
		// browser's spacing from its start: both are at least the delay
		// where they send. The site sees arrivals, which a loaded machine
		// can bring closer by the time one request took longer on its way
		// than the next: so 100ms of slack, where requests unpaced would
		// come a few milliseconds apart.
		if gap := arrivals[i].Sub(arrivals[i-1]); gap < delay-100*time.Millisecond {
			t.Errorf("requests %d and %d came %v apart, under the delay of %v", i-1, i, gap, delay)
		}
	}
}
