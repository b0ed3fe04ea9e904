// Package status is the live status page of a crawl and its offline HTML
// report: pages/s and frontier size over time, the status-class mix, the
// busiest, slowest, failing and backing-off hosts with their politeness
// state, the last pages and errors, and controls to pause, resume or stop
// the crawl and retire a host.
//
//	m := status.New(c, status.Options{MaxPages: c.MaxPages})
//	c.Handler = m.Wrap(c.Handler)
//	go m.Run(ctx)
//	go http.Serve(ln, m.Handler(status.ServerOptions{Stop: cancel}))
//	err := c.Run(ctx, seeds...)
//	m.Finish()
//	m.WriteReport(f)
//
// The page is one self-contained HTML document (no external assets) that
// polls /status.json every second; the report is the same page with the
// final [Snapshot] embedded. Nothing that came from the web (URLs, titles,
// error texts, host names) is ever part of the served HTML: the page
// fetches it as JSON and inserts it as text.
package status

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"crawler"
	"crawler/fetch"
	"crawler/politeness"
)

// Defaults of Options, each used where its field is 0.
const (
	DefaultInterval   = time.Second
	DefaultMaxSamples = 3600
	DefaultRecent     = 20
	DefaultTopHosts   = 10
)

// States of a crawl, as Snapshot.State gives them.
const (
	StateRunning  = "running"
	StatePaused   = "paused"   // Crawler.Paused
	StateStopping = "stopping" // the stop control was used, or StopRequested called
	StateFinished = "finished" // Finish was called
)

// Host states, as HostRow.State gives them: the rules of
// politeness.SummarizeHosts, the first that fits.
const (
	HostRetired    = "retired"     // given up (HostStats.Retired set)
	HostActive     = "active"      // URLs being processed now
	HostBackingOff = "backing_off" // failed on its last request
	HostWaiting    = "waiting"     // waiting out its delay
	HostIdle       = "idle"        // free to be asked
	// HostDone is the state of every host not retired once the crawl is
	// finished (StateFinished): nothing more will be asked of it, whatever
	// delay or backoff it was waiting out when the crawl ended.
	HostDone = "done"
)

// maxText bounds the bytes kept of a URL, title or error text of a
// recent page: the rings hold web-fed strings.
const maxText = 2048

// Options configure a Monitor. The zero value is the default for each
// field.
type Options struct {
	// Interval is the time between samples taken by Run. 0 or negative:
	// DefaultInterval (1 s).
	Interval time.Duration
	// MaxSamples is how many samples are kept. Past it, pairs of old
	// samples merge and later samples are taken at half the resolution
	// (twice the Interval apart), so that a run of any length fits. 0 or
	// negative: DefaultMaxSamples (3600); 1 counts as 2.
	MaxSamples int
	// MaxPages is the crawl's page budget, for its progress and ETA. 0 or
	// negative: none.
	MaxPages int64
	// Node names the node of a shared crawl, shown in the title when set.
	Node string
	// Recent is how many of the last pages and last errors are kept. 0:
	// DefaultRecent (20); negative: none.
	Recent int
	// TopHosts is the number of rows of each host table. 0:
	// DefaultTopHosts (10); negative: no host tables.
	TopHosts int
	// Proxies, if not nil, is the pool of proxies the crawl's fetcher
	// sends through (a *fetch.ProxyPool), whose counts the page shows.
	// Nil: no proxy table.
	Proxies interface{ Stats() []fetch.ProxyStats }
}

// Monitor samples a Crawler's counters over time and records its last
// pages and errors, for the status page ([Monitor.Handler]) and the
// report ([Monitor.WriteReport]). Make one with New. Its methods are safe
// for concurrent use.
type Monitor struct {
	c        *crawler.Crawler
	interval time.Duration
	max      int
	maxPages int64
	node     string
	topHosts int
	proxies  interface{ Stats() []fetch.ProxyStats } // nil: none
	started  time.Time
	origin   Sample // the counters at New: the baseline of the first sample

	mu       sync.Mutex
	samples  []Sample
	stride   int // raw samples a stored sample spans at the current resolution
	pages    ring
	errors   ring
	stopping bool
	finished bool
}

// Snapshot is everything the status page shows, ready for encoding/json:
// every field name in snake_case (stats.fetched, hosts.backing_off), the
// names the CLI's -json summary gives the same counts. Times are RFC
// 3339; slices are empty, not null, when there is nothing.
type Snapshot struct {
	Time            time.Time   `json:"time"`
	State           string      `json:"state"` // StateRunning, StatePaused, StateStopping or StateFinished
	Node            string      `json:"node"`
	Started         time.Time   `json:"started"`          // when the Monitor was made: time 0 of the samples
	IntervalSeconds float64     `json:"interval_seconds"` // Options.Interval
	MaxPages        int64       `json:"max_pages"`        // Options.MaxPages; 0: none
	Progress        float64     `json:"progress"`         // Stats.Requests / MaxPages, at most 1; 0 without MaxPages
	ETASeconds      *float64    `json:"eta_seconds"`      // time left to MaxPages at the rate of the last minute; nil if unknown
	FetchTime       FetchTime   `json:"fetch_time"`       // quantiles of Stats.FetchTime
	Stats           Stats       `json:"stats"`            // StatsOf Crawler.TotalStats
	Hosts           HostSummary `json:"hosts"`            // the hosts by state (politeness.SummarizeHosts; all done once finished)
	Busiest         []HostRow   `json:"busiest"`          // most requests first
	Slowest         []HostRow   `json:"slowest"`          // highest mean fetch time first
	Failing         []HostRow   `json:"failing"`          // hosts with errors, most first
	BackingOff      []HostRow   `json:"backing_off"`      // failed last, not retired; most failures in a row first (once finished: those whose last request failed)
	RecentPages     []PageRow   `json:"recent_pages"`     // pages with a response, newest first
	RecentErrors    []PageRow   `json:"recent_errors"`    // failures (see Monitor.Wrap), newest first
	Proxies         []ProxyRow  `json:"proxies"`          // Options.Proxies' counts, in its order
	Origin          Sample      `json:"origin"`           // the counters when the Monitor was made (T 0), the baseline of Samples[0]
	Samples         []Sample    `json:"samples"`          // oldest first, merged in pairs past Options.MaxSamples
}

// ProxyRow is a proxy's line of the proxy table: the counts of
// fetch.ProxyStats.
type ProxyRow struct {
	Proxy        string     `json:"proxy"`         // its URL, the password redacted
	Requests     int64      `json:"requests"`      // sent through it
	Failures     int64      `json:"failures"`      // of which got no answer, or a 407
	Bans         int64      `json:"bans"`          // of which were answered with a ban
	Benched      int64      `json:"benched"`       // times it was benched
	BenchedUntil *time.Time `json:"benched_until"` // the end of its bench; null if not benched
}

// FetchTime summarizes the response times of a crawl, in seconds: bucket
// bounds of fetch.Histogram.Quantile, and the mean.
type FetchTime struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Mean float64 `json:"mean"`
}

// Sample is the crawl's counters at one time. Counts are cumulative over
// the crawl (Crawler.TotalStats); gauges are those of the time.
type Sample struct {
	T               float64 `json:"t"`             // seconds since Snapshot.Started
	Requests        int64   `json:"requests"`      // Stats.Requests
	Fetched         int64   `json:"fetched"`       // Stats.Fetched
	PagesPerSec     float64 `json:"pages_per_sec"` // Fetched over the time since the sample before (or Origin)
	Frontier        int     `json:"frontier"`
	Seen            int     `json:"seen"`
	HostsActive     int     `json:"hosts_active"`      // HostSummary.Active
	HostsBackingOff int     `json:"hosts_backing_off"` // HostSummary.BackingOff
	Status2xx       int64   `json:"status_2xx"`
	Status3xx       int64   `json:"status_3xx"`
	Status4xx       int64   `json:"status_4xx"`
	Status5xx       int64   `json:"status_5xx"`
	Errors          int64   `json:"errors"` // the Stats.Errors added up
	Bytes           int64   `json:"bytes"`

	span int // raw samples merged into this one
}

// HostRow is one row of a host table.
type HostRow struct {
	Host             string     `json:"host"`
	Requests         int64      `json:"requests"`
	Errors           int64      `json:"errors"`
	Bytes            int64      `json:"bytes"`
	InFlight         int        `json:"in_flight"`
	DelaySeconds     float64    `json:"delay_seconds"`
	MeanFetchSeconds float64    `json:"mean_fetch_seconds"`
	Failures         int        `json:"failures"` // in a row
	Next             *time.Time `json:"next"`     // when the host may be asked again; nil before its first request, and once the crawl is finished
	State            string     `json:"state"`    // HostRetired, HostActive, HostBackingOff, HostWaiting or HostIdle; HostRetired or HostDone once the crawl is finished
	Retired          string     `json:"retired,omitempty"`
	LastError        string     `json:"last_error"`
	Cookies          int        `json:"cookies"` // held for the host (politeness.HostStats.Cookies)
}

// PageRow is one recent page or error.
type PageRow struct {
	Time   time.Time `json:"time"` // when the Handler got it
	URL    string    `json:"url"`
	Status int       `json:"status"` // 0: no response
	Title  string    `json:"title"`
	Error  string    `json:"error"`
}

// New returns a Monitor of c. It starts nothing: call Run to sample
// every Interval, and set c.Handler to Wrap(c.Handler) for the recent
// pages and errors.
func New(c *crawler.Crawler, opts Options) *Monitor {
	m := &Monitor{
		c:        c,
		interval: opts.Interval,
		max:      opts.MaxSamples,
		maxPages: max(opts.MaxPages, 0),
		node:     opts.Node,
		topHosts: politeness.Or(opts.TopHosts, DefaultTopHosts),
		proxies:  opts.Proxies,
		started:  time.Now(),
		stride:   1,
	}
	if m.interval <= 0 {
		m.interval = DefaultInterval
	}
	if m.max <= 0 {
		m.max = DefaultMaxSamples
	}
	m.max = max(m.max, 2)
	n := politeness.Or(opts.Recent, DefaultRecent)
	m.pages.rows, m.errors.rows = make([]PageRow, n), make([]PageRow, n)
	m.origin = sampleOf(c.TotalStats(), politeness.HostSummary{}, 0)
	return m
}

// Wrap returns a Handler that records each page into the recent pages
// (those with a response) and the recent errors (a fetch error, a 429 or
// 5xx status), then calls h, if not nil, and records its error too.
func (m *Monitor) Wrap(h crawler.Handler) crawler.Handler {
	return crawler.HandlerFunc(func(ctx context.Context, p *crawler.Page) error {
		m.record(p)
		if h == nil {
			return nil
		}
		err := h.Handle(ctx, p)
		if err != nil {
			m.addError(PageRow{Time: time.Now(), URL: clip(p.URL), Status: p.Status, Error: clip("handler: " + err.Error())})
		}
		return err
	})
}

func (m *Monitor) record(p *crawler.Page) {
	row := PageRow{Time: time.Now(), URL: clip(p.URL), Status: p.Status, Title: clip(p.Title)}
	switch {
	case p.Err != nil:
		row.Error = clip(p.Err.Error())
	case p.Status == 429 || p.Status >= 500:
		row.Error = fmt.Sprintf("status %d", p.Status)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if p.Status != 0 {
		m.pages.add(row)
	}
	if row.Error != "" {
		m.errors.add(row)
	}
}

func (m *Monitor) addError(row PageRow) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.errors.add(row)
}

// Run takes a sample every Interval until ctx is done. Call it in a
// goroutine of its own; it returns when ctx is done.
func (m *Monitor) Run(ctx context.Context) {
	t := time.NewTicker(m.interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			m.mu.Lock()
			finished := m.finished
			m.mu.Unlock()
			if finished {
				return
			}
			m.Sample()
		case <-ctx.Done():
			return
		}
	}
}

// Sample takes a sample now. It costs O(hosts) and, when the samples are
// merged, O(MaxSamples).
func (m *Monitor) Sample() {
	s := m.take()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.add(s)
}

// take returns the crawl's sample now, not yet stored.
func (m *Monitor) take() Sample {
	now := time.Now()
	return sampleOf(m.c.TotalStats(), m.c.HostSummary(now), now.Sub(m.started).Seconds())
}

// Finish marks the crawl finished and takes a last sample; Run stops
// sampling. A last sample less than half an Interval after the one before
// replaces that one, so that its pages/s spans a whole interval rather
// than spiking over a few milliseconds.
func (m *Monitor) Finish() {
	s := m.take()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.finished = true
	if n := len(m.samples); n > 0 && s.T-m.samples[n-1].T < m.interval.Seconds()/2 {
		m.replaceLast(s, m.samples[n-1].span)
		return
	}
	m.add(s)
}

// StopRequested records that the crawl was asked to stop (by the stop
// control, or a signal the caller caught): the state is StateStopping
// until Finish.
func (m *Monitor) StopRequested() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stopping = true
}

// sampleOf returns the sample of s and hs at t seconds.
func sampleOf(s crawler.Stats, hs politeness.HostSummary, t float64) Sample {
	x := Sample{T: t, Requests: s.Requests, Fetched: s.Fetched, Frontier: s.Frontier, Seen: s.Seen,
		HostsActive: hs.Active, HostsBackingOff: hs.BackingOff, Bytes: s.Bytes, span: 1}
	for code, n := range s.Status {
		switch code / 100 {
		case 2:
			x.Status2xx += n
		case 3:
			x.Status3xx += n
		case 4:
			x.Status4xx += n
		case 5:
			x.Status5xx += n
		}
	}
	for _, n := range s.Errors {
		x.Errors += n
	}
	return x
}

// replaceLast makes s the last stored sample, standing for span raw ones,
// with its rate since the sample before; m.mu is held.
func (m *Monitor) replaceLast(s Sample, span int) {
	n := len(m.samples)
	s.span = span
	s.PagesPerSec = rate(m.before(n-1), s)
	m.samples[n-1] = s
}

// add stores raw sample s; m.mu is held. The last stored sample takes in
// raw ones until it spans m.stride of them, so the resolution stays even;
// past m.max samples, pairs merge and m.stride doubles.
func (m *Monitor) add(s Sample) {
	if n := len(m.samples); n > 0 && m.samples[n-1].span < m.stride {
		m.replaceLast(s, m.samples[n-1].span+1)
		return
	}
	s.span = 1
	s.PagesPerSec = rate(m.before(len(m.samples)), s)
	m.samples = append(m.samples, s)
	if len(m.samples) <= m.max {
		return
	}
	// A sample holds cumulative counts and the gauges of its time, so
	// the later of a pair stands for both, with its rate over the two
	// intervals.
	merged := m.samples[:0]
	for i := 0; i < len(m.samples); i += 2 {
		s := m.samples[i]
		if i+1 < len(m.samples) {
			s, s.span = m.samples[i+1], s.span+m.samples[i+1].span
		}
		merged = append(merged, s)
	}
	clear(m.samples[len(merged):])
	m.samples = merged
	for i := range m.samples {
		m.samples[i].PagesPerSec = rate(m.before(i), m.samples[i])
	}
	m.stride *= 2
}

// before returns the sample before the i-th: the origin for the first.
func (m *Monitor) before(i int) Sample {
	if i == 0 {
		return m.origin
	}
	return m.samples[i-1]
}

// rate returns the pages fetched per second from a to b.
func rate(a, b Sample) float64 {
	if dt := b.T - a.T; dt > 0 {
		return float64(b.Fetched-a.Fetched) / dt
	}
	return 0
}

// Snapshot returns everything the status page shows. It costs O(hosts +
// MaxSamples).
func (m *Monitor) Snapshot() Snapshot {
	now := time.Now()
	stats := m.c.TotalStats()
	hosts := m.c.HostStats()
	s := Snapshot{
		Time:            now,
		Node:            m.node,
		Started:         m.started,
		IntervalSeconds: m.interval.Seconds(),
		MaxPages:        m.maxPages,
		Stats:           StatsOf(stats),
		Origin:          m.origin,
	}
	s.FetchTime = fetchTime(stats.FetchTime)

	paused := m.c.Paused()
	m.mu.Lock()
	s.Samples = append(make([]Sample, 0, len(m.samples)), m.samples...)
	s.RecentPages, s.RecentErrors = m.pages.newestFirst(), m.errors.newestFirst()
	switch {
	case m.finished:
		s.State = StateFinished
	case m.stopping:
		s.State = StateStopping
	case paused:
		s.State = StatePaused
	default:
		s.State = StateRunning
	}
	m.mu.Unlock()

	finished := s.State == StateFinished
	s.Hosts = hostSummaryOf(politeness.SummarizeHosts(hosts, now), finished)
	s.Busiest, s.Slowest, s.Failing, s.BackingOff = m.hostTables(hosts, now, finished)
	s.Proxies = []ProxyRow{}
	if m.proxies != nil {
		for _, p := range m.proxies.Stats() {
			row := ProxyRow{Proxy: p.Proxy, Requests: p.Requests, Failures: p.Failures, Bans: p.Bans, Benched: p.Benched}
			if !p.BenchedUntil.IsZero() {
				row.BenchedUntil = &p.BenchedUntil
			}
			s.Proxies = append(s.Proxies, row)
		}
	}
	if m.maxPages > 0 {
		s.Progress = min(float64(stats.Requests)/float64(m.maxPages), 1)
		s.ETASeconds = m.eta(s, stats.Requests)
	}
	return s
}

// etaWindow is the time over which the rate of an ETA is measured.
const etaWindow = 60 // seconds

// eta returns the seconds left until the page budget is spent at the
// request rate of the last etaWindow seconds of s.Samples, or nil if
// unknown.
func (m *Monitor) eta(s Snapshot, requests int64) *float64 {
	left := m.maxPages - requests
	if left <= 0 || s.State == StateFinished {
		zero := 0.0
		return &zero
	}
	if len(s.Samples) == 0 {
		return nil
	}
	last := s.Samples[len(s.Samples)-1]
	from := s.Origin // if the samples span less than the window
	for i := len(s.Samples) - 2; i >= 0; i-- {
		if last.T-s.Samples[i].T >= etaWindow {
			from = s.Samples[i]
			break
		}
	}
	dt, dn := last.T-from.T, last.Requests-from.Requests
	if dt <= 0 || dn <= 0 {
		return nil
	}
	eta := float64(left) * dt / float64(dn)
	return &eta
}

func fetchTime(h fetch.Histogram) FetchTime {
	f := FetchTime{P50: h.Quantile(0.5).Seconds(), P90: h.Quantile(0.9).Seconds(), P99: h.Quantile(0.99).Seconds()}
	if n := h.Count(); n > 0 {
		f.Mean = (h.Sum / time.Duration(n)).Seconds()
	}
	return f
}

// hostTables returns the host tables of hs at now, in O(len(hs)); those
// of a finished crawl if finished.
func (m *Monitor) hostTables(hs []politeness.HostStats, now time.Time, finished bool) (busiest, slowest, failing, backingOff []HostRow) {
	k := m.topHosts
	byRequests := newTop(k, func(a, b *politeness.HostStats) bool { return a.Requests > b.Requests })
	byMean := newTop(k, func(a, b *politeness.HostStats) bool { return a.MeanFetchTime() > b.MeanFetchTime() })
	byErrors := newTop(k, func(a, b *politeness.HostStats) bool { return a.Errors > b.Errors })
	byFailures := newTop(k, func(a, b *politeness.HostStats) bool {
		return a.Failures > b.Failures || a.Failures == b.Failures && a.Next.Before(b.Next)
	})
	for i := range hs {
		h := &hs[i]
		if h.Requests > 0 {
			byRequests.offer(h)
		}
		if h.Requests+h.RobotsRequests > 0 {
			byMean.offer(h)
		}
		if h.Errors > 0 {
			byErrors.offer(h)
		}
		if h.Failures > 0 && h.Retired == "" {
			byFailures.offer(h)
		}
	}
	return byRequests.rows(now, finished), byMean.rows(now, finished), byErrors.rows(now, finished), byFailures.rows(now, finished)
}

// top keeps the k best hosts offered, best first; ties keep the order
// offered (by host name: HostStats is sorted).
type top struct {
	k      int
	better func(a, b *politeness.HostStats) bool
	hosts  []*politeness.HostStats
}

func newTop(k int, better func(a, b *politeness.HostStats) bool) *top {
	return &top{k: k, better: better}
}

// offer considers h, in O(1) unless h is among the k best so far: O(k).
func (t *top) offer(h *politeness.HostStats) {
	if t.k <= 0 || len(t.hosts) == t.k && !t.better(h, t.hosts[t.k-1]) {
		return
	}
	i := len(t.hosts)
	for i > 0 && t.better(h, t.hosts[i-1]) {
		i--
	}
	if len(t.hosts) < t.k {
		t.hosts = append(t.hosts, nil)
	}
	copy(t.hosts[i+1:], t.hosts[i:])
	t.hosts[i] = h
}

func (t *top) rows(now time.Time, finished bool) []HostRow {
	rows := make([]HostRow, len(t.hosts))
	for i, h := range t.hosts {
		rows[i] = hostRow(h, now, finished)
	}
	return rows
}

// hostRow returns the row of h at now; once the crawl is finished, a
// host not retired is done, with no next time: nothing more will be
// asked of it.
func hostRow(h *politeness.HostStats, now time.Time, finished bool) HostRow {
	r := HostRow{
		Host: h.Host, Requests: h.Requests, Errors: h.Errors, Bytes: h.Bytes, InFlight: h.InFlight,
		DelaySeconds: h.Delay.Seconds(), MeanFetchSeconds: h.MeanFetchTime().Seconds(),
		Failures: h.Failures, Retired: clip(h.Retired), LastError: clip(h.LastError), State: hostState(h, now),
		Cookies: h.Cookies,
	}
	if finished && r.State != HostRetired {
		r.State = HostDone
		return r
	}
	if !h.Next.IsZero() {
		next := h.Next
		r.Next = &next
	}
	return r
}

// hostState is the state of h at now by the rules of
// politeness.SummarizeHosts.
func hostState(h *politeness.HostStats, now time.Time) string {
	switch {
	case h.Retired != "":
		return HostRetired
	case h.InFlight > 0:
		return HostActive
	case h.Failures > 0:
		return HostBackingOff
	case h.Next.After(now):
		return HostWaiting
	}
	return HostIdle
}

// ring keeps the last len(rows) rows added.
type ring struct {
	rows []PageRow
	next int // where the next row goes
	n    int // rows held
}

func (r *ring) add(row PageRow) {
	if len(r.rows) == 0 {
		return
	}
	r.rows[r.next] = row
	r.next = (r.next + 1) % len(r.rows)
	r.n = min(r.n+1, len(r.rows))
}

func (r *ring) newestFirst() []PageRow {
	out := make([]PageRow, r.n)
	for i := range out {
		out[i] = r.rows[(r.next-1-i+2*len(r.rows))%len(r.rows)]
	}
	return out
}

// clip returns s cut to maxText bytes at most, on a rune boundary, with
// invalid UTF-8 replaced.
func clip(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxText {
		return s
	}
	i := maxText
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
