package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"crawler/crawlertest"
)

func TestPipeline(t *testing.T) {
	web := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 5, PagesPerHost: 40})
	defer web.Close()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-max-pages", "200"}, &out, web); err != nil {
		t.Fatal(err)
	}
	// The filter pruned every /img/ link, so the crawl never asked for one.
	for u := range web.RequestCounts() {
		if strings.Contains(u, "/img/") {
			t.Errorf("%s was fetched although the filter dropped /img/ links", u)
		}
	}
	n := 0
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		// The filter lets through successful HTML pages only.
		if strings.Contains(r.URL, "/missing/") || strings.Contains(r.URL, "/r/") {
			t.Errorf("filtered page written: %+v", r)
		}
		if !strings.HasPrefix(r.Title, "Host ") || r.Words < 50 {
			t.Errorf("bad extraction: %+v", r)
		}
		n++
	}
	if n < 100 {
		t.Errorf("%d records from a 200-page crawl", n)
	}
}
