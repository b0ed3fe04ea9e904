//go:build !race

package simhash

// raceEnabled reports whether the race detector is on: the slow tests
// then run smaller.
const raceEnabled = false
