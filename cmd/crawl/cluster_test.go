package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"crawler/cluster"
	"crawler/crawlertest"
	"crawler/internal/natstest"
)

// startNATS starts an embedded NATS server with JetStream on 127.0.0.1,
// its store in a temporary directory, for nodes in other processes.
func startNATS(t *testing.T) *server.Server {
	t.Helper()
	return natstest.Start(t, t.TempDir(), -1)
}

// clusterNode starts the binary as node name of the crawl on s, with its
// state in dir.
func clusterNode(ctx context.Context, s *server.Server, w *crawlertest.Web, name, dir string, args ...string) *exec.Cmd {
	args = append([]string{"-cluster", s.ClientURL(), "-node", name, "-state", dir, "-delay", "-1s", "-delay-factor", "-1", "-progress", "-1s"}, args...)
	cmd := crawlCommand(ctx, append(args, w.Seeds()...)...)
	cmd.Env = append(cmd.Env, "HTTP_PROXY="+w.ProxyURL().String())
	return cmd
}

// Three processes share a crawl through NATS: every page is fetched once,
// robots.txt is obeyed, and all three exit 0 by themselves; one killed
// with SIGKILL and restarted loses nothing.
func TestClusterProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("three node processes crawl twice, one killed: about 15 s")
	}
	t.Parallel()
	for _, kill := range []bool{false, true} {
		t.Run(fmt.Sprint("kill=", kill), func(t *testing.T) {
			t.Parallel()
			s := startNATS(t)
			w := crawlertest.NewWeb(crawlertest.Config{Seed: 18, Hosts: 20, PagesPerHost: 15, Latency: 5 * time.Millisecond})
			defer w.Close()
			const workers = 4
			dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
			outs := make([][]byte, 3)
			errs := make([]error, 3)
			var wg sync.WaitGroup
			for i := range 3 {
				wg.Go(func() {
					name := fmt.Sprint("n", i)
					cmd := clusterNode(t.Context(), s, w, name, dirs[i], "-workers", fmt.Sprint(workers))
					if i == 1 && kill {
						if err := cmd.Start(); err != nil {
							errs[i] = err
							return
						}
						for w.TotalRequests() < 100 {
							time.Sleep(time.Millisecond)
						}
						cmd.Process.Signal(syscall.SIGKILL)
						cmd.Wait()
						t.Logf("node %s killed after %d requests", name, w.TotalRequests())
						time.Sleep(500 * time.Millisecond)
						cmd = clusterNode(t.Context(), s, w, name, dirs[i], "-workers", fmt.Sprint(workers))
					}
					outs[i], errs[i] = cmd.CombinedOutput()
				})
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("node %d: %v\n%s", i, err, outs[i])
				}
			}
			missed, twice := w.Coverage(w.Seeds()...)
			for u := range w.RequestCounts() {
				if w.RobotsDisallows(u) {
					t.Errorf("%s requested, which robots.txt disallows", u)
				}
			}
			t.Logf("%d page requests: %d pages missed, %d fetched again", w.TotalRequests(), missed, twice)
			if missed > 0 {
				t.Errorf("%d pages never fetched", missed)
			}
			switch {
			case !kill && twice > 0:
				t.Errorf("%d pages fetched twice", twice)
			case kill && twice > workers+24: // in flight, and in the commit groups not written
				t.Errorf("%d pages fetched twice after one kill, want at most %d", twice, workers+24)
			}
		})
	}
}

// -cluster without NATS there is a clear error, before any fetch.
func TestClusterUnreachable(t *testing.T) {
	t.Parallel()
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 2, PagesPerHost: 2})
	defer w.Close()
	cmd := crawlCommand(t.Context(), "-cluster", "nats://127.0.0.1:1", "-node", "a", "-state", filepath.Join(t.TempDir(), "s"), w.Seeds()[0])
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "-cluster nats://127.0.0.1:1: cannot reach the NATS server") {
		t.Errorf("%v\n%s", err, out)
	}
	if w.TotalRequests() != 0 {
		t.Errorf("%d requests without a cluster", w.TotalRequests())
	}
}

// -stats -cluster prints the live nodes of a crawl, without joining it.
func TestClusterStats(t *testing.T) {
	t.Parallel()
	s := startNATS(t)
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"-stats", "-cluster", s.ClientURL(), "-crawl-id", "none"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "no such crawl") {
		t.Errorf("a crawl never joined: %v", err)
	}

	w := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 5, PagesPerHost: 20, Latency: 50 * time.Millisecond})
	defer w.Close()
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	node := clusterNode(ctx, s, w, "lone", t.TempDir(), "-crawl-id", "seen")
	if err := node.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stop() // the node, killed: its crawl is not the point here
		node.Wait()
	}()
	var got struct {
		Crawl string           `json:"crawl"`
		Live  int              `json:"live_nodes"`
		Nodes []cluster.Status `json:"nodes"`
	}
	for deadline := time.Now().Add(20 * time.Second); got.Live == 0 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		stdout.Reset()
		if err := run(t.Context(), []string{"-stats", "-cluster", s.ClientURL(), "-crawl-id", "seen"}, &stdout, &stderr); err != nil {
			continue // the node has not made the crawl's buckets yet
		}
		if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
			t.Fatalf("%v\n%s", err, stdout.String())
		}
	}
	if got.Crawl != "seen" || got.Live != 1 || len(got.Nodes) != 1 || got.Nodes[0].Node != "lone" {
		t.Errorf("-stats -cluster: %+v", got)
	}
}

// The totals a cluster crawl prints are its final ones: three nodes crawl
// to a -max-pages budget and exit, the last to leave counting every page
// request the web's server saw, and -stats -cluster right after finds no
// live node, the same total, and each node's stats under the names of
// -json. Answers take 100 ms, so that the budget lasts past the start of
// every node: at 5 ms, one node spent it in a few tenths of a second,
// and a node whose settle in Join took a second ended having fetched
// nothing (in 3 of 14 runs).
func TestClusterTotalsAtExit(t *testing.T) {
	if testing.Short() {
		t.Skip("three node processes crawl to a budget: about 6 s; -short keeps TestClusterNodeSpendsBudget's one")
	}
	t.Parallel()
	s := startNATS(t)
	w := crawlertest.NewWeb(crawlertest.Config{Seed: 18, Hosts: 20, PagesPerHost: 15, Latency: 100 * time.Millisecond})
	defer w.Close()
	const budget = 200
	outs := make([][]byte, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			cmd := clusterNode(t.Context(), s, w, fmt.Sprint("n", i), t.TempDir(), "-workers", "4", "-max-pages", fmt.Sprint(budget))
			outs[i], errs[i] = cmd.CombinedOutput()
		})
	}
	wg.Wait()
	re := regexp.MustCompile(`crawl: cluster crawl crawl: (\d+) page requests, \d+ links forwarded in \d+ batches by (\d+) node processes \((\d+) live\)`)
	var last int
	for i, err := range errs {
		if err != nil {
			t.Fatalf("node %d: %v\n%s", i, err, outs[i])
		}
		m := re.FindSubmatch(outs[i])
		if m == nil {
			t.Fatalf("node %d printed no totals:\n%s", i, outs[i])
		}
		// Each node prints what has been reported when it leaves: the last
		// to leave, every node's final figures.
		requests, _ := strconv.Atoi(string(m[1]))
		last = max(last, requests)
	}
	t.Logf("%d page requests served; at most %d printed", w.TotalRequests(), last)
	if last != w.TotalRequests() || last > budget {
		t.Errorf("the nodes printed at most %d page requests; the server saw %d (budget %d)", last, w.TotalRequests(), budget)
	}

	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"-stats", "-cluster", s.ClientURL()}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Live     int   `json:"live_nodes"`
		Requests int64 `json:"requests"`
		Nodes    []struct {
			Node     string                     `json:"node"`
			Live     bool                       `json:"live"`
			Left     bool                       `json:"left"`
			Requests int64                      `json:"requests"`
			Status   map[string]json.RawMessage `json:"status"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if got.Live != 0 || got.Requests != int64(w.TotalRequests()) || len(got.Nodes) != 3 {
		t.Errorf("-stats -cluster after every node exited: %d live, %d requests, %d nodes; want 0 live, %d requests, 3 nodes\n%s",
			got.Live, got.Requests, len(got.Nodes), w.TotalRequests(), stdout.String())
	}
	for _, n := range got.Nodes {
		var fetched int64
		if err := json.Unmarshal(n.Status["fetched"], &fetched); err != nil || n.Live || !n.Left || fetched == 0 || fetched > n.Requests {
			t.Errorf("node %s: live %v, left %v, %d requests, stats.fetched %s; want left, 0 < fetched <= requests", n.Node, n.Live, n.Left, n.Requests, n.Status["fetched"])
		}
		for k := range n.Status {
			if k != strings.ToLower(k) {
				t.Errorf("node %s: stats field %q is not snake_case", n.Node, k)
			}
		}
	}
}
