// Package seen holds URL-seen sets: the test, made once per discovered link,
// of whether a crawl has met a URL before.
//
// Sets store 64-bit fingerprints of canonical URLs (see canon.Fingerprint),
// never the URL text:
//
//	s := seen.NewExact(1 << 20)
//	if s.Add(canon.Fingerprint(u)) {
//		// first time: schedule u
//	}
//
// [Exact] never errs; [Bloom] (about 9.6 bits per URL at 1% false
// positives) and [Bitmap] (one bit per URL slot) may report a URL as seen
// when it is not, so the crawl skips it, but never fetch one twice.
//
// A Set is owned by one goroutine (the crawler's scheduler); the types here
// are not safe for concurrent use unless they say so.
package seen

// Set is a set of 64-bit URL fingerprints.
//
// Implementations need not be safe for concurrent use: the crawler calls a
// Set from one goroutine only. A probabilistic Set may answer "present" for a
// fingerprint never added (a false positive: that URL is skipped), but must
// never answer "absent" for one that was added (which would fetch it twice).
type Set interface {
	// Add inserts fp and reports whether it was absent before: the
	// test-and-set of the URL-seen test, in one step.
	Add(fp uint64) (added bool)
	// Contains reports whether fp is in the set.
	Contains(fp uint64) bool
	// Len reports the number of fingerprints added (for a probabilistic
	// set: the number of successful Adds).
	Len() int
}

// Exact is an exact Set: it never reports a false positive. Its zero value is
// an empty set ready to use. It is not safe for concurrent use.
//
// Memory is that of a Go map from uint64 to struct{}: about 10 to 20 bytes
// per fingerprint depending on the load of the table.
type Exact struct {
	m map[uint64]struct{}
}

// NewExact returns an empty Exact set sized for hint fingerprints.
func NewExact(hint int) *Exact {
	return &Exact{m: make(map[uint64]struct{}, max(hint, 0))}
}

// Add inserts fp and reports whether it was absent before. Cost: O(1)
// amortised.
func (s *Exact) Add(fp uint64) bool {
	if s.m == nil {
		s.m = make(map[uint64]struct{})
	}
	n := len(s.m)
	s.m[fp] = struct{}{}
	return len(s.m) > n
}

// Contains reports whether fp is in the set. Cost: O(1).
func (s *Exact) Contains(fp uint64) bool {
	_, ok := s.m[fp]
	return ok
}

// Len reports the number of fingerprints in the set. Cost: O(1).
func (s *Exact) Len() int { return len(s.m) }
