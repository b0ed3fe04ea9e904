package cluster

import (
	"strconv"
	"testing"
	"time"

	"crawler/frontier"
	"crawler/seen"
)

// A batch of queued entries (a partition handed over) that NATS delivers
// again, because the node took longer than the ack wait to receive it,
// is queued once: its entries skip the URL-seen test, and would otherwise
// be fetched twice.
func TestQueuedDeliveredAgain(t *testing.T) {
	t.Parallel()
	nc := startConn(t)

	local := &frontier.FIFO{}
	// The ack wait, and node a's lease, which must not lapse on a loaded
	// machine while the test waits (a node stops using its partitions
	// 2/5 of a lease before its heartbeat expires).
	const lease = 3 * time.Second
	n, err := Join(t.Context(), Config{Conn: nc, Node: "a", Lease: lease, Seen: seen.NewExact(0)}, local)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()

	e := entry("http://h1.crawler.test/p/1", "http://h0.crawler.test/", 1, 0, 0)
	p := PartitionOf(e.Host)
	if _, err := n.js.Publish(t.Context(), n.subject+strconv.Itoa(p), appendLink(nil, e, true)); err != nil {
		t.Fatal(err)
	}
	// Not received for longer than the ack wait: NATS delivers it again.
	deadline := time.Now().Add(10 * lease)
	for {
		n.mu.Lock()
		k := len(n.incoming)
		n.mu.Unlock()
		if k >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries of the batch after %v", k, 10*lease)
		}
		time.Sleep(10 * time.Millisecond)
	}
	n.Receive()
	if got := local.Len(); got != 1 {
		t.Errorf("%d entries queued from one batch delivered twice, want 1", got)
	}
	if err := n.Flush(); err != nil {
		t.Fatal(err)
	}
}
