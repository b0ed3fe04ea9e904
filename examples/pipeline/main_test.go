package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crawler/crawlertest"
)

func TestRunWritesOneRecordPerHTMLPage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "pages.jsonl")
	for _, tc := range []struct {
		name string
		args []string
		file string // where the records go; "" for stdout
	}{
		{"stdout", []string{"-max-pages", "0"}, ""},
		{"file", []string{"-max-pages", "0", "-out", out}, out},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := crawlertest.Config{Seed: 1, Hosts: 3, PagesPerHost: 15}
			web := crawlertest.NewWeb(cfg)
			defer web.Close()
			var stdout bytes.Buffer
			if err := run(context.Background(), tc.args, &stdout, web); err != nil {
				t.Fatal(err)
			}
			var records io.Reader = &stdout
			if tc.file != "" {
				if stdout.Len() != 0 {
					t.Errorf("stdout has %d bytes with -out", stdout.Len())
				}
				b, err := os.ReadFile(tc.file)
				if err != nil {
					t.Fatal(err)
				}
				records = bytes.NewReader(b)
			}
			got := map[string]record{}
			sc := bufio.NewScanner(records)
			for sc.Scan() {
				var r record
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatalf("line %q: %v", sc.Text(), err)
				}
				if _, dup := got[r.URL]; dup {
					t.Errorf("%s written twice", r.URL)
				}
				if r.Words == 0 {
					t.Errorf("%s: no words counted", r.URL)
				}
				got[r.URL] = r
			}

			// The extractor found every page with its title; the filter
			// let nothing else through but allowed private pages.
			for h := range cfg.Hosts {
				for n := range cfg.PagesPerHost {
					u, want := web.URL(h, n), fmt.Sprintf("Host %d page %d", h, n)
					if got[u].Title != want {
						t.Errorf("%s: title %q, want %q", u, got[u].Title, want)
					}
					delete(got, u)
				}
			}
			for u, r := range got {
				if !strings.Contains(u, "/private/") || !strings.Contains(r.Title, " private ") {
					t.Errorf("unexpected record %+v", r)
				}
			}

			// The filter dropped the links to images, so the crawl,
			// which would have fetched some, fetched none.
			img := func(m map[string]int) (n int) {
				for u := range m {
					if strings.Contains(u, "/img/") {
						n++
					}
				}
				return n
			}
			if n := img(web.Depths()); n == 0 {
				t.Fatal("the web links to no image: the test proves nothing")
			}
			if n := img(web.RequestCounts()); n != 0 {
				t.Errorf("%d images fetched despite the filter", n)
			}
		})
	}
}

func TestRunBadOutFile(t *testing.T) {
	web := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 1, PagesPerHost: 5})
	defer web.Close()
	bad := filepath.Join(t.TempDir(), "no", "such", "dir", "x.jsonl")
	if err := run(context.Background(), []string{"-out", bad}, io.Discard, web); err == nil {
		t.Error("run with an unwritable -out succeeded")
	}
}
