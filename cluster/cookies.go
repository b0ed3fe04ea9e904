package cluster

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/zeebo/xxh3"

	"crawler/cookies"
)

var _ cookies.Holder = (*Node)(nil)

// cookiesBucket names the key-value bucket of crawl's cookies: cookieKey
// -> the cookies of a host, as JSON []cookies.Entry (no TTL).
func cookiesBucket(crawl string) string { return "crawl_" + crawl + "_cookies" }

// cookieKey is the key of host's cookies in the cookies bucket: its
// partition, so that a node taking a partition reads its hosts' keys
// alone, and the host (host[:port], as frontier.Entry.Host), in
// base64url, since a key has no ':'.
func cookieKey(p int, host string) string {
	return "p" + strconv.Itoa(p) + "." + base64.RawURLEncoding.EncodeToString([]byte(host))
}

// hostCookies is what a node knows of the cookies of a host of a
// partition it holds: the revision of the host's key in the cookies
// bucket, and the hash (see hashCookies) of the host's cookies in the jar
// when they were last written there or read from there.
type hostCookies struct {
	rev  uint64
	hash uint64
}

// keptHost is a host's cookies as read from the cookies bucket.
type keptHost struct {
	host    string
	rev     uint64
	entries []cookies.Entry
}

// jarState is what a node knows of its jar's cookies. The crawler's
// goroutine's.
type jarState struct {
	jar *cookies.Jar // nil until HoldCookies
	// The hosts of each partition held here that have a key in the
	// cookies bucket.
	hosts map[int]map[string]*hostCookies
	// Hosts whose cookies may differ from those in the bucket, and their
	// partitions: written with the next batches published.
	dirty map[string]int
	// The cookies read with partitions taken before the node had a jar.
	unapplied map[int][]keptHost
}

// HoldCookies makes jar the node's cookie jar (see [cookies.Holder];
// [cookies.Jar.Restore] calls it when the crawler's frontier is the node):
// the cookies of each host of the partitions the node holds are kept in
// the crawl's cookies bucket on the NATS server, written with the node's
// steps (see the package doc), rather than in the node's own state. It
// gives jar the cookies of the hosts of the partitions held here, and of
// those it takes later as it takes them. A node holds one jar: another is
// an error.
func (n *Node) HoldCookies(jar *cookies.Jar) error {
	switch n.jar.jar {
	case jar:
		return nil
	case nil:
	default:
		return fmt.Errorf("cluster: node %q already holds the cookies of another jar", n.cfg.Node)
	}
	n.jar.jar = jar
	var refused []error
	for p, kept := range n.jar.unapplied {
		if n.roles[p].Load() == active {
			refused = append(refused, n.loadCookies(p, kept))
		}
	}
	n.jar.unapplied = nil
	if err := errors.Join(refused...); err != nil {
		return errors.Join(cookies.ErrRefused, err)
	}
	return nil
}

// keyedPartitions returns the partitions that have hosts with cookies in
// the cookies bucket, read in one request from the state of its stream
// (see bucket.keys).
func (n *Node) keyedPartitions(ctx context.Context) (map[int]bool, error) {
	keys, err := n.cookieBucket.keys(ctx)
	if err != nil {
		return nil, err
	}
	keyed := map[int]bool{}
	for _, k := range keys {
		if p, err := strconv.Atoi(strings.TrimPrefix(k[:max(strings.IndexByte(k, '.'), 0)], "p")); err == nil {
			keyed[p] = true
		}
	}
	return keyed, nil
}

// readCookies reads the cookies of the hosts of p kept in the cookies
// bucket.
func (n *Node) readCookies(ctx context.Context, p int) ([]keptHost, error) {
	prefix := "p" + strconv.Itoa(p) + "."
	w, err := n.cookieBucket.kv.Watch(ctx, prefix+"*", jetstream.IgnoreDeletes())
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	var out []keptHost
	for {
		var e jetstream.KeyValueEntry
		select {
		case e = <-w.Updates():
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e == nil { // the last value of every key is in
			return out, nil
		}
		host, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(e.Key(), prefix))
		if err != nil {
			return nil, fmt.Errorf("cookies key %q: %w", e.Key(), err)
		}
		k := keptHost{host: string(host), rev: e.Revision()}
		if err := json.Unmarshal(e.Value(), &k.entries); err != nil {
			return nil, fmt.Errorf("cookies of %s: %w", k.host, err)
		}
		out = append(out, k)
	}
}

// activateCookies gives the jar the cookies read with p, taken and now
// active; or keeps them until the node has a jar.
func (n *Node) activateCookies(p int) {
	n.mu.Lock()
	kept := n.takenCookies[p]
	delete(n.takenCookies, p)
	n.mu.Unlock()
	if n.jar.jar == nil {
		if len(kept) > 0 {
			if n.jar.unapplied == nil {
				n.jar.unapplied = map[int][]keptHost{}
			}
			n.jar.unapplied[p] = kept
		}
		return
	}
	if err := n.loadCookies(p, kept); err != nil {
		n.log.Warn("cluster: cookies kept but refused", "partition", p, "err", err)
	}
}

// loadCookies replaces, in the jar, the cookies of p's hosts by those
// kept in the bucket: those the jar held of them (left at a lapse of the
// node's heartbeat, or filled from a cookies.txt) go first.
func (n *Node) loadCookies(p int, kept []keptHost) error {
	var hosts []string
	for h := range n.jar.hosts[p] {
		hosts = append(hosts, h)
	}
	for _, k := range kept {
		hosts = append(hosts, k.host)
	}
	n.removeCookies(p, hosts)
	var entries []cookies.Entry
	for _, k := range kept {
		entries = append(entries, k.entries...)
	}
	err := n.jar.jar.Import(entries)
	m := map[string]*hostCookies{}
	for _, k := range kept {
		m[k.host] = &hostCookies{rev: k.rev, hash: hashCookies(n.jar.jar.Host(hostname(k.host)))}
	}
	if n.jar.hosts == nil {
		n.jar.hosts = map[int]map[string]*hostCookies{}
	}
	n.jar.hosts[p] = m
	n.log.Debug("cluster: cookies taken", "partition", p, "hosts", len(kept), "cookies", len(entries))
	return err
}

// cookieDone notes, after a fetch of host of p, whether its cookies
// changed since they were written to the bucket.
func (n *Node) cookieDone(p int, host string) {
	if n.jar.jar == nil {
		return
	}
	var was uint64
	if hc := n.jar.hosts[p][host]; hc != nil {
		was = hc.hash
	}
	if hashCookies(n.jar.jar.Host(hostname(host))) != was {
		n.markCookies(p, host)
	}
}

// markCookies has host's cookies written with the next batches.
func (n *Node) markCookies(p int, host string) {
	if !n.hasOut() {
		n.pending = time.Now()
	}
	if n.jar.dirty == nil {
		n.jar.dirty = map[string]int{}
	}
	n.jar.dirty[host] = p
}

// handCookies has the cookies of p's hosts written with the next
// batches: the last write of a partition handed over.
func (n *Node) handCookies(p int) {
	for h := range n.jar.hosts[p] {
		n.markCookies(p, h)
	}
}

// dropCookies forgets the cookies of p's hosts, written to the bucket and
// p handed over: the jar no longer holds them, nor sends them.
func (n *Node) dropCookies(p int) {
	n.mu.Lock()
	delete(n.takenCookies, p) // read with p, given up before it was active
	n.mu.Unlock()
	delete(n.jar.unapplied, p)
	if n.jar.jar == nil {
		return
	}
	var hosts []string
	for h := range n.jar.hosts[p] {
		hosts = append(hosts, h)
	}
	n.removeCookies(p, hosts)
	delete(n.jar.hosts, p)
	for h, q := range n.jar.dirty {
		if q == p {
			delete(n.jar.dirty, h)
		}
	}
}

// removeCookies deletes from the jar the cookies of hosts, of partition
// p, but those a host of another partition held here is sent too: a
// domain cookie of a site whose hosts are in several partitions, or a
// host's on another port.
func (n *Node) removeCookies(p int, hosts []string) {
	type key struct{ domain, path, name string }
	seen := map[key]bool{}
	var gone []cookies.Entry
	for _, h := range hosts {
		for _, e := range n.jar.jar.Host(hostname(h)) {
			if k := (key{e.Domain, e.Path, e.Name}); !seen[k] {
				seen[k] = true
				gone = append(gone, e)
			}
		}
	}
	if len(gone) == 0 {
		return
	}
	others := map[string]bool{}
	for q, hs := range n.jar.hosts {
		if q != p {
			for h := range hs {
				others[hostname(h)] = true
			}
		}
	}
	out := gone[:0]
	for _, e := range gone {
		if !sentToAny(e, others) {
			out = append(out, e)
		}
	}
	n.jar.jar.Delete(out)
}

// sentToAny reports whether e is sent to one of the host names.
func sentToAny(e cookies.Entry, names map[string]bool) bool {
	if e.HostOnly {
		return names[e.Domain]
	}
	for name := range names {
		if name == e.Domain || strings.HasSuffix(name, "."+e.Domain) {
			return true
		}
	}
	return false
}

// cookieWrite is a host's cookies published to the bucket.
type cookieWrite struct {
	p    int
	host string
	hash uint64
}

// ownsCookies reports whether the node may write the cookies of p's
// hosts: it holds p, or is handing it over. A partition left at a lapse
// of the node's heartbeat may be another's by now.
func (n *Node) ownsCookies(p int) bool {
	if n.roles[p].Load() == active {
		return true
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	_, ok := n.drains[p]
	return ok
}

// cookieBatches returns, for publish, the cookies to write: those of the
// hosts marked whose cookies differ from those last written, with the
// revision each key must have (a node that lost the partition meanwhile
// is refused). The marks are cleared.
func (n *Node) cookieBatches(add func(subject string, data []byte, expect uint64, w *cookieWrite)) {
	for host, p := range n.jar.dirty {
		delete(n.jar.dirty, host)
		if !n.ownsCookies(p) {
			continue
		}
		entries := n.jar.jar.Host(hostname(host))
		h := hashCookies(entries)
		hc := n.jar.hosts[p][host]
		if hc == nil && h == 0 || hc != nil && hc.hash == h {
			continue
		}
		var rev uint64
		if hc != nil {
			rev = hc.rev
		}
		add(n.cookieBucket.prefix+cookieKey(p, host), n.encodeCookies(host, entries), rev, &cookieWrite{p, host, h})
	}
}

// wrote records a host's cookies written, at revision rev.
func (n *Node) wrote(w *cookieWrite, rev uint64) {
	if n.jar.hosts == nil {
		n.jar.hosts = map[int]map[string]*hostCookies{}
	}
	m := n.jar.hosts[w.p]
	if m == nil {
		m = map[string]*hostCookies{}
		n.jar.hosts[w.p] = m
	}
	m[w.host] = &hostCookies{rev: rev, hash: w.hash}
}

// rewrite writes again the cookies of a host whose key another node
// wrote since this node last did (a node whose heartbeat lapsed, writing
// late), if this node still holds its partition: its cookies are the
// host's now. Otherwise it forgets them.
func (n *Node) rewrite(subject string, data []byte, w *cookieWrite) {
	key := strings.TrimPrefix(subject, n.cookieBucket.prefix)
	if !n.ownsCookies(w.p) {
		n.log.Warn("cluster: cookies of a host written by another node; this node's left", "host", w.host)
		delete(n.jar.hosts[w.p], w.host)
		return
	}
	err := n.retry("cookies", func(ctx context.Context) error {
		var rev uint64
		e, err := n.cookieBucket.kv.Get(ctx, key)
		switch {
		case err == nil:
			rev = e.Revision()
		case !errors.Is(err, jetstream.ErrKeyNotFound):
			return err
		}
		rev, err = n.cookieBucket.kv.Update(ctx, key, data, rev)
		if err == nil {
			n.wrote(w, rev)
		}
		return err
	})
	if err != nil {
		n.log.Warn("cluster: cookies not written", "host", w.host, "err", err)
		return
	}
	n.log.Warn("cluster: cookies of a host written by another node meanwhile; written again", "host", w.host)
}

// encodeCookies returns entries as JSON, without the least recently used
// while that is larger than a batch may be.
func (n *Node) encodeCookies(host string, entries []cookies.Entry) []byte {
	for dropped := 0; ; {
		b, err := json.Marshal(entries[dropped:])
		if err != nil {
			panic(fmt.Sprintf("cluster: cookies do not encode: %v", err)) // strings, bools, ints and times
		}
		if len(b) <= maxMessage || dropped == len(entries) {
			if dropped > 0 {
				n.log.Warn("cluster: cookies of a host too large to keep; the least recently used left out", "host", host, "dropped", dropped)
			}
			return b
		}
		dropped += max(1, (len(entries)-dropped)/8)
	}
}

// hashCookies returns a hash of entries, in any order, that changes with
// any attribute but LastAccess (sending cookies changes no more than
// that): 0 for none.
func hashCookies(entries []cookies.Entry) uint64 {
	var sum uint64
	var b []byte
	for _, e := range entries {
		b = b[:0]
		for _, s := range []string{e.Name, e.Value, e.Domain, e.Path} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
		var flags byte
		for i, f := range []bool{e.HostOnly, e.Secure, e.HttpOnly} {
			if f {
				flags |= 1 << i
			}
		}
		b = append(b, flags, byte(e.SameSite))
		for _, t := range []int64{unixOrZero(e.Expires.IsZero(), e.Expires.UnixNano()), e.Created.UnixNano(), int64(e.Size)} {
			b = binary.AppendVarint(b, t)
		}
		sum += xxh3.Hash(b) | 1
	}
	return sum
}

func unixOrZero(zero bool, ns int64) int64 {
	if zero {
		return 0
	}
	return ns
}

// hostname returns the name of host[:port] without its port (and an IPv6
// address without brackets), as a cookie's domain is.
func hostname(host string) string {
	if strings.HasPrefix(host, "[") {
		if i := strings.IndexByte(host, ']'); i > 0 {
			return host[1:i]
		}
		return host
	}
	if i := strings.LastIndexByte(host, ':'); i >= 0 && strings.IndexByte(host, ':') == i {
		return host[:i]
	}
	return host
}
