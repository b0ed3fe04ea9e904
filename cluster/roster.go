package cluster

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrNoCrawl is returned by Members and Reports for a crawl that no node
// ever joined on the server.
var ErrNoCrawl = errors.New("cluster: no such crawl")

// Members returns the status of the live nodes of the crawl named crawl
// on the NATS server of conn, by name, as each last reported (every fifth
// of its lease), without joining the crawl: for dashboards and the CLI's
// -stats. A node that closed is no longer live; one that was killed is,
// until its lease expires. A crawl that has ended has no live nodes.
func Members(ctx context.Context, conn *nats.Conn, crawl string) ([]Status, error) {
	r, err := openCrawlRoster(ctx, conn, crawl)
	if err != nil {
		return nil, err
	}
	return r.statuses(ctx)
}

// Reports returns the last status of every process of every node that
// has run the crawl named crawl on the NATS server of conn, live or not,
// by node and then time, without joining the crawl. A node publishes its
// status with each heartbeat, and a last time, with Left set, as it
// closes, so the reports of the processes that closed hold their final
// counts and add up to the crawl's totals (a process killed counts as of
// its last heartbeat). Live is set on those of the live nodes.
func Reports(ctx context.Context, conn *nats.Conn, crawl string) ([]Status, error) {
	r, err := openCrawlRoster(ctx, conn, crawl)
	if err != nil {
		return nil, err
	}
	return r.all(ctx)
}

// openCrawlRoster opens the roster of crawl on the server of conn,
// without joining it.
func openCrawlRoster(ctx context.Context, conn *nats.Conn, crawl string) (roster, error) {
	if !namePattern.MatchString(crawl) {
		return roster{}, fmt.Errorf("cluster: crawl name %q: want letters, digits, '-' and '_'", crawl)
	}
	js, err := jetstream.New(conn)
	if err != nil {
		return roster{}, fmt.Errorf("cluster: %w", err)
	}
	members, err := js.KeyValue(ctx, membersBucket(crawl))
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return roster{}, fmt.Errorf("%w: %q", ErrNoCrawl, crawl)
	} else if err != nil {
		return roster{}, fmt.Errorf("cluster: crawl %q: %w", crawl, err)
	}
	reports, err := js.KeyValue(ctx, reportsBucket(crawl))
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		reports = nil // a crawl whose nodes published no reports
	} else if err != nil {
		return roster{}, fmt.Errorf("cluster: crawl %q: %w", crawl, err)
	}
	return openRoster(ctx, js, crawl, members, reports)
}

// membersBucket names the key-value bucket of crawl's members: node name
// -> its heartbeat, a Status (TTL: the lease).
func membersBucket(crawl string) string { return "crawl_" + crawl + "_members" }

// reportsBucket names the key-value bucket of crawl's reports: reportKey
// -> the last Status of a node's process (no TTL).
func reportsBucket(crawl string) string { return "crawl_" + crawl + "_reports" }

// reportKey is the key of the reports of node's process boot.
func reportKey(node, boot string) string { return node + "." + boot }

// bucket is a key-value bucket of Status values, with its stream, whose
// state lists its keys in one request.
type bucket struct {
	kv     jetstream.KeyValue
	log    jetstream.Stream // the bucket's stream
	prefix string           // subject prefix of its keys
}

func openBucket(ctx context.Context, js jetstream.JetStream, name string, kv jetstream.KeyValue) (bucket, error) {
	log, err := js.Stream(ctx, "KV_"+name)
	if err != nil {
		return bucket{}, fmt.Errorf("cluster: bucket %s: %w", name, err)
	}
	return bucket{kv: kv, log: log, prefix: "$KV." + name + "."}, nil
}

// keys returns the bucket's keys, sorted, read in one request from the
// state of its stream. (The bucket's Keys, a watch, misses keys renewed
// while it reads: a node that left out a live one would take its
// partitions.) A key deleted is among them until its delete marker ages
// out of the stream, in a bucket with a TTL.
func (b bucket) keys(ctx context.Context) ([]string, error) {
	info, err := b.log.Info(ctx, jetstream.WithSubjectFilter(b.prefix+">"))
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(info.State.Subjects))
	for subject := range info.State.Subjects {
		keys = append(keys, strings.TrimPrefix(subject, b.prefix))
	}
	slices.Sort(keys)
	return keys, nil
}

// statuses returns the statuses in the bucket, by key; keys deleted or
// expired are skipped.
func (b bucket) statuses(ctx context.Context) ([]Status, error) {
	keys, err := b.keys(ctx)
	if err != nil {
		return nil, err
	}
	var out []Status
	for _, key := range keys {
		e, err := b.kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // deleted, or expired since
		} else if err != nil {
			return nil, err
		}
		var st Status
		if err := json.Unmarshal(e.Value(), &st); err != nil {
			return nil, fmt.Errorf("cluster: status %q: %w", key, err)
		}
		out = append(out, st)
	}
	return out, nil
}

// roster reads the nodes of a crawl: the live ones from its members
// bucket, and the last report of each process from its reports bucket.
type roster struct {
	bucket         // members
	reports bucket // kv nil: a crawl without reports
}

func openRoster(ctx context.Context, js jetstream.JetStream, crawl string, members, reports jetstream.KeyValue) (roster, error) {
	m, err := openBucket(ctx, js, membersBucket(crawl), members)
	if err != nil {
		return roster{}, err
	}
	r := roster{bucket: m}
	if reports != nil {
		if r.reports, err = openBucket(ctx, js, reportsBucket(crawl), reports); err != nil {
			return roster{}, err
		}
	}
	return r, nil
}

// names returns the names of the crawl's live nodes, sorted, and of the
// nodes that closed less than a lease ago (see bucket.keys): a node
// counts them when it shares out partitions, so that a node that
// restarts at once takes its partitions back, as from a node killed.
func (r roster) names(ctx context.Context) ([]string, error) { return r.keys(ctx) }

// statuses returns the status of the crawl's live nodes, by name, with
// Live set.
func (r roster) statuses(ctx context.Context) ([]Status, error) {
	ms, err := r.bucket.statuses(ctx)
	for i := range ms {
		ms[i].Live = true
	}
	return ms, err
}

// all returns the last report of every process of the crawl, by node and
// time, with Live set on those of live nodes.
func (r roster) all(ctx context.Context) ([]Status, error) {
	if r.reports.kv == nil {
		return nil, nil
	}
	// The reports after the live nodes: a node that closes between the two
	// reads is not live, and its report says it left.
	live, err := r.statuses(ctx)
	if err != nil {
		return nil, err
	}
	all, err := r.reports.statuses(ctx)
	if err != nil {
		return nil, err
	}
	for i, st := range all {
		all[i].Live = !st.Left && slices.ContainsFunc(live, func(m Status) bool { return m.Node == st.Node && m.Boot == st.Boot })
	}
	slices.SortStableFunc(all, func(a, b Status) int {
		return cmp.Or(cmp.Compare(a.Node, b.Node), a.Time.Compare(b.Time))
	})
	return all, nil
}
