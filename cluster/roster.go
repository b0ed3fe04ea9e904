package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrNoCrawl is returned by Members for a crawl that no node ever joined
// on the server.
var ErrNoCrawl = errors.New("cluster: no such crawl")

// Members returns the status of the live nodes of the crawl named crawl
// on the NATS server of conn, by name, as each last reported (every fifth
// of its lease), without joining the crawl: for dashboards and the CLI's
// -stats. A crawl that has ended has no live nodes.
func Members(ctx context.Context, conn *nats.Conn, crawl string) ([]Status, error) {
	if !namePattern.MatchString(crawl) {
		return nil, fmt.Errorf("cluster: crawl name %q: want letters, digits, '-' and '_'", crawl)
	}
	js, err := jetstream.New(conn)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	kv, err := js.KeyValue(ctx, membersBucket(crawl))
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, fmt.Errorf("%w: %q", ErrNoCrawl, crawl)
	} else if err != nil {
		return nil, fmt.Errorf("cluster: crawl %q: %w", crawl, err)
	}
	r, err := openRoster(ctx, js, crawl, kv)
	if err != nil {
		return nil, err
	}
	return r.statuses(ctx)
}

// membersBucket names the key-value bucket of crawl's members.
func membersBucket(crawl string) string { return "crawl_" + crawl + "_members" }

// roster reads the live nodes of a crawl from its members bucket.
type roster struct {
	kv     jetstream.KeyValue
	log    jetstream.Stream // the bucket's stream
	prefix string           // subject prefix of its keys
}

func openRoster(ctx context.Context, js jetstream.JetStream, crawl string, kv jetstream.KeyValue) (roster, error) {
	bucket := membersBucket(crawl)
	log, err := js.Stream(ctx, "KV_"+bucket)
	if err != nil {
		return roster{}, fmt.Errorf("cluster: bucket %s: %w", bucket, err)
	}
	return roster{kv: kv, log: log, prefix: "$KV." + bucket + "."}, nil
}

// names returns the names of the crawl's live nodes, sorted: the keys of
// the members bucket, read in one request from the state of the bucket's
// stream. (The bucket's Keys, a watch, misses keys renewed while it
// reads: a node that left out a live one would take its partitions.)
func (r roster) names(ctx context.Context) ([]string, error) {
	info, err := r.log.Info(ctx, jetstream.WithSubjectFilter(r.prefix+">"))
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(info.State.Subjects))
	for subject := range info.State.Subjects {
		names = append(names, strings.TrimPrefix(subject, r.prefix))
	}
	slices.Sort(names)
	return names, nil
}

// statuses returns the status of the crawl's live nodes, by name.
func (r roster) statuses(ctx context.Context) ([]Status, error) {
	names, err := r.names(ctx)
	if err != nil {
		return nil, err
	}
	var out []Status
	for _, name := range names {
		e, err := r.kv.Get(ctx, name)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // expired since
		} else if err != nil {
			return nil, err
		}
		var st Status
		if err := json.Unmarshal(e.Value(), &st); err != nil {
			return nil, fmt.Errorf("cluster: status of node %q: %w", name, err)
		}
		out = append(out, st)
	}
	return out, nil
}
