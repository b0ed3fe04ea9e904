package cluster

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"crawler/frontier"
)

// How long links wait to be sent: the node sends them every syncEvery,
// or sooner once maxPending links wait; and batches received to be
// acknowledged, after a flush of the node's frontier: every ackEvery.
const (
	syncEvery  = 5 * time.Millisecond
	maxPending = 1024
	ackEvery   = 50 * time.Millisecond
)

// budgetChunk is how many page requests a node reserves from the crawl's
// budget at a time.
const budgetChunk = 8

var (
	_ frontier.Exchanger   = (*Node)(nil)
	_ frontier.Keeper      = (*Node)(nil)
	_ frontier.HostLimiter = (*Node)(nil)
)

// Push adds e, a URL of a partition held here, to the local frontier, and
// records its fingerprint with its partition's, to hand over with it.
func (n *Node) Push(e frontier.Entry) {
	p := PartitionOf(e.Host)
	n.admit(p, e.FP)
	n.wait(e.Host, 1)
	n.local.Push(e)
}

// wait adds k (negative: takes) to the entries waiting here of host, and
// of its partition.
func (n *Node) wait(host string, k int) {
	p := PartitionOf(host)
	n.waiting[p].Add(int64(k))
	before := n.hostWait[host]
	after := before + k
	if after > 0 {
		n.hostWait[host] = after
	} else {
		delete(n.hostWait, host)
	}
	switch {
	case before <= 0 && after > 0:
		n.hostsIn[p].Add(1)
	case before > 0 && after <= 0:
		n.hostsIn[p].Add(-1)
	}
}

// paceWeight is the weight of a request's time in its partition's pace,
// a moving average.
const paceWeight = 0.2

// timed notes how long a request of partition p, handed out at start,
// took, in p's pace.
func (n *Node) timed(p int, start time.Time) {
	d := time.Since(start).Seconds()
	old := math.Float64frombits(n.pace[p].Load())
	if old > 0 {
		d = old + paceWeight*(d-old)
	}
	n.pace[p].Store(math.Float64bits(d))
}

// Len reports the entries waiting in the local frontier.
func (n *Node) Len() int { return n.local.Len() }

// Next hands out an entry of a partition held here. An entry of a
// partition held elsewhere (handed over, or taken by another node while
// this one was away) is sent to its holder; one of a partition this node
// is waiting to take is put back for a tick.
func (n *Node) Next(now time.Time) (frontier.Entry, bool, time.Time) {
	n.takeDrains()
	if n.lapsed(now) {
		return frontier.Entry{}, false, now.Add(n.tick) // its leases may be another node's soon
	}
	for {
		if n.cfg.MaxPages > 0 && n.allowance == 0 && !n.reserve() {
			return frontier.Entry{}, false, time.Time{}
		}
		e, ok, wake := n.local.Next(now)
		if !ok {
			return e, false, wake
		}
		p := PartitionOf(e.Host)
		n.wait(e.Host, -1)
		switch n.roles[p].Load() {
		case active:
			n.inflight++
			n.partOut[p]++
			if int64(n.inflight) > n.peak.Load() {
				n.peak.Store(int64(n.inflight))
			}
			n.outSince[e.FP] = time.Now()
			if n.cfg.MaxPages > 0 {
				n.allowance--
			}
			return e, true, time.Time{}
		case awaiting, taking:
			n.local.Done(e, frontier.Result{Retry: true, Next: now.Add(n.tick)})
			n.wait(e.Host, 1)
		default:
			n.local.Done(e, frontier.Result{})
			n.send(p, e, true)
		}
	}
}

// Done reports the outcome of an entry from Next. An entry to retry whose
// partition went to another node meanwhile is sent there.
func (n *Node) Done(e frontier.Entry, r frontier.Result) {
	p := PartitionOf(e.Host)
	n.inflight--
	n.partOut[p]--
	n.cookieDone(p, e.Host)
	start, timed := n.outSince[e.FP]
	delete(n.outSince, e.FP)
	if r.Requested {
		n.requests.Add(1)
		if timed {
			n.timed(p, start)
		}
	}
	if !r.Retry {
		n.doneIn[p].Add(1)
		if r.Requested {
			n.fetchedIn[p].Add(1)
		}
	}
	if n.cfg.MaxPages > 0 && !r.Requested {
		n.allowance++ // not spent: a robots.txt wait, say
	}
	if r.Retry && n.roles[p].Load() == foreign {
		n.local.Done(e, frontier.Result{Next: r.Next})
		n.send(p, e, true)
		return
	}
	if r.Retry {
		n.wait(e.Host, 1)
	}
	n.local.Done(e, r)
}

// LimitHosts gives limit to the local frontier, if it is a
// [frontier.HostLimiter] (store.Frontier is one): the hosts of the
// partitions this node holds, or takes later, have the limits it gives.
// Otherwise it does nothing, and every host has the local frontier's own
// limit. Call it before the crawl, as the local frontier says.
func (n *Node) LimitHosts(limit func(host string) int) {
	if l, ok := n.local.(frontier.HostLimiter); ok {
		l.LimitHosts(limit)
	}
}

// Wake gives the wake-up to the local frontier, if it is a
// [frontier.Waker] (store.Frontier is one): a host of a partition held
// here is ready from at, if it was to be later.
func (n *Node) Wake(host string, at time.Time) {
	if w, ok := n.local.(frontier.Waker); ok {
		w.Wake(host, at)
	}
}

// Forward takes e if its partition is not held here, to send it to the
// partition's stream.
func (n *Node) Forward(e frontier.Entry) bool {
	p := PartitionOf(e.Host)
	if n.roles[p].Load() == active {
		return false
	}
	n.send(p, e, false)
	return true
}

// send adds e to the batch of partition p: a link, or an entry queued
// here (see appendLink).
func (n *Node) send(p int, e frontier.Entry, queued bool) {
	if n.outLinks == 0 {
		n.pending = time.Now()
	}
	n.room(p)
	n.out[p] = appendLink(n.out[p], e, queued)
	n.outLinks++
	n.linksOut.Add(1)
}

// maxMessage bounds the size of a batch, well below NATS's default
// limit of 1 MiB a message.
const maxMessage = 256 << 10

// room seals partition p's batch if it is full: the next link starts a
// new one.
func (n *Node) room(p int) {
	if len(n.out[p]) >= maxMessage {
		n.sealed = append(n.sealed, sealed{p, n.out[p], false})
		n.out[p] = nil
	}
}

// sealed is a full batch waiting to be published, of links or handed
// over with its partition.
type sealed struct {
	p       int
	data    []byte
	handoff bool
}

// Receive returns the links of the batches received since its last call.
// The entries queued at another node that came with them (a partition
// handed over) are queued here, and marked in Config.Seen. The node
// reports itself busy first: the batches are acknowledged only after the
// steps that discover them are durable.
func (n *Node) Receive() []frontier.Entry {
	n.mu.Lock()
	msgs, taken := n.incoming, n.taken
	n.incoming, n.taken = nil, nil
	n.mu.Unlock()
	if len(msgs) == 0 {
		n.activate(taken)
		return nil
	}
	if err := n.setIdle(false); err != nil {
		n.fail(err)
	}
	in := &n.in
	in.links, in.queued, in.seen, in.holds = in.links[:0], in.queued[:0], in.seen[:0], in.holds[:0]
	for _, m := range msgs {
		before := in.mark()
		if err := in.decode(m.Data()); err != nil {
			n.log.Error("cluster: batch refused", "subject", m.Subject(), "err", err)
			_ = m.Term()
			continue
		}
		if len(in.queued) > before.queued && n.queuedAgain(m) {
			in.undo(before)
		} else if marked := before.seen; len(in.seen) > marked {
			// A handover's: kept to hand over again with the partition,
			// which may move on (stolen back, or to a node that joins).
			if p, ok := subjectPartition(m.Subject()); ok {
				for _, fp := range in.seen[marked:] {
					n.admit(p, fp)
				}
			}
		}
		if len(n.toAck) == 0 {
			n.ackDue = time.Now().Add(ackEvery)
		}
		n.toAck = append(n.toAck, m)
	}
	for _, fp := range in.seen {
		if n.cfg.Seen != nil {
			n.cfg.Seen.Add(fp)
		}
	}
	for _, h := range in.holds {
		if n.drainer != nil {
			n.drainer.Hold(h.host, h.at)
		}
	}
	n.activate(taken) // their handovers are in
	for _, e := range in.queued {
		if p := PartitionOf(e.Host); n.roles[p].Load() != active {
			n.send(p, e, true)
			continue
		}
		if n.cfg.Seen != nil {
			n.cfg.Seen.Add(e.FP)
		}
		n.Push(e)
	}
	return in.links
}

// queuedAgain reports whether m, a batch with queued entries, was taken
// here before: it comes again, because it was acknowledged late (the node
// was slow; a NATS server restarted), and its entries, queued without the
// URL-seen test, would be queued twice. Its stream sequence is noted
// otherwise, for as long as it could come again.
func (n *Node) queuedAgain(m jetstream.Msg) bool {
	md, err := m.Metadata()
	if err != nil {
		return false
	}
	now := time.Now()
	if now.Sub(n.prunedAt) > queuedFor {
		for seq, at := range n.queuedSeqs {
			if now.Sub(at) > queuedFor {
				delete(n.queuedSeqs, seq)
			}
		}
		n.prunedAt = now
	}
	if _, ok := n.queuedSeqs[md.Sequence.Stream]; ok {
		n.log.Info("cluster: batch of queued entries delivered again, and taken once", "subject", m.Subject(), "deliveries", md.NumDelivered)
		return true
	}
	if n.queuedSeqs == nil {
		n.queuedSeqs = map[uint64]time.Time{}
	}
	n.queuedSeqs[md.Sequence.Stream] = now
	return false
}

// queuedFor is how long a node remembers a batch of queued entries it
// took: it acknowledges it within ackEvery and a commit, so a batch comes
// again only within a few ack waits.
const queuedFor = 10 * time.Minute

// subjectPartition returns the partition of a subject of the crawl's
// stream (its links' or its handovers'), and whether there is one.
func subjectPartition(subject string) (int, bool) {
	p, err := strconv.Atoi(subject[strings.LastIndexByte(subject, '.')+1:])
	return p, err == nil && p >= 0 && p < Partitions
}

// activate makes the partitions taken active, unless given up since.
func (n *Node) activate(taken []int) {
	for _, p := range taken {
		if n.roles[p].CompareAndSwap(taking, active) {
			n.activateCookies(p)
		}
	}
}

// Ready returns a channel that receives when batches arrive, at each tick
// of the node's heartbeat, and when the crawl finishes.
func (n *Node) Ready() <-chan struct{} { return n.ready }

// Finished reports whether the whole crawl is done. A node with nothing
// to do sends what it holds, commits, and reports itself idle; the crawl
// is done when, twice in a row (checked every quarter second, and again
// 50 ms after a check that finds it so), its stream is empty and every live
// node idle; or when its budget is spent and nothing is in flight here.
func (n *Node) Finished() bool {
	n.takeDrains()
	if n.spent && n.inflight == 0 {
		n.fail(n.sync())
		return true
	}
	n.mu.Lock()
	idle := len(n.incoming) == 0 && len(n.drains) == 0
	n.mu.Unlock()
	if !idle || n.inflight > 0 || n.local.Len() > 0 {
		return false
	}
	if err := n.sync(); err != nil {
		n.fail(err)
		return false
	}
	if err := n.setIdle(true); err != nil {
		n.fail(err)
		return false
	}
	return n.finished.Load()
}

// Commit ends a step. Its links for other partitions wait (up to
// syncEvery) to be sent together, and the local frontier commits the
// step only once they are sent, so that no link marked seen here is lost
// with an unsent batch. The batches received wait (up to ackEvery) for a
// flush of the local frontier, after which they are acknowledged.
func (n *Node) Commit() error {
	if n.err != nil {
		return n.err
	}
	if n.hasOut() {
		if time.Since(n.pending) < syncEvery && n.outLinks < maxPending {
			return nil
		}
		if err := n.publish(); err != nil {
			return err
		}
	}
	if len(n.toAck) > 0 && !time.Now().Before(n.ackDue) {
		return n.sync()
	}
	if n.commit != nil {
		return n.commit.Commit()
	}
	return nil
}

// Flush sends what waits, makes the local frontier's steps durable, and
// acknowledges the batches they discovered.
func (n *Node) Flush() error {
	if n.err != nil {
		return n.err
	}
	return n.sync()
}

// Keep keeps a value with the local frontier's steps, if it keeps values.
func (n *Node) Keep(name string, value func() []byte) {
	if n.keeper != nil {
		n.keeper.Keep(name, value)
	}
}

// Kept returns a value the local frontier kept, or nil.
func (n *Node) Kept(name string) []byte {
	if n.keeper != nil {
		return n.keeper.Kept(name)
	}
	return nil
}

// Record writes a record with the local frontier's steps, if it keeps
// records: the crawler keeps its trap rules' counts so (the URLs each
// host queued, the values each query parameter took), which then survive
// the node's restart. Like Keep's values, they are the node's: a
// partition that moves leaves them behind (its hosts' cookies go with it:
// see HoldCookies).
func (n *Node) Record(name string, id uint64, value []byte) {
	if n.recorder != nil {
		n.recorder.Record(name, id, value)
	}
}

// Records reads the records the local frontier kept under name, if it
// keeps records.
func (n *Node) Records(name string, f func(id uint64, value []byte) error) error {
	if n.recorder != nil {
		return n.recorder.Records(name, f)
	}
	return nil
}

// fail records the first error of the crawler's goroutine, which Commit
// and Flush return.
func (n *Node) fail(err error) {
	if err != nil && n.err == nil {
		n.err = err
	}
}

// sync publishes the waiting batches and waits for the stream to have
// them, then flushes the local frontier, then acknowledges the batches
// received.
func (n *Node) sync() error {
	if n.hasOut() {
		if err := n.publish(); err != nil {
			return err
		}
	}
	if n.commit != nil {
		if err := n.commit.Flush(); err != nil {
			return err
		}
	}
	for _, m := range n.toAck {
		if err := m.Ack(); err != nil {
			n.log.Warn("cluster: ack (the batch comes again, and its links are seen)", "err", err)
		}
	}
	n.acked.Add(int64(len(n.toAck)))
	clear(n.toAck)
	n.toAck = n.toAck[:0]
	return nil
}

// hasOut reports whether batches or cookies wait to be published.
func (n *Node) hasOut() bool { return n.outLinks > 0 || len(n.sealed) > 0 || len(n.jar.dirty) > 0 }

// publish sends the batch of every partition, and the cookies of the
// hosts marked, each once (a retry keeps its message ID, which the stream
// deduplicates), and waits until the streams have them all.
func (n *Node) publish() error {
	type batch struct {
		subject string
		data    []byte
		id      string
		cookies *cookieWrite // a host's cookies, to the key's revision expect
		expect  uint64
	}
	var todo []batch
	links := 0
	add := func(subject string, data []byte) {
		n.seq++
		todo = append(todo, batch{subject: subject, data: data, id: n.boot + "." + strconv.FormatUint(n.seq, 10)})
		links++
	}
	for _, b := range n.sealed {
		if b.handoff {
			add(n.handoff+strconv.Itoa(b.p), b.data)
		} else {
			add(n.subject+strconv.Itoa(b.p), b.data)
		}
	}
	for p := range n.out {
		if len(n.out[p]) > 0 {
			add(n.subject+strconv.Itoa(p), n.out[p])
		}
	}
	n.cookieBatches(func(subject string, data []byte, expect uint64, w *cookieWrite) {
		n.seq++
		todo = append(todo, batch{subject, data, n.boot + "." + strconv.FormatUint(n.seq, 10), w, expect})
	})
	var conflicts []batch // cookies whose key another node wrote
	err := n.retry("publish", func(ctx context.Context) error {
		type sent struct {
			batch
			f jetstream.PubAckFuture
		}
		futures := make([]sent, 0, len(todo))
		var errs []error
		var left []batch
		for _, b := range todo {
			opts := []jetstream.PublishOpt{jetstream.WithMsgID(b.id)}
			if b.cookies != nil {
				opts = append(opts, jetstream.WithExpectLastSequencePerSubject(b.expect))
			}
			f, err := n.js.PublishAsync(b.subject, b.data, opts...)
			if err != nil {
				errs = append(errs, err)
				left = append(left, b)
				continue
			}
			futures = append(futures, sent{b, f})
		}
		for _, s := range futures {
			select {
			case ack := <-s.f.Ok():
				if s.cookies != nil {
					n.wrote(s.cookies, ack.Sequence)
				}
			case err := <-s.f.Err():
				if s.cookies != nil && isWrongLastSeq(err) {
					conflicts = append(conflicts, s.batch)
					continue
				}
				errs = append(errs, err)
				left = append(left, s.batch)
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		todo = left
		return errors.Join(errs...)
	})
	if err != nil {
		return err
	}
	for _, b := range conflicts {
		n.rewrite(b.subject, b.data, b.cookies)
	}
	n.sent.Add(int64(links))
	clear(n.sealed)
	n.sealed = n.sealed[:0]
	for p := range n.out {
		n.out[p] = n.out[p][:0]
	}
	n.outLinks = 0
	return nil
}

// takeDrains drains, on the crawler's goroutine, the partitions the
// background goroutine is handing over, once none of their entries is in
// flight here: their waiting entries, their hosts' next times and the
// fingerprints admitted in them are sent to their handover subjects, and
// the partition is released.
func (n *Node) takeDrains() {
	n.mu.Lock()
	if len(n.drains) == 0 {
		n.mu.Unlock()
		return
	}
	drains := make(map[int]chan int, len(n.drains))
	for p, ch := range n.drains {
		drains[p] = ch
	}
	n.mu.Unlock()
	for p, ch := range drains {
		if n.partOut[p] > 0 {
			continue // its fetches in flight end first, and set its hosts' next times
		}
		var b []byte
		seal := func() {
			if len(b) > 0 {
				n.sealed = append(n.sealed, sealed{p, b, true})
				b = nil
			}
		}
		for _, e := range n.drain(p, func(host string, at time.Time) {
			if len(b) >= maxMessage {
				seal()
			}
			b = appendHold(b, host, at)
		}) {
			if len(b) >= maxMessage {
				seal()
			}
			b = appendLink(b, e, true)
			n.wait(e.Host, -1)
		}
		seal() // sent before the step that removed them is committed
		err := n.handOver(p, func(fp uint64) {
			if len(b) >= maxMessage {
				seal()
			}
			b = appendSeen(b, fp)
		})
		if err != nil {
			n.fail(err)
			return
		}
		seal()
		n.handCookies(p) // written with p's last batches, before its lease is released
		if err := n.sync(); err != nil {
			n.fail(err)
			return
		}
		n.dropCookies(p)
		n.mu.Lock()
		delete(n.drains, p)
		n.mu.Unlock()
		ch <- p
	}
}

// drain removes from the local frontier and returns the entries of p
// waiting there, and calls ready with each of its hosts not to be
// contacted before a time to come. A local frontier that is not a
// Drainer keeps them: Next sends each to p's holder when it comes to it.
func (n *Node) drain(p int, ready func(host string, at time.Time)) []frontier.Entry {
	if n.drainer == nil {
		return nil
	}
	return n.drainer.Drain(func(host string) bool { return PartitionOf(host) == p }, ready)
}

// admit notes fp, the fingerprint of a URL of partition p queued here or
// handed over here, to hand it over with p: in the local frontier's
// records, with the step in progress, if it keeps records (so that a node
// restarted from its state hands over what it queued before), and in
// memory otherwise.
func (n *Node) admit(p int, fp uint64) {
	if n.recorder != nil {
		n.recorder.Record(admittedName(p), fp, []byte{})
		return
	}
	n.admitted[p] = append(n.admitted[p], fp)
}

// handOver calls f with each fingerprint admitted in p, and forgets them,
// with the step in progress.
func (n *Node) handOver(p int, f func(fp uint64)) error {
	if n.recorder == nil {
		for _, fp := range n.admitted[p] {
			f(fp)
		}
		n.admitted[p] = nil
		return nil
	}
	if err := n.sync(); err != nil { // records are read as committed
		return err
	}
	var fps []uint64
	err := n.recorder.Records(admittedName(p), func(fp uint64, _ []byte) error {
		fps = append(fps, fp)
		return nil
	})
	if err != nil {
		return err
	}
	for _, fp := range fps {
		f(fp)
		n.recorder.Record(admittedName(p), fp, nil)
	}
	return nil
}

// admittedName names the records of the fingerprints admitted in p.
func admittedName(p int) string { return "cluster/" + strconv.Itoa(p) }

// reserve reserves up to budgetChunk requests of the crawl's budget, and
// reports whether it got any.
func (n *Node) reserve() bool {
	if n.spent {
		return false
	}
	var got int64
	err := n.retry("budget", func(ctx context.Context) error {
		for {
			var used int64
			var rev uint64
			e, err := n.state.Get(ctx, "spent")
			switch {
			case errors.Is(err, jetstream.ErrKeyNotFound):
			case err != nil:
				return err
			default:
				if used, err = strconv.ParseInt(string(e.Value()), 10, 64); err != nil {
					return err
				}
				rev = e.Revision()
			}
			take := min(budgetChunk, n.cfg.MaxPages-used)
			if take <= 0 {
				return nil
			}
			v := []byte(strconv.FormatInt(used+take, 10))
			if rev == 0 {
				_, err = n.state.Create(ctx, "spent", v)
			} else {
				_, err = n.state.Update(ctx, "spent", v, rev)
			}
			if errors.Is(err, jetstream.ErrKeyExists) {
				continue // another node reserved meanwhile
			}
			if err == nil {
				got = take
			}
			return err
		}
	})
	if err != nil {
		n.fail(err)
		return false
	}
	if got == 0 {
		n.spent = true
		n.signal()
		return false
	}
	n.allowance += got
	return true
}

// isWrongLastSeq reports whether err is a publish refused for a subject
// whose last sequence was not the one expected.
func isWrongLastSeq(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}
