package frontier_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"crawler/frontier"
)

func pentry(url, host string, fp uint64) frontier.Entry {
	return frontier.Entry{URL: url, Host: host, FP: fp}
}

// Within a host, Priority hands out the URL of most backlinks first, then
// the one of best URL score (shallowest), then the one pushed first; a
// link found while a URL waits raises it; Entry.Importance is I(P).
func TestPriorityOrder(t *testing.T) {
	f := &frontier.Priority{}
	t0 := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	f.Push(pentry("http://a.test/", "a.test", 1))
	home, _, _ := f.Next(t0)
	f.Push(pentry("http://a.test/x/y/deep", "a.test", 2))  // score 1/4
	f.Push(pentry("http://a.test/shallow", "a.test", 3))   // 1/2
	f.Push(pentry("http://a.test/x/linked", "a.test", 4))  // 1/3, then linked twice
	f.Push(pentry("http://a.test/x/linked2", "a.test", 5)) // 1/3, pushed after
	f.Done(home, frontier.Result{Links: []uint64{4, 4, 9}})
	var got []string
	var imp []float64
	for {
		e, ok, _ := f.Next(t0)
		if !ok {
			break
		}
		got, imp = append(got, e.URL[len("http://a.test"):]), append(imp, e.Importance)
		f.Done(e, frontier.Result{})
	}
	want := "[/x/linked /shallow /x/linked2 /x/y/deep]"
	if fmt.Sprint(got) != want || math.Abs(imp[0]-(2+1.0/3)) > 1e-12 || imp[1] != 0.5 {
		t.Errorf("order %v, importance %v; want %s, 2⅓ and ½ first", got, imp, want)
	}
	if f.Backlinks(4) != 2 || f.Backlinks(9) != 1 || f.Len() != 0 {
		t.Errorf("backlinks %d and %d, Len %d", f.Backlinks(4), f.Backlinks(9), f.Len())
	}
}

// Across hosts, the ready host with the most important URL goes first; a
// host waiting for its politeness delay does not block the others; a URL
// pushed after its backlinks were found starts with them; with both terms
// off, the order is breadth-first.
func TestPriorityHosts(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	f := &frontier.Priority{B: -1}
	f.Push(pentry("http://a.test/", "a.test", 1))
	e, _, _ := f.Next(t0)
	f.Done(e, frontier.Result{Next: t0.Add(time.Second), Links: []uint64{2, 3, 3}})
	f.Push(pentry("http://a.test/p", "a.test", 2))
	f.Push(pentry("http://b.test/q", "b.test", 3))
	f.Push(pentry("http://c.test/r", "c.test", 4))
	var got []string
	for {
		e, ok, _ := f.Next(t0)
		if !ok {
			break
		}
		got = append(got, e.URL)
	}
	if want := "[http://b.test/q http://c.test/r]"; fmt.Sprint(got) != want {
		t.Errorf("at t0: %v, want %s (a.test waits a second)", got, want)
	}
	if e, ok, _ := f.Next(t0.Add(time.Second)); !ok || e.URL != "http://a.test/p" || e.Importance != 1 {
		t.Errorf("a second on: %v %v, want a.test/p with 1 backlink", e, ok)
	}

	bfs := &frontier.Priority{A: -1, B: -1, PerHost: -1}
	for i := range 5 {
		bfs.Push(pentry(fmt.Sprintf("http://h%d.test/%d", i%2, i), fmt.Sprintf("h%d.test", i%2), uint64(i)))
	}
	got = got[:0]
	for {
		e, ok, _ := bfs.Next(t0)
		if !ok {
			break
		}
		got = append(got, e.URL[len("http://h0.test/"):])
	}
	if want := "[0 1 2 3 4]"; fmt.Sprint(got) != want {
		t.Errorf("terms off: %v, want pushed order %s", got, want)
	}
}
