package leak_test

import (
	"testing"

	"crawler/internal/leak"
)

// recorder is a testing.TB that records whether it failed.
type recorder struct {
	testing.TB
	cleanups []func()
	failed   bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Cleanup(f func())      { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) runCleanups() {
	for _, f := range r.cleanups {
		f()
	}
}

// Each test waits, at its end, for its goroutine to be gone, so that one
// still exiting cannot offset a goroutine left in the next test (-count).

func TestCheckSeesALeftGoroutine(t *testing.T) {
	base := leak.Now()
	defer base.Back(t, "at the end")
	r := &recorder{TB: t}
	leak.Check(r)
	stop := make(chan struct{})
	go func() { <-stop }()
	r.runCleanups()
	close(stop)
	if !r.failed {
		t.Error("Check did not report a goroutine still running")
	}
}

func TestCheckPassesWhenGoroutinesEnd(t *testing.T) {
	base := leak.Now()
	defer base.Back(t, "at the end")
	r := &recorder{TB: t}
	leak.Check(r)
	done := make(chan struct{})
	go func() { close(done) }()
	<-done
	r.runCleanups()
	if r.failed {
		t.Error("Check reported a goroutine that had ended")
	}
}
