package hexdigit

import (
	"strconv"
	"testing"
)

// Value agrees with strconv on every byte.
func TestValue(t *testing.T) {
	for c := range 256 {
		want, err := strconv.ParseUint(string(rune(c)), 16, 8)
		got, ok := Value(byte(c))
		if ok != (err == nil) || ok && uint64(got) != want {
			t.Errorf("Value(%q) = %d, %v; strconv: %d, %v", byte(c), got, ok, want, err)
		}
	}
}
