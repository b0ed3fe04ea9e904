package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestLinkcheckFindsMissingPages(t *testing.T) {
	var out bytes.Buffer
	n, err := run(context.Background(), nil, &out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if n == 0 || len(lines) != n {
		t.Fatalf("found %d broken links, printed %d lines:\n%s", n, len(lines), out.String())
	}
	// crawlertest serves its broken links under /missing/ as 404s, and
	// redirect chains longer than the crawler follows under /chain/; the
	// check stays on the seed's host.
	missing := 0
	for _, l := range lines {
		switch {
		case !strings.Contains(l, "(linked from http://h0.crawler.test/"):
			t.Errorf("report without a referrer on the seed's host: %q", l)
		case strings.HasPrefix(l, "404 http://h0.crawler.test/missing/"):
			missing++
		case strings.HasPrefix(l, "error: crawler: too many redirects") && strings.Contains(l, "/chain/"):
		default:
			t.Errorf("unexpected report %q", l)
		}
	}
	if missing == 0 {
		t.Error("no 404 reported")
	}
}
