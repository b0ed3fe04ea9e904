package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// syncBuffer is a bytes.Buffer that the crawl writes and the test reads
// at the same time.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// statusURL waits for the line in which the crawl says where its status
// page is, and returns the page's URL.
func statusURL(t *testing.T, stderr *syncBuffer, done <-chan error) string {
	t.Helper()
	re := regexp.MustCompile(`status page at (http://\S+/)`)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("the crawl ended before it served its status page: %v\n%s", err, stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	t.Fatalf("no status page announced on stderr:\n%s", stderr.String())
	return ""
}

// get sends a request to the status server with the token, if not "", and
// returns the status and body.
func get(t *testing.T, method, url, token string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if method == http.MethodPost {
		req.Header.Set("X-Crawler-Control", "1")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// -http serves the status page, /status.json and /metrics, each asking for
// the token; its stop control ends the crawl as a signal would, but with
// exit status 0; -report then writes the report.
func TestStatusServer(t *testing.T) {
	t.Parallel()
	report := filepath.Join(t.TempDir(), "report.html")
	const token = "s3cret"
	var stdout bytes.Buffer
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		// One request per host every 20 ms: the crawl lasts until stopped.
		done <- run(context.Background(), []string{"-demo", "-delay", "20ms", "-workers", "4", "-http", "127.0.0.1:0",
			"-http-token", token, "-report", report, "-json"}, &stdout, &stderr)
	}()
	base := statusURL(t, &stderr, done)

	for _, path := range []string{"", "status.json", "metrics"} {
		if code, _ := get(t, http.MethodGet, base+path, ""); code != http.StatusUnauthorized {
			t.Errorf("GET /%s without the token: %d, want 401", path, code)
		}
	}
	code, page := get(t, http.MethodGet, base, token)
	if code != http.StatusOK || !bytes.Contains(page, []byte(`id="plot-rate"`)) {
		t.Errorf("GET / = %d, %.200s", code, page)
	}
	var requests float64
	deadline := time.Now().Add(10 * time.Second)
	for requests < 20 && time.Now().Before(deadline) {
		code, body := get(t, http.MethodGet, base+"metrics", token)
		if code != http.StatusOK {
			t.Fatalf("GET /metrics = %d: %s", code, body)
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("/metrics does not parse: %v", err)
		}
		f := families["crawler_requests_total"]
		if f == nil || len(f.Metric) != 1 {
			t.Fatalf("no crawler_requests_total in /metrics")
		}
		requests = f.Metric[0].GetCounter().GetValue()
		time.Sleep(20 * time.Millisecond)
	}
	code, body := get(t, http.MethodGet, base+"status.json", token)
	var snap struct {
		State   string                     `json:"state"`
		Stats   map[string]json.RawMessage `json:"stats"`
		Hosts   map[string]json.RawMessage `json:"hosts"`
		Samples []json.RawMessage          `json:"samples"`
	}
	if err := json.Unmarshal(body, &snap); code != http.StatusOK || err != nil || snap.State != "running" {
		t.Fatalf("GET /status.json = %d, %v: %.300s", code, err, body)
	}
	// The names of -json for the same counts (the README's jq .stats.fetched),
	// none in Go's case.
	for _, k := range []string{"fetched", "requests", "robots_fetched", "pages_per_sec", "elapsed_sec", "frontier"} {
		if _, ok := snap.Stats[k]; !ok {
			t.Errorf("/status.json has no stats.%s", k)
		}
	}
	for _, obj := range []map[string]json.RawMessage{snap.Stats, snap.Hosts} {
		for k := range obj {
			if k != strings.ToLower(k) {
				t.Errorf("/status.json has %q, not in snake_case", k)
			}
		}
	}

	// Pausing and resuming from the page say so on stderr, without -v.
	for _, c := range []string{"pause", "resume"} {
		if code, body := get(t, http.MethodPost, base+"control/"+c, token); code/100 != 2 {
			t.Fatalf("%s: %d %s", c, code, body)
		}
	}

	if code, body := get(t, http.MethodPost, base+"control/stop", token); code/100 != 2 {
		t.Fatalf("stop: %d %s", code, body)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after the stop control: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stop control did not stop the crawl")
	}
	var s summary
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil || !s.Interrupted || s.Requests < int64(requests) {
		t.Errorf("summary %+v (%v) after %v requests and a stop", s, err, requests)
	}
	for _, line := range []string{`level=INFO msg="crawl paused from the status page"`, `level=INFO msg="crawl resumed from the status page"`,
		`level=INFO msg="crawl stopping from the status page`, "crawl: report written to " + report + "\n"} {
		if strings.Count(stderr.String(), line) != 1 {
			t.Errorf("stderr does not say once %q:\n%s", line, stderr.String())
		}
	}
	html, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`data-mode="report"`, `id="data"`, `id="plot-rate"`} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("the report has no %s", want)
		}
	}
	if bytes.Contains(html, []byte(token)) {
		t.Error("the report holds the token")
	}
	// The crawl is over: no host of the report waits for anything.
	_, data, _ := bytes.Cut(html, []byte(`id="data">`))
	var final struct {
		Hosts   map[string]int `json:"hosts"`
		Busiest []struct {
			Host  string     `json:"host"`
			State string     `json:"state"`
			Next  *time.Time `json:"next"`
		} `json:"busiest"`
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&final); err != nil || len(final.Busiest) == 0 {
		t.Fatalf("the report's data: %v, %d busiest hosts", err, len(final.Busiest))
	}
	for _, h := range final.Busiest {
		if h.State != "done" || h.Next != nil {
			t.Errorf("the report's host %s: %s, next %v; want done, no next time", h.Host, h.State, h.Next)
		}
	}
	if final.Hosts["waiting"]+final.Hosts["active"]+final.Hosts["idle"]+final.Hosts["backing_off"] != 0 || final.Hosts["done"] == 0 {
		t.Errorf("the report's hosts: %v; want all done", final.Hosts)
	}
}

// -http off loopback needs -http-token, checked before anything starts.
func TestStatusServerNeedsToken(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", "192.0.2.1:8080"} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), []string{"-demo", "-http", addr}, &stdout, &stderr)
		if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "-http-token") {
			t.Errorf("-http %s without a token: %v, want a usage error naming -http-token", addr, err)
		}
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-demo", "-report", "-"}, &stdout, &stderr)
	if !errors.As(err, new(usageError)) {
		t.Errorf("-report -: %v, want a usage error", err)
	}
}

// Without a terminal, progress comes as plain log lines, with the share
// of -max-pages done and the time left.
func TestProgressLogLines(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-demo", "-delay", "200ms", "-max-pages", "200", "-progress", "50ms"}, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	lines := regexp.MustCompile(`(?m)^crawl: pages \d+ .* \d+% of 200  ETA \d`).FindAllString(stderr.String(), -1)
	if len(lines) < 2 {
		t.Errorf("%d progress lines with an ETA in:\n%s", len(lines), stderr.String())
	}
	if strings.Contains(stderr.String(), "\r") {
		t.Error("a progress line rewritten in place on a stderr that is not a terminal")
	}
}

// -extract adds each rule's texts to the -out record of every 2xx HTML
// page, and its mistakes are usage errors.
func TestExtractFlag(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "pages.jsonl")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-demo", "-max-pages", "100", "-out", out,
		"-extract", "heading=h1#top", "-extract", "nav=a.nav", "-extract", "none=table td"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	html := 0
	for line := range strings.Lines(string(data)) {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		isHTML := r.Status == 200 && strings.HasPrefix(r.ContentType, "text/html")
		if !isHTML {
			if r.Extract != nil {
				t.Errorf("%s (%d %s) has extract %v", r.URL, r.Status, r.ContentType, r.Extract)
			}
			continue
		}
		html++
		// The demo's pages are headed by their title.
		if h := r.Extract["heading"]; len(h) != 1 || h[0] != r.Title {
			t.Errorf("%s: heading %q, title %q", r.URL, h, r.Title)
		}
		if none, ok := r.Extract["none"]; !ok || len(none) != 0 {
			t.Errorf("%s: a rule matching nothing gave %q (present %v), want []", r.URL, none, ok)
		}
		if len(r.Extract["nav"]) > r.Links {
			t.Errorf("%s: %d nav links extracted of %d links", r.URL, len(r.Extract["nav"]), r.Links)
		}
	}
	if html < 50 {
		t.Errorf("only %d HTML pages", html)
	}
	for _, args := range [][]string{
		{"-demo", "-out", "-", "-extract", "x"},
		{"-demo", "-out", "-", "-extract", "x=a[["},
		{"-demo", "-out", "-", "-extract", "x=a", "-extract", "x=b"},
		{"-demo", "-extract", "x=a"},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, &stdout, &stderr); !errors.As(err, new(usageError)) {
			t.Errorf("run(%q) = %v, want a usage error", args, err)
		}
	}
}
