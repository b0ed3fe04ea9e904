package cluster

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"crawler/store"
)

// A node that runs dry is given work at once, not once the last plan's
// moves have settled. Node a, real, leads two nodes that only publish
// heartbeats: b, with twelve partitions of work, and c, which takes no
// partitions at first (Drains false). The first plan moves half of b's
// work to a. Then b finds more work, and c can take partitions and is
// idle. At this lease the leader would plan again 15 s after its first
// plan; with newlyDry it moves partitions to c within a check or two.
func TestStealForDry(t *testing.T) {
	t.Parallel()
	nc := startConn(t)
	st, err := store.Open(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const lease = 10 * time.Second // a tick of 2 s; plans settle for 15 s
	names := []string{"a", "b", "c"}
	var ofB []int // partitions the hashing gives b
	for p := range Partitions {
		if Owner(p, names) == "b" {
			ofB = append(ofB, p)
		}
	}
	backlogs := func(ps []int) []Backlog {
		var bs []Backlog
		for _, p := range ps {
			bs = append(bs, Backlog{Partition: p, Waiting: 400, Hosts: 10, Pace: 0.05})
		}
		return bs
	}
	// The statuses of b and c, as heartbeats renewed every 200 ms until
	// the test ends; cDry makes c idle.
	cDry := make(chan struct{})
	put := func(name string, drains bool, bs []Backlog) {
		b, err := json.Marshal(Status{Node: name, Boot: name, Time: time.Now(), Idle: len(bs) == 0, Workers: 4, Drains: drains, Backlogs: bs})
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
				put("b", true, backlogs(ofB[:20]))
			} else {
				put("b", true, backlogs(ofB[:12]))
			}
			put("c", dry, nil)
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
	movedTo := func(node string) (int, time.Time) {
		k := 0
		e, err := n.state.Get(t.Context(), movesKey)
		if err != nil {
			return 0, time.Time{}
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
		return k, e.Created()
	}
	deadline := time.Now().Add(lease)
	for k, _ := movedTo("a"); k == 0; k, _ = movedTo("a") {
		if time.Now().After(deadline) {
			t.Fatal("no plan moved b's work to a")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if k, _ := movedTo("c"); k > 0 {
		t.Fatalf("the first plan moved %d partitions to c, which had work", k)
	}
	close(cDry)
	dried := time.Now()
	for k, _ := movedTo("c"); k == 0; k, _ = movedTo("c") {
		if time.Since(dried) > lease {
			t.Fatal("c ran dry and got no work")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Half the settling time of a plan (15 s at this lease) would have
	// passed without newlyDry; a check (250 ms) and a heartbeat (200 ms)
	// with it, and a loaded machine's delays.
	if d := time.Since(dried); d > 5*time.Second {
		t.Errorf("c ran dry and got work %v later", d.Round(time.Millisecond))
	}
}
