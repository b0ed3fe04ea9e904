package depths

// Shortest keeps what a crawl knows of its URLs' link depths, so that the
// pages within a depth limit of a seed by their shortest path are all
// fetched, whatever order the paths are found in: the shortest depth
// known of each URL waiting or in flight and, under a limit, the depth at
// which each page with links was done. A page found nearer a seed after
// it was done is fetched again. The zero value keeps nothing; it is not
// safe for concurrent use.
type Shortest struct {
	// MaxDepth is the crawl's depth limit; 0 or negative: none, and no
	// page is fetched again.
	MaxDepth int
	// Waiting says whether the depths of the URLs waiting are kept
	// without a limit too (they are for a frontier in memory; a durable
	// one keeps its URLs, and their depths, on disk).
	Waiting bool

	waiting, done Table
}

// Pushed keeps depth as that of fp, pushed to the frontier.
func (s *Shortest) Pushed(fp uint64, depth int) {
	if s.Waiting || s.MaxDepth > 0 {
		s.waiting.Set(fp, depth)
	}
}

// HandedOut returns the depth at which fp, handed out at depth, is
// fetched: a shorter one if it was found while fp waited.
func (s *Shortest) HandedOut(fp uint64, depth int) int {
	if d, ok := s.waiting.Get(fp); ok && d < depth {
		return d
	}
	return depth
}

// FoundAgain takes a link to fp, seen before, at depth. It reports whether
// fp, done at a greater depth, is to be fetched again at this one (then
// call Pushed).
func (s *Shortest) FoundAgain(fp uint64, depth int) (again bool) {
	if d, ok := s.waiting.Get(fp); ok && depth < d {
		s.waiting.Set(fp, depth)
		return false
	}
	if d, ok := s.done.Get(fp); ok && depth < d {
		s.done.Remove(fp)
		return true
	}
	return false
}

// Done takes fp, done at depth; hasLinks says whether the page had links,
// or had some left out for their depth alone. It reports whether the page
// is to be fetched again, at the shorter depth found while it was in
// flight (then call Pushed).
func (s *Shortest) Done(fp uint64, depth int, hasLinks bool) (shorter int, again bool) {
	d, ok := s.waiting.Get(fp)
	s.waiting.Remove(fp)
	switch {
	case s.MaxDepth <= 0 || !hasLinks:
		return 0, false
	case ok && d < depth:
		return d, true
	}
	s.done.Set(fp, depth)
	return 0, false
}
