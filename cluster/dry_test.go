package cluster

import (
	"encoding/json"
	"sync"
	"testing"
	"time"
)

// A node that runs dry has partitions moved to it at once, not once the
// last plan's moves have settled. Node a, real, leads two nodes that only
// publish heartbeats: b, with twelve partitions of work, and c, with six
// (as much as each node should end with). The first plan moves half of
// b's work to a. Then b finds more work, and c, its own done, reports
// itself idle. At this lease the leader plans once a tick (6 s), and
// would plan again only 45 s after its first plan, which Join makes; with
// stealForDry it moves partitions to c within a check or two, well
// before its next tick.
func TestStealForDry(t *testing.T) {
	if testing.Short() {
		t.Skip("a Join at a lease of 30 s: about 7 s")
	}
	t.Parallel()
	nc := startConn(t)
	st := openStore(t)
	const lease = 30 * time.Second // a tick of 6 s
	tick := lease / 5
	names := []string{"a", "b", "c"}
	var ofB, ofC []int // partitions the hashing gives b and c
	for p := range Partitions {
		switch Owner(p, names) {
		case "b":
			ofB = append(ofB, p)
		case "c":
			ofC = append(ofC, p)
		}
	}
	backlogs := func(ps []int) []Backlog {
		var bs []Backlog
		for _, p := range ps {
			bs = append(bs, Backlog{Partition: p, Waiting: 2000, Hosts: 10, Pace: 0.05})
		}
		return bs
	}
	// The statuses of b and c, as heartbeats renewed every 200 ms until
	// the test ends; cDry makes c idle. They are published to the members
	// bucket's subjects: the bucket is made by Join, which must see b and
	// c before it takes partitions.
	cDry := make(chan struct{})
	put := func(name string, bs []Backlog) {
		b, err := json.Marshal(Status{Node: name, Boot: name, Time: time.Now(), Idle: len(bs) == 0, Workers: 4, Drains: true, Backlogs: bs})
		if err != nil {
			t.Error(err)
			return
		}
		if err := nc.Publish("$KV.crawl_crawl_members."+name, b); err != nil {
			t.Error(err)
		}
	}
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait) // before nc closes
	wg.Go(func() {
		dry, dried := false, cDry
		for {
			if dry {
				put("b", backlogs(ofB[:20]))
				put("c", nil)
			} else {
				put("b", backlogs(ofB[:12]))
				put("c", backlogs(ofC[:6]))
			}
			select {
			case <-t.Context().Done():
				return
			case <-dried:
				dry, dried = true, nil
			case <-time.After(200 * time.Millisecond):
			}
		}
	})
	n, err := Join(t.Context(), Config{Conn: nc, Node: "a", Lease: lease, Workers: 4}, st.Frontier())
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	// A real NATS server cannot run in a synctest bubble: the test polls.
	movedTo := func(node string) int {
		k := 0
		e, err := n.state.Get(t.Context(), movesKey)
		if err != nil {
			return 0
		}
		moves := map[int]string{}
		if err := json.Unmarshal(e.Value(), &moves); err != nil {
			t.Fatal(err)
		}
		for _, to := range moves {
			if to == node {
				k++
			}
		}
		return k
	}
	deadline := time.Now().Add(tick)
	for movedTo("a") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no plan moved b's work to a")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if k := movedTo("c"); k > 0 {
		t.Fatalf("the first plan moved %d partitions to c, which had work", k)
	}
	close(cDry)
	dried := time.Now()
	for movedTo("c") == 0 {
		if time.Since(dried) > 2*tick {
			t.Fatal("c ran dry and got no work")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Without stealForDry, the leader's next tick (after Join's plan, at
	// most a tick away); with it, a check (250 ms) and a heartbeat (200
	// ms), and a loaded machine's delays.
	if d := time.Since(dried); d > tick/2 {
		t.Errorf("c ran dry and got work %v later", d.Round(time.Millisecond))
	}
}
