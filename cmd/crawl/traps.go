package main

import (
	"flag"

	"crawler"
)

// trapFlags are the trap defences (crawler.Traps). As with pacingFlags, a
// flag's 0 turns its rule off, and defaults show in -help.
type trapFlags struct {
	maxURLLength      int
	maxPathDepth      int
	maxSegmentRepeats int
	maxPagesPerHost   int
	maxQueryValues    int
	duplicatePages    int
}

func (t *trapFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&t.maxURLLength, "max-url-length", crawler.DefaultMaxURLLength, "longest URL followed, in bytes (0: no limit)")
	fs.IntVar(&t.maxPathDepth, "max-path-depth", crawler.DefaultMaxPathDepth, "most path segments of a followed URL (0: no limit)")
	fs.IntVar(&t.maxSegmentRepeats, "max-segment-repeats", crawler.DefaultMaxSegmentRepeats, "most times one segment may occur in a followed URL's path (0: no limit)")
	fs.IntVar(&t.maxPagesPerHost, "max-pages-per-host", 0, "most URLs queued per host (0: no limit)")
	fs.IntVar(&t.maxQueryValues, "max-query-values", 0, "most distinct values of one query parameter on one host (0: no limit)")
	fs.IntVar(&t.duplicatePages, "duplicate-pages", crawler.DefaultDuplicatePages, "stop a host's path pattern after this many pages with content already seen (0: never)")
}

// traps returns the crawler.Traps the flags describe.
func (t *trapFlags) traps() crawler.Traps {
	return crawler.Traps{
		MaxURLLength:      offIfZero(t.maxURLLength),
		MaxPathDepth:      offIfZero(t.maxPathDepth),
		MaxSegmentRepeats: offIfZero(t.maxSegmentRepeats),
		MaxPagesPerHost:   t.maxPagesPerHost,
		MaxQueryValues:    t.maxQueryValues,
		DuplicatePages:    offIfZero(t.duplicatePages),
	}
}
