// Package browsertest finds the browser that tests drive, for the tests of
// several packages (render's own, inside render, keep a copy: render
// cannot import what imports it).
package browsertest

import (
	"os"
	"testing"

	"crawler/render"
)

// Need returns the browser to test with, as render.FindBrowser finds it
// (CRAWLER_BROWSER, or chromium on the PATH). Without one it skips the
// test, or fails it under CI (CRAWLER_CI set), where .ci/run installs
// chromium.
func Need(t testing.TB) string {
	t.Helper()
	path, err := render.FindBrowser()
	if err != nil {
		if os.Getenv("CRAWLER_CI") != "" {
			t.Fatalf("%v; CI must install chromium", err)
		}
		t.Skipf("%v: install chromium, or set CRAWLER_BROWSER", err)
	}
	return path
}
