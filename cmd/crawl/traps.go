package main

import (
	"flag"
	"fmt"

	"crawler"
)

// registerTraps binds the trap flags to t. Each flag means what its field
// means: 0 the default (named in -help), a negative value off.
func registerTraps(fs *flag.FlagSet, t *crawler.Traps) {
	fs.IntVar(&t.MaxURLLength, "max-url-length", 0, fmt.Sprintf("longest URL followed, in bytes (0: %d; negative: no limit)", crawler.DefaultMaxURLLength))
	fs.IntVar(&t.MaxPathDepth, "max-path-depth", 0, fmt.Sprintf("most path segments of a followed URL (0: %d; negative: no limit)", crawler.DefaultMaxPathDepth))
	fs.IntVar(&t.MaxSegmentRepeats, "max-segment-repeats", 0, fmt.Sprintf("most times one segment may occur in a followed URL's path (0: %d; negative: no limit)", crawler.DefaultMaxSegmentRepeats))
	fs.IntVar(&t.MaxPagesPerHost, "max-pages-per-host", 0, "most URLs queued per host (0 or negative: no limit)")
	fs.IntVar(&t.MaxQueryValues, "max-query-values", 0, "most distinct values of one query parameter on one host (0 or negative: no limit)")
	fs.IntVar(&t.DuplicatePages, "duplicate-pages", 0, fmt.Sprintf("stop a host's path pattern after this many pages with content already seen (0: %d; negative: never)", crawler.DefaultDuplicatePages))
	fs.IntVar(&t.DuplicateWindow, "duplicate-window", 0, fmt.Sprintf("most distinct contents -duplicate-pages remembers, the latest (0: %d; negative: all, 11-21 bytes a page)", crawler.DefaultDuplicateWindow))
}
