package crawlertest

import (
	"sync"
	"sync/atomic"
)

// countKey identifies a URL of the web: host index, decoded dot-free path,
// and raw query (usually empty).
type countKey struct {
	host  int
	path  string
	query string
}

const nShards = 32

// counts is the request log. It is sharded by URL so that concurrent
// requests for different URLs rarely share a lock.
type counts struct {
	shards [nShards]struct {
		mu sync.Mutex
		m  map[countKey]int
		_  [40]byte // keep shards on separate cache lines
	}
	total  atomic.Int64
	traps  atomic.Int64   // requests to trap hosts, in total too
	robots []atomic.Int64 // per host
}

func newCounts(hosts int) *counts {
	c := &counts{robots: make([]atomic.Int64, hosts)}
	for i := range c.shards {
		c.shards[i].m = make(map[countKey]int)
	}
	return c
}

func shardOf(k countKey) int {
	h := uint32(2166136261) ^ uint32(k.host)
	for i := 0; i < len(k.path); i++ {
		h = (h ^ uint32(k.path[i])) * 16777619
	}
	return int(h % nShards)
}

func (c *counts) add(k countKey) {
	s := &c.shards[shardOf(k)]
	s.mu.Lock()
	s.m[k]++
	s.mu.Unlock()
	c.total.Add(1)
}

func (c *counts) get(k countKey) int {
	s := &c.shards[shardOf(k)]
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[k]
}

func (c *counts) snapshot() map[string]int {
	out := make(map[string]int)
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		for k, n := range s.m {
			out[canonicalString(k.host, k.path, k.query)] = n
		}
		s.mu.Unlock()
	}
	return out
}

func (c *counts) reset() {
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		clear(s.m)
		s.mu.Unlock()
	}
	c.total.Store(0)
	c.traps.Store(0)
	for i := range c.robots {
		c.robots[i].Store(0)
	}
}
