package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"crawler/crawlertest"
)

func TestRunPrintsEveryTitle(t *testing.T) {
	cfg := crawlertest.Config{Seed: 1, Hosts: 3, PagesPerHost: 15}
	web := crawlertest.NewWeb(cfg)
	defer web.Close()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-max-pages", "0"}, &out, web); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for i, l := range lines {
		u, title, ok := strings.Cut(l, "\t")
		if !ok {
			t.Fatalf("line %q: no tab", l)
		}
		if i > 0 && lines[i-1] > l {
			t.Errorf("not sorted: %q before %q", lines[i-1], l)
		}
		got[u] = title
	}
	// Every page of the web is reachable from the seed, so each must be
	// listed with its title; besides them only robots-allowed private pages
	// may appear.
	for h := range cfg.Hosts {
		for n := range cfg.PagesPerHost {
			u, want := web.URL(h, n), fmt.Sprintf("Host %d page %d", h, n)
			if got[u] != want {
				t.Errorf("%s: title %q, want %q", u, got[u], want)
			}
			delete(got, u)
		}
	}
	want := web.Depths()
	for u, title := range got {
		if _, ok := want[u]; !ok || !strings.Contains(u, "/private/") || !strings.Contains(title, " private ") {
			t.Errorf("unexpected line %s\t%s", u, title)
		}
	}
}

func TestTitle(t *testing.T) {
	for _, tc := range []struct{ html, want string }{
		{"<html><head><title>Hello</title></head></html>", "Hello"},
		{"<TITLE>\n  Two\n words </TITLE><title>second</title>", "Two words"},
		{"<title></title>", ""},
		{"<p>no title</p>", ""},
		{"", ""},
	} {
		if got := title([]byte(tc.html)); got != tc.want {
			t.Errorf("title(%q) = %q, want %q", tc.html, got, tc.want)
		}
	}
}
