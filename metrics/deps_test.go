package metrics_test

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The root package must not import Prometheus: only this package does.
func TestRootDoesNotImportPrometheus(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool: %v", err)
	}
	cmd := exec.Command(goTool, "list", "-deps", "crawler")
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOTOOLCHAIN=local") // no network
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps crawler: %v\n%s", err, stderr(err))
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "crawler") || !slices.Contains(deps, "crawler/fetch") {
		t.Fatalf("go list -deps crawler gave %d packages without crawler and crawler/fetch: %q", len(deps), out)
	}
	for _, d := range deps {
		if strings.Contains(d, "prometheus") {
			t.Errorf("the root package depends on %s", d)
		}
	}
}

func stderr(err error) []byte {
	if e, ok := errors.AsType[*exec.ExitError](err); ok {
		return e.Stderr
	}
	return nil
}
