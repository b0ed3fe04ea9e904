package toggle

import (
	"testing"
	"time"
)

func TestToggle(t *testing.T) {
	var tg Toggle
	on, changed := tg.State()
	if on {
		t.Fatal("the zero Toggle is on")
	}
	tg.Set(false) // no change: nothing closes
	select {
	case <-changed:
		t.Fatal("changed closed without a change")
	default:
	}
	done := make(chan bool)
	go func() {
		<-changed
		on, _ := tg.State()
		done <- on
	}()
	tg.Set(true)
	select {
	case on := <-done:
		if !on {
			t.Fatal("State after Set(true) is off")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("changed not closed by Set(true)")
	}
	_, changed = tg.State()
	tg.Set(false)
	<-changed // closed by the change back
}
