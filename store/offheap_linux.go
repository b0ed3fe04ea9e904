package store

import "syscall"

// adviseHuge asks Linux to back b with huge pages (transparent huge pages,
// where they are enabled "always" or "madvise"). The Bloom filter and the
// fingerprint cache are probed at random, seven words a new URL: with 4 KiB
// pages nearly every probe also misses the TLB. The advice is a hint; an
// error is ignored.
func adviseHuge(b []byte) { syscall.Madvise(b, syscall.MADV_HUGEPAGE) }
