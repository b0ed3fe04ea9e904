package simhash

import "fmt"

// Config is a crawl's near-duplicate test (the crawler's
// Crawler.NearDuplicates): each HTML page of a Run is given to a
// [Detector], and a near-duplicate's Page.NearDuplicateOf names the first
// page of its family; Stats.NearDuplicates counts them. Revisits are not
// tested (a page is no near-duplicate of itself). The fingerprints are
// kept in memory for the Run only.
type Config struct {
	// Distance is the most bits in which a near-duplicate's fingerprint
	// may differ. 0: DefaultDistance; negative: none, only pages with the
	// same fingerprint are near-duplicates.
	Distance int
	// SkipLinks, if set, does not follow the links of a near-duplicate:
	// the paper's advice ("ignore P_duplicate and all its out-going
	// links"), which keeps a crawl out of sites that serve one page under
	// many URLs. The Handler still sees them in Page.Links.
	SkipLinks bool
}

// Validate says what is wrong with c, if anything: a Distance above
// MaxDistance.
func (c *Config) Validate() error {
	if c.Distance > MaxDistance {
		return fmt.Errorf("crawler: NearDuplicates.Distance is %d; at most %d bits of 64 may differ", c.Distance, MaxDistance)
	}
	return nil
}
