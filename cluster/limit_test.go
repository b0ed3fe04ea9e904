package cluster

import (
	"fmt"
	"testing"
	"time"

	"crawler/frontier"
)

// A node gives LimitHosts to its local frontier: a host limited to 3 has
// 3 entries out at once, the others the store's PerHost, 1.
func TestLimitHosts(t *testing.T) {
	t.Parallel()
	n := activeNode(t)
	n.LimitHosts(func(host string) int {
		if host == "wide.test" {
			return 3
		}
		return 0
	})
	for i := range 10 {
		host := []string{"wide.test", "other.test"}[i%2]
		n.Push(frontier.Entry{URL: fmt.Sprintf("http://%s/%d", host, i), FP: uint64(i + 1), Host: host})
	}
	out := map[string]int{}
	for e, ok, _ := n.Next(time.Now()); ok; e, ok, _ = n.Next(time.Now()) {
		out[e.Host]++
	}
	if out["wide.test"] != 3 || out["other.test"] != 1 {
		t.Errorf("out at once %v, want wide.test 3, other.test 1", out)
	}
}

var _ frontier.Waker = (*Node)(nil)

// A node gives Wake to its local frontier: a host waiting an hour is
// handed out once woken.
func TestWake(t *testing.T) {
	t.Parallel()
	n := activeNode(t)
	for i := range 2 {
		n.Push(frontier.Entry{URL: fmt.Sprintf("http://slow.test/%d", i), FP: uint64(i + 1), Host: "slow.test"})
	}
	now := time.Now()
	e, ok, _ := n.Next(now)
	if !ok {
		t.Fatal("Next handed out nothing")
	}
	n.Done(e, frontier.Result{Next: now.Add(time.Hour)})
	if e, ok, _ := n.Next(now); ok {
		t.Fatalf("Next handed out %s, of a host waiting an hour", e.URL)
	}
	n.Wake("slow.test", now)
	if _, ok, _ := n.Next(now); !ok {
		t.Fatal("Next after Wake handed out nothing")
	}
}

// activeNode returns a node alone in its cluster, on a store, once it
// holds every partition.
func activeNode(t *testing.T) *Node {
	t.Helper()
	nc := startConn(t)
	st := openStore(t)
	n, err := Join(t.Context(), Config{Conn: nc, Node: "a"}, st.Frontier())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	// The node takes the partitions' (empty) handovers in the background;
	// a partition is active once Receive has seen its handover.
	allActive := func() bool {
		for p := range n.roles {
			if n.roles[p].Load() != active {
				return false
			}
		}
		return true
	}
	deadline := time.After(time.Minute)
	for n.Receive(); !allActive(); n.Receive() {
		select {
		case <-n.Ready(): // a batch, or a tick
		case <-deadline:
			t.Fatal("not every partition active after a minute")
		}
	}
	return n
}
