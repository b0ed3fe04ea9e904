package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"crawler/crawlertest"
)

// readCSV reads the records of run's output and checks what every run
// writes: the header first, then one record per page, each URL once, each
// with a title.
func readCSV(t *testing.T, r io.Reader, header []string) map[string][]string {
	t.Helper()
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 || !slices.Equal(recs[0], header) {
		t.Fatalf("header %q, want %q", recs[:min(1, len(recs))], header)
	}
	rows := map[string][]string{}
	for _, rec := range recs[1:] {
		u := rec[0]
		if _, dup := rows[u]; dup {
			t.Errorf("%s written twice", u)
		}
		if rec[1] == "" {
			t.Errorf("%s: no title", u)
		}
		rows[u] = rec
	}
	return rows
}

// A whole crawl writes a record for every good page of the web, with its
// title and h1 ("Host 2 page 7" both) and the number of its links.
func TestRunWritesEveryPage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "pages.csv")
	for _, tc := range []struct {
		name string
		args []string
		file string // where the CSV goes; "" for stdout
	}{
		{"stdout", []string{"-max-pages", "0"}, ""},
		{"file", []string{"-max-pages", "0", "-out", out}, out},
	} {
		t.Run(tc.name, func(t *testing.T) {
			web := crawlertest.NewWeb(crawlertest.Config{Seed: 1, Hosts: 3, PagesPerHost: 15})
			defer web.Close()
			var stdout bytes.Buffer
			if err := run(context.Background(), tc.args, &stdout, web); err != nil {
				t.Fatal(err)
			}
			var csvOut io.Reader = &stdout
			if tc.file != "" {
				if stdout.Len() != 0 {
					t.Errorf("stdout has %d bytes with -out", stdout.Len())
				}
				b, err := os.ReadFile(tc.file)
				if err != nil {
					t.Fatal(err)
				}
				csvOut = bytes.NewReader(b)
			}
			rows := readCSV(t, csvOut, []string{"url", "title", "h1", "links"})
			want := web.GoodPages()
			if got := slices.Sorted(maps.Keys(rows)); !slices.Equal(got, want) {
				t.Errorf("records for %d pages %q\nwant the %d good pages %q", len(got), got, len(want), want)
			}
			cfg := web.Config()
			for h := range cfg.Hosts {
				for n := range cfg.PagesPerHost {
					title := fmt.Sprintf("Host %d page %d", h, n)
					rec := rows[web.URL(h, n)]
					if rec == nil {
						continue // reported above
					}
					if rec[1] != title || rec[2] != title {
						t.Errorf("%s: title %q, h1 %q; want %q", rec[0], rec[1], rec[2], title)
					}
					// Every page links to the next one of its host.
					if links, err := strconv.Atoi(rec[3]); err != nil || links < 1 {
						t.Errorf("%s: links %q", rec[0], rec[3])
					}
				}
			}
		})
	}
}

// The default run stops at -max-pages requests.
func TestRunDefaults(t *testing.T) {
	var stdout bytes.Buffer
	if err := run(context.Background(), nil, &stdout, nil); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, &stdout, []string{"url", "title", "h1", "links"})
	if len(rows) == 0 || len(rows) > 200 {
		t.Errorf("%d records, want 1 to 200", len(rows))
	}
	for u := range rows {
		if !strings.HasPrefix(u, "http://") || !strings.Contains(u, ".crawler.test/") {
			t.Errorf("record for %s", u)
		}
	}
}

// Each -extract adds a column.
func TestRunExtract(t *testing.T) {
	web := crawlertest.NewWeb(crawlertest.Config{Seed: 2, Hosts: 2, PagesPerHost: 10})
	defer web.Close()
	var stdout bytes.Buffer
	args := []string{"-max-pages", "0", "-extract", "heading=h1", "-extract", "blink=blink"}
	if err := run(context.Background(), args, &stdout, web); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, &stdout, []string{"url", "title", "h1", "links", "heading", "blink"})
	if len(rows) != len(web.GoodPages()) {
		t.Errorf("%d records, want %d", len(rows), len(web.GoodPages()))
	}
	for u, rec := range rows {
		if rec[4] != rec[2] || rec[5] != "" {
			t.Errorf("%s: heading %q, blink %q; want %q, \"\"", u, rec[4], rec[5], rec[2])
		}
	}
}

func TestRunBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-extract", "h1"},
		{"-extract", "title=a["},
		{"-max-pages", "x"},
	} {
		var stdout bytes.Buffer
		err := run(context.Background(), args, &stdout, nil)
		if err == nil || stdout.Len() != 0 {
			t.Errorf("run %q: %v, %q; want an error and no output", args, err, stdout.String())
		}
	}
}
