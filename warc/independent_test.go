package warc_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"crawler/warc"
)

// TestIndependentReader has warcio.js, an implementation of WARC that
// shares nothing with ours, index the files our Writer writes: its
// "index" must list every record as ours reads it, and its "cdx-index"
// one line per response and revisit record, with our payload digests.
//
// WARCIO_JS names warcio.js's CLI script, run with node:
// node_modules/warcio/dist/cli.js of `npm ci` on testdata/warciojs (its
// package-lock.json pins warcio 2.4.11 and its dependencies; .ci/run
// installs it under $HOME). Without it the test skips, unless
// CRAWLER_CI=1, where it fails.
func TestIndependentReader(t *testing.T) {
	cli := os.Getenv("WARCIO_JS")
	node, nodeErr := exec.LookPath("node")
	if cli == "" || nodeErr != nil {
		msg := "WARCIO_JS unset: set it to warcio.js's CLI script (node_modules/warcio/dist/cli.js) to check our files with it"
		if nodeErr != nil {
			msg = "node not found: " + nodeErr.Error()
		}
		if os.Getenv("CRAWLER_CI") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}

	dir := t.TempDir()
	w := newWriter(t, dir, warc.Options{MaxFileBytes: 16 << 10, Info: []warc.Field{{"operator", "test"}}})
	for _, c := range testCases(t) {
		if c.name == "unparsable" {
			// warcio.js 2.4.11 reads the HTTP header of a response record
			// from the file, not from the record's block: a block without
			// a header end makes it read into the next record and lose
			// its way. Our fetcher records only responses net/http parsed.
			continue
		}
		if err := w.Record(context.Background(), &c.x); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 30 {
		if err := w.Record(context.Background(), exchange(fmt.Sprintf("http://example.com/page/%d", i), 100*i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files := w.Files()
	if len(files) < 2 {
		t.Fatalf("%d files, want several", len(files))
	}

	indexed, cdxLines := 0, 0
	defer func() {
		t.Logf("warcio.js indexed %d records of %d files, with %d cdx lines", indexed, len(files), cdxLines)
	}()
	for _, path := range files {
		name := filepath.Base(path)
		ours := readFile(t, path)

		// index: every record, with its offset and type
		lines := runWarcio(t, node, cli, "index", path)
		indexed += len(lines)
		if len(lines) != len(ours) {
			t.Errorf("%s: warcio.js indexes %d records, we read %d", name, len(lines), len(ours))
		}
		for i := range min(len(lines), len(ours)) {
			var got struct {
				Offset int64  `json:"offset"`
				Type   string `json:"warc-type"`
				URI    string `json:"warc-target-uri"`
			}
			if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
				t.Fatalf("%s: warcio.js index line %q: %v", name, lines[i], err)
			}
			if got.Offset != ours[i].Offset || got.Type != ours[i].Type() || got.URI != ours[i].Get("WARC-Target-URI") {
				t.Errorf("%s: record %d: warcio.js reads %+v, we read offset %d, %s %s",
					name, i, got, ours[i].Offset, ours[i].Type(), ours[i].Get("WARC-Target-URI"))
			}
		}

		// cdx-index: a line per response and revisit, with its digest
		type cdx struct {
			URL    string `json:"url"`
			Status string `json:"status"`
			Digest string `json:"digest"`
			Mime   string `json:"mime"`
			Offset string `json:"offset"`
		}
		var want []cdx
		for _, rec := range ours {
			switch rec.Type() {
			case "response", "revisit":
				c := cdx{URL: rec.Get("WARC-Target-URI"), Offset: strconv.FormatInt(rec.Offset, 10)}
				c.Digest, _ = strings.CutPrefix(rec.Get("WARC-Payload-Digest"), "sha1:")
				if rec.Type() == "revisit" {
					c.Mime = "warc/revisit"
				}
				want = append(want, c)
			}
		}
		lines = runWarcio(t, node, cli, "cdx-index", path)
		cdxLines += len(lines)
		if len(lines) != len(want) {
			t.Errorf("%s: warcio.js cdx-index gives %d lines, want %d (response and revisit records):\n%s",
				name, len(lines), len(want), strings.Join(lines, "\n"))
			continue
		}
		for i, line := range lines {
			// cdxj: urlkey timestamp {json}
			f := strings.SplitN(line, " ", 3)
			var got cdx
			if len(f) != 3 || json.Unmarshal([]byte(f[2]), &got) != nil {
				t.Errorf("%s: cdxj line %q", name, line)
				continue
			}
			if got.URL != want[i].URL || got.Digest != want[i].Digest || got.Offset != want[i].Offset ||
				(want[i].Mime != "" && got.Mime != want[i].Mime) {
				t.Errorf("%s: cdx line %d: %+v, want %+v", name, i, got, want[i])
			}
		}
	}
}

// runWarcio runs the warcio.js CLI command on path and returns its
// output lines; it fails the test if the command fails or writes to
// stderr (where warcio.js warns of records it had to guess at).
func runWarcio(t *testing.T, node, cli, command, path string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, cli, command, path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("warcio.js %s %s: %v\n%s", command, filepath.Base(path), err, stderr.Bytes())
	}
	var lines []string
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}
