// Package toggle holds a flag that a goroutine can wait on.
package toggle

import "sync"

// Toggle is a flag, on or off, whose changes can be waited for: State
// returns a channel closed at the next change. The zero value is off.
// It is safe for concurrent use.
type Toggle struct {
	mu      sync.Mutex
	on      bool
	changed chan struct{} // closed at the next change; nil until asked for
}

// Set turns t on or off.
func (t *Toggle) Set(on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.on != on {
		t.on = on
		if t.changed != nil {
			close(t.changed)
			t.changed = nil
		}
	}
}

// State returns whether t is on, and a channel closed at its next change.
func (t *Toggle) State() (on bool, changed <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.changed == nil {
		t.changed = make(chan struct{})
	}
	return t.on, t.changed
}
