package cluster

import (
	"cmp"
	"math"
	"slices"
)

// Work-aware assignment of partitions to nodes. Hashing spreads many hosts
// evenly, but not a few dozen of very different sizes; and with one
// request in flight per host, a node whose hosts outnumber its workers
// serves them in turn, so that its largest hosts end long after the
// crawl could have. So the live node with the least name (the leader)
// plans, every tick, where each partition should be, from what the
// nodes publish with their heartbeats (see Node.rebalance), and records
// the partitions to move in the crawl's moves; their holders hand them
// over as to a node that joined.

// partWork is a partition's work left, as its holder last published it.
type partWork struct {
	p      int
	holder string  // the node that holds it, or that it is moving to
	fixed  bool    // moving: it stays with holder, where it is going
	work   float64 // seconds of fetching left: entries waiting × pace
	span   float64 // seconds each of its hosts needs alone, one request at a time, taking them as even
	hosts  int     // hosts with work (at least 1)
}

// nodeCap is a live node that can take partitions, how many fetches it
// runs at once, and whether its frontier hands out first the hosts with
// the most work left (see Status.Longest).
type nodeCap struct {
	name    string
	workers int
	longest bool
}

// nodeLoad is what a node is given in a plan: its partitions' hosts.
type nodeLoad struct {
	work   float64     // the sum of its partitions' work
	groups []hostGroup // its partitions' hosts, a group of even ones each
}

// hostGroup is the hosts of partition p, which each need span seconds
// alone, and start late seconds late (a partition that moves).
type hostGroup struct {
	p     int
	span  float64
	late  float64
	hosts int
}

// with returns l with w added, moved (its hosts start cost seconds late)
// or not. The groups of l are not shared with the result, which keeps
// them in order of span.
func (l nodeLoad) with(w partWork, cost float64) nodeLoad {
	g := hostGroup{w.p, w.span, cost, max(w.hosts, 1)}
	i, _ := slices.BinarySearchFunc(l.groups, g.span, func(g hostGroup, span float64) int { return cmp.Compare(g.span, span) })
	gs := make([]hostGroup, 0, len(l.groups)+1)
	gs = append(append(append(gs, l.groups[:i]...), g), l.groups[i:]...)
	return nodeLoad{work: l.work + w.work, groups: gs}
}

// finish estimates when node c, which runs c.workers fetches at once,
// ends its load, each host one request at a time. A node whose frontier
// serves the hosts with the most work left first ends as lptFinish says;
// one whose frontier serves its ready hosts in turn (breadth first) ends
// later: while it has more hosts than workers each host goes at
// workers/hosts of its pace, and once it has fewer, each at its own pace
// and some workers idle. That is processor
// sharing: the hosts end in the order of their spans, the last at the
// returned time, which is at least the work over the workers and the
// longest span. (A node with the largest hosts and more hosts than
// workers ends well after both: the hosts' turns slow the largest down
// until the others are done.) A host that starts late ends no sooner
// than its span after that; the workers meanwhile serve the others.
// Cost: O(g) for g groups.
func (l nodeLoad) finish(c nodeCap) float64 {
	workers := c.workers
	if c.longest {
		return l.lptFinish(workers)
	}
	gs := l.groups // in order of span (see with)
	left := 0
	for _, g := range gs {
		left += g.hosts
	}
	var t, done float64 // time, and the span every host left has had
	for _, g := range gs {
		rate := min(1, float64(max(workers, 1))/float64(left))
		t += (g.span - done) / rate
		done = max(done, g.span)
		left -= g.hosts
	}
	for _, g := range gs {
		t = max(t, g.late+g.span)
	}
	return t
}

// lptFinish estimates when a node whose frontier serves first the hosts
// with the most work left (longest remaining processing time first) ends
// its load: no sooner than its work over its workers, nor than any host's
// span after its late start; and, hosts being served longest first, no
// later than the greater of those (the largest hosts never wait for a
// worker while smaller ones take them).
func (l nodeLoad) lptFinish(workers int) float64 {
	t := l.work / float64(max(workers, 1))
	for _, g := range l.groups {
		t = max(t, g.late+g.span)
	}
	return t
}

// makespan returns the latest finish of loads.
func makespan(nodes []nodeCap, loads []nodeLoad) float64 {
	var m float64
	for i, l := range loads {
		m = max(m, l.finish(nodes[i]))
	}
	return m
}

// without returns l without the hosts of partition p. The groups of l
// are not shared with the result.
func (l nodeLoad) without(p int, work float64) nodeLoad {
	gs := make([]hostGroup, 0, len(l.groups))
	for _, g := range l.groups {
		if g.p != p {
			gs = append(gs, g)
		}
	}
	return nodeLoad{work: l.work - work, groups: gs}
}

// assign plans where the partitions parts should be held among nodes,
// starting from where they are: while the node that would end last (see
// nodeLoad.finish) can end sooner by giving one of its partitions to
// another node that then ends sooner than it did, it gives the one that
// brings the two lowest, where a partition that moves costs its hosts
// moveCost seconds without fetching (the handover). So the longest work
// is spread first, each move is one that shortens the crawl, and a
// partition moves at most once a plan. Partitions fixed (moving already)
// stay with their holders; parts held by a node not among nodes count
// for none and stay. It returns the partitions that move, each with its
// new node, and the makespan (the latest finish, seconds) before and
// after. Its cost is O(M·P·N·g) for M moves, P parts, N nodes and
// g partitions a node.
func assign(nodes []nodeCap, parts []partWork, moveCost float64) (moves map[int]string, before, after float64) {
	index := make(map[string]int, len(nodes))
	for i, nd := range nodes {
		index[nd.name] = i
	}
	plan := make([]nodeLoad, len(nodes))
	on := make([][]int, len(nodes)) // the indexes in parts of each node's movable partitions
	for k, w := range parts {
		i, ok := index[w.holder]
		if !ok {
			continue
		}
		plan[i] = plan[i].with(w, 0)
		if !w.fixed {
			on[i] = append(on[i], k)
		}
	}
	before = makespan(nodes, plan)
	moves = map[int]string{}
	if !worthMoving(before, 0, moveCost) { // not even ending at once would pay for a move: no plan to make
		return moves, before, before
	}
	for range parts {
		last, end := 0, -1.0
		for i, l := range plan {
			if f := l.finish(nodes[i]); f > end {
				last, end = i, f
			}
		}
		best, bestTo, bestEnd := -1, -1, end
		var bestFrom, bestInto nodeLoad
		for _, k := range on[last] {
			w := parts[k]
			from := plan[last].without(w.p, w.work)
			fa := from.finish(nodes[last])
			if fa >= bestEnd {
				continue
			}
			for j := range nodes {
				if j == last {
					continue
				}
				into := plan[j].with(w, moveCost)
				if e := max(fa, into.finish(nodes[j])); e < bestEnd {
					best, bestTo, bestEnd, bestFrom, bestInto = k, j, e, from, into
				}
			}
		}
		if best < 0 {
			break
		}
		plan[last], plan[bestTo] = bestFrom, bestInto
		on[last] = slices.DeleteFunc(on[last], func(k int) bool { return k == best })
		moves[parts[best].p] = nodes[bestTo].name
	}
	after = makespan(nodes, plan)
	// Packed anew if that gains more than a move over those.
	if pm, pa := pack(nodes, index, parts, moveCost); pa < after-moveCost {
		return pm, before, pa
	}
	return moves, before, after
}

// pack plans anew where parts should be: the least makespan T for
// which, taking the partitions longest span first, each fits on the
// first node (in a fixed order) that still ends by T with it (first-fit
// decreasing, with nodeLoad.finish, by bisection on T). Longest first,
// the largest hosts share nodes that have a worker for each of them,
// rather than each slowing a node whose hosts outnumber its workers, and
// the rest fill the other nodes evenly. Which node takes which share is
// then chosen so that the most work stays where it is (among nodes alike,
// with as many workers and none of them holding a partition fixed; all
// orders up to 6 such nodes, in turn beyond). It
// returns the moves and the makespan, moved partitions paying moveCost.
func pack(nodes []nodeCap, index map[string]int, parts []partWork, moveCost float64) (map[int]string, float64) {
	base := make([]nodeLoad, len(nodes))
	var movable []partWork
	var total, longest float64
	workers := 0
	for _, nd := range nodes {
		workers += max(nd.workers, 1)
	}
	for _, w := range parts {
		i, ok := index[w.holder]
		switch {
		case !ok:
		case w.fixed:
			base[i] = base[i].with(w, 0)
		default:
			movable = append(movable, w)
		}
		if ok {
			total += w.work
			longest = max(longest, w.span)
		}
	}
	slices.SortFunc(movable, func(a, b partWork) int {
		return cmp.Or(cmp.Compare(b.span, a.span), cmp.Compare(b.work, a.work), cmp.Compare(a.p, b.p))
	})
	fit := func(limit float64) ([]int, bool) {
		plan := slices.Clone(base)
		to := make([]int, len(movable))
	next:
		for k, w := range movable {
			for i := range nodes {
				if l := plan[i].with(w, 0); l.finish(nodes[i]) <= limit {
					plan[i], to[k] = l, i
					continue next
				}
			}
			return nil, false
		}
		return to, true
	}
	lo, hi := max(total/float64(workers), longest), makespan(nodes, base)
	for _, w := range movable {
		hi += w.work // every partition fits on any node by then
	}
	to, ok := fit(hi)
	if !ok {
		return nil, math.Inf(1)
	}
	for hi-lo > 0.05 {
		mid := (lo + hi) / 2
		if t, ok := fit(mid); ok {
			hi, to = mid, t
		} else {
			lo = mid
		}
	}
	// Which node takes which share: the order that keeps the most work
	// in place.
	share := make([]int, len(nodes)) // share[i]: the node that takes the share packed on i
	for i := range share {
		share[i] = i
	}
	stays := func(share []int) float64 {
		var w float64
		for k, i := range to {
			if nodes[share[i]].name == movable[k].holder {
				w += movable[k].work
			}
		}
		return w
	}
	best, bestStays := slices.Clone(share), stays(share)
	permute(share, 0, func(share []int) {
		for i, j := range share {
			// A share was packed for node i, beside its fixed
			// partitions: it may go to node j only if the two are
			// alike and neither has any.
			if i != j && (nodes[i].workers != nodes[j].workers || nodes[i].longest != nodes[j].longest ||
				len(base[i].groups)+len(base[j].groups) > 0) {
				return
			}
		}
		if s := stays(share); s > bestStays {
			best, bestStays = slices.Clone(share), s
		}
	})
	plan := slices.Clone(base)
	moves := map[int]string{}
	for k, i := range to {
		w, j := movable[k], best[i]
		if nodes[j].name == w.holder {
			plan[j] = plan[j].with(w, 0)
		} else {
			plan[j] = plan[j].with(w, moveCost)
			moves[w.p] = nodes[j].name
		}
	}
	return moves, makespan(nodes, plan)
}

// maxPermuted is the most nodes whose orders permute tries all of.
const maxPermuted = 6

// permute calls f with each order of s[k:] (s[:k] fixed), in place, if
// s has at most maxPermuted elements, and otherwise with each rotation.
func permute(s []int, k int, f func([]int)) {
	if len(s) > maxPermuted {
		for range s {
			f(s)
			s = append(s[1:], s[0])
		}
		return
	}
	if k == len(s) {
		f(s)
		return
	}
	for i := k; i < len(s); i++ {
		s[k], s[i] = s[i], s[k]
		permute(s, k+1, f)
		s[k], s[i] = s[i], s[k]
	}
}

// worthMoving reports whether a plan that brings the makespan from
// before to after is worth its moves: the crawl must have at least four
// moves' time left (early on, the backlogs are still being found), and
// the plan must gain more than a tick and a twentieth, so that estimates
// that wobble do not move partitions back and forth. What a move costs
// the partition's hosts (moveCost seconds without fetching) is in after
// already. Its estimates count only the work found so far, a fraction
// of the work left while the crawl still finds new URLs: on bench's web
// of equal hosts a gain the leader saw as 1-2 s was 3-4 s, and asking
// for more than the move's cost, as this did, left one node of three
// with two hosts more than the others (68.1-68.3 s against 69.3-70.9 s).
func worthMoving(before, after, moveCost float64) bool {
	return before >= 4*moveCost && before-after > max(moveCost/moveTicks, before/20)
}
