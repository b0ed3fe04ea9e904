//go:build unix && !linux

package store

// adviseHuge does nothing here: only Linux is asked for huge pages.
func adviseHuge([]byte) {}
