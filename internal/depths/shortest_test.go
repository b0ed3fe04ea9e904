package depths

import "testing"

func TestShortest(t *testing.T) {
	s := Shortest{MaxDepth: 3}
	s.Pushed(1, 2)
	if again := s.FoundAgain(1, 1); again {
		t.Fatal("a URL waiting found nearer: fetched again; want its depth lowered")
	}
	if d := s.HandedOut(1, 2); d != 1 {
		t.Fatalf("HandedOut = %d; want the shorter depth found while it waited, 1", d)
	}
	// Done at 1 with links; found later at 0: fetched again at 0.
	if _, again := s.Done(1, 1, true); again {
		t.Fatal("Done with nothing shorter found: fetched again")
	}
	if s.FoundAgain(1, 2) {
		t.Fatal("found deeper than it was done: fetched again")
	}
	if !s.FoundAgain(1, 0) {
		t.Fatal("found nearer a seed than it was done: not fetched again")
	}
	if s.FoundAgain(1, 0) {
		t.Fatal("fetched again twice")
	}
	// Found nearer while in flight: fetched again at once, when done.
	s.Pushed(2, 3)
	s.FoundAgain(2, 1)
	if d, again := s.Done(2, 3, true); !again || d != 1 {
		t.Fatalf("Done = %d, %v; want fetched again at 1", d, again)
	}
	// A page without links is never fetched again.
	s.Pushed(3, 2)
	s.Done(3, 2, false)
	if s.FoundAgain(3, 0) {
		t.Fatal("a page without links fetched again")
	}
}

func TestShortestWithoutLimit(t *testing.T) {
	var s Shortest // a durable frontier, no limit: nothing kept
	s.Pushed(1, 5)
	if d := s.HandedOut(1, 5); d != 5 || s.waiting.Len() != 0 {
		t.Fatalf("HandedOut = %d with %d depths kept; want 5 and none", d, s.waiting.Len())
	}
	s = Shortest{Waiting: true} // in memory: waiting depths kept, no refetch
	s.Pushed(1, 5)
	s.FoundAgain(1, 2)
	if d := s.HandedOut(1, 5); d != 2 {
		t.Fatalf("HandedOut = %d; want 2", d)
	}
	if _, again := s.Done(1, 2, true); again || s.FoundAgain(1, 0) {
		t.Fatal("fetched again without a depth limit")
	}
}
