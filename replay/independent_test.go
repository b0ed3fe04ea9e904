package replay_test

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"crawler/fetch"
	"crawler/replay"
)

// warcioScript writes, with warcio.js, the WARC file named by its
// argument: a warcinfo record, responses (one gzip-encoded, one a
// redirect) and a revisit naming the home page by
// WARC-Refers-To-Target-URI and WARC-Refers-To-Date, each record its own
// gzip member.
const warcioScript = `
import { WARCRecord, WARCSerializer } from "WARCIO";
import fs from "node:fs";
import zlib from "node:zlib";

const enc = new TextEncoder();
function* body(b) { yield typeof b === "string" ? enc.encode(b) : b; }
const v = "WARC/1.1";
const home = '<html><title>home</title><a href="/a">a</a> <a href="/old">old</a> <a href="/again">again</a></html>';
const recs = [
  WARCRecord.createWARCInfo({ filename: "other.warc.gz", warcVersion: v }, { software: "warcio.js" }),
  WARCRecord.create({ url: "http://example.test/", date: "2026-01-02T03:04:05Z", type: "response", warcVersion: v,
    statusline: "HTTP/1.1 200 OK", httpHeaders: { "Content-Type": "text/html", "Content-Length": String(enc.encode(home).length) } }, body(home)),
  WARCRecord.create({ url: "http://example.test/a", date: "2026-01-02T03:04:06Z", type: "response", warcVersion: v,
    statusline: "HTTP/1.1 200 OK", httpHeaders: { "Content-Type": "text/plain", "Content-Encoding": "gzip" } },
    body(zlib.gzipSync(enc.encode("page a, gzip-encoded\n".repeat(50))))),
  WARCRecord.create({ url: "http://example.test/old", date: "2026-01-02T03:04:07Z", type: "response", warcVersion: v,
    statusline: "HTTP/1.1 301 Moved Permanently", httpHeaders: { "Location": "http://example.test/a", "Content-Length": "0" } }, body("")),
  WARCRecord.create({ url: "http://example.test/again", date: "2026-01-03T00:00:00Z", type: "revisit", warcVersion: v,
    refersToUrl: "http://example.test/", refersToDate: "2026-01-02T03:04:05Z",
    warcHeaders: { "WARC-Profile": "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest" },
    statusline: "HTTP/1.1 200 OK", httpHeaders: { "Content-Type": "text/html" } }, body("")),
];
const out = [];
for (const r of recs) out.push(await WARCSerializer.serialize(r, { gzip: true }));
fs.writeFileSync(process.argv[2], Buffer.concat(out));
`

// A WARC file that warcio.js wrote is replayed: its responses as they
// are (a gzip body decoded, a redirect as itself), its revisit as the
// response it refers to.
func TestWarcioJSArchive(t *testing.T) {
	cli := os.Getenv("WARCIO_JS") // see warc's TestIndependentReader
	node, nodeErr := exec.LookPath("node")
	if cli == "" || nodeErr != nil {
		msg := "WARCIO_JS unset or node not found: set it to warcio.js's CLI script (node_modules/warcio/dist/cli.js) to replay its files"
		if os.Getenv("CRAWLER_CI") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir := t.TempDir()
	index := (&url.URL{Scheme: "file", Path: filepath.Join(filepath.Dir(cli), "index.js")}).String()
	script := filepath.Join(t.TempDir(), "write.mjs")
	if err := os.WriteFile(script, []byte(strings.Replace(warcioScript, "WARCIO", index, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(node, script, filepath.Join(dir, "other.warc.gz")).CombinedOutput(); err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, b)
	}
	a := open(t, dir, replay.Options{})
	idx, _ := os.ReadFile(filepath.Join(dir, replay.IndexName))
	t.Logf("%s:\n%s", replay.IndexName, idx)
	if a.Len() != 4 || len(a.Damage()) != 0 {
		t.Errorf("%d captures, damage %v; want 4, none", a.Len(), a.Damage())
	}
	get := func(path string) *fetch.Response {
		t.Helper()
		r, err := a.Fetch(t.Context(), &fetch.Request{URL: "http://example.test" + path})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return r
	}
	home := get("/")
	if home.Status != 200 || home.Header.Get("Content-Type") != "text/html" || !strings.Contains(string(home.Body), "<title>home</title>") {
		t.Errorf("/: %d %v %q", home.Status, home.Header, home.Body)
	}
	if r := get("/a"); r.Status != 200 || r.Header.Get("Content-Encoding") != "" || string(r.Body) != strings.Repeat("page a, gzip-encoded\n", 50) {
		t.Errorf("/a: %d %v %q", r.Status, r.Header, r.Body)
	}
	if r := get("/old"); r.Status != 301 || r.Header.Get("Location") != "http://example.test/a" {
		t.Errorf("/old: %d %v", r.Status, r.Header)
	}
	if r := get("/again"); r.Status != 200 || string(r.Body) != string(home.Body) {
		t.Errorf("/again, a revisit of /: %d %q", r.Status, r.Body)
	}
}
