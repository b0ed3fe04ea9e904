// Package bench compares the crawler's components with peer libraries. It
// is its own module so that the library's go.mod never depends on the
// peers.
//
//	cd bench && go test -run '^$' -bench . -count 6
package bench
