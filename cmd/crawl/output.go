package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"crawler"
	"crawler/extract"
	"crawler/politeness"
	"crawler/status"
	"crawler/store"
)

// output is where one flag's output goes: a file created before the
// crawl starts, or stdout for "-". Its errors name the flag.
type output struct {
	flag string
	w    io.Writer
	file io.Closer // nil for stdout
	step *stepFile // a file kept in step with -state; nil if not
}

// openOutput opens the output of the flag called name at path: stdout for
// "-", otherwise the file, created or truncated now so that a path that
// cannot be written is an error before the crawl.
func openOutput(name, path string, stdout io.Writer) (*output, error) {
	if path == "-" {
		return &output{flag: name, w: stdout}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-%s: %w", name, err)
	}
	return &output{flag: name, w: f, file: f}, nil
}

// Close closes the file, if the output is one, and returns the error of
// the close (a write the file system could not complete), naming the flag.
func (o *output) Close() error {
	if o == nil || o.file == nil {
		return nil
	}
	if err := o.file.Close(); err != nil {
		return fmt.Errorf("-%s: %w", o.flag, err)
	}
	return nil
}

// outputs are the -out, -host-stats and -report outputs of a crawl, nil
// when not asked for.
type outputs struct {
	pages, hosts, report *output
	resumed              []string // the outputs that go on with a file of the state's earlier runs
}

// openOutputs opens the outputs o asks for; on an error, none stays open.
// With a state (st and s not nil), a -out file is kept in step with it.
func openOutputs(o *options, stdout io.Writer, st *store.Store, s *steps) (*outputs, error) {
	var outs outputs
	var err error
	switch {
	case o.out != "" && o.out != "-" && st != nil:
		f, resumed, err := openStepFile(st, s, "out", o.out)
		if err != nil {
			return nil, err
		}
		outs.pages = &output{flag: "out", w: f, file: f, step: f}
		if resumed {
			outs.resumed = append(outs.resumed, "-out "+o.out)
		}
	case o.out != "":
		if outs.pages, err = openOutput("out", o.out, stdout); err != nil {
			return nil, err
		}
	}
	if o.hostStats != "" {
		if outs.hosts, err = openOutput("host-stats", o.hostStats, stdout); err != nil {
			outs.Close()
			return nil, err
		}
	}
	if o.report != "" {
		if outs.report, err = openOutput("report", o.report, stdout); err != nil {
			outs.Close()
			return nil, err
		}
	}
	return &outs, nil
}

// Close closes the outputs and returns their errors.
func (outs *outputs) Close() error {
	return errors.Join(outs.pages.Close(), outs.hosts.Close(), outs.report.Close())
}

// record is one line of -out.
type record struct {
	URL         string              `json:"url"`
	Status      int                 `json:"status"`
	Depth       int                 `json:"depth"`
	Importance  float64             `json:"importance,omitempty"`
	ContentType string              `json:"content_type,omitempty"`
	Bytes       int                 `json:"bytes"`
	Title       string              `json:"title,omitempty"`
	Links       int                 `json:"links"`
	NoFollow    int                 `json:"nofollow_links,omitempty"`
	FetchMS     float64             `json:"fetch_ms"`
	Redirect    string              `json:"redirect,omitempty"`
	Revisit     bool                `json:"revisit,omitempty"`
	Unchanged   bool                `json:"unchanged,omitempty"`
	NearDupOf   string              `json:"near_duplicate_of,omitempty"`
	Extract     map[string][]string `json:"extract,omitempty"` // -extract: each rule's texts, on 2xx HTML pages
	Error       string              `json:"error,omitempty"`
}

// jsonLines is a Handler writing one record per page to an output; safe
// for concurrent use. Its first write error is kept, returned by the
// Handle that met it and by Flush, and passed to fail, which stops the
// crawl; the pages handled after it are dropped without a word (the crawl
// is stopping, and the error is reported at its end).
type jsonLines struct {
	mu    sync.Mutex
	out   *output
	w     *bufio.Writer
	enc   *json.Encoder
	err   error
	fail  func(error)
	rules extract.Rules // -extract; nil: none
	steps *steps        // with -state: records are written in the state's steps
}

// newJSONLines returns a jsonLines writing to out, which calls fail with
// its first write error, and adds what rules extract (if any) to the
// records of 2xx HTML pages.
func newJSONLines(out *output, fail func(error), rules extract.Rules) *jsonLines {
	bw := bufio.NewWriter(out.w)
	return &jsonLines{out: out, w: bw, enc: json.NewEncoder(bw), fail: fail, rules: rules}
}

// Handle writes p's record.
func (j *jsonLines) Handle(_ context.Context, p *crawler.Page) error {
	r := record{
		URL: p.URL, Status: p.Status, Depth: p.Depth, Importance: p.Importance, ContentType: p.ContentType,
		Bytes: len(p.Body), Title: p.Title, Links: len(p.Links), NoFollow: len(p.NoFollowLinks), Redirect: p.Redirect,
		FetchMS: float64(p.Duration.Microseconds()) / 1000, Revisit: p.Revisit, Unchanged: p.Unchanged,
		NearDupOf: p.NearDuplicateOf,
	}
	if p.Err != nil {
		r.Error = p.Err.Error()
	}
	if len(j.rules) > 0 && p.Status/100 == 2 {
		if d, err := extract.Parse(p); err == nil { // an error: not HTML
			r.Extract = j.rules.Extract(d) // parsed once for every rule
		}
	}
	if j.steps != nil {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		line = append(line, '\n')
		j.steps.hold(p.URL, func() error {
			_, err := j.out.w.Write(line)
			return err
		})
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return nil
	}
	j.check(j.enc.Encode(r))
	return j.err
}

// Flush writes what is buffered, and returns the first write error.
func (j *jsonLines) Flush() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err == nil {
		j.check(j.w.Flush())
	}
	return j.err
}

// check keeps err, the first write error, naming the flag, and calls
// fail with it; j.mu is held.
func (j *jsonLines) check(err error) {
	if err != nil {
		j.err = fmt.Errorf("-%s: %w", j.out.flag, err)
		j.fail(j.err)
	}
}

// hostRecord is one line of -host-stats.
type hostRecord struct {
	Host           string  `json:"host"`
	Requests       int64   `json:"requests"`
	RobotsRequests int64   `json:"robots_requests"`
	Bytes          int64   `json:"bytes"`
	Errors         int64   `json:"errors"`
	DelayMS        float64 `json:"delay_ms"`
	Failures       int     `json:"failures"`
	Retired        string  `json:"retired,omitempty"`
	Cookies        int     `json:"cookies"`
}

// writeHostStats writes hosts to out, one JSON line each.
func writeHostStats(out *output, hosts []politeness.HostStats) error {
	bw := bufio.NewWriter(out.w)
	enc := json.NewEncoder(bw)
	for _, h := range hosts {
		if err := enc.Encode(hostRecord{
			Host: h.Host, Requests: h.Requests, RobotsRequests: h.RobotsRequests, Bytes: h.Bytes, Errors: h.Errors,
			DelayMS: float64(h.Delay.Microseconds()) / 1000, Failures: h.Failures, Retired: h.Retired, Cookies: h.Cookies,
		}); err != nil {
			return fmt.Errorf("-%s: %w", out.flag, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("-%s: %w", out.flag, err)
	}
	return nil
}

// summary is the -json output: a run's counters under the names
// /status.json gives them (status.Stats), and whether the run was
// interrupted.
type summary struct {
	Interrupted bool `json:"interrupted"`
	status.Stats
	Proxies []proxyStat `json:"proxies,omitempty"` // with -proxy or -proxies: each proxy's counts
	Total   *summary    `json:"total,omitempty"`   // with -state: every run's counters, the state's gauges
}

// summaryOf is the -json summary of s.
func summaryOf(s crawler.Stats, interrupted bool) summary {
	return summary{Interrupted: interrupted, Stats: status.StatsOf(s)}
}

// writeJSONSummary writes the -json summary of s to stdout, with total,
// the whole crawl's under -state, if not nil, and proxies, the counts of
// the run's proxies.
func writeJSONSummary(stdout io.Writer, s crawler.Stats, total *crawler.Stats, interrupted bool, proxies []proxyStat) error {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	sum := summaryOf(s, interrupted)
	sum.Proxies = proxies
	if total != nil {
		t := summaryOf(*total, interrupted || total.Frontier > 0)
		sum.Total = &t
	}
	if err := enc.Encode(sum); err != nil {
		return fmt.Errorf("-json: %w", err)
	}
	return nil
}

// writeTextSummary writes the summary of s for people to con; stopped is
// why the crawl stopped early, nil if it did not.
func writeTextSummary(con io.Writer, s crawler.Stats, stopped error) {
	if stopped != nil {
		fmt.Fprintf(con, "crawl: interrupted (%s), %d URLs left\n", shortenURLs(stopped.Error()), s.Frontier)
	}
	fmt.Fprintln(con, "crawl:", s)
	if len(s.Errors) > 0 {
		fmt.Fprintln(con, "crawl: errors:", s.ErrorSummary())
	}
}
