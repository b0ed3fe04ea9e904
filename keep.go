package crawler

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"crawler/frontier"
)

// Names of what a Run keeps in a frontier.Keeper, so that a crawl resumed
// from it (a durable store, after a restart or a crash) has it back. The
// trap rules keep theirs (traps.Guard.Restore).
const (
	keptStats     = "crawler/stats"      // TotalStats as of the last commit
	keptSeedHosts = "crawler/seed-hosts" // the hosts of every seed, which Scope.SameHost keeps to
)

// restore reads what an earlier Run kept in k and registers, for this Run,
// what k is to keep. A value k kept that does not decode is an error: the
// crawl's state is damaged, and guessing would crawl out of scope or
// count wrong.
func (r *runState) restore(k frontier.Keeper) error {
	c := r.c
	var before Stats
	var hosts []string
	for name, v := range map[string]any{keptStats: &before, keptSeedHosts: &hosts} {
		found, err := kept(k, name, v)
		if err != nil {
			return err
		}
		if found && name == keptStats {
			r.before = &before
		}
	}
	for _, h := range hosts {
		c.made.seedHosts[h] = true
	}
	if err := r.traps.Restore(k); err != nil {
		return err
	}

	k.Keep(keptStats, func() []byte { return marshal(r.c.TotalStats()) })
	keptHosts := len(hosts)
	k.Keep(keptSeedHosts, func() []byte {
		if len(c.made.seedHosts) == keptHosts {
			return nil
		}
		keptHosts = len(c.made.seedHosts)
		return marshal(slices.Sorted(maps.Keys(c.made.seedHosts)))
	})
	return nil
}

// kept decodes into v what k kept under name, and reports whether it kept
// anything.
func kept(k frontier.Keeper, name string, v any) (found bool, err error) {
	b := k.Kept(name)
	if b == nil {
		return false, nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("crawler: the frontier's kept %s: %w", name, err)
	}
	return true, nil
}

// marshal is json.Marshal of a value that always encodes.
func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // Stats, strings and maps of them always encode
	}
	return b
}
