package main

import (
	"flag"
	"fmt"

	"crawler/traps"
)

// registerTraps binds the trap flags to t, each with its real default;
// 0, like a negative value, switches off what the flag does (see
// trapsOff).
func registerTraps(fs *flag.FlagSet, t *traps.Config) {
	fs.IntVar(&t.MaxURLLength, "max-url-length", traps.DefaultMaxURLLength, "longest URL followed, in bytes (0: no limit)")
	fs.IntVar(&t.MaxPathDepth, "max-path-depth", traps.DefaultMaxPathDepth, "most path segments of a followed URL (0: no limit)")
	fs.IntVar(&t.MaxSegmentRepeats, "max-segment-repeats", traps.DefaultMaxSegmentRepeats, "most times one segment may occur in a followed URL's path (0: no limit)")
	fs.IntVar(&t.MaxPagesPerHost, "max-pages-per-host", 0, "most URLs queued per host (0: no limit)")
	fs.IntVar(&t.MaxQueryValues, "max-query-values", 0, "most distinct values of one query parameter on one host (0: no limit)")
	fs.IntVar(&t.DuplicatePages, "duplicate-pages", traps.DefaultDuplicatePages, "stop a host's path pattern after this many pages with content already seen (0: never)")
	fs.IntVar(&t.DuplicateWindow, "duplicate-window", traps.DefaultDuplicateWindow, fmt.Sprintf("most distinct contents -duplicate-pages remembers, the latest (0: all, 11-21 bytes a page; default %d: 16 MiB at most)", traps.DefaultDuplicateWindow))
}

// trapsOff maps the trap flags given as 0 (or negative) to their field's
// "off".
func trapsOff(t *traps.Config) {
	off(&t.MaxURLLength, &t.MaxPathDepth, &t.MaxSegmentRepeats, &t.MaxPagesPerHost, &t.MaxQueryValues, &t.DuplicatePages, &t.DuplicateWindow)
}
