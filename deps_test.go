package crawler_test

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// heavyDeps are the packages a program that imports the crawler alone must
// not compile, by import path or path prefix: the storage engine, the
// cluster's messaging, the browser, the selector engine, the metrics
// library, and the packages of this module that hold them.
var heavyDeps = []string{
	"github.com/cockroachdb/pebble",  // crawler/store
	"github.com/nats-io/",            // crawler/cluster
	"github.com/chromedp/",           // crawler/render
	"github.com/PuerkitoBio/goquery", // crawler/extract
	"github.com/prometheus/",         // crawler/metrics
	"crawler/store",
	"crawler/cluster",
	"crawler/render",
	"crawler/metrics",
	"crawler/status",
}

// heavy returns the entry of heavyDeps that pkg is, or is under, or "".
func heavy(pkg string) string {
	for _, h := range heavyDeps {
		if pkg == h || strings.HasPrefix(pkg, strings.TrimSuffix(h, "/")+"/") {
			return h
		}
	}
	return ""
}

// The root package stays light: none of heavyDeps is among its
// dependencies, and a failure names the chain of imports that brings one
// in.
func TestRootDependencies(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool: %v", err)
	}
	cmd := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "crawler")
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOTOOLCHAIN=local", "GOWORK=off") // no network
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if e, ok := errors.AsType[*exec.ExitError](err); ok {
			stderr = e.Stderr
		}
		t.Fatalf("go list -deps crawler: %v\n%s", err, stderr)
	}
	imports := map[string][]string{} // a package's direct imports
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) > 0 {
			imports[f[0]] = f[1:]
		}
	}
	for _, must := range []string{"crawler", "crawler/fetch", "golang.org/x/net/html"} {
		if _, ok := imports[must]; !ok {
			t.Fatalf("go list -deps crawler gave %d packages, not %s among them: the check below would prove nothing:\n%s", len(imports), must, out)
		}
	}
	shortest := map[string][]string{} // per entry of heavyDeps, the shortest chain to one of its packages
	for pkg := range imports {
		if h := heavy(pkg); h != "" {
			if c := importChain(imports, "crawler", pkg); shortest[h] == nil || len(c) < len(shortest[h]) {
				shortest[h] = c
			}
		}
	}
	for _, h := range heavyDeps {
		if c := shortest[h]; c != nil {
			t.Errorf("import \"crawler\" compiles %s: %s", h, strings.Join(c, " -> "))
		}
	}
}

// importChain returns a shortest chain of imports from one package to
// another, both ends included, from a map of each package's imports.
func importChain(imports map[string][]string, from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == to {
			chain := []string{}
			for ; p != ""; p = prev[p] {
				chain = append(chain, p)
			}
			slices.Reverse(chain)
			return chain
		}
		for _, q := range imports[p] {
			if _, ok := prev[q]; !ok {
				prev[q] = p
				queue = append(queue, q)
			}
		}
	}
	return []string{from, "?", to}
}
