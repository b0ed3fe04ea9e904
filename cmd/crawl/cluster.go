package main

import (
	"context"
	"fmt"
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
