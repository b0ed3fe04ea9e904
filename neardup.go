package crawler

import (
	"fmt"

	"crawler/simhash"
)

// NearDuplicates finds the HTML pages of a Run whose text is a
// near-duplicate of a page fetched earlier in it, as Manku, Jain and Das
// Sarma found them for Google's crawler (WWW 2007): each page's visible
// text gets a 64-bit SimHash fingerprint (simhash.OfHTML), and two pages
// are near-duplicates when their fingerprints differ in at most Distance
// bits. A near-duplicate's Page.NearDuplicateOf names the first page of
// its family; Stats.NearDuplicates counts them. Revisits are not tested
// (a page is no near-duplicate of itself).
//
// The fingerprints live in memory for the Run, with the URL of each page
// that is no near-duplicate: about 50 bytes a page for the tables (40
// nominal, see simhash.Detector) plus its URL, for the Run only (see the
// package doc).
type NearDuplicates struct {
	// Distance is the most bits in which a near-duplicate's fingerprint
	// may differ. 0: simhash.DefaultDistance; negative: none, only pages
	// with the same fingerprint are near-duplicates.
	Distance int
	// SkipLinks, if set, does not follow the links of a near-duplicate:
	// the paper's advice ("ignore P_duplicate and all its out-going
	// links"), which keeps a crawl out of sites that serve one page under
	// many URLs. The Handler still sees them in Page.Links.
	SkipLinks bool
}

// validate says what is wrong with n, if anything.
func (n *NearDuplicates) validate() error {
	if n.Distance > simhash.MaxDistance {
		return fmt.Errorf("crawler: NearDuplicates.Distance is %d; at most %d bits of 64 may differ", n.Distance, simhash.MaxDistance)
	}
	return nil
}

// nearDuplicates is the state of NearDuplicates in one Run; safe for
// concurrent use by the workers.
type nearDuplicates struct {
	*simhash.Detector
	skipLinks bool
}

func newNearDuplicates(n *NearDuplicates) *nearDuplicates {
	if n == nil {
		return nil
	}
	return &nearDuplicates{simhash.NewDetector(n.Distance), n.SkipLinks}
}
