package simhash

import "sync"

// Detector finds, among the HTML pages it is given, those whose text is a
// near-duplicate of a page given earlier: their OfHTML fingerprints differ
// in at most its distance bits. A near-duplicate is reported with the URL
// of the first page of its family, as Manku, Jain and Das Sarma found
// them for Google's crawler.
//
// It keeps each page that is no near-duplicate: its fingerprint in an
// Index (about 50 bytes a page as measured, 40 nominal for
// DefaultDistance), or in a map of exact fingerprints for a negative
// distance, and its URL.
//
// The zero Detector is ready to use, with DefaultDistance. A Detector is
// safe for concurrent use: its methods take a mutex.
type Detector struct {
	mu    sync.Mutex
	index *Index            // distance >= 0; nil in the zero Detector until first use
	same  map[uint64]uint64 // distance < 0: fingerprint -> id
	urls  []string          // of the pages kept, by id
}

// NewDetector returns an empty Detector for pages whose fingerprints
// differ in at most distance bits. 0: DefaultDistance; negative: none,
// only pages with the same fingerprint are near-duplicates. It panics if
// distance is above MaxDistance.
func NewDetector(distance int) *Detector {
	if distance < 0 {
		return &Detector{same: map[uint64]uint64{}}
	}
	return &Detector{index: NewIndex(distance)}
}

// FindOrAdd returns the URL of the page given earlier of which the HTML
// page at url, with body, is a near-duplicate (the first of its family),
// or "", and then keeps the page, in one atomic step: of two
// near-duplicates given concurrently, exactly one is found. A page is
// compared with the pages kept, never with a near-duplicate.
func (d *Detector) FindOrAdd(url string, body []byte) (first string) {
	fp := OfHTML(body)
	d.mu.Lock()
	defer d.mu.Unlock()
	id := uint64(len(d.urls))
	switch {
	case d.same != nil:
		if near, ok := d.same[fp]; ok {
			return d.urls[near]
		}
		d.same[fp] = id
	default:
		if d.index == nil {
			d.index = NewIndex(0)
		}
		if near, _, ok := d.index.FindOrAdd(fp, id); ok {
			return d.urls[near]
		}
	}
	d.urls = append(d.urls, url)
	return ""
}

// Len returns the number of pages kept: those given that were no
// near-duplicate. Cost: O(1).
func (d *Detector) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.urls)
}
