package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go"

	"crawler"
	"crawler/cluster"
	"crawler/status"
	"crawler/store"
)

// joinCluster makes the crawl of cr a node of the crawl o.crawlName on the
// NATS server at o.cluster, with st as the node's own state: the node
// becomes the crawler's frontier, and -max-pages the whole crawl's budget.
// leave, called after the Run, leaves the crawl, its final counts
// published, and prints the crawl's totals: those of every node process,
// as each last reported (a node that left, at its exit).
func joinCluster(ctx context.Context, o *options, cr *crawl, st *store.Store) (leave func() error, err error) {
	nc, err := nats.Connect(o.cluster, nats.Name("crawl "+o.node), nats.Timeout(5*time.Second),
		nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond))
	if err != nil {
		return nil, fmt.Errorf("-cluster %s: cannot reach the NATS server: %w", o.cluster, err)
	}
	c := cr.c
	node, err := cluster.Join(ctx, cluster.Config{
		Conn:     nc,
		Crawl:    o.crawlName,
		Node:     o.node,
		MaxPages: o.maxPages,
		Workers:  cmp.Or(c.Workers, crawler.DefaultWorkers),
		Seen:     c.Seen,
		Status:   func() any { return status.StatsOf(c.Stats()) }, // the names of /status.json and -json

		Logger: c.Logger,
	}, c.Frontier)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("-cluster %s: %w", o.cluster, err)
	}
	c.Frontier = node
	return func() error {
		err := node.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		reports, rerr := node.Reports(ctx)
		nc.Close()
		if err != nil {
			return fmt.Errorf("-cluster %s: %w", o.cluster, err)
		}
		if rerr != nil {
			return fmt.Errorf("-cluster %s: the crawl's totals: %w", o.cluster, rerr)
		}
		t := totalsOf(reports)
		fmt.Fprintf(cr.con, "crawl: cluster crawl %s: %d page requests, %d links forwarded in %d batches by %d node processes (%d live), as they last reported\n",
			o.crawlName, t.Requests, t.Links, t.Batches, len(reports), t.Live)
		return nil
	}, nil
}

// totals are the sums of a crawl's reports.
type totals struct {
	Live     int   // reports of live nodes
	Requests int64 // page requests
	Links    int64 // links forwarded
	Batches  int64 // batches of links sent
}

// totalsOf adds up reports, the last report of each process of a crawl.
func totalsOf(reports []cluster.Status) totals {
	var t totals
	for _, r := range reports {
		if r.Live {
			t.Live++
		}
		t.Requests += r.Requests
		t.Links += r.Links
		t.Batches += r.Sent
	}
	return t
}

// printCluster writes, as JSON to w, the last report of each process of
// each node of the crawl o.crawlName on the NATS server at o.cluster, live
// or gone, and their totals, without joining the crawl.
func printCluster(ctx context.Context, o *options, w io.Writer) error {
	nc, err := nats.Connect(o.cluster, nats.Name("crawl -stats"), nats.Timeout(5*time.Second))
	if err != nil {
		return fmt.Errorf("-cluster %s: cannot reach the NATS server: %w", o.cluster, err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	reports, err := cluster.Reports(ctx, nc, o.crawlName)
	if err != nil {
		return fmt.Errorf("-cluster %s: %w", o.cluster, err)
	}
	t := totalsOf(reports)
	out := struct {
		Crawl    string           `json:"crawl"`
		Live     int              `json:"live_nodes"`
		Requests int64            `json:"requests"` // page requests of every node process, live or gone
		Links    int64            `json:"links_forwarded"`
		Batches  int64            `json:"batches_sent"`
		Nodes    []cluster.Status `json:"nodes"` // the last report of each process, by node and time
	}{Crawl: o.crawlName, Live: t.Live, Requests: t.Requests, Links: t.Links, Batches: t.Batches, Nodes: reports}
	if out.Nodes == nil {
		out.Nodes = []cluster.Status{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
