// Package leak checks that a test leaves no goroutines behind.
package leak

import (
	"runtime"
	"testing"
	"time"
)

// Check fails t if goroutines started during the test are still running at
// its end. Tests that call Check must not run in parallel with others,
// whose goroutines it would count.
func Check(t testing.TB) {
	t.Helper()
	s := Now()
	t.Cleanup(func() { s.Back(t, "at the end of the test") })
}

// Snapshot is the number of goroutines running at a point of a test.
type Snapshot int

// Now returns the number of goroutines running now.
func Now() Snapshot { return Snapshot(runtime.NumGoroutine()) }

// Back fails t, saying when, unless the number of goroutines falls back to
// s within 3 s (exiting goroutines take a moment to be reaped). It prints
// every goroutine's stack if it does not.
func (s Snapshot) Back(t testing.TB, when string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for Now() > s && time.Now().Before(deadline) {
		runtime.Gosched()
		time.Sleep(5 * time.Millisecond)
	}
	if n := Now(); n > s {
		buf := make([]byte, 1<<16)
		t.Errorf("%s: %d goroutines left (started with %d):\n%s", when, n, s, buf[:runtime.Stack(buf, true)])
	}
}
