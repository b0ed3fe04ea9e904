package crawler_test

import (
	"bytes"
	"context"
	"math"
	"sync"
	"testing"

	"crawler"
	"crawler/canon"
	"crawler/crawlertest"
	"crawler/fetch"
	"crawler/frontier"
	"crawler/graph"
	"crawler/internal/links"
)

// graphHandler writes each HTML page fetched with a 2xx, with its links,
// and each redirect to a link graph, as crawl -graph does.
func graphHandler(t *testing.T, w *graph.Writer) crawler.Handler {
	var mu sync.Mutex
	return crawler.HandlerFunc(func(_ context.Context, p *crawler.Page) error {
		var err error
		switch {
		case p.Err == nil && p.Redirect != "":
			err = w.Redirect(p.URL, p.Redirect)
		case p.Err == nil && p.Status/100 == 2 && links.IsHTML(p.ContentType, p.Body):
			err = w.Page(p.URL, p.Links)
		}
		if err != nil {
			mu.Lock()
			t.Error(err)
			mu.Unlock()
		}
		return err
	})
}

// The PageRank of the link graph of a complete crawl, computed offline,
// ranks the pages as their true PageRank does (Spearman ≥ 0.99; it is the
// same graph and formula, so the values agree too), and far better than
// AOPIC's on-line estimate at the end of the same crawl.
//
//	go test -run TestLinkGraphPageRank -v .
func TestLinkGraphPageRank(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 11, Hosts: 30, PagesPerHost: 40, OutDegree: 8, MaxChain: 3, Popularity: 1})
	defer w.Close()
	var file bytes.Buffer
	gw := graph.NewWriter(&file)
	aopic := new(frontier.AOPIC)
	c := &crawler.Crawler{Handler: graphHandler(t, gw), Frontier: aopic, Fetcher: &fetch.HTTPFetcher{Client: w.Client()},
		Pacing: noPacing, Workers: 8}
	if err := c.Run(context.Background(), w.Seeds()...); err != nil {
		t.Fatal(err)
	}
	if err := gw.Close(); err != nil {
		t.Fatal(err)
	}
	if missed, extra := w.Coverage(); missed > 0 || extra > 0 {
		t.Fatalf("crawl incomplete: %d missed, %d fetched more than once", missed, extra)
	}
	g, err := graph.Read(&file)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := graph.PageRank(g, graph.PageRankOptions{})
	if err != nil {
		t.Fatal(err)
	}

	truth := w.PageRank()
	var want, got, online []float64
	var maxErr float64
	for u, r := range truth {
		k, ok := g.Lookup(u)
		if !ok {
			t.Errorf("good page %s is no node of the graph", u)
			continue
		}
		imp, _ := aopic.Importance(canon.Fingerprint(u))
		want, got, online = append(want, r), append(got, pr.Ranks[k]), append(online, imp)
		maxErr = max(maxErr, math.Abs(r-pr.Ranks[k]))
	}
	rho, rhoAOPIC := graph.Spearman(want, got), graph.Spearman(want, online)
	t.Logf("%d good pages, graph of %d nodes and %d edges; PageRank from the graph: Spearman %.4f with the truth, max error %.2g, %d iterations; AOPIC's estimate: Spearman %.4f",
		len(truth), g.Len(), g.Edges(), rho, maxErr, pr.Iterations, rhoAOPIC)
	if g.Len() != len(truth) {
		t.Errorf("graph of %d nodes, want the %d good pages", g.Len(), len(truth))
	}
	if rho < 0.99 || maxErr > 1e-6 {
		t.Errorf("Spearman %.4f, max error %.2g: want ≥ 0.99 and the same values", rho, maxErr)
	}
	if rhoAOPIC >= rho {
		t.Errorf("AOPIC's on-line estimate (Spearman %.4f) ranks as well as PageRank from the graph (%.4f)", rhoAOPIC, rho)
	}
}
