// Package leak checks that a test leaves no goroutines behind.
package leak

import (
	"runtime"
	"testing"
	"time"
)

// Check fails t if goroutines started during the test are still running at
// its end. It polls for up to 3 s, since exiting goroutines take a moment to
// be reaped by the runtime. Tests that call Check must not run in parallel
// with others, whose goroutines it would count.
func Check(t testing.TB) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(3 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			runtime.Gosched()
			time.Sleep(5 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Errorf("%d goroutines left (started with %d):\n%s", n, before, buf[:runtime.Stack(buf, true)])
		}
	})
}
