package graph_test

import (
	"bytes"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"crawler/canon"
	"crawler/crawlertest"
	"crawler/graph"
)

// bfs crawls w from its seeds breadth-first, without the crawler package,
// and records what it fetches with gw: every HTML page answering 200 with
// its followed links (rel=nofollow skipped), and every redirect. It asks
// the web, rather than robots.txt, which URLs robots.txt disallows. It
// returns the number of requests and the records written.
func bfs(t *testing.T, w *crawlertest.Web, gw *graph.Writer) (requests int, records []page) {
	t.Helper()
	client := w.Client()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	var cz canon.Canonicalizer
	seen := make(map[string]bool)
	var queue []string
	push := func(u string) {
		if !seen[u] {
			seen[u] = true
			queue = append(queue, u)
		}
	}
	for _, s := range w.Seeds() {
		u, err := cz.Canonical(s)
		if err != nil {
			t.Fatal(err)
		}
		push(u)
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if w.RobotsDisallows(u) {
			continue
		}
		base, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		requests++
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		switch {
		case resp.StatusCode >= 300 && resp.StatusCode < 400:
			to, err := cz.Resolve(base, resp.Header.Get("Location"))
			if err != nil {
				continue
			}
			if err := gw.Redirect(u, to); err != nil {
				t.Fatal(err)
			}
			records = append(records, page{url: u, links: []string{to}, redirect: true})
			push(to)
		case resp.StatusCode == http.StatusOK && ct == "text/html":
			links := hrefs(cz, base, body)
			if err := gw.Page(u, links); err != nil {
				t.Fatal(err)
			}
			records = append(records, page{url: u, links: links})
			for _, l := range links {
				push(l)
			}
		}
	}
	return requests, records
}

// linkBytes returns the links in records (each once per record) and the
// bytes per link of writing them, as a file and again once their URLs are
// all named (a revisit of every page: the cost of links alone).
func linkBytes(t *testing.T, records []page) (links int, file, revisit float64) {
	var out bytes.Buffer
	w := graph.NewWriter(&out)
	for pass := range 2 {
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		start := out.Len()
		links = 0
		for _, p := range records {
			var err error
			if p.redirect {
				err = w.Redirect(p.url, p.links[0])
			} else {
				err = w.Page(p.url, p.links)
			}
			if err != nil {
				t.Fatal(err)
			}
			links += len(slices.Compact(slices.Sorted(slices.Values(p.links))))
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if pass == 0 {
			file = float64(out.Len()) / float64(links)
		} else {
			revisit = float64(out.Len()-start) / float64(links)
		}
	}
	return links, file, revisit
}

// hrefs returns the canonical URLs of the followed links of an HTML page:
// the hrefs of its <a> elements without rel=nofollow.
func hrefs(cz canon.Canonicalizer, base *url.URL, body []byte) []string {
	var out []string
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			if tok.Data != "a" {
				continue
			}
			href, follow := "", true
			for _, a := range tok.Attr {
				switch a.Key {
				case "href":
					href = a.Val
				case "rel":
					follow = !slices.Contains(strings.Fields(strings.ToLower(a.Val)), "nofollow")
				}
			}
			if !follow || href == "" {
				continue
			}
			if u, err := cz.Resolve(base, href); err == nil {
				out = append(out, u)
			}
		}
	}
}

// TestCrawlerTestPageRank crawls synthetic webs, writes their link graphs,
// reads them back and checks their PageRank against crawlertest's ground
// truth.
func TestCrawlerTestPageRank(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  crawlertest.Config
	}{
		{"uniform", crawlertest.Config{Seed: 1, Hosts: 6, PagesPerHost: 30}},
		{"popular", crawlertest.Config{Seed: 2, Hosts: 8, PagesPerHost: 40, Popularity: 1,
			// A failing host: its pages answer 503, are not pages and
			// drop the links to them.
			Behavior: func(h int) crawlertest.Behavior {
				if h == 5 {
					return crawlertest.Behavior{PageStatus: http.StatusServiceUnavailable}
				}
				return crawlertest.Behavior{}
			}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := crawlertest.NewWeb(tc.cfg)
			defer w.Close()
			var file bytes.Buffer
			gw := graph.NewWriter(&file)
			requests, records := bfs(t, w, gw)
			if err := gw.Close(); err != nil {
				t.Fatal(err)
			}
			size := file.Len()
			g, err := graph.Read(&file)
			if err != nil {
				t.Fatal(err)
			}

			var pages []string
			for k := range g.Len() {
				pages = append(pages, g.URL(k))
			}
			slices.Sort(pages)
			if want := w.GoodPages(); !slices.Equal(pages, want) {
				t.Fatalf("%d nodes, crawlertest has %d good pages", len(pages), len(want))
			}

			res, err := graph.PageRank(g, graph.PageRankOptions{})
			if err != nil {
				t.Fatal(err)
			}
			truth := w.PageRank()
			got, want := make([]float64, g.Len()), make([]float64, g.Len())
			maxErr := 0.0
			for k := range g.Len() {
				got[k], want[k] = res.Ranks[k], truth[g.URL(k)]
				maxErr = max(maxErr, math.Abs(got[k]-want[k]))
			}
			rho := graph.Spearman(got, want)
			links, perLink, perLinkRevisit := linkBytes(t, records)
			t.Logf("%d requests; %d records of %d links in %d bytes: %.2f bytes per link, %.2f without names; %d pages, %d edges",
				requests, len(records), links, size, perLink, perLinkRevisit, g.Len(), g.Edges())
			t.Logf("PageRank in %d iterations: Spearman %.6f, max |error| %.2g (max rank %.3g)",
				res.Iterations, rho, maxErr, slices.Max(want))
			if rho < 0.99 {
				t.Errorf("Spearman %v < 0.99", rho)
			}
			// The graphs are the same, so only the tolerances differ.
			if maxErr > 1e-8 {
				t.Errorf("max |error| %v > 1e-8", maxErr)
			}
		})
	}
}
