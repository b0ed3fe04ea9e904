package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -cpuprofile writes a CPU profile of the crawl (gzipped protobuf, as
// go tool pprof reads it); a file that cannot be created fails the run
// before it starts, naming the flag.
func TestCPUProfile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "cpu.pprof")
	r := runCrawl(t, nil, "-demo", "-max-pages", "200", "-progress", "-1s", "-cpuprofile", file)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Errorf("profile %d bytes (%v); want a gzipped profile", len(b), err)
	}
	r = runCrawl(t, nil, "-demo", "-max-pages", "1", "-cpuprofile", filepath.Join(t.TempDir(), "no", "such", "dir"))
	if r.code == 0 || !strings.Contains(r.stderr, "-cpuprofile") {
		t.Errorf("an unwritable profile: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
