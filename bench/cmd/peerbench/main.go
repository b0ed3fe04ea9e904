// Command peerbench runs web crawlers side by side on one synthetic web
// and prints what the server counted of each: our crawler (FIFO and AOPIC),
// colly, gocrawl and a minimal reference crawler (see package peers).
//
//	go run ./cmd/peerbench                         # the README's matrix
//	go run ./cmd/peerbench -cases 20000@0 -runs 1  # one quick case
//
// The web is a crawlertest web (200 hosts of ~20 KB pages, 10 of them crawler
// traps) served by this process on loopback. Each crawl runs in a child
// process (this program again), one crawler after another and round after
// round, so that each crawler's CPU time and peak RSS are its own and the
// server's work is not in them. The server counts, for each crawl: page
// requests (robots.txt excluded), unique good pages requested
// (crawlertest's GoodPages), duplicate requests of one canonical page,
// requests that robots.txt disallows, and requests to trap hosts. The
// table gives the median of the runs for each column.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"crawler/bench/peers"
	"crawler/crawlertest"
)

func main() {
	var (
		child    = flag.String("child", "", "internal: run this crawler in this process and print its result")
		addr     = flag.String("addr", "", "internal: the web's listener")
		seed     = flag.String("seed", "", "internal: the seed URL")
		cases    = flag.String("cases", "20000@0,100000@0,20000@5ms,20000@50ms", "budget@latency pairs, comma separated")
		runs     = flag.Int("runs", 3, "rounds; the table gives medians")
		names    = flag.String("crawlers", "", "comma-separated crawlers (default all: "+strings.Join(crawlerNames(), ",")+")")
		workers  = flag.Int("workers", 32, "requests in flight at most, for every crawler that lets this be set")
		budget   = flag.Int("budget", 0, "internal: the page budget of -child")
		hosts    = flag.Int("hosts", 200, "hosts of the web")
		perHost  = flag.Int("pages-per-host", 500, "HTML pages per host")
		pageSize = flag.Int("page-bytes", 20<<10, "approximate size of a page")
		profile  = flag.String("profile", "", "write each crawl's CPU and allocation profiles (pprof) to this directory")
		traps    = flag.Int("traps", 10, "trap hosts among them (calendar, session ids, deep paths, link farm, soft 404, in turn)")
		session  = flag.Bool("session-cookies", false, "make every host set a session cookie on its first response (the web sets none; see peers.SessionCookies)")
	)
	flag.Parse()
	log.SetFlags(0)
	if *child != "" {
		runChild(*child, *addr, *seed, *budget, *workers, *profile, *session)
		return
	}
	list := crawlerNames()
	if *names != "" {
		list = strings.Split(*names, ",")
	}
	for _, n := range list {
		if _, err := peers.Lookup(n); err != nil {
			log.Fatal(err)
		}
	}
	cs, err := parseCases(*cases)
	if err != nil {
		log.Fatal(err)
	}
	cfg := crawlertest.Config{
		Seed:         7,
		Hosts:        *hosts,
		PagesPerHost: *perHost,
		PageBytes:    *pageSize,
		Traps:        spreadTraps(*hosts, *traps),
	}
	cookies := ""
	if *session {
		cookies = "; session cookies"
	}
	fmt.Printf("peerbench: %d hosts × %d pages of ~%d KB, %d traps%s; %d workers; %d runs; %s, %d CPUs, %s\n",
		*hosts, *perHost, *pageSize>>10, *traps, cookies, *workers, *runs, runtime.Version(), runtime.NumCPU(), time.Now().Format(time.DateOnly))
	for _, c := range cs {
		cfg.Latency = c.latency
		results := runCase(cfg, c, list, *runs, *workers, *profile, *session)
		printTable(os.Stdout, c, list, results)
	}
}

func crawlerNames() []string {
	var out []string
	for _, c := range peers.All() {
		out = append(out, c.Name)
	}
	return out
}

// spreadTraps makes n of hosts hosts traps, evenly spread and of each kind
// in turn (host 0, the seed's, is never one).
func spreadTraps(hosts, n int) func(int) crawlertest.Trap {
	kinds := []crawlertest.Trap{crawlertest.Calendar, crawlertest.SessionID, crawlertest.DeepPath, crawlertest.LinkFarm, crawlertest.Soft404}
	if n <= 0 {
		return nil
	}
	step := hosts / n
	return func(h int) crawlertest.Trap {
		if h == 0 || step == 0 || h%step != step/2 || h/step >= n {
			return crawlertest.NoTrap
		}
		return kinds[(h/step)%len(kinds)]
	}
}

// benchCase is one budget and server latency.
type benchCase struct {
	budget  int
	latency time.Duration
}

func (c benchCase) String() string {
	return fmt.Sprintf("budget %d pages, server latency %v", c.budget, c.latency)
}

func parseCases(s string) ([]benchCase, error) {
	var out []benchCase
	for _, f := range strings.Split(s, ",") {
		b, l, ok := strings.Cut(f, "@")
		if !ok {
			return nil, fmt.Errorf("case %q: want budget@latency", f)
		}
		budget, err := strconv.Atoi(b)
		if err != nil || budget <= 0 {
			return nil, fmt.Errorf("case %q: bad budget", f)
		}
		latency := time.Duration(0)
		if l != "0" {
			if latency, err = time.ParseDuration(l); err != nil || latency < 0 {
				return nil, fmt.Errorf("case %q: bad latency", f)
			}
		}
		out = append(out, benchCase{budget, latency})
	}
	return out, nil
}

// childResult is what a child prints.
type childResult struct {
	Elapsed time.Duration // of the crawl, process start excluded
	Fetched int64         // as the crawler counts them
	PeakRSS int64         // bytes: VmHWM, the process's own high-water mark
	Err     string
}

func runChild(name, addr, seed string, budget, workers int, profile string, session bool) {
	c, err := peers.Lookup(name)
	if err != nil {
		log.Fatal(err)
	}
	cfg := peers.Config{Seeds: []string{seed}, Budget: budget, Workers: workers, Transport: peers.NewTransport(addr, workers)}
	if session {
		cfg.Transport = peers.SessionCookies(cfg.Transport)
	}
	var stopProfile func()
	if profile != "" {
		stopProfile = startProfile(filepath.Join(profile, fmt.Sprintf("%s-%d", name, budget)))
	}
	start := time.Now()
	res, err := c.Run(context.Background(), cfg)
	out := childResult{Elapsed: time.Since(start), Fetched: res.Fetched, PeakRSS: peakRSS()}
	if stopProfile != nil {
		stopProfile()
	}
	if err != nil {
		out.Err = err.Error()
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		log.Fatal(err)
	}
}

// startProfile starts a CPU profile written to prefix.cpu.pprof; the
// function it returns stops it and writes the allocations so far to
// prefix.alloc.pprof.
func startProfile(prefix string) (stop func()) {
	cpu, err := os.Create(prefix + ".cpu.pprof")
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		log.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := cpu.Close(); err != nil {
			log.Fatal(err)
		}
		alloc, err := os.Create(prefix + ".alloc.pprof")
		if err != nil {
			log.Fatal(err)
		}
		defer alloc.Close()
		if err := pprof.Lookup("allocs").WriteTo(alloc, 0); err != nil {
			log.Fatal(err)
		}
	}
}

// peakRSS returns the peak resident set size of this process since it
// started (VmHWM of /proc/self/status), or 0 if it cannot tell. The child's
// rusage cannot be used: its ru_maxrss counts the parent's memory, shared
// between fork and exec.
func peakRSS() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// measurement is one crawl as the server and the OS saw it.
type measurement struct {
	requests, robots, uniqueGood, duplicates, violations, traps int
	elapsed, cpu                                                time.Duration
	peakRSS                                                     int64 // bytes
	round                                                       int
	err                                                         string
}

func (m measurement) pagesPerSec() float64 { return float64(m.requests) / m.elapsed.Seconds() }
func (m measurement) cpuPerPage() float64 {
	return float64(m.cpu.Microseconds()) / 1000 / float64(max(m.requests, 1))
}
func (m measurement) yield() float64 { return float64(m.uniqueGood) / float64(max(m.requests, 1)) }

// runCase serves the web of cfg and crawls it runs times with each crawler.
func runCase(cfg crawlertest.Config, c benchCase, names []string, runs, workers int, profile string, session bool) map[string][]measurement {
	w := crawlertest.NewWeb(cfg)
	defer w.Close()
	good := map[string]bool{}
	for _, u := range w.GoodPages() {
		good[u] = true
	}
	results := map[string][]measurement{}
	for run := range runs {
		for _, name := range names {
			w.ResetCounts()
			m := crawlChild(w, name, c.budget, workers, profile, session)
			m.round = run
			for u, n := range w.RequestCounts() {
				if good[u] {
					m.uniqueGood++
				}
				m.duplicates += n - 1
				if w.RobotsDisallows(u) {
					m.violations += n
				}
			}
			m.requests = w.TotalRequests()
			m.traps = w.TrapRequests()
			for _, h := range w.Hosts() {
				m.robots += w.RobotsRequests(h)
			}
			log.Printf("%s run %d %-10s %6d requests %7.0f pages/s %.3f cpu-ms/page %4d MB %s", c, run+1, name,
				m.requests, m.pagesPerSec(), m.cpuPerPage(), m.peakRSS>>20, m.err)
			results[name] = append(results[name], m)
		}
	}
	return results
}

// crawlChild runs crawler name in a child process against w.
func crawlChild(w *crawlertest.Web, name string, budget, workers int, profile string, session bool) measurement {
	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command(self, "-child", name, "-addr", w.Addr(), "-seed", w.Seeds()[0],
		"-budget", strconv.Itoa(budget), "-workers", strconv.Itoa(workers), "-profile", profile,
		"-session-cookies="+strconv.FormatBool(session))
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = io.Discard // peers log freely
	if err := cmd.Run(); err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	var out childResult
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		log.Fatalf("%s: %v in %q", name, err, stdout.String())
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return measurement{
		elapsed: out.Elapsed,
		cpu:     time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		peakRSS: out.PeakRSS,
		err:     out.Err,
	}
}

// printTable prints the medians of each crawler's runs.
func printTable(out io.Writer, c benchCase, names []string, results map[string][]measurement) {
	fmt.Fprintf(out, "\n%s (medians of %d runs)\n\n", c, len(results[names[0]]))
	tw := tabwriter.NewWriter(out, 0, 0, 1, ' ', 0)
	head := "| crawler\t| pages/s\t| CPU ms/page\t| peak RSS MB\t| requests\t| unique good\t| yield\t| duplicates\t| robots violations\t| trap requests\t| robots.txt requests\t"
	ref, haveRef := results["reference"]
	if haveRef {
		head += "| ÷ reference\t"
	}
	if c.latency > 0 {
		head += "| in flight\t"
	}
	fmt.Fprintln(tw, head+"|")
	fmt.Fprintln(tw, strings.Repeat("| ---\t", strings.Count(head, "\t"))+"|")
	for _, name := range names {
		ms := results[name]
		med := func(f func(measurement) float64) float64 {
			v := make([]float64, len(ms))
			for i, m := range ms {
				v[i] = f(m)
			}
			slices.Sort(v)
			if len(v)%2 == 1 {
				return v[len(v)/2]
			}
			return (v[len(v)/2-1] + v[len(v)/2]) / 2
		}
		line := fmt.Sprintf("| %s\t| %.0f\t| %.3f\t| %.0f\t| %.0f\t| %.0f\t| %.3f\t| %.0f\t| %.0f\t| %.0f\t| %.0f\t", name,
			med(measurement.pagesPerSec), med(measurement.cpuPerPage),
			med(func(m measurement) float64 { return float64(m.peakRSS) / 1e6 }),
			med(func(m measurement) float64 { return float64(m.requests) }),
			med(func(m measurement) float64 { return float64(m.uniqueGood) }),
			med(measurement.yield),
			med(func(m measurement) float64 { return float64(m.duplicates) }),
			med(func(m measurement) float64 { return float64(m.violations) }),
			med(func(m measurement) float64 { return float64(m.traps) }),
			med(func(m measurement) float64 { return float64(m.robots) }))
		if haveRef {
			// The machine's speed drifts from run to run: compare pages/s
			// with the reference's of the same round, then take the median.
			line += fmt.Sprintf("| %.2f\t", med(func(m measurement) float64 { return m.pagesPerSec() / ref[m.round].pagesPerSec() }))
		}
		if c.latency > 0 {
			// Little's law: requests in flight = throughput × time in the server.
			line += fmt.Sprintf("| %.1f\t", med(func(m measurement) float64 { return m.pagesPerSec() * c.latency.Seconds() }))
		}
		fmt.Fprintln(tw, line+"|")
	}
	tw.Flush()
}
