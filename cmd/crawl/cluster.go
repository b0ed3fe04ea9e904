package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go"

	"crawler/cluster"
	"crawler/store"
)

// joinCluster makes the crawl of cr a node of the crawl o.crawlName on the
// NATS server at o.cluster, with st as the node's own state: the node
// becomes the crawler's frontier, and -max-pages the whole crawl's budget.
// leave, called after the Run, leaves the crawl and prints its totals.
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
		Seen:     c.Seen,
		Status:   func() any { return c.Stats() },
		Logger:   c.Logger,
	}, c.Frontier)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("-cluster %s: %w", o.cluster, err)
	}
	c.Frontier = node
	return func() error {
		members, merr := node.Members(context.Background())
		err := node.Close()
		nc.Close()
		if merr == nil {
			var requests, links, batches int64
			for _, m := range members {
				requests += m.Requests
				links += m.Links
				batches += m.Sent
			}
			fmt.Fprintf(cr.con, "crawl: cluster crawl %s: %d live nodes, %d page requests, %d links forwarded in %d batches, as they last reported\n",
				o.crawlName, len(members), requests, links, batches)
		}
		return err
	}, nil
}

// printCluster writes, as JSON to w, the live nodes of the crawl
// o.crawlName on the NATS server at o.cluster, as they last reported, and
// their totals, without joining the crawl.
func printCluster(ctx context.Context, o *options, w io.Writer) error {
	nc, err := nats.Connect(o.cluster, nats.Name("crawl -stats"), nats.Timeout(5*time.Second))
	if err != nil {
		return fmt.Errorf("-cluster %s: cannot reach the NATS server: %w", o.cluster, err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	members, err := cluster.Members(ctx, nc, o.crawlName)
	if err != nil {
		return fmt.Errorf("-cluster %s: %w", o.cluster, err)
	}
	out := struct {
		Crawl    string           `json:"crawl"`
		Live     int              `json:"live_nodes"`
		Requests int64            `json:"requests"` // page requests of the live nodes' processes
		Links    int64            `json:"links_forwarded"`
		Nodes    []cluster.Status `json:"nodes"`
	}{Crawl: o.crawlName, Live: len(members), Nodes: members}
	for _, m := range members {
		out.Requests += m.Requests
		out.Links += m.Links
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
