package traps

import (
	"errors"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"

	"crawler/store"
)

// openStore opens the store of a crawl in fs, a durable frontier.Recorder,
// closing st first if it is not nil: a restart.
func openStore(t *testing.T, fs vfs.FS, st *store.Store) *store.Store {
	t.Helper()
	if st != nil {
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open("crawl", store.Options{FS: fs, ExpectedURLs: 1000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestGuardRestore: what a Guard counted and stopped, recorded in a store
// with a step, is what a new Guard restored from the store after a
// restart has: no budget is spent twice, no stopped pattern entered again.
func TestGuardRestore(t *testing.T) {
	c := Config{MaxPagesPerHost: 2, MaxQueryValues: 1, DuplicatePages: 1}
	fs := vfs.NewMem()
	st := openStore(t, fs, nil)
	g := New(c)
	if err := g.Restore(st); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"http://a/0", "http://a/1", "http://d/q?m=1"} {
		if rule := g.Admit(u, strings.Split(u, "/")[2], false); rule != "" {
			t.Fatalf("Admit(%q) = %q", u, rule)
		}
	}
	g.Observe("http://b/s?sid=1", "b", 7)
	if stopped, _ := g.Observe("http://b/s?sid=2", "b", 7); stopped != "b/s?sid" {
		t.Fatalf("stopped %q, want b/s?sid", stopped)
	}
	g.Record()
	if err := errors.Join(st.Commit(), st.Flush()); err != nil {
		t.Fatal(err)
	}

	st = openStore(t, fs, st)
	g = New(c)
	if err := g.Restore(st); err != nil {
		t.Fatal(err)
	}
	if rule := g.Admit("http://a/2", "a", false); rule != HostBudget {
		t.Errorf("a's third URL after a restart: %q, want %q", rule, HostBudget)
	}
	if rule := g.Admit("http://d/q?m=2", "d", false); rule != QueryValues {
		t.Errorf("d's second value of m after a restart: %q, want %q", rule, QueryValues)
	}
	if err := g.Stopped("http://b/s?sid=3", "b"); !errors.Is(err, ErrTrap) {
		t.Errorf("Stopped of the pattern stopped before the restart = %v, want ErrTrap", err)
	}
}

// A record that does not decode is an error that says so: guessing would
// spend a budget twice.
func TestGuardRestoreDamaged(t *testing.T) {
	for _, name := range []string{keptHostURLs, keptQueryValues} {
		st := openStore(t, vfs.NewMem(), nil)
		st.Record(name, 1, []byte{0xff})
		if err := errors.Join(st.Commit(), st.Flush()); err != nil {
			t.Fatal(err)
		}
		if err := New(Config{}).Restore(st); err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("%s: Restore = %v, want an error saying the record is damaged", name, err)
		}
	}
	fs := vfs.NewMem()
	st := openStore(t, fs, nil)
	st.Keep(keptPatterns, func() []byte { return []byte("{") })
	st = openStore(t, fs, st) // Close writes what is kept
	if err := New(Config{}).Restore(st); err == nil || !strings.Contains(err.Error(), keptPatterns) {
		t.Errorf("kept patterns that do not decode: Restore = %v, want an error naming %s", err, keptPatterns)
	}
}
