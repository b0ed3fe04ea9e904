// Command webserve serves a crawlertest web on loopback for the
// measurements of cluster.sh and durable.sh: it prints the address of its
// proxy and the web's seed on one line, and on SIGINT or SIGTERM the
// server's own count of requests, pages missed and fetched more than once,
// and robots.txt violations. -equal serves a web whose hosts are of
// about the same size.
package main

import (
	"flag"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"crawler/crawlertest"
)

func main() {
	latency := flag.Duration("latency", 0, "how long each answer takes")
	hosts := flag.Int("hosts", 20000, "hosts of the web")
	pages := flag.Int("pages", 100, "pages per host")
	seed := flag.Int64("seed", 7, "the web's random seed")
	equal := flag.Bool("equal", false, "hosts of about equal size: every robots.txt answers 404, where a host "+
		"with one keeps the crawler from its /private/ pages (at 100 pages a host: 853 to 1,088 URLs, not 553 to 1,023)")
	hostsLog := flag.String("hosts-log", "", "on exit, write to this file a line per host: its name, requests, and the seconds "+
		"from the first request of the web to the host's first and last, and the User-Agents that asked; then each "+
		"User-Agent's and each host's requests a second in each 5 s, and each host's milliseconds from an answer to its next request")
	flag.Parse()
	cfg := crawlertest.Config{Seed: *seed, Hosts: *hosts, PagesPerHost: *pages, PageBytes: 4096, Latency: *latency,
		Log: *hostsLog != ""}
	if *equal {
		cfg.Behavior = func(int) crawlertest.Behavior { return crawlertest.Behavior{RobotsStatus: http.StatusNotFound} }
	}
	w := crawlertest.NewWeb(cfg)
	fmt.Println(w.ProxyURL(), w.Seeds()[0])
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	missed, extra := w.Coverage(w.Seeds()...)
	violations := 0
	for u := range w.RequestCounts() {
		if w.RobotsDisallows(u) {
			violations++
		}
	}
	fmt.Printf("requests=%d missed=%d extra=%d robots_violations=%d\n", w.TotalRequests(), missed, extra, violations)
	if *hostsLog != "" {
		if err := writeHostsLog(*hostsLog, w.Log()); err != nil {
			fmt.Fprintln(os.Stderr, "webserve:", err)
		}
	}
	w.Close()
}

// writeHostsLog writes to file, for each host of log, its name, its
// requests, and the seconds from the log's first request to the host's
// first start and last end, ordered by the last end; then comment lines
// of each User-Agent's requests a second in each 5 s, and each host's, to
// see how a host's pace went (one starved at the start, or at the end),
// and of each host's turnarounds (median, 90th percentile and sum): the
// time it waited for the crawler between its requests.
func writeHostsLog(file string, log []crawlertest.LoggedRequest) error {
	if len(log) == 0 {
		return nil
	}
	type span struct {
		first, last time.Time
		n           int
		agents      []string // the User-Agents that asked, in order of first request
	}
	hosts := map[string]*span{}
	for _, r := range log {
		s := hosts[r.Host]
		if s == nil {
			s = &span{first: r.Start}
			hosts[r.Host] = s
		}
		if r.End.After(s.last) {
			s.last = r.End
		}
		s.n++
		if !slices.Contains(s.agents, r.UserAgent) {
			s.agents = append(s.agents, r.UserAgent)
		}
	}
	names := slices.SortedFunc(maps.Keys(hosts), func(a, b string) int { return hosts[a].last.Compare(hosts[b].last) })
	var b strings.Builder
	t0 := log[0].Start
	for _, h := range names {
		s := hosts[h]
		fmt.Fprintf(&b, "%s %d %.1f %.1f %s\n", h, s.n, s.first.Sub(t0).Seconds(), s.last.Sub(t0).Seconds(),
			strings.Join(s.agents, ","))
	}
	end := hosts[names[len(names)-1]].last // names are ordered by last answer
	fmt.Fprintf(&b, "# first request %.3f last answer %.3f (Unix seconds)\n", float64(t0.UnixNano())/1e9, float64(end.UnixNano())/1e9)
	rates := perFive(log, t0, func(r crawlertest.LoggedRequest) string { return r.UserAgent })
	for _, a := range slices.Sorted(maps.Keys(rates)) {
		fmt.Fprintf(&b, "# %s requests a second in each 5 s:", a)
		for _, n := range rates[a] {
			fmt.Fprintf(&b, " %d", n/5)
		}
		b.WriteString("\n")
	}
	hostRates := perFive(log, t0, func(r crawlertest.LoggedRequest) string { return r.Host })
	for _, h := range names {
		fmt.Fprintf(&b, "# %s requests a second in each 5 s:", h)
		for _, n := range hostRates[h] {
			fmt.Fprintf(&b, " %.1f", float64(n)/5)
		}
		b.WriteString("\n")
	}
	gaps := turnarounds(log)
	for _, h := range names {
		if g := gaps[h]; len(g) > 0 {
			slices.Sort(g)
			fmt.Fprintf(&b, "# %s ms from an answer to the next request: median %.2f, 90th percentile %.2f, in all %.0f\n",
				h, ms(g[len(g)/2]), ms(g[len(g)*9/10]), ms(sum(g)))
		}
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}

// turnarounds returns, by host, the times from the end of each of its
// requests to the start of the next that began after it: at one request
// in flight a host, the crawler's turnaround between two requests of a
// host (its own work, and its wait for a worker), which the answers'
// latency does not count.
func turnarounds(log []crawlertest.LoggedRequest) map[string][]time.Duration {
	byHost := map[string][]crawlertest.LoggedRequest{}
	for _, r := range log {
		byHost[r.Host] = append(byHost[r.Host], r)
	}
	gaps := map[string][]time.Duration{}
	for h, rs := range byHost {
		slices.SortFunc(rs, func(a, b crawlertest.LoggedRequest) int { return a.Start.Compare(b.Start) })
		for i := 1; i < len(rs); i++ {
			if d := rs[i].Start.Sub(rs[i-1].End); d >= 0 {
				gaps[h] = append(gaps[h], d)
			}
		}
	}
	return gaps
}

func ms(d time.Duration) float64 { return d.Seconds() * 1000 }

func sum(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return t
}

// perFive counts the requests of log by key, in each 5 s from t0.
func perFive(log []crawlertest.LoggedRequest, t0 time.Time, key func(crawlertest.LoggedRequest) string) map[string][]int {
	counts := map[string][]int{}
	for _, r := range log {
		k := int(r.Start.Sub(t0) / (5 * time.Second))
		name := key(r)
		c := counts[name]
		for len(c) <= k {
			c = append(c, 0)
		}
		c[k]++
		counts[name] = c
	}
	return counts
}
