package cluster

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"crawler/frontier"
	"crawler/seen"
)

// DefaultLease is how long a node's heartbeat, and with it its partition
// leases, live in NATS without being renewed; nodes renew it every fifth
// of that.
const DefaultLease = 5 * time.Second

// version is written in the crawl's state bucket by its first node; a
// node of another version is refused.
const version = "crawler-cluster/1"

// Errors of Join.
var (
	// ErrVersion is wrapped by the error of Join for a crawl started by
	// an incompatible version of this package.
	ErrVersion = errors.New("cluster: crawl started by an incompatible version")
	// ErrNodeInUse is wrapped by the error of Join when a live node of
	// the crawl already has the name.
	ErrNodeInUse = errors.New("cluster: node name in use by a live node")
)

// Config describes a node of a crawl.
type Config struct {
	// Conn is the node's connection to the NATS server (JetStream on).
	// Join does not close it.
	Conn *nats.Conn
	// Crawl names the crawl, so that several can share one NATS server:
	// letters, digits, '-' and '_'. "" means "crawl".
	Crawl string
	// Node names this node, unique among the crawl's live nodes and the
	// same when it restarts from its state: letters, digits, '-' and '_'.
	Node string
	// Lease is how long a node's heartbeat, and with it its partition
	// leases, live without renewal; 0 means DefaultLease. A node that stops
	// renewing (killed, or cut off from NATS) stops fetching three fifths
	// of it after its last renewal, and its partitions may go to other
	// nodes once the whole of it has passed.
	Lease time.Duration
	// MaxPages, if positive, bounds the page requests of the whole
	// crawl, all nodes and runs together. Nodes reserve requests from a
	// shared counter in small chunks.
	MaxPages int64
	// Seen is the URL-seen set of the node's Crawler. The entries a node
	// hands over with a partition are marked in it when they arrive, so
	// that a link to one of them found here later is not fetched again.
	Seen seen.Set
	// Workers is how many fetches the node's crawler runs at once (its
	// Workers), which the crawl counts to share out the work among the
	// nodes; 0 means the most entries this node has had out at once so
	// far.
	Workers int
	// Status, if not nil, returns what the node publishes about itself
	// with each heartbeat (its crawler's Stats, say), as JSON; Members
	// returns it.
	Status func() any
	// Logger receives the node's notices (partitions taken and given
	// up, NATS errors it retries); nil discards them.
	Logger *slog.Logger
}

// Node is one node of a crawl shared through NATS JetStream. It is the
// frontier of its Crawler (a frontier.Exchanger around the node's own
// frontier): hosts are split into Partitions, each held by one live node
// at a time under a lease in a JetStream key-value bucket; links to hosts
// of other partitions travel in batches on a work-queue stream, one
// subject and one consumer per partition; the crawl is finished when no
// node has work and no batch is in flight.
//
// It is a cookies.Holder: the cookies of the crawler's jar are kept in
// NATS with the hosts' partitions, and move with them (see the package
// doc).
//
// The crawler calls Push, Next, Done, Len, Forward, Receive, Finished,
// Commit, Flush and HoldCookies from its one goroutine, as it does a
// frontier's;
// Members, Stats and Close may be called from any.
type Node struct {
	cfg      Config
	local    frontier.Frontier
	commit   frontier.Committer // local, if it commits in steps
	keeper   frontier.Keeper    // local, if it keeps values
	recorder frontier.Recorder  // local, if it keeps records
	drainer  Drainer            // local, if it can give up hosts
	longest  bool               // local hands out first the hosts with the most work left (Status.Longest)
	log      *slog.Logger
	tick     time.Duration
	boot     string // this process's nonce, in its heartbeat

	js           jetstream.JetStream
	stream       jetstream.Stream
	roster       roster             // the members bucket: node name -> status (TTL: Lease); and the reports bucket
	leases       jetstream.KeyValue // "p<N>" -> node name (TTL: Lease)
	state        jetstream.KeyValue // version, spent budget (no TTL)
	cookieBucket bucket             // the cookies of each host (see cookieKey) (no TTL)
	subject      string             // prefix of the partitions' subjects
	handoff      string             // and of their handover subjects

	// Owned by the crawler's goroutine.
	out        [Partitions][]byte        // links to send, per partition
	sealed     []sealed                  // and full batches
	outLinks   int                       // links in out
	toAck      []jetstream.Msg           // batches received and discovered, acked after the next durable commit
	pending    time.Time                 // when out stopped being empty
	ackDue     time.Time                 // when toAck is to be acknowledged
	inflight   int                       // entries handed out and not Done
	partOut    [Partitions]int           // of those, per partition
	allowance  int64                     // budgeted requests reserved and not yet handed out
	spent      bool                      // the crawl's budget is spent
	in         batch                     // Receive's
	admitted   [Partitions][]uint64      // fingerprints of the URLs queued or handed over here, to hand over (see admit)
	seq        uint64                    // batches published by this process
	queuedSeqs map[uint64]time.Time      // stream sequences of the batches with queued entries taken here (see queuedAgain)
	prunedAt   time.Time                 // when queuedSeqs was last pruned
	waiting    [Partitions]atomic.Int64  // entries waiting in the local frontier, per partition
	hostsIn    [Partitions]atomic.Int32  // hosts with entries waiting here, per partition
	pace       [Partitions]atomic.Uint64 // seconds a request of the partition takes, a moving average (float64 bits; 0: none yet)
	doneIn     [Partitions]atomic.Int64  // entries of the partition done here, not retried (see Backlog.Share)
	fetchedIn  [Partitions]atomic.Int64  // of those, the ones requested
	hostWait   map[string]int            // entries waiting here, per host
	outSince   map[uint64]time.Time      // when each entry handed out was
	peak       atomic.Int64              // the most entries out at once so far
	err        error                     // the first error on the crawler's goroutine
	jar        jarState                  // the cookies of the hosts of the partitions held here

	// Shared with the background goroutines.
	roles        [Partitions]atomic.Int32 // role of each partition here
	mu           sync.Mutex
	incoming     []jetstream.Msg    // batches received, not yet taken by Receive
	taken        []int              // partitions taken, their handovers in incoming: Receive makes them active
	drains       map[int]chan int   // partitions to give up: the crawler's goroutine answers when done
	takenCookies map[int][]keptHost // the cookies of the hosts of partitions taken, read with them, until active
	ready        chan struct{}
	finished     atomic.Bool
	sent         atomic.Int64 // batches published
	acked        atomic.Int64 // batches received and acked
	linksOut     atomic.Int64 // links forwarded
	requests     atomic.Int64 // page requests
	reportMu     sync.Mutex
	idle         bool // as last reported
	gone         bool // the last report is published: Close

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	held   map[int]*lease // the background goroutine's
	left   []int          // partitions whose leases may name this node, not held: left at a lapse (see expire), or not taken for an error; the background goroutine's
	moves  map[int]string // the crawl's moves, as last read (the background goroutine's)
	// The partitions this node, as the leader, moved and were not yet
	// seen at their new holders, with their work then (see rebalance).
	// The background goroutine's.
	transit    map[int]transit
	planNext   time.Time       // when the leader may plan again after a plan carried out
	leads      bool            // this node was the leader at its last rebalance
	idleNodes  map[string]bool // each node's idleness as the leader last read it (see ranDry)
	dryPending bool            // a node ran dry and the leader has not planned since
	dryPlanned time.Time       // when stealForDry last planned
	closed     atomic.Bool
	alive      atomic.Int64 // UnixNano until which the node may use its leases (see lapsed)
}

// Roles of a partition on a node.
const (
	foreign  = iota // held by another node, or by none: links go to its stream
	active          // held here: its hosts are fetched here
	awaiting        // this node should hold it and will: its entries wait here
	taking          // held here, its handover not yet taken by Receive: its entries wait here
)

// lease is a partition held by this node.
type lease struct {
	rev        uint64                   // revision of the lease's key
	consumer   jetstream.ConsumeContext // the partition's consumer
	handoff    jetstream.Consumer       // of its handover subject
	draining   bool                     // being given up
	drained    chan int                 // answered by the crawler's goroutine
	handedOver bool                     // drained answered: the lease is to be released
}

// Drainer is a frontier that can give up the waiting entries of some
// hosts, with their pacing, which a node does to hand a partition over
// to a node that joined, and take a host's pacing from the node that
// handed it over. store.Frontier is one. A node whose frontier is not a
// Drainer hands a partition over without its waiting entries, sending
// each to the new holder as it comes to it, and without its hosts'
// pacing; its partitions are never moved to a node with less work.
type Drainer interface {
	// Drain removes and returns the waiting entries of the hosts for which
	// match returns true; entries handed out and not yet Done are left.
	// It calls ready with each such host not to be contacted before a
	// time to come, and that time.
	Drain(match func(host string) bool, ready func(host string, at time.Time)) []frontier.Entry
	// Hold makes host wait until until, if it would not already.
	Hold(host string, until time.Time)
	// Waiting yields each host with entries waiting, and how many: a
	// node counts its partitions' backlogs from it when it starts (and
	// keeps the counts as entries come and go), to balance them.
	Waiting() iter.Seq2[string, int]
}

// longestServer is a local frontier that may hand out first the ready
// hosts with the most work left (store.Frontier is one, under
// store.Options.LongestFirst), which the leader's plans model.
type longestServer interface{ LongestFirst() bool }

var namePattern = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Join makes this process the node cfg.Node of crawl cfg.Crawl, with local
// as the node's own frontier (a durable one, such as store.Frontier, for a
// node that restarts with nothing lost). It creates the crawl's stream and
// buckets if they are missing, refuses a crawl of another version and a
// name a live node has, announces the node and takes the partitions it
// should hold that nobody holds. Close leaves the crawl.
func Join(ctx context.Context, cfg Config, local frontier.Frontier) (*Node, error) {
	cfg.Crawl = cmpOr(cfg.Crawl, "crawl")
	if cfg.Conn == nil {
		return nil, errors.New("cluster: Config.Conn is nil")
	}
	if !namePattern.MatchString(cfg.Crawl) || !namePattern.MatchString(cfg.Node) {
		return nil, fmt.Errorf("cluster: crawl %q or node %q is not a name of letters, digits, '-' and '_'", cfg.Crawl, cfg.Node)
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	n := &Node{cfg: cfg, local: local, log: cfg.Logger, tick: cfg.Lease / 5, boot: nuid.Next(),
		subject: "crawl." + cfg.Crawl + ".urls.", handoff: "crawl." + cfg.Crawl + ".handoff.", ready: make(chan struct{}, 1),
		drains: map[int]chan int{}, held: map[int]*lease{}, moves: map[int]string{}, transit: map[int]transit{}, idleNodes: map[string]bool{},
		hostWait: map[string]int{}, outSince: map[uint64]time.Time{}}
	n.commit, _ = local.(frontier.Committer)
	n.keeper, _ = local.(frontier.Keeper)
	n.recorder, _ = local.(frontier.Recorder)
	n.drainer, _ = local.(Drainer)
	if lf, ok := local.(longestServer); ok {
		n.longest = lf.LongestFirst()
	}
	if n.drainer != nil {
		for host, k := range n.drainer.Waiting() {
			n.wait(host, k)
		}
	}
	if n.log == nil {
		n.log = slog.New(slog.DiscardHandler)
	}
	js, err := jetstream.New(cfg.Conn)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	n.js = js
	if err := joinRetry(ctx, n.log, n.setUp); err != nil {
		return nil, err
	}
	if err := joinRetry(ctx, n.log, n.claimName); err != nil {
		return nil, err
	}
	busy := false
	if err := joinRetry(ctx, n.log, func(ctx context.Context) error { return n.report(ctx, &busy) }); err != nil {
		return nil, fmt.Errorf("cluster: announce node: %w", err)
	}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	n.wg.Go(n.beat)
	if err := n.settle(ctx); err != nil {
		n.Close()
		return nil, err
	}
	n.reclaim(ctx)
	n.balance(ctx)
	n.wg.Go(n.run)
	return n, nil
}

// settle waits until the live members have been the same for half a
// tick, or two ticks have passed, before the node takes partitions: nodes
// started together see each other, rather than one taking all and
// handing most over, and the crawl starts once the last has announced
// itself, not two ticks after. A member list that cannot be read counts
// as a change.
func (n *Node) settle(ctx context.Context) error {
	deadline := time.Now().Add(2 * n.tick)
	var last []string
	for {
		names, err := n.roster.names(ctx)
		if err == nil && last != nil && slices.Equal(names, last) {
			return nil
		}
		if err == nil {
			last = names
		}
		wait := min(n.tick/2, time.Until(deadline))
		if wait <= 0 {
			return nil
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// joinRetry runs f, a step of Join, again while it fails for a request
// that timed out or found no JetStream (a server busy, or restarting),
// for up to a minute or until ctx ends.
func joinRetry(ctx context.Context, log *slog.Logger, f func(context.Context) error) error {
	deadline := time.Now().Add(time.Minute)
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		err := f(ctx)
		transient := errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil ||
			errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrJetStreamNotEnabled)
		if !transient || time.Now().After(deadline) {
			return err
		}
		log.Warn("cluster: retrying", "what", "join", "err", err)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return err
		}
	}
}

// reclaim takes back the partitions whose leases this node's earlier
// process left (killed, or closed), before the first balance: those it
// should no longer hold (a node joined meanwhile) it then hands over, as
// any other, with what waits for them in its state. Left alone, such a
// lease would name a live node that does not know it holds it, and the
// partition's owner would wait for it forever.
func (n *Node) reclaim(ctx context.Context) {
	names, err := n.roster.names(ctx)
	if err != nil {
		n.log.Warn("cluster: members; leases left by this node's earlier process not taken back", "err", err)
		return
	}
	var mine [Partitions]bool
	parallel(Partitions, func(p int) {
		e, err := n.leases.Get(ctx, leaseKey(p))
		// One that could not be read may be this node's: take tells.
		mine[p] = err == nil && string(e.Value()) == n.cfg.Node || err != nil && !errors.Is(err, jetstream.ErrKeyNotFound)
	})
	var ps []int
	for p, ok := range mine {
		if ok {
			ps = append(ps, p)
		}
	}
	n.left = n.takeAll(ps, names) // and balance tries those again
}

// inParallel is how many partitions a node takes at once: one at a time,
// each seven requests to JetStream, a lone node spent ~1.9 s in Join (12 s
// under the race detector); 16 at a time, nodes starting together queued
// so many requests at a loaded server that another's took over 5 s.
const inParallel = 4

// parallel calls f(i) for each i below k, inParallel at a time, and
// returns when all have returned.
func parallel(k int, f func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, inParallel)
	for i := range k {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			f(i)
		})
	}
	wg.Wait()
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// setUp creates or opens the crawl's stream and buckets, and checks the
// crawl's version.
func (n *Node) setUp(ctx context.Context) error {
	name := n.cfg.Crawl
	// Made by the first node, opened by the others: an existing stream or
	// bucket is not updated (an update racing another node's consumers
	// upsets the server).
	var err error
	cfg := jetstream.StreamConfig{
		Name:      "CRAWL_" + name,
		Subjects:  []string{n.subject + "*", n.handoff + "*"},
		Retention: jetstream.WorkQueuePolicy,
		Storage:   jetstream.FileStorage,
	}
	if n.stream, err = n.js.Stream(ctx, cfg.Name); errors.Is(err, jetstream.ErrStreamNotFound) {
		if n.stream, err = n.js.CreateStream(ctx, cfg); err != nil {
			n.stream, err = n.js.Stream(ctx, cfg.Name) // made by another node meanwhile
		}
	}
	if err != nil {
		return fmt.Errorf("cluster: stream of crawl %q: %w", name, err)
	}
	kv := func(bucket string, ttl time.Duration) (jetstream.KeyValue, error) {
		b, err := n.js.KeyValue(ctx, bucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			if b, err = n.js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: bucket, TTL: ttl, Storage: jetstream.FileStorage}); err != nil {
				b, err = n.js.KeyValue(ctx, bucket)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("cluster: bucket %s: %w", bucket, err)
		}
		return b, nil
	}
	members, err := kv(membersBucket(name), n.cfg.Lease)
	if err != nil {
		return err
	}
	reports, err := kv(reportsBucket(name), 0)
	if err != nil {
		return err
	}
	if n.roster, err = openRoster(ctx, n.js, name, members, reports); err != nil {
		return err
	}
	if n.leases, err = kv("crawl_"+name+"_leases", 0); err != nil {
		return err
	}
	if n.state, err = kv("crawl_"+name, 0); err != nil {
		return err
	}
	cookieKV, err := kv(cookiesBucket(name), 0)
	if err != nil {
		return err
	}
	if n.cookieBucket, err = openBucket(ctx, n.js, cookiesBucket(name), cookieKV); err != nil {
		return err
	}
	if _, err := n.state.Create(ctx, "version", []byte(version)); err != nil && !errors.Is(err, jetstream.ErrKeyExists) {
		return fmt.Errorf("cluster: crawl %q: %w", name, err)
	}
	e, err := n.state.Get(ctx, "version")
	if err != nil {
		return fmt.Errorf("cluster: crawl %q: %w", name, err)
	}
	if v := string(e.Value()); v != version {
		return fmt.Errorf("%w: crawl %q is %q, this node %q", ErrVersion, name, v, version)
	}
	return nil
}

// claimName refuses the node's name if a live node has it: a heartbeat
// under the name that is renewed while this node waits a tick and a half.
// A heartbeat left by this node's own earlier process (killed) is not
// renewed.
func (n *Node) claimName(ctx context.Context) error {
	e, err := n.roster.kv.Get(ctx, n.cfg.Node)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil
	} else if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	select {
	case <-time.After(n.tick * 3 / 2):
	case <-ctx.Done():
		return ctx.Err()
	}
	again, err := n.roster.kv.Get(ctx, n.cfg.Node)
	if err == nil && again.Revision() != e.Revision() {
		return fmt.Errorf("%w: %q in crawl %q", ErrNodeInUse, n.cfg.Node, n.cfg.Crawl)
	}
	return nil
}

// Status is what a node publishes about itself with each heartbeat, and
// a last time as it closes.
type Status struct {
	Node     string          `json:"node"`
	Boot     string          `json:"boot"`               // nonce of the node's process
	Time     time.Time       `json:"time"`               // when the node published it
	Live     bool            `json:"live"`               // the node is live: set by Members and Reports, not published
	Left     bool            `json:"left"`               // the process closed: its last report, with its final counts
	Idle     bool            `json:"idle"`               // no work here and nothing unacknowledged
	Sent     int64           `json:"sent"`               // batches of links published (this process)
	Acked    int64           `json:"acked"`              // batches received and acknowledged (this process)
	Links    int64           `json:"links"`              // links forwarded (this process)
	Requests int64           `json:"requests"`           // page requests (this process)
	Held     int             `json:"held"`               // partitions held
	Waiting  int64           `json:"waiting"`            // entries waiting here
	Workers  int             `json:"workers,omitempty"`  // fetches at once (Config.Workers, or the most so far)
	Drains   bool            `json:"drains,omitempty"`   // its frontier is a Drainer: partitions may move to and from it
	Longest  bool            `json:"longest,omitempty"`  // its frontier hands out first the ready hosts with the most work left (store.Options.LongestFirst)
	Backlogs []Backlog       `json:"backlogs,omitempty"` // the partitions held with entries waiting, most work first
	Status   json.RawMessage `json:"status,omitempty"`   // Config.Status
}

// Backlog is the work left of a partition at the node that holds it: how
// many entries wait, on how many hosts, and how long a request of the
// partition takes.
type Backlog struct {
	Partition int     `json:"partition"`
	Waiting   int64   `json:"waiting"`
	Hosts     int     `json:"hosts,omitempty"` // hosts with entries waiting
	Pace      float64 `json:"pace,omitempty"`  // seconds a request takes, a moving average; 0: none done yet
	// Share is the share of the partition's entries done here that were
	// requested, counting one requested before any (an entry robots.txt
	// disallows is done at once, without a request): the share of the
	// entries waiting that will take a request. 0: all of them.
	Share float64 `json:"share,omitempty"`
}

// work returns the seconds of fetching b has left at pace (b's own if it
// has one), and its span: the seconds its busiest host needs alone, one
// request at a time, taking its hosts as even.
func (b Backlog) work(pace float64) (work, span float64) {
	if b.Pace > 0 {
		pace = b.Pace
	}
	work = float64(b.Waiting) * pace
	if b.Share > 0 {
		work *= b.Share
	}
	return work, work / float64(max(b.Hosts, 1))
}

// backlogs returns the entries waiting here, and the backlogs of the
// partitions held here that another node may take (see rebalance), most
// work first: none if the local frontier cannot give partitions up.
func (n *Node) backlogs() (int64, []Backlog) {
	var total int64
	var bs []Backlog
	for p := range n.waiting {
		k := n.waiting[p].Load()
		total += k
		if k > 0 && n.drainer != nil && n.roles[p].Load() == active {
			share := float64(n.fetchedIn[p].Load()+1) / float64(n.doneIn[p].Load()+1)
			bs = append(bs, Backlog{Partition: p, Waiting: k, Hosts: int(n.hostsIn[p].Load()), Pace: math.Float64frombits(n.pace[p].Load()), Share: share})
		}
	}
	pace := meanPace(bs)
	slices.SortFunc(bs, func(a, b Backlog) int {
		wa, _ := a.work(pace)
		wb, _ := b.work(pace)
		return cmp.Or(cmp.Compare(wb, wa), cmp.Compare(a.Partition, b.Partition))
	})
	return total, bs
}

// meanPace returns the mean pace of the backlogs that have one, or 1 if
// none has: the pace of a partition none of whose requests is done yet.
func meanPace(bs []Backlog) float64 {
	var sum float64
	k := 0
	for _, b := range bs {
		if b.Pace > 0 {
			sum += b.Pace
			k++
		}
	}
	if k == 0 {
		return 1
	}
	return sum / float64(k)
}

// workers returns how many fetches the node runs at once: Config.Workers,
// or the most it has had out at once so far.
func (n *Node) workers() int {
	if n.cfg.Workers > 0 {
		return n.cfg.Workers
	}
	return int(max(n.peak.Load(), 1))
}

// status returns the node's status now; n.reportMu is held.
func (n *Node) status(idle bool) Status {
	st := Status{Node: n.cfg.Node, Boot: n.boot, Time: time.Now(), Idle: idle, Sent: n.sent.Load(), Acked: n.acked.Load(),
		Links: n.linksOut.Load(), Requests: n.requests.Load(), Held: n.countActive(), Workers: n.workers(), Drains: n.drainer != nil,
		Longest: n.longest}
	st.Waiting, st.Backlogs = n.backlogs()
	if n.cfg.Status != nil {
		if b, err := json.Marshal(n.cfg.Status()); err == nil {
			st.Status = b
		}
	}
	return st
}

// report publishes the node's heartbeat, idle as given or if nil as last
// reported, and then the same status as its process's report. Once the
// node has closed it publishes nothing.
func (n *Node) report(ctx context.Context, idle *bool) error {
	n.reportMu.Lock()
	defer n.reportMu.Unlock()
	if n.gone {
		return nil
	}
	if idle == nil {
		idle = &n.idle
	}
	st := n.status(*idle)
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	start := time.Now()
	if _, err := n.roster.kv.Put(ctx, n.cfg.Node, b); err != nil {
		return err
	}
	n.alive.Store(start.Add(n.cfg.Lease - 2*n.tick).UnixNano())
	n.idle = st.Idle
	// The report, for the crawl's totals once the node is gone: not
	// needed to stay a member, so its error is only logged.
	if _, err := n.roster.reports.kv.Put(ctx, reportKey(n.cfg.Node, n.boot), b); err != nil {
		n.log.Warn("cluster: report", "err", err)
	}
	return nil
}

// leave publishes the node's last report, with Left set and its final
// counts, and then deletes its heartbeat, so that the node is no longer
// among the live members; a heartbeat of another process of the same
// name (this one's lapsed, and the name was taken) is left alone. After
// it, report publishes nothing.
func (n *Node) leave() error {
	n.reportMu.Lock()
	defer n.reportMu.Unlock()
	if n.gone {
		return nil
	}
	n.gone = true
	st := n.status(n.idle)
	st.Left = true
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), n.cfg.Lease)
	defer cancel()
	if _, err := n.roster.reports.kv.Put(ctx, reportKey(n.cfg.Node, n.boot), b); err != nil {
		return fmt.Errorf("cluster: last report of node %q: %w", n.cfg.Node, err)
	}
	// A heartbeat of this process that lands between the Get and the
	// Delete (a report whose request Close cut short, applied by the
	// server all the same) changes the revision: read it again.
	for tries := 1; ; tries++ {
		e, err := n.roster.kv.Get(ctx, n.cfg.Node)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return nil // expired
		} else if err != nil {
			return fmt.Errorf("cluster: heartbeat of node %q: %w", n.cfg.Node, err)
		}
		var last Status
		if json.Unmarshal(e.Value(), &last) == nil && last.Boot != n.boot {
			return nil
		}
		err = n.roster.kv.Delete(ctx, n.cfg.Node, jetstream.LastRevision(e.Revision()))
		if errors.Is(err, jetstream.ErrKeyRevisionMismatch) && tries < 3 {
			continue
		}
		if err != nil {
			return fmt.Errorf("cluster: heartbeat of node %q: %w", n.cfg.Node, err)
		}
		return nil
	}
}

// setIdle reports a change of idleness at once: a node busy again says so
// before it acknowledges the batch that made it busy, so that a node that
// sees the stream empty and then every node idle knows the crawl is done.
func (n *Node) setIdle(idle bool) error {
	n.reportMu.Lock()
	same := n.idle == idle
	n.reportMu.Unlock()
	if same {
		return nil
	}
	return n.retry("heartbeat", func(ctx context.Context) error { return n.report(ctx, &idle) })
}

func (n *Node) countActive() int {
	k := 0
	for p := range n.roles {
		if r := n.roles[p].Load(); r == active || r == taking {
			k++
		}
	}
	return k
}

// Members returns the status of the crawl's live nodes, by name (see
// the function Members).
func (n *Node) Members(ctx context.Context) ([]Status, error) { return n.roster.statuses(ctx) }

// Reports returns the last status of every process of every node of the
// crawl, live or not (see the function Reports). After Close it still
// answers, while the NATS connection is open: the node's own report is
// then its last, with Left set.
func (n *Node) Reports(ctx context.Context) ([]Status, error) { return n.roster.all(ctx) }

// Name returns the node's name.
func (n *Node) Name() string { return n.cfg.Node }

// Close leaves the crawl: it stops the node's consumers and heartbeats,
// publishes the node's last report (Reports), with its final counts, and
// deletes its heartbeat, so that it is no longer among the live Members.
// Call it after the Crawler's Run has returned, so that the report
// counts every request. Its leases are left to expire, so that a node
// that restarts soon takes its partitions back; links it has not sent
// are in its local frontier's steps not yet committed, and are found
// again. Close does not close the local frontier or the NATS connection;
// its error is that of the last report or of the heartbeat's deletion.
func (n *Node) Close() error {
	if !n.closed.CompareAndSwap(false, true) {
		return nil
	}
	n.cancel()
	n.wg.Wait()
	for _, l := range n.held {
		if l.consumer != nil {
			l.consumer.Stop()
		}
	}
	return n.leave()
}

// retry runs f until it succeeds, the node closes, or a minute passes
// (NATS restarting: nodes wait for it).
func (n *Node) retry(what string, f func(context.Context) error) error {
	deadline := time.Now().Add(time.Minute)
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := f(ctx)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || n.ctx != nil && n.ctx.Err() != nil {
			return fmt.Errorf("cluster: %s: %w", what, err)
		}
		n.log.Warn("cluster: retrying", "what", what, "err", err)
		time.Sleep(wait)
	}
}

// signal wakes the crawler's goroutine (Ready).
func (n *Node) signal() {
	select {
	case n.ready <- struct{}{}:
	default:
	}
}

// beat renews the node's heartbeat every tick, on a goroutine of its own
// so that nothing slower delays it.
func (n *Node) beat() {
	t := time.NewTicker(n.tick)
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(n.ctx, n.cfg.Lease)
		if err := n.report(ctx, nil); err != nil {
			n.log.Warn("cluster: heartbeat", "err", err)
		}
		cancel()
	}
}

// checkEvery is how often a node checks whether the crawl is finished
// (and, if it leads, whether a node has run dry: see stealForDry), and
// confirmAfter how soon it checks again once the crawl seems finished.
const (
	checkEvery   = 250 * time.Millisecond
	confirmAfter = 50 * time.Millisecond
)

// run is the node's background goroutine for leases, every tick, and the
// checks for the end of the crawl and for nodes run dry.
func (n *Node) run() {
	beat := time.NewTicker(n.tick)
	defer beat.Stop()
	every := min(n.tick, checkEvery)
	check := time.NewTicker(every)
	defer check.Stop()
	streak := 0
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-beat.C:
			ctx, cancel := context.WithTimeout(n.ctx, n.cfg.Lease)
			n.balance(ctx)
			cancel()
		case <-check.C:
			ctx, cancel := context.WithTimeout(n.ctx, n.cfg.Lease)
			if n.doneEverywhere(ctx) {
				streak++
			} else {
				streak = 0
			}
			if streak == 1 {
				check.Reset(min(every, confirmAfter))
			} else {
				check.Reset(every)
			}
			if streak == 0 && n.leads {
				n.stealForDry(ctx)
			}
			cancel()
			if streak >= 2 {
				n.finished.Store(true)
			}
		}
		n.signal()
	}
}

// doneEverywhere reports whether the crawl's stream holds no batch and
// then every live node is idle. Read in this order, and with nodes that
// report busy before they acknowledge a batch, the two cannot both hold
// while a link is on its way or being discovered.
func (n *Node) doneEverywhere(ctx context.Context) bool {
	info, err := n.stream.Info(ctx)
	if err != nil || info.State.Msgs > 0 {
		return false
	}
	ms, err := n.Members(ctx)
	if err != nil || len(ms) == 0 {
		return false
	}
	for _, m := range ms {
		if !m.Idle {
			return false
		}
	}
	return true
}

// balance renews the node's leases, takes the partitions it should hold
// that are free, and gives up (drains) those another live node should
// hold.
func (n *Node) balance(ctx context.Context) {
	names, err := n.roster.names(ctx)
	n.expire()
	if err != nil || n.lapsed(time.Now()) {
		if err != nil {
			n.log.Warn("cluster: members", "err", err)
		}
		return
	}
	live := slices.Clone(names)
	names = n.withSelf(names)
	n.unstick(ctx)
	n.readMoves(ctx)
	// The leases left at a lapse, or not taken for an error, may name
	// this node (unless another took them once its heartbeat expired): it
	// takes them back, and hands over below those another node should
	// hold now, which would otherwise wait for them as long as this node
	// lives.
	var free []int
	for _, p := range n.left {
		if n.held[p] == nil {
			free = append(free, p)
		}
	}
	slices.Sort(free)
	n.left = n.takeAll(slices.Compact(free), live) // those not taken for an error are tried again
	free = free[:0]
	for p := range Partitions {
		owner := n.owner(p, names)
		l := n.held[p]
		switch {
		case l != nil && l.draining:
			n.drainStep(ctx, p, l)
		case l != nil && owner != n.cfg.Node:
			n.startDrain(p, l)
		case l == nil && owner == n.cfg.Node:
			free = append(free, p)
		case l != nil && l.consumer == nil:
			// Its consumer could not be made anew (see unstick).
			if err := n.consume(ctx, p, l); err != nil {
				n.log.Warn("cluster: consumer", "partition", p, "err", err)
			}
		}
	}
	// One not taken for an error may name this node (made, and not
	// answered): it is tried again even if this node should not hold it
	// by then, and handed over.
	n.left = append(n.left, n.takeAll(free, live)...)
	n.rebalance(ctx, names)
}

// withSelf returns names, the crawl's nodes as the roster lists them,
// with this node among them: a node shares out partitions among those
// and itself, even while its own heartbeat is not (or no longer) listed.
func (n *Node) withSelf(names []string) []string {
	if !slices.Contains(names, n.cfg.Node) {
		names = append(names, n.cfg.Node)
	}
	return names
}

// movesKey is the key, in the crawl's state bucket, of its moves: the
// partitions that a node took from another with more work, as a JSON
// object from partition to node.
const movesKey = "moves"

// readMoves reads the crawl's moves; on an error it keeps those last read.
func (n *Node) readMoves(ctx context.Context) {
	moves, _, err := n.getMoves(ctx)
	if err != nil {
		n.log.Warn("cluster: moves", "err", err)
		return
	}
	n.moves = moves
}

// getMoves returns the crawl's moves and the revision of their key, 0 if
// there is none yet.
func (n *Node) getMoves(ctx context.Context) (map[int]string, uint64, error) {
	moves := map[int]string{}
	e, err := n.state.Get(ctx, movesKey)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return moves, 0, nil
	case err != nil:
		return nil, 0, err
	}
	if err := json.Unmarshal(e.Value(), &moves); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", movesKey, err)
	}
	return moves, e.Revision(), nil
}

// owner returns the node that should hold p among names (the live nodes
// and this one) by the moves this node knows (see ownerIn).
func (n *Node) owner(p int, names []string) string { return ownerIn(n.moves, p, names) }

// ownerIn returns the node that should hold p among names by moves: the
// node p was moved to, if it is among them, and otherwise the
// partition's Owner.
func ownerIn(moves map[int]string, p int, names []string) string {
	if m, ok := moves[p]; ok && slices.Contains(names, m) {
		return m
	}
	return Owner(p, names)
}

// moveTicks is how many ticks a partition that moves leaves its hosts
// unfetched, about: its holder sees the move at its next tick and hands
// the partition over once its fetches in flight end, releases the lease
// at the tick after, and the new holder takes it at its own next tick.
const moveTicks = 3

// settleTicks is how many ticks a partition the leader moved stays
// where it went before it may move again: long enough for the move to
// end and the estimates to count it there. The leader plans again half
// that after a plan it carried out.
const settleTicks = 15

// transit is a partition the leader moved lately: until it is seen at
// its new holder its work counts there, and it stays there until the
// time given.
type transit struct {
	work  partWork
	until time.Time
}

// ranDry reads in ms which of the nodes that can take partitions report
// themselves idle (their frontiers empty, nothing in flight; a node
// reports so at once, see setIdle), and reports whether one has run dry
// since the leader last planned: it reported itself busy at the last
// read and idle now (a node idle since the leader first saw it, at the
// crawl's start, has not run dry).
func (n *Node) ranDry(ms []Status) bool {
	idle := make(map[string]bool, len(ms))
	for _, m := range ms {
		if m.Drains {
			idle[m.Node] = m.Idle
			if was, seen := n.idleNodes[m.Node]; m.Idle && seen && !was {
				n.dryPending = true
			}
		}
	}
	n.idleNodes = idle
	return n.dryPending
}

// leader reports whether this node leads the nodes of ms: it is the one
// of least name among those whose frontiers can give partitions up, and
// there are two or more.
func (n *Node) leader(ms []Status) bool {
	least, k := "", 0
	for _, m := range ms {
		if m.Drains {
			k++
			if least == "" || m.Node < least {
				least = m.Node
			}
		}
	}
	return k >= 2 && least == n.cfg.Node
}

// rebalance shares out the work, if this node is the leader: the live
// node of least name among those whose frontiers can give partitions
// up. It plans (see plan) every tick, but for half of settleTicks after a
// plan carried out, unless a node has run dry meanwhile (see
// stealForDry). A partition moved stays where it went for settleTicks,
// and every partition counts at the crawl's mean pace unless its own is
// more than twice or less than half of it, so that the noise of the
// estimates does not move partitions back and forth.
func (n *Node) rebalance(ctx context.Context, names []string) {
	if n.drainer == nil {
		return
	}
	ms, err := n.roster.statuses(ctx)
	if err != nil {
		return
	}
	dry := n.ranDry(ms)
	n.leads = n.leader(ms)
	switch {
	case !n.leads:
		clear(n.transit)
		n.dryPending = false
	case time.Now().Before(n.planNext) && !dry:
		// the last plan's moves settle first
	case n.plan(ctx, names, ms):
		n.dryPending = false
	}
}

// stealForDry plans at once, between ticks, if this node leads and a
// node has run dry since the leader last planned (see ranDry), even
// while the last plan's moves settle: a node with nothing left to do has
// partitions moved to it (if that pays, see plan) within a check
// (checkEvery) of its report saying so, rather than at the leader's next
// tick or after the hold. At most once a tick, so that a node that goes
// idle and busy in turn does not set off a plan at every check.
func (n *Node) stealForDry(ctx context.Context) {
	ms, err := n.roster.statuses(ctx)
	if err != nil {
		return
	}
	if !n.ranDry(ms) || !n.leader(ms) || time.Since(n.dryPlanned) < n.tick {
		return
	}
	names, err := n.roster.names(ctx)
	if err != nil || n.lapsed(time.Now()) {
		return
	}
	n.dryPlanned = time.Now()
	if n.plan(ctx, n.withSelf(names), ms) {
		n.dryPending = false
	}
}

// plan plans where each partition should be, from the backlogs the
// nodes of ms published with their last heartbeats (entries waiting ×
// the partition's pace, see Backlog), longest work first (see assign),
// and if the plan ends the crawl sooner by more than a move costs, it
// records the partitions to move in the crawl's moves (with a
// compare-and-set); their holders hand them over as to a node that
// joined, in about moveTicks. It reports whether it planned: false if no
// request is done yet (no pace to count the work in) or the moves could
// not be recorded.
func (n *Node) plan(ctx context.Context, names []string, ms []Status) bool {
	var nodes []nodeCap
	var all []Backlog
	for _, m := range ms {
		if m.Drains {
			nodes = append(nodes, nodeCap{m.Node, max(m.Workers, 1), m.Longest})
			all = append(all, m.Backlogs...)
		}
	}
	if !slices.ContainsFunc(all, func(b Backlog) bool { return b.Pace > 0 }) {
		return false
	}
	now := time.Now()
	pace := meanPace(all)
	var parts []partWork
	listed := map[int]bool{}
	for _, m := range ms {
		if !m.Drains {
			continue
		}
		for _, b := range m.Backlogs {
			if b.Pace < 2*pace && b.Pace > pace/2 {
				b.Pace = 0 // the crawl's: not each partition's noise
			}
			w := partWork{p: b.Partition, holder: m.Node, hosts: max(b.Hosts, 1)}
			w.work, w.span = b.work(pace)
			if to := n.owner(b.Partition, names); to != m.Node {
				w.holder, w.fixed = to, true // moving there
			} else if _, ok := n.transit[b.Partition]; ok {
				w.fixed = true // moved lately: it settles first
			}
			listed[b.Partition] = true
			parts = append(parts, w)
		}
	}
	for p, t := range n.transit {
		switch {
		case now.After(t.until) || n.owner(p, names) != t.work.holder:
			delete(n.transit, p)
		case !listed[p]:
			parts = append(parts, t.work) // between its two holders
		}
	}
	cost := moveTicks * n.tick.Seconds()
	moves, before, after := assign(nodes, parts, cost)
	if len(moves) == 0 || !worthMoving(before, after, cost) {
		return true
	}
	from := map[int]string{}
	for _, w := range parts {
		if _, ok := moves[w.p]; ok {
			from[w.p] = w.holder
		}
	}
	done, err := n.move(ctx, moves, func(p int, moves map[int]string) bool {
		return ownerIn(moves, p, names) == from[p]
	})
	if err != nil {
		n.log.Warn("cluster: moves", "err", err)
		return false
	}
	for _, w := range parts {
		if to, ok := done[w.p]; ok {
			w.holder, w.fixed = to, true
			n.transit[w.p] = transit{work: w, until: now.Add(settleTicks * n.tick)}
			n.moves[w.p] = to // as written
			n.log.Info("cluster: moving a partition to share out the work", "partition", w.p, "from", from[w.p], "to", to,
				"seconds", fmt.Sprintf("%.1f", w.work))
		}
	}
	n.planNext = now.Add(settleTicks * n.tick / 2)
	n.log.Info("cluster: partitions moved", "moves", len(done), "makespan", fmt.Sprintf("%.1fs", before), "planned", fmt.Sprintf("%.1fs", after))
	return true
}

// move records in the crawl's moves that each partition of want is to be
// held by its node, those for which still (given the moves as they are
// in the bucket) returns true, and returns those it recorded.
func (n *Node) move(ctx context.Context, want map[int]string, still func(p int, moves map[int]string) bool) (map[int]string, error) {
	moves, rev, err := n.getMoves(ctx)
	if err != nil {
		return nil, err
	}
	done := map[int]string{}
	for p, to := range want {
		if still(p, moves) {
			done[p] = to
		}
	}
	if len(done) == 0 {
		return done, nil
	}
	for p, to := range done {
		moves[p] = to
	}
	b, err := json.Marshal(moves)
	if err != nil {
		return nil, err
	}
	if rev == 0 {
		_, err = n.state.Create(ctx, movesKey, b)
	} else {
		_, err = n.state.Update(ctx, movesKey, b, rev)
	}
	if err != nil {
		return nil, err
	}
	return done, nil
}

// expire gives up the partitions held, if the node's heartbeat was not
// renewed in time: other nodes may take them once it expires. Once its
// heartbeat is renewed, the node takes back those no other node took
// meanwhile (see balance).
func (n *Node) expire() {
	if !n.lapsed(time.Now()) {
		return
	}
	for p, l := range n.held {
		if !l.draining {
			n.log.Warn("cluster: heartbeat not renewed in time; partition left", "partition", p)
			n.drop(p, l)
			n.left = append(n.left, p)
		}
	}
}

// lapsed reports whether, at now, the node's last heartbeat is too old for
// it to use its leases: a lease lives as long as its holder's heartbeat,
// and the node stops using it two ticks before the heartbeat can expire.
func (n *Node) lapsed(now time.Time) bool { return now.UnixNano() > n.alive.Load() }

// isLive reports whether the node holder is live: among live, or, since
// live was read before this balance began, with a heartbeat now. Only a
// node whose heartbeat expired may lose its leases.
func (n *Node) isLive(ctx context.Context, holder string, live []string) bool {
	if slices.Contains(live, holder) {
		return true
	}
	_, err := n.roster.kv.Get(ctx, holder)
	return !errors.Is(err, jetstream.ErrKeyNotFound)
}

func leaseKey(p int) string { return "p" + strconv.Itoa(p) }

// handoffKey names the consumer of p's handover subject.
func handoffKey(p int) string { return "h" + strconv.Itoa(p) }

// lock takes the lease of p if it is free, this node's own (left by this
// node before a restart or a lapse of its heartbeat), or held by a node
// not among live (whose heartbeat expired). A lease has no expiry of its
// own: it lives as long as its holder's heartbeat, so that a node renews
// one key a tick, not one per partition. It returns the revision of the
// lease taken; ok is false if a live node holds it, or for an error, and
// the lease may name this node then.
func (n *Node) lock(ctx context.Context, p int, live []string) (rev uint64, ok bool, err error) {
	key := leaseKey(p)
	rev, err = n.leases.Create(ctx, key, []byte(n.cfg.Node))
	if errors.Is(err, jetstream.ErrKeyExists) {
		e, gerr := n.leases.Get(ctx, key)
		if gerr != nil {
			n.roles[p].Store(awaiting)
			return 0, false, gerr
		}
		if holder := string(e.Value()); holder != n.cfg.Node && n.isLive(ctx, holder, live) {
			n.roles[p].Store(awaiting) // a live node holds it: wait for it to hand it over
			return 0, false, nil
		}
		rev, err = n.leases.Update(ctx, key, []byte(n.cfg.Node), e.Revision())
	}
	if err != nil {
		n.roles[p].Store(awaiting)
		return 0, false, err
	}
	return rev, true, nil
}

// start starts the partition p whose lease this node took at revision
// rev: it reads the cookies of its hosts (if keyed: the bucket holds
// some), and starts its consumer. It returns the lease, which the caller
// records as held, or an error, and the lease stays this node's, and is
// taken again.
func (n *Node) start(ctx context.Context, p int, rev uint64, keyed bool) (*lease, error) {
	// The cookies of its hosts, as its last holder wrote them before it
	// released the lease, or last wrote them if it was killed.
	var kept []keptHost
	var err error
	if keyed {
		kept, err = n.readCookies(ctx, p)
	}
	if err != nil {
		n.roles[p].Store(awaiting)
		return nil, fmt.Errorf("cookies: %w", err)
	}
	l := &lease{rev: rev}
	if err := n.consume(ctx, p, l); err != nil {
		n.roles[p].Store(awaiting)
		return nil, fmt.Errorf("consumer: %w", err)
	}
	// Taking until Receive has taken the handover queued above, then
	// active: a URL of the partition discovered here before that (a seed)
	// is sent to its stream, and comes back after the handover has marked
	// what the last holder saw.
	n.roles[p].Store(taking)
	n.mu.Lock()
	n.taken = append(n.taken, p)
	if n.takenCookies == nil {
		n.takenCookies = map[int][]keptHost{}
	}
	n.takenCookies[p] = kept
	n.mu.Unlock()
	n.signal()
	n.log.Debug("cluster: partition taken", "partition", p)
	return l, nil
}

// takeAll takes the partitions ps whose leases it can take (see lock),
// several at once, each with its own timeout, starts them (see start),
// and records them as held. It returns those it failed to take for an
// error (NATS restarting, say).
func (n *Node) takeAll(ps []int, live []string) (failed []int) {
	if len(ps) == 0 {
		return nil
	}
	revs := make([]uint64, len(ps))
	locked := make([]bool, len(ps))
	leases := make([]*lease, len(ps))
	errs := make([]error, len(ps))
	parallel(len(ps), func(i int) {
		ctx, cancel := context.WithTimeout(n.ctx, n.cfg.Lease)
		defer cancel()
		revs[i], locked[i], errs[i] = n.lock(ctx, ps[i], live)
	})
	// Which partitions have hosts with cookies, read once their leases
	// are this node's, after their last holders' last writes: one request
	// for all. If it fails, start reads each partition's.
	ctx, cancel := context.WithTimeout(n.ctx, n.cfg.Lease)
	keyed, err := n.keyedPartitions(ctx)
	cancel()
	if err != nil {
		n.log.Warn("cluster: cookies bucket", "err", err)
	}
	parallel(len(ps), func(i int) {
		if !locked[i] {
			return
		}
		ctx, cancel := context.WithTimeout(n.ctx, n.cfg.Lease)
		defer cancel()
		leases[i], errs[i] = n.start(ctx, ps[i], revs[i], keyed == nil || keyed[ps[i]])
	})
	for i, l := range leases {
		if l != nil {
			n.held[ps[i]] = l
		}
		if errs[i] != nil {
			n.log.Warn("cluster: partition not taken", "partition", ps[i], "err", errs[i])
			failed = append(failed, ps[i])
		}
	}
	return failed
}

// consume starts p's consumer afresh: deleting the durable consumer first
// makes the batches delivered to an earlier holder and not acknowledged
// deliverable again at once, not after their ack wait.
// Before that it takes what the partition's last holder handed over, so
// that the fingerprints it marks seen are marked before any link to the
// partition is tested here.
func (n *Node) consume(ctx context.Context, p int, l *lease) error {
	if err := n.takeHandoff(ctx, p, l); err != nil {
		return err
	}
	name := leaseKey(p)
	if err := n.stream.DeleteConsumer(ctx, name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return err
	}
	c, err := n.stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:       name,
		FilterSubject: n.subject + strconv.Itoa(p),
		AckPolicy:     jetstream.AckExplicitPolicy,
		// A batch delivered as the connection to NATS broke never
		// arrives; NATS sends it again after the ack wait. A batch
		// sent again after all is harmless: its links are seen.
		AckWait:       n.cfg.Lease,
		MaxAckPending: 64,
	})
	if err != nil {
		return err
	}
	l.consumer, err = c.Consume(func(m jetstream.Msg) {
		n.mu.Lock()
		n.incoming = append(n.incoming, m)
		n.mu.Unlock()
		n.signal()
	}, jetstream.PullMaxMessages(64))
	return err
}

// takeHandoff queues, for the crawler's goroutine, the batches a node
// that held p handed over with it (its waiting entries, and the
// fingerprints of the URLs it queued), ahead of any other batch of p.
func (n *Node) takeHandoff(ctx context.Context, p int, l *lease) error {
	name := handoffKey(p)
	if err := n.stream.DeleteConsumer(ctx, name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return err
	}
	var err error
	l.handoff, err = n.stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:       name,
		FilterSubject: n.handoff + strconv.Itoa(p),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       n.cfg.Lease,
	})
	if err != nil {
		return err
	}
	k, err := n.pullHandoff(l)
	n.log.Debug("cluster: handover taken", "partition", p, "batches", k)
	return err
}

// pullHandoff queues the handover batches of a partition held here not
// yet delivered, and returns how many.
func (n *Node) pullHandoff(l *lease) (int, error) {
	k := 0
	for {
		b, err := l.handoff.FetchNoWait(64)
		if err != nil {
			return k, err
		}
		var got []jetstream.Msg
		for m := range b.Messages() {
			got = append(got, m)
		}
		if err := b.Error(); err != nil {
			return k, err
		}
		if len(got) == 0 {
			return k, nil
		}
		k += len(got)
		n.mu.Lock()
		n.incoming = append(n.incoming, got...)
		n.mu.Unlock()
		n.signal()
	}
}

// unstick delivers the batches of partitions held here that no consumer
// would: the handover batches that reached a partition after it was
// taken (a holder whose heartbeat lapsed hands it over late), and, when
// the node is idle, batches behind a consumer that counts none pending
// and none unacknowledged. (A NATS server restarted can restore a
// consumer's acknowledgements without the stream's removals; the
// consumer, made anew, delivers them, and those delivered twice are
// harmless.)
func (n *Node) unstick(ctx context.Context) {
	info, err := n.stream.Info(ctx, jetstream.WithSubjectFilter(strings.TrimSuffix(n.subject, "urls.")+">"))
	if err != nil {
		return
	}
	n.reportMu.Lock()
	idle := n.idle
	n.reportMu.Unlock()
	for subject := range info.State.Subjects {
		handoff := strings.HasPrefix(subject, n.handoff)
		p, ok := subjectPartition(subject)
		l := n.held[p]
		if !ok || l == nil || l.draining || l.consumer == nil {
			continue
		}
		name := leaseKey(p)
		var err error
		if handoff {
			name = handoffKey(p)
			var k int
			if k, err = n.pullHandoff(l); k > 0 {
				n.log.Warn("cluster: handover taken late", "partition", p, "batches", k)
			}
		}
		if err == nil && idle && n.stalled(ctx, name) {
			n.log.Warn("cluster: consumer made anew: it delivered none of its batches", "consumer", name)
			l.consumer.Stop()
			l.consumer = nil // until made anew: balance tries again
			err = n.consume(ctx, p, l)
		}
		if err != nil {
			n.log.Warn("cluster: consumer", "partition", p, "err", err)
		}
	}
}

// stalled reports whether the named consumer counts no batch pending and
// none unacknowledged.
func (n *Node) stalled(ctx context.Context, name string) bool {
	c, err := n.stream.Consumer(ctx, name)
	if err != nil {
		return false
	}
	ci, err := c.Info(ctx)
	return err == nil && ci.NumPending == 0 && ci.NumAckPending == 0
}

// drop forgets the lease of p, which this node no longer holds.
func (n *Node) drop(p int, l *lease) {
	n.roles[p].Store(foreign)
	if l.consumer != nil {
		l.consumer.Stop()
	}
	delete(n.held, p)
}

// startDrain begins to give p up to the node that should hold it: from
// now on its links and entries are sent to its stream, and the crawler's
// goroutine drains the entries waiting here.
func (n *Node) startDrain(p int, l *lease) {
	n.log.Info("cluster: handing partition over", "partition", p)
	l.draining = true
	l.drained = make(chan int, 1)
	if l.consumer != nil {
		l.consumer.Stop()
		l.consumer = nil
	}
	n.roles[p].Store(foreign)
	n.mu.Lock()
	n.drains[p] = l.drained
	n.mu.Unlock()
	n.signal()
}

// drainStep releases p's lease once the crawler's goroutine has drained
// it.
func (n *Node) drainStep(ctx context.Context, p int, l *lease) {
	if !l.handedOver {
		select {
		case <-l.drained:
			l.handedOver = true
		default:
			return
		}
	}
	if err := n.leases.Delete(ctx, leaseKey(p), jetstream.LastRevision(l.rev)); err != nil {
		// Released already, or taken by another node once this node's
		// heartbeat expired; or NATS did not answer, and it is released
		// at the next tick: a lease left naming this node would keep the
		// partition's new holder waiting as long as this node lives.
		e, gerr := n.leases.Get(ctx, leaseKey(p))
		if !errors.Is(gerr, jetstream.ErrKeyNotFound) && (gerr != nil || string(e.Value()) == n.cfg.Node) {
			n.log.Warn("cluster: release lease", "partition", p, "err", err)
			return
		}
	}
	delete(n.held, p)
	n.log.Info("cluster: partition handed over", "partition", p)
}
