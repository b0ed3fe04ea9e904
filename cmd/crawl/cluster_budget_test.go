package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"crawler/crawlertest"
)

// A node alone on a crawl whose -max-pages it spends exits by itself, with
// the budget's pages fetched: the budget is the whole crawl's, which the
// node keeps; the crawler's own, the same number, stopped it from asking
// the node for more, so the node never learned the crawl was spent.
func TestClusterNodeSpendsBudget(t *testing.T) {
	t.Parallel()
	s := startNATS(t)
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 18, Hosts: 10, PagesPerHost: 30})
	defer w.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	out, err := clusterNode(ctx, s, w, "n0", filepath.Join(t.TempDir(), "state"), "-max-pages", "40").CombinedOutput()
	if err != nil || ctx.Err() != nil {
		t.Fatalf("the node: %v (%v)\n%s", err, ctx.Err(), out)
	}
	if n := w.TotalRequests(); n != 40 {
		t.Errorf("%d page requests, want the budget's 40\n%s", n, out)
	}
}
