//go:build !unix

package store

// offHeapWords returns n zeroed words, on the heap on this system; see
// offheap_unix.go.
func offHeapWords[T any](_ *T, n int) []uint64 { return make([]uint64, n) }
