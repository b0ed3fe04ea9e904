// Package cluster shares one crawl between the nodes (processes, often on
// several machines) of a cluster, on NATS JetStream.
//
// Hosts are split into [Partitions] by a stable hash of the host name,
// and each partition is held by one live node at a time, chosen by
// rendezvous hashing over the live nodes ([Owner]), so a node joining or
// leaving moves about 1/N of them. Membership and ownership live in
// JetStream key-value buckets: each node renews a heartbeat and the lease
// of each partition it holds every fifth of [Config.Lease]; a lease can
// be created only where none is, so at any moment at most one node
// fetches a host, and single-node politeness (robots.txt, delays, per-host
// state) holds for the whole cluster.
//
// A [Node] is its Crawler's frontier (a frontier.Exchanger around the
// node's own, durable, frontier): links to hosts of partitions held here
// are tested and queued here and never touch NATS; the others are sent,
// in batches per partition sent every 5 ms, to a work-queue
// stream with one subject and one consumer per partition. The node that
// holds the partition runs the URL-seen test, commits the new URLs to its
// durable frontier, and only then acknowledges the batch: delivery is at
// least once, and idempotent (links are tested again; a batch of entries
// queued elsewhere, which skip the test, is taken once by the node it
// reaches, however often NATS delivers it). A node commits its own steps
// only after the batches they produced are in the stream, so a node killed
// at any moment loses nothing: it restarts from its state, takes its
// leases back, and finds the batches not acknowledged.
//
// A node that joins takes the partitions it now wins: their holders
// hand them over. A holder stops consuming the partition, lets its
// fetches in flight end, sends its waiting entries and the fingerprints
// of the URLs of the partition it queued or was handed (kept with its
// frontier's records, if it keeps records, so that they survive a
// restart), on the partition's handover subject, and releases the
// lease; the new holder reads the handover before the partition's links,
// so it marks those URLs seen before it tests any link to them, and holds
// each host until the time its last holder would have contacted it next.
// A node restarted from its state first takes back the leases its earlier
// process left, and hands over those that are no longer its own; so does
// a node whose heartbeat lapsed (cut off from NATS for a while), once it
// is renewed. A node that leaves for good has its partitions taken by the
// others once its leases expire; what it had queued stays in its state
// directory (a node restarted from it later sends those entries to their
// holders).
//
// # Cookies
//
// A host's cookies live with its partition. When the crawler's fetcher
// has a cookies.Jar, the crawler hands the jar to the node
// (cookies.Jar.Restore calls [Node.HoldCookies]), which keeps the cookies
// of each host of the partitions it holds in the crawl's cookies bucket,
// one key per host, rather than in its own state. A host whose cookies
// changed in a fetch (any attribute but the time of last use) is written
// with the node's next batches, so before the local frontier commits the
// step: the bucket holds each host's cookies as of the node's last
// durable commit or later. When a partition moves, its holder writes its
// hosts' cookies with the partition's last batches, before it releases
// the lease, and then deletes them from its jar, neither sending nor
// keeping them any more (but for those also sent to hosts of partitions
// it still holds); the node that takes the partition reads its hosts'
// cookies once the lease is its own, and puts them in its jar, in place
// of any it had of those hosts, before it fetches any of them. So the new
// holder sends a host's cookies as the last holder had them when it
// handed the host over; taking the partitions of a node killed, as the
// killed node last wrote them, which is at least its last durable commit
// (a response in flight as it died may have set a cookie never written).
// A node restarted from its state takes its cookies from the bucket with
// its partitions. Each write expects the revision of the host's key that
// the node last wrote or read, so that a node whose heartbeat lapsed,
// writing late, cannot overwrite the cookies of the node that took its
// partition (which writes its own again if such a write came first).
//
// A domain cookie (Domain=example.com) goes with each host it is sent
// to: the hosts of a site in different partitions each carry a copy, and
// when the partitions are held by different nodes the copies change
// apart, as two browsers' would. The cookies of the partitions a node
// left at a lapse of its heartbeat stay in its jar, unwritten and unsent
// (it does not fetch their hosts), until it takes the partition back and
// replaces them. Cookies given to every node's jar before the crawl (a
// cookies.txt) are written with their host's first change.
//
// # Balance by work
//
// Hashing spreads many hosts evenly, but not a few dozen of different
// sizes, and with one request in flight per host a node whose hosts
// outnumber its workers serves each in turn, so that its largest hosts
// end long after the crawl could have. A node whose local frontier is a
// store opened with store.Options.LongestFirst (the CLI's, with
// -cluster) serves first, among its hosts ready, those with the smallest
// share of their requests done, so its largest hosts never wait for a
// worker. Each node publishes, with its heartbeat, the work left of each
// partition it holds (entries waiting, on how many hosts, the share of
// its entries done that took a request, which those robots.txt
// disallows do not, and the partition's pace: the moving average of how
// long its requests take), how many fetches it runs at once
// ([Config.Workers]) and whether it serves longest first
// ([Status].Longest). The leader, the live node of least name, plans
// where the partitions should be, every tick (but for 7.5 ticks after a
// plan it carried out, while its moves settle), and, when a node reports
// that it has run dry (idle: nothing waiting, nothing in flight), within
// a quarter second, even during that hold (at most once a tick): it
// estimates when each node would end (longest first: when its work over
// its workers is done, or its longest host is; else with its hosts
// sharing its workers in turn, each host one request at a time), and
// moves partitions from the node that would end last while that ends the
// crawl sooner, or packs them anew, longest first, if that ends it sooner
// still. A partition moved leaves its hosts unfetched for about three
// ticks, which the estimate counts; a plan is carried out only if it ends
// the crawl sooner by more than a tick and a twentieth, and while at
// least four moves' time is left. The moves are recorded in the crawl's
// state bucket, and each holder hands its partitions over as to a node
// that joined; a move to a node that is not live is ignored.
//
// The crawl is finished when, twice in a row (checked every quarter
// second, and again 50 ms after a check that finds it so), the
// stream holds no batch and then every live node reports itself idle; a
// node reports itself busy before it acknowledges a batch that gave it
// work, so the two cannot both hold while a link is in flight. Each node
// then ends its Run.
//
// A node's heartbeat carries its [Status] ([Members] returns those of the
// live nodes), which it also publishes as its process's report, in a
// bucket that does not expire. [Node.Close] publishes a last report, with
// the node's final counts, and deletes its heartbeat, so that the node is
// no longer live at once; [Reports] returns the last report of every
// process that ran the crawl, live, closed or killed, whose sums are the
// crawl's totals.
package cluster
