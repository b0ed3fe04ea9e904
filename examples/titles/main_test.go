package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestTitles(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-max-pages", "50"}, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 30 {
		t.Fatalf("%d titles from 50 pages: %q", len(lines), out.String())
	}
	if !strings.Contains(out.String(), "http://h0.crawler.test/\tHost 0 page 0") {
		t.Errorf("the seed's title is missing:\n%s", out.String())
	}
	for _, l := range lines {
		if u, title, ok := strings.Cut(l, "\t"); !ok || !strings.HasPrefix(u, "http://") || !strings.HasPrefix(title, "Host ") && title != "Not found" {
			t.Errorf("bad line %q", l)
		}
	}
}
