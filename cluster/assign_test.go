package cluster

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// The URLs of the 60 hosts of bench/cluster.sh's web (60 hosts x 100
// pages, seed 7), by host: those ≡ 3 mod 4 have no robots.txt, and their
// /private/ pages make them about half as large again.
var benchHosts = []int{586, 655, 645, 956, 623, 645, 647, 953, 602, 681, 576, 938, 579, 574, 623, 1023, 599, 560, 596, 972,
	655, 561, 596, 955, 649, 649, 631, 915, 606, 638, 553, 849, 648, 626, 745, 967, 676, 677, 608, 952,
	613, 674, 637, 992, 567, 601, 586, 981, 673, 594, 633, 966, 679, 597, 627, 967, 627, 611, 627, 932}

// benchParts returns the partitions of benchHosts' hosts as the hash
// splits them, each held by the node names' rendezvous hashing gives it,
// at 50 ms a request.
func benchParts(names []string) []partWork {
	byP := map[int]*partWork{}
	var ps []int
	for h, k := range benchHosts {
		p := PartitionOf(fmt.Sprintf("h%d.crawler.test", h))
		w := byP[p]
		if w == nil {
			w = &partWork{p: p, holder: Owner(p, names)}
			byP[p] = w
			ps = append(ps, p)
		}
		w.work += float64(k) * 0.05
		w.hosts++
		w.span = w.work / float64(w.hosts)
	}
	parts := make([]partWork, len(ps))
	for i, p := range ps {
		parts[i] = *byP[p]
	}
	return parts
}

// apply returns parts with the moves made.
func apply(parts []partWork, moves map[int]string) []partWork {
	out := make([]partWork, len(parts))
	for i, w := range parts {
		if to, ok := moves[w.p]; ok {
			w.holder = to
		}
		out[i] = w
	}
	return out
}

// On bench's web, the hash leaves the three nodes 14, 20 and 26 hosts
// (9,444, 15,073 and 17,856 URLs): the plan brings the makespan down to
// within a move of the sum of the work over all workers, with each node
// given about a third, and the largest hosts spread.
func TestAssignBenchWeb(t *testing.T) {
	names := []string{"n0", "n1", "n2"}
	nodes := []nodeCap{{"n0", 16, false}, {"n1", 16, false}, {"n2", 16, false}}
	parts := benchParts(names)
	var total, longest float64
	for _, w := range parts {
		total += w.work
		longest = max(longest, w.span)
	}
	const cost = 3
	moves, before, after := assign(nodes, parts, cost)
	ideal := max(total/48, longest)
	t.Logf("makespan %.1f s -> %.1f s (ideal %.1f s), %d partitions moved", before, after, ideal, len(moves))
	if before < 52 {
		t.Fatalf("the hash's makespan is %.1f s: not the skewed split this test is about", before)
	}
	if after > ideal+cost+1 {
		t.Errorf("planned makespan %.1f s, more than a move over the ideal %.1f s", after, ideal)
	}
	if !worthMoving(before, after, cost) {
		t.Errorf("a plan from %.1f s to %.1f s is not worth its moves", before, after)
	}
	// The plan is what it says, and stable: planned again from where it
	// leads, it moves nothing.
	moved := apply(parts, moves)
	again, now, then := assign(nodes, moved, cost)
	if math.Abs(now-after) > 1e-9 && now > after {
		t.Errorf("the plan said %.1f s; its placement ends at %.1f s", after, now)
	}
	if worthMoving(now, then, cost) {
		t.Errorf("planned again, %d more moves (%.1f s -> %.1f s)", len(again), now, then)
	}
	// The largest hosts go where there is a worker for each, rather than
	// wait for their turns among more hosts than workers.
	hosts := map[string]int{}
	big := map[string]bool{}
	for _, w := range moved {
		hosts[w.holder] += w.hosts
		if w.span > 40 {
			big[w.holder] = true
		}
	}
	for _, nd := range nodes {
		if big[nd.name] && hosts[nd.name] > nd.workers {
			t.Errorf("node %s holds one of the largest hosts, and %d hosts for %d workers", nd.name, hosts[nd.name], nd.workers)
		}
	}
}

func TestAssign(t *testing.T) {
	two := []nodeCap{{"a", 4, false}, {"b", 4, false}}
	for _, tc := range []struct {
		name  string
		nodes []nodeCap
		parts []partWork
		moves int     // how many move
		after float64 // the makespan planned
	}{{
		name:  "balanced: nothing moves",
		nodes: two,
		parts: []partWork{{p: 1, holder: "a", work: 40, span: 40}, {p: 2, holder: "b", work: 40, span: 40}},
		after: 40,
	}, {
		// One worker each: the longest stays, the next is better off alone.
		name:  "two long ones on one node",
		nodes: []nodeCap{{"a", 1, false}, {"b", 1, false}},
		parts: []partWork{{p: 1, holder: "a", work: 40, span: 40}, {p: 2, holder: "a", work: 30, span: 30}, {p: 3, holder: "b", work: 1, span: 1}},
		moves: 1, after: 40,
	}, {
		// a's 4 hosts share its 2 workers, 50 s: b, idle, takes half.
		name:  "workers bound a node; an idle one takes half",
		nodes: []nodeCap{{"a", 2, false}, {"b", 2, false}},
		parts: []partWork{{p: 1, holder: "a", work: 25, span: 25}, {p: 2, holder: "a", work: 25, span: 25}, {p: 3, holder: "a", work: 25, span: 25}, {p: 4, holder: "a", work: 25, span: 25}},
		moves: 2, after: 28, // 25 s each, after a move's 3
	}, {
		// One host is the whole of the time: moving it gains nothing.
		name:  "one huge host cannot be sped up",
		nodes: two,
		parts: []partWork{{p: 1, holder: "a", work: 100, span: 100}, {p: 2, holder: "a", work: 2, span: 2}},
		after: 100,
	}, {
		// Too little to gain for a move's cost (3 s).
		name:  "within a move",
		nodes: []nodeCap{{"a", 1, false}, {"b", 1, false}},
		parts: []partWork{{p: 1, holder: "a", work: 4, span: 4}, {p: 2, holder: "a", work: 2, span: 2}},
		after: 6,
	}, {
		// The fixed partition is on its way to b, and counts there.
		name:  "in transit counts where it goes",
		nodes: two,
		parts: []partWork{{p: 1, holder: "b", fixed: true, work: 40, span: 40}, {p: 2, holder: "a", work: 30, span: 30}, {p: 3, holder: "a", work: 30, span: 30}},
		after: 40,
	}, {
		name:  "a holder that is gone: its partitions stay",
		nodes: two,
		parts: []partWork{{p: 1, holder: "c", work: 40, span: 40}, {p: 2, holder: "a", work: 10, span: 10}},
		after: 10,
	}, {
		// Many hosts in one partition: its span is a host's, its work
		// theirs together, and a node of 2 workers halves its work with a
		// node of 2 more.
		name:  "many hosts a partition",
		nodes: []nodeCap{{"a", 2, false}, {"b", 2, false}},
		parts: []partWork{{p: 1, holder: "a", work: 60, span: 3, hosts: 20}, {p: 2, holder: "a", work: 60, span: 3, hosts: 20}},
		moves: 1, after: 30,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			moves, before, after := assign(tc.nodes, tc.parts, 3)
			if !worthMoving(before, after, 3) {
				moves, after = nil, before
			}
			if len(moves) != tc.moves || math.Abs(after-tc.after) > 0.01 {
				t.Errorf("moves %v, makespan %.1f -> %.1f; want %d moves, %.1f", moves, before, after, tc.moves, tc.after)
			}
			for p, to := range moves {
				if i := slices.IndexFunc(tc.parts, func(w partWork) bool { return w.p == p }); i < 0 || tc.parts[i].fixed || tc.parts[i].holder == to {
					t.Errorf("partition %d moved to %s: it was not to move, or was there", p, to)
				}
			}
		})
	}
}

// A Backlog's work is its entries that will take a request (its Share of
// them, all if 0) at its pace (or the one given, if it has none), and its
// span that of one of its hosts.
func TestBacklogWork(t *testing.T) {
	for _, tc := range []struct {
		b          Backlog
		pace       float64
		work, span float64
	}{
		{Backlog{Waiting: 100, Hosts: 1, Pace: 0.05}, 1, 5, 5},
		{Backlog{Waiting: 100, Hosts: 4, Pace: 0.05}, 1, 5, 1.25},
		{Backlog{Waiting: 100}, 0.02, 2, 2},
		{Backlog{Waiting: 100, Hosts: 2, Pace: 0.05, Share: 0.6}, 1, 3, 1.5},
	} {
		work, span := tc.b.work(tc.pace)
		if math.Abs(work-tc.work) > 1e-9 || math.Abs(span-tc.span) > 1e-9 {
			t.Errorf("%+v at %v: work %v span %v, want %v %v", tc.b, tc.pace, work, span, tc.work, tc.span)
		}
	}
	if got := meanPace([]Backlog{{Pace: 0.1}, {}, {Pace: 0.3}}); math.Abs(got-0.2) > 1e-9 {
		t.Errorf("meanPace = %v, want 0.2", got)
	}
	if got := meanPace(nil); got != 1 {
		t.Errorf("meanPace(nil) = %v, want 1", got)
	}
}

// A node counts the entries waiting of each partition, and the hosts
// that have some, as entries come and go.
func TestWaitCounts(t *testing.T) {
	n := &Node{hostWait: map[string]int{}}
	a, b := "a.example", "b.example"
	for _, host := range []string{a, a, b} {
		n.wait(host, 1)
	}
	n.wait(a, -1)
	pa, pb := PartitionOf(a), PartitionOf(b)
	if pa == pb {
		t.Fatalf("%s and %s share partition %d", a, b, pa)
	}
	if n.waiting[pa].Load() != 1 || n.hostsIn[pa].Load() != 1 || n.waiting[pb].Load() != 1 || n.hostsIn[pb].Load() != 1 {
		t.Errorf("waiting %d, %d; hosts %d, %d: want 1 each", n.waiting[pa].Load(), n.waiting[pb].Load(), n.hostsIn[pa].Load(), n.hostsIn[pb].Load())
	}
	n.wait(a, -1)
	n.wait(b, -1)
	if n.waiting[pa].Load() != 0 || n.hostsIn[pa].Load() != 0 || n.hostsIn[pb].Load() != 0 || len(n.hostWait) != 0 {
		t.Errorf("all taken: waiting %d, hosts %d and %d, %d hosts kept", n.waiting[pa].Load(), n.hostsIn[pa].Load(), n.hostsIn[pb].Load(), len(n.hostWait))
	}
}

// Nodes whose frontiers serve the hosts with the most work left first end
// when their work over their workers is done, or their longest host is:
// 60 equal hosts split 14/20/26 among three nodes of 16 workers are
// planned 20 a node, the 6 moved starting a move late. A long host among
// many small ones bounds its node alone: 60 s, where the hosts' turns
// (each at 16/31 of its pace until the small ones end) give 69.4 s.
func TestAssignLongestFirst(t *testing.T) {
	nodes := []nodeCap{{"n0", 16, true}, {"n1", 16, true}, {"n2", 16, true}}
	var parts []partWork
	for i := range 60 {
		holder := "n1"
		switch {
		case i < 14:
			holder = "n0"
		case i >= 34:
			holder = "n2"
		}
		parts = append(parts, partWork{p: i, holder: holder, work: 51, span: 51, hosts: 1})
	}
	moves, before, after := assign(nodes, parts, 3)
	if math.Abs(before-26*51.0/16) > 0.01 || math.Abs(after-20*51.0/16) > 0.01 || len(moves) != 6 {
		t.Errorf("makespan %.2f -> %.2f s in %d moves; want %.2f -> %.2f in 6", before, after, len(moves), 26*51.0/16, 20*51.0/16)
	}
	for p, to := range moves {
		if parts[p].holder != "n2" || to != "n0" {
			t.Errorf("partition %d moved from %s to %s; want n2's to n0", p, parts[p].holder, to)
		}
	}
	if !worthMoving(before, after, 3) {
		t.Errorf("a plan from %.1f to %.1f s is not worth its moves", before, after)
	}
	// One long host: it bounds its node whatever its turns; nothing gains.
	one := []partWork{{p: 1, holder: "n0", work: 60, span: 60, hosts: 1}, {p: 2, holder: "n0", work: 300, span: 10, hosts: 30}}
	if moves, before, after := assign(nodes[:2], one, 3); before != 60 || worthMoving(before, after, 3) {
		t.Errorf("one long host: moves %v, %.1f -> %.1f s; want 60 s, nothing worth moving", moves, before, after)
	}
}

// pack chooses which node takes which share among nodes alike, to keep the
// most work in place, but a share packed beside a node's fixed partition
// stays with that node: here b holds a partition moving to it (50 s), so
// a takes b's 40 s partition and its own 10 s one (50 s), where giving b
// the share packed for a, since its 40 s were b's already, ended at 100 s.
func TestPackKeepsFixedLoad(t *testing.T) {
	nodes := []nodeCap{{"a", 1, false}, {"b", 1, false}}
	index := map[string]int{"a": 0, "b": 1}
	parts := []partWork{
		{p: 1, holder: "b", fixed: true, work: 50, span: 50, hosts: 1},
		{p: 2, holder: "b", work: 40, span: 40, hosts: 1},
		{p: 3, holder: "a", work: 10, span: 10, hosts: 1},
	}
	moves, makespan := pack(nodes, index, parts, 3)
	if makespan != 50 || moves[2] != "a" || len(moves) != 1 {
		t.Errorf("pack: moves %v, makespan %.1f; want partition 2 to a, 50 s", moves, makespan)
	}
}
