package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"crawler"
	"crawler/cluster"
	"crawler/cookies"
	"crawler/fetch"
	"crawler/politeness"
	"crawler/store"
)

// sessionWeb is a web of hosts site0.test, site1.test, ... served on one
// loopback listener, each of pages /0 to /pages-1, page i linking to page
// i+1 of its host and of the next host (the last host's next is the
// first), so that a node reaches any host from the others. It counts each
// host's sessions, as a site that counts its visitors does: a request
// without the host's cookie sid starts one, and gets a new sid. Each
// response also sets visits, the count of the host's requests before it:
// a request that does not send the value last set is stale (its cookies
// are not the host's last).
type sessionWeb struct {
	srv   *httptest.Server
	hosts []string
	pages int

	mu      sync.Mutex
	byHost  map[string]*sessionHost
	waiters []sessionWaiter
}

// sessionHost is what a sessionWeb saw of a host.
type sessionHost struct {
	sessions int            // sids given
	visits   int            // the visits value last set; -1: none
	stale    int            // requests that sent another visits value
	byNode   map[string]int // page requests, by the node named in the User-Agent
	order    []string       // the nodes of the requests, in order
}

// sessionWaiter is closed once node has requested k pages of each of
// hosts.
type sessionWaiter struct {
	node  string
	k     int
	hosts []string
	done  chan struct{}
}

func newSessionWeb(t *testing.T, hosts, pages int) *sessionWeb {
	w := &sessionWeb{pages: pages, byHost: map[string]*sessionHost{}}
	for i := range hosts {
		h := fmt.Sprintf("site%d.test", i)
		w.hosts = append(w.hosts, h)
		w.byHost[h] = &sessionHost{visits: -1, byNode: map[string]int{}}
	}
	w.srv = httptest.NewServer(w)
	t.Cleanup(w.srv.Close)
	return w
}

// client returns a client that reaches every host of w on w's listener.
func (w *sessionWeb) client() *http.Client {
	addr := w.srv.Listener.Addr().String()
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}}
}

// seeds returns page 0 of every host.
func (w *sessionWeb) seeds() []string {
	var s []string
	for _, h := range w.hosts {
		s = append(s, "http://"+h+"/0")
	}
	return s
}

func (w *sessionWeb) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
	hi := slices.Index(w.hosts, r.Host)
	if err != nil || i < 0 || i >= w.pages || hi < 0 { // robots.txt too
		http.NotFound(rw, r)
		return
	}
	node := r.UserAgent()[strings.LastIndexByte(r.UserAgent(), '/')+1:]
	w.mu.Lock()
	h := w.byHost[r.Host]
	if sid, err := r.Cookie("sid"); err != nil || !strings.HasPrefix(sid.Value, r.Host+"-") {
		h.sessions++
		http.SetCookie(rw, &http.Cookie{Name: "sid", Value: fmt.Sprintf("%s-%d", r.Host, h.sessions), Path: "/"})
	}
	got := -1
	if v, err := r.Cookie("visits"); err == nil {
		got, _ = strconv.Atoi(v.Value)
	}
	if got != h.visits {
		h.stale++
	}
	h.visits++
	http.SetCookie(rw, &http.Cookie{Name: "visits", Value: strconv.Itoa(h.visits), Path: "/"})
	h.byNode[node]++
	h.order = append(h.order, node)
	w.waiters = slices.DeleteFunc(w.waiters, func(sw sessionWaiter) bool {
		for _, host := range sw.hosts {
			if w.byHost[host].byNode[sw.node] < sw.k {
				return false
			}
		}
		close(sw.done)
		return true
	})
	w.mu.Unlock()
	rw.Header().Set("Content-Type", "text/html")
	if i+1 < w.pages {
		next := w.hosts[(hi+1)%len(w.hosts)]
		fmt.Fprintf(rw, `<a href="/%d">next</a> <a href="http://%s/%d">next host</a>`, i+1, next, i+1)
	}
}

// requested returns a channel closed once node has requested k pages of
// each of hosts.
func (w *sessionWeb) requested(node string, k int, hosts []string) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	sw := sessionWaiter{node, k, hosts, make(chan struct{})}
	w.waiters = append(w.waiters, sw)
	return sw.done
}

// check checks that every host had one session, and that no request was
// stale but up to allowStale a host; it returns the hosts whose pages
// both nodes requested, after a partition moved.
func (w *sessionWeb) check(t *testing.T, allowStale int) (both []string) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, host := range w.hosts {
		h := w.byHost[host]
		if h.sessions != 1 || h.stale > allowStale {
			t.Errorf("%s: %d sessions, %d stale requests (nodes in order: %v); want 1 session and at most %d stale",
				host, h.sessions, h.stale, compact(h.order), allowStale)
		}
		if len(h.byNode) > 1 {
			both = append(both, host)
		}
		t.Logf("%s: %d sessions, %d stale; requests %v, by node in order %v", host, h.sessions, h.stale, h.byNode, compact(h.order))
	}
	return both
}

// last returns the node that requested host last.
func (w *sessionWeb) last(host string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	order := w.byHost[host].order
	return order[len(order)-1]
}

// compact returns the runs of nodes in order: [a b a] for a a b a a.
func compact(order []string) []string { return slices.Compact(slices.Clone(order)) }

// cookieNode is a node of a cookie test: its crawler's jar is its
// fetcher's.
type cookieNode struct {
	name string
	jar  *cookies.Jar
	n    *cluster.Node
}

// runCookies crawls w as node name of a cluster on s, on the connection
// nc, with its state in a new directory and the cookies in a jar of its
// own, until the crawl ends or ctx does. If killed, the node does not
// close when its Run ends (a Run ended by ctx flushes its steps, the
// last of a node killed): nc is closed, and the node's heartbeat and
// leases left to expire, as a killed process leaves them.
func runCookies(ctx context.Context, t *testing.T, s *server.Server, w *sessionWeb, name string, killed bool) (*cookieNode, error) {
	return runCookiesIn(ctx, t, s, w, name, t.TempDir(), killed)
}

// runCookiesIn is runCookies with the node's state in dir.
func runCookiesIn(ctx context.Context, t *testing.T, s *server.Server, w *sessionWeb, name, dir string, killed bool) (*cookieNode, error) {
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	nc := connect(t, s)
	n, err := cluster.Join(t.Context(), cluster.Config{Conn: nc, Node: name, Seen: st.Seen(), Lease: 2 * time.Second, Logger: testLogger(t, name)}, st.Frontier())
	if err != nil {
		return nil, err
	}
	if killed {
		t.Cleanup(func() { n.Close() }) // its goroutines, which fail meanwhile
	} else {
		defer n.Close()
	}
	cn := &cookieNode{name: name, jar: &cookies.Jar{}, n: n}
	c := &crawler.Crawler{
		Fetcher:   &fetch.HTTPFetcher{Client: w.client(), Jar: cn.jar},
		Frontier:  n,
		Seen:      st.Seen(),
		Robots:    &politeness.RobotsCache{Store: st.Robots()},
		Workers:   4,
		UserAgent: nodeAgent(name),
		Pacing:    politeness.Pacing{Delay: 30 * time.Millisecond, DelayFactor: -1},
	}
	err = c.Run(ctx, w.seeds()...)
	if killed {
		nc.Close()
	}
	return cn, err
}

// hostsOf returns those of hosts that rendezvous hashing gives to node
// among nodes.
func hostsOf(hosts []string, node string, nodes []string) []string {
	var out []string
	for _, h := range hosts {
		if cluster.Owner(cluster.PartitionOf(h), nodes) == node {
			out = append(out, h)
		}
	}
	return out
}

// joiner returns the name of a node to which, joining a, rendezvous
// hashing gives at least 2 of hosts and leaves a at least 2.
func joiner(hosts []string) string {
	for i := 0; ; i++ {
		name := fmt.Sprint("b", i)
		nodes := []string{"a", name}
		if k := len(hostsOf(hosts, name, nodes)); k >= 2 && len(hosts)-k >= 2 {
			return name
		}
	}
}

// A node that joins a crawl takes partitions from the node that crawled
// them, and sends their hosts' cookies as that node last had them: each
// host of the web sees one session, and every request sends the cookies
// the last response set, though hosts moved from one node to the other
// mid-crawl (and some back, if the node that crawled them first takes
// one from the other, which has more work then). The node that handed
// them over no longer holds them.
func TestCookiesMoveOnJoin(t *testing.T) {
	if testing.Short() {
		t.Skip("a crawl that a second node joins: about 5 s")
	}
	t.Parallel()
	s := startNATS(t)
	w := newSessionWeb(t, 8, 60)
	b := joiner(w.hosts)
	moved := hostsOf(w.hosts, b, []string{"a", b})
	started := w.requested("a", 3, w.hosts)
	var wg sync.WaitGroup
	nodes := make([]*cookieNode, 2)
	errs := make([]error, 2)
	wg.Go(func() { nodes[0], errs[0] = runCookies(t.Context(), t, s, w, "a", false) })
	select {
	case <-started:
	case <-t.Context().Done():
		t.Fatal("node a did not crawl")
	}
	wg.Go(func() { nodes[1], errs[1] = runCookies(t.Context(), t, s, w, b, false) })
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
	}
	both := w.check(t, 0)
	if len(both) == 0 {
		t.Fatalf("no host was crawled by both nodes: the test tests nothing (hosts of %s: %v)", b, moved)
	}
	// A host's partition may have moved more than once (a node with far
	// less work takes one back): the node that crawled a host last holds
	// its cookies, the other none.
	for _, h := range both {
		holder, other := nodes[0], nodes[1]
		if w.last(h) == b {
			holder, other = other, holder
		}
		if got := other.jar.Host(h); len(got) > 0 {
			t.Errorf("%s, handed over to %s, still has cookies in %s's jar: %+v", h, holder.name, other.name, got)
		}
		if got := holder.jar.Host(h); len(got) != 2 {
			t.Errorf("%s: %s's jar holds %+v, want its sid and visits", h, holder.name, got)
		}
	}
}

// A node killed mid-crawl: the node that takes its partitions once its
// heartbeat expires sends their hosts' cookies as the killed node's last
// step left them: no host sees a second session. (A fetch in flight as
// the node was killed may have reached the server, which set a visits
// that never reached the jar: one stale request a host is allowed.)
func TestCookiesMoveOnKill(t *testing.T) {
	if testing.Short() {
		t.Skip("a crawl whose node is killed, and whose lease expires: about 8 s")
	}
	t.Parallel()
	s := startNATS(t)
	w := newSessionWeb(t, 8, 40)
	b := joiner(w.hosts)
	ofA := hostsOf(w.hosts, "a", []string{"a", b})
	started := w.requested("a", 3, ofA)
	ctxA, kill := context.WithCancel(t.Context())
	defer kill()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() { _, errs[0] = runCookies(ctxA, t, s, w, "a", true) })
	wg.Go(func() { _, errs[1] = runCookies(t.Context(), t, s, w, b, false) })
	select {
	case <-started:
	case <-t.Context().Done():
		t.Fatal("node a did not crawl")
	}
	kill()
	wg.Wait()
	if !errors.Is(errs[0], context.Canceled) || errs[1] != nil {
		t.Fatalf("node a (killed): %v; node %s: %v", errs[0], b, errs[1])
	}
	both := w.check(t, 1)
	if len(both) == 0 {
		t.Fatalf("no host was crawled by both nodes: the test tests nothing (hosts of a: %v)", ofA)
	}
}

// A node restarted from its state takes its hosts' cookies back from
// NATS with its partitions (its jar starts empty, and its state keeps no
// cookies): the crawl it resumes starts no second session.
func TestCookiesSurviveRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("a node's crawl, stopped and resumed: about 8 s")
	}
	t.Parallel()
	s := startNATS(t)
	w := newSessionWeb(t, 4, 20)
	dir := t.TempDir()
	started := w.requested("a", 3, w.hosts)
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	go func() {
		select {
		case <-started:
		case <-ctx.Done():
		}
		stop()
	}()
	if _, err := runCookiesIn(ctx, t, s, w, "a", dir, false); !errors.Is(err, context.Canceled) {
		t.Fatalf("the first run: %v", err)
	}
	nd, err := runCookiesIn(t.Context(), t, s, w, "a", dir, false)
	if err != nil {
		t.Fatalf("the run resumed: %v", err)
	}
	w.check(t, 1) // a response in flight as the first run stopped set a visits never kept
	if got := nd.jar.Len(); got != 2*len(w.hosts) {
		t.Errorf("the resumed node's jar holds %d cookies, want %d: a sid and a visits a host", got, 2*len(w.hosts))
	}
}
