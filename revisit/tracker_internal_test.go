package revisit

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"slices"
	"testing"
	"time"

	"crawler/frontier"
	"crawler/sitemap"
)

var t0 = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// A page's record decodes to what was encoded; a record cut short or
// damaged is an error.
func TestVisitedRecord(t *testing.T) {
	p := &visited{url: "http://a.test/x", depth: 3, etag: `"v1"`, lastModified: "Tue, 24 Nov 2026 10:00:00 GMT",
		content: 1<<63 | 5, due: t0.Add(time.Minute), queued: true}
	visits := []Visit{{Interval: time.Second, Changed: true}, {Interval: 90 * time.Minute}}
	b := encodeVisited(p, t0, visits)
	got, last, gotVisits, err := decodeVisited(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.due.Equal(p.due) {
		got.due = p.due // the same instant, in time.Local
	}
	if *got != *p || !last.Equal(t0) || len(gotVisits) != 2 || gotVisits[0] != visits[0] || gotVisits[1] != visits[1] {
		t.Fatalf("decoded %+v, %v, %v; want %+v, %v, %v", got, last, gotVisits, p, t0, visits)
	}
	for n := range len(b) {
		if _, _, _, err := decodeVisited(b[:n]); err == nil {
			t.Errorf("a record cut to %d of %d bytes decodes", n, len(b))
		}
	}
	if _, _, _, err := decodeVisited(append(b, 0)); err == nil {
		t.Error("a record with a byte more decodes")
	}
}

// A visit of under a millisecond, which the record's milliseconds cannot
// hold, is left out as a first visit's age is, and a record that holds
// one of no interval (as a build before wrote it) decodes without it:
// what decodes encodes to the same visits.
func TestVisitedRecordSubMillisecond(t *testing.T) {
	p := &visited{url: "http://a.test/x"}
	visits := []Visit{{Interval: time.Second}, {Interval: 500 * time.Microsecond, Changed: true}, {Interval: 0}, {Interval: time.Minute, Changed: true}}
	want := []Visit{visits[0], visits[3]}
	_, _, got, err := decodeVisited(encodeVisited(p, t0, visits))
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("visits %v (%v), want %v", got, err, want)
	}
	b := encodeVisited(p, t0, nil)
	b = append(b[:len(b)-1], 3, 2<<1, 1, 3<<1|1) // three visits: 2 ms, none (changed), 3 ms (changed)
	_, _, got, err = decodeVisited(b)
	if want := []Visit{{Interval: 2 * time.Millisecond}, {Interval: 3 * time.Millisecond, Changed: true}}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("visits %v (%v), want %v", got, err, want)
	}
	// The longest interval a time.Duration holds decodes; one a
	// millisecond longer, which would wrap round, is a damaged record.
	longest := time.Duration(math.MaxInt64).Milliseconds()
	for _, ms := range []int64{longest, longest + 1} {
		head := encodeVisited(p, t0, nil)
		head = head[:len(head)-1] // without its count of visits, 0
		_, _, got, err := decodeVisited(binary.AppendUvarint(append(head, 1), uint64(ms)<<1))
		if ok := ms == longest; (err == nil) != ok || ok && (len(got) != 1 || got[0].Interval.Milliseconds() != ms) {
			t.Errorf("a visit of %d ms: %v, %v", ms, got, err)
		}
	}
}

// A page's record is byte for byte what the crawler wrote before the
// Tracker left its root package, so that a crawl kept by an older build
// resumes: the format byte and the layout are pinned.
func TestVisitedRecordGolden(t *testing.T) {
	p := &visited{url: "http://a.test/x", depth: 3, etag: `"v1"`, lastModified: "Tue, 24 Nov 2026 10:00:00 GMT",
		content: 1<<63 | 5, due: t0.Add(time.Minute), queued: true}
	visits := []Visit{{Interval: time.Second, Changed: true}, {Interval: 90 * time.Minute}}
	const want = "0101030f687474703a2f2f612e746573742f7804227631221d5475652c203234204e6f7620323032362031303a30303a303020474d54" +
		"8000000000000005c081a5a9c26880d89da9c26802d10f80979305"
	if got := hex.EncodeToString(encodeVisited(p, t0, visits)); got != want {
		t.Fatalf("record\n%s\nwant\n%s", got, want)
	}
	b, _ := hex.DecodeString(want)
	got, last, gotVisits, err := decodeVisited(b)
	if err != nil || got.url != p.url || got.etag != p.etag || !got.due.Equal(p.due) || !last.Equal(t0) || len(gotVisits) != 2 {
		t.Fatalf("the pinned record decodes to %+v, %v, %v, %v", got, last, gotVisits, err)
	}
}

// FuzzVisitedRecord: any bytes decode or fail without a panic, and what
// decodes encodes back to the same bytes.
func FuzzVisitedRecord(f *testing.F) {
	f.Add(encodeVisited(&visited{url: "http://a.test/"}, t0, nil))
	f.Add(encodeVisited(&visited{url: "http://a.test/x", etag: "e", content: 7, due: t0}, t0, []Visit{{Interval: time.Hour, Changed: true}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, last, visits, err := decodeVisited(b)
		if err != nil {
			return
		}
		if again := encodeVisited(p, last, visits); string(again) != string(b) {
			// Varints have one shortest form; a longer one decodes too.
			p2, last2, v2, err := decodeVisited(again)
			if err != nil || p2.url != p.url || p2.content != p.content || !p2.due.Equal(p.due) || !last2.Equal(last) || len(v2) != len(visits) {
				t.Fatalf("re-encoded record decodes to %+v, %v", p2, err)
			}
		}
	})
}

// The scheduler's view: a first visit starts a page's revisits, a due
// page goes to the frontier once and is a revisit then, a sitemap's later
// lastmod makes a waiting page due at once, an earlier one does not, and
// a gone page is forgotten.
func TestRevisitsSteps(t *testing.T) {
	v := NewTracker(Config{Rate: 1}, 0)
	f := &frontier.FIFO{}
	e := frontier.Entry{URL: "http://a.test/", FP: 1, Host: "a.test"}
	if v.Revisiting(1) != nil {
		t.Fatal("a page never fetched is a revisit")
	}
	v.Done(e, Outcome{Status: 200, ETag: `"x"`, Content: 9}, t0)
	v.Done(frontier.Entry{URL: "http://a.test/404", FP: 2}, Outcome{Status: 404, Gone: true}, t0)
	if len(v.pages) != 1 {
		t.Fatalf("%d pages revisited, want the one that answered 200", len(v.pages))
	}
	due, ok := v.Next()
	if !ok || !due.Equal(t0.Add(time.Second)) {
		t.Fatalf("due at %v (%v), want a second later: the whole budget of 1/s", due.Sub(t0), ok)
	}
	if n := v.release(t0.Add(999*time.Millisecond), f); n != 0 {
		t.Fatalf("released %d before its time", n)
	}
	if n := v.release(due, f); n != 1 || f.Len() != 1 {
		t.Fatalf("released %d, frontier %d; want 1", n, f.Len())
	}
	if _, ok := v.Next(); ok {
		t.Fatal("a page in the frontier is still waiting")
	}
	if last := v.Revisiting(1); last == nil || last.ETag != `"x"` || last.Content != 9 {
		t.Fatalf("revisiting = %+v", last)
	}
	now := due.Add(time.Millisecond)
	v.Done(e, Outcome{Status: 304}, now) // unchanged: validators and content kept
	if p := v.pages[1]; p.etag != `"x"` || p.content != 9 || p.queued {
		t.Fatalf("after a 304: %+v", p)
	}
	later := now.Add(10 * time.Millisecond)
	v.hint([]sitemap.LastMod{{FP: 1, At: now.Add(-time.Hour)}}, later)
	if d, _ := v.Next(); !d.After(later) {
		t.Fatal("a lastmod before the last visit made the page due")
	}
	v.hint([]sitemap.LastMod{{FP: 1, At: now.Add(time.Millisecond)}, {FP: 99, At: now}}, later)
	if d, _ := v.Next(); !d.Equal(later) {
		t.Fatalf("a lastmod after the last visit: due %v, want now", d.Sub(later))
	}
	v.visits = 100
	v.plan(later.Add(time.Hour), false) // a Plan keeps a page due already so
	if d, _ := v.Next(); !d.Equal(later) {
		t.Fatalf("after a Plan: due %v, want as the hint made it", d.Sub(later))
	}
	v.release(later, f)
	v.Done(e, Outcome{Status: 410, Gone: true}, later)
	if len(v.pages) != 0 || v.queued != 0 || v.sched.Len() != 0 {
		t.Fatalf("a gone page is kept: %d pages, %d queued", len(v.pages), v.queued)
	}
}

// A resource (a response that is no HTML page) is revisited every
// MaxInterval, outside the pages' budget, unless Config.Resources: then
// as a page; one that turns into a page (or back) changes Schedules with
// its visits; its record keeps what it is.
func TestResourcesApart(t *testing.T) {
	v := NewTracker(Config{Rate: 10, MaxInterval: time.Hour}, 0)
	page := frontier.Entry{URL: "http://a.test/", FP: 1, Host: "a.test"}
	img := frontier.Entry{URL: "http://a.test/i.png", FP: 2, Host: "a.test"}
	v.Done(page, Outcome{Status: 200, Content: 1}, t0)
	v.Done(img, Outcome{Status: 200, Content: 2, Resource: true}, t0)
	if v.Len() != 2 || v.sched.Len() != 1 || v.apart.Len() != 1 {
		t.Fatalf("%d pages, %d planned, %d apart; want 2, 1, 1", v.Len(), v.sched.Len(), v.apart.Len())
	}
	if due := v.pages[1].due; !due.Equal(t0.Add(100 * time.Millisecond)) {
		t.Errorf("the page is due after %v, want 100ms: the whole budget of 10/s", due.Sub(t0))
	}
	if due := v.pages[2].due; !due.Equal(t0.Add(time.Hour)) {
		t.Errorf("the image is due after %v, want MaxInterval", due.Sub(t0))
	}
	p, _, _, err := decodeVisited(encodeVisited(v.pages[2], t0, nil))
	if err != nil || !p.resource || p.queued {
		t.Fatalf("the image's record decodes to %+v, %v", p, err)
	}
	// Revisited as a page from the next Run on, with its visits.
	v.Configure(Config{Rate: 10, MaxInterval: time.Hour, Resources: true}, 0)
	if v.sched.Len() != 2 || v.apart.Len() != 0 {
		t.Fatalf("with Resources: %d planned, %d apart; want 2, 0", v.sched.Len(), v.apart.Len())
	}
	v.Configure(Config{Rate: 10, MaxInterval: time.Hour}, 0)
	// A resource that answers HTML is a page again.
	v.Done(img, Outcome{Status: 200, Content: 3}, t0.Add(time.Hour))
	if v.sched.Len() != 2 || v.apart.Len() != 0 || v.pages[2].resource {
		t.Fatalf("a resource that turned into a page: %d planned, %d apart", v.sched.Len(), v.apart.Len())
	}
	if _, visits, _ := v.sched.Visits(2); len(visits) != 1 || !visits[0].Changed {
		t.Errorf("its visits %v, want the one revisit that found it changed", visits)
	}
	// With no MaxInterval, a resource is never revisited.
	w := NewTracker(Config{Rate: 10, MaxInterval: -1}, 0)
	w.Done(img, Outcome{Status: 200, Resource: true}, t0)
	if due := w.pages[2].due; due.Sub(t0) < Never {
		t.Errorf("with no MaxInterval, the image is due after %v", due.Sub(t0))
	}
}

// A new plan keeps the pages' phases: when the budget doubles (the new
// URLs ran out), the pages revisited one after another stay due one
// after another, sooner, where due times recomputed from their last
// visits made every page visited longer ago than its new interval due
// at once: all of them here.
func TestPlanKeepsPhase(t *testing.T) {
	v := NewTracker(Config{Share: 0.5, Uniform: true}, 100)
	f := &frontier.FIFO{}
	f.Push(frontier.Entry{URL: "http://b.test/new", FP: 999, Host: "b.test"}) // a new URL waits
	const n = 100
	entry := func(i int) frontier.Entry {
		return frontier.Entry{URL: fmt.Sprintf("http://a.test/%d", i), FP: uint64(i + 1), Host: "a.test"}
	}
	for i := range n {
		v.Done(entry(i), Outcome{Status: 200}, t0)
	}
	v.plan(t0, true)   // 50/s: each page every 2 s
	for i := range n { // revisited one every 20 ms
		v.Done(entry(i), Outcome{Status: 200}, t0.Add(2*time.Second+time.Duration(i)*20*time.Millisecond))
	}
	now := t0.Add(4*time.Second - time.Millisecond)
	f.Next(now) // the new URL is gone: the budget doubles, intervals halve
	v.plan(now, false)
	bunch := map[time.Time]int{}
	for _, p := range v.pages {
		bunch[p.due]++
		if d := p.due.Sub(now); d <= 0 || d > time.Second {
			t.Fatalf("a page due %v after the plan, want after it, within the new interval", d)
		}
	}
	if len(bunch) < n {
		t.Errorf("%d pages due at %d distinct times, want all apart", n, len(bunch))
	}
}

// A page's Last-Modified and Date give its visits their ages: a first
// visit's, a change only if later than the first response the Tracker
// saw, and a revisit's that saw a change; one that did not is told by its
// interval. A Last-Modified that is absent gives none; one that is later
// than the Date, that moves though the page did not (a dynamic page's),
// or that is older than the visit before though the page changed, is not
// to be trusted: the page's ages are forgotten, and its visits from then
// on tell changes only.
func TestLastModifiedAges(t *testing.T) {
	stamp := func(d time.Duration) string { return t0.Add(d).Format(http.TimeFormat) }
	type fetch struct {
		at           time.Duration // after t0, the response's Date
		lastModified time.Duration // after t0; 1: none
		status       int
		content      uint64
	}
	const none = 1
	for _, c := range []struct {
		name    string
		fetches []fetch
		want    []Visit
	}{
		{"trusted", []fetch{{0, -30 * time.Second, 200, 1}, {10 * time.Second, -30 * time.Second, 304, 1},
			{20 * time.Second, 17 * time.Second, 200, 2}, {30 * time.Second, 17 * time.Second, 200, 2}, {40 * time.Second, 40 * time.Second, 200, 3}},
			[]Visit{{Age: 30 * time.Second}, {Interval: 10 * time.Second}, {Interval: 10 * time.Second, Changed: true, Age: 3 * time.Second},
				{Interval: 10 * time.Second}, {Interval: 10 * time.Second, Changed: true, Age: time.Second / 2}}},
		{"changed since the first response", []fetch{{time.Second, 0, 200, 1}, {6 * time.Second, 0, 304, 1}},
			nil}, // set below: the second page's first visit
		{"changed before its host's first response", []fetch{{time.Second, 0, 200, 1}, {6 * time.Second, 0, 304, 1}},
			nil}, // set below: another host's clock is an hour behind
		{"absent", []fetch{{0, none, 200, 1}, {10 * time.Second, none, 200, 2}},
			[]Visit{{Interval: 10 * time.Second, Changed: true}}},
		{"in the future", []fetch{{0, time.Hour, 200, 1}, {10 * time.Second, -time.Hour, 200, 2}},
			[]Visit{{Interval: 10 * time.Second, Changed: true}}},
		{"dynamic", []fetch{{0, 0, 200, 1}, {10 * time.Second, 10 * time.Second, 200, 1}, {20 * time.Second, 12 * time.Second, 200, 2}},
			[]Visit{{Interval: 10 * time.Second}, {Interval: 10 * time.Second, Changed: true}}},
		{"older than the visit before", []fetch{{0, -time.Hour, 200, 1}, {10 * time.Second, -time.Hour, 200, 2}, {20 * time.Second, 15 * time.Second, 200, 3}},
			[]Visit{{Interval: 10 * time.Second, Changed: true}, {Interval: 10 * time.Second, Changed: true}}},
	} {
		v := NewTracker(Config{Rate: 1}, 0)
		e := frontier.Entry{URL: "http://a.test/", FP: 1, Host: "a.test"}
		switch c.name {
		case "changed since the first response": // another page of the host was fetched first: its Date is the host's epoch
			v.Done(frontier.Entry{URL: "http://a.test/other", FP: 2, Host: "a.test"}, Outcome{Status: 200, Date: stamp(-time.Second), Content: 5}, t0.Add(-time.Second))
			c.want = []Visit{{Changed: true, Age: time.Second}, {Interval: 5 * time.Second}}
		case "changed before its host's first response": // no epoch of a.test's: the other host's clock says nothing of it
			v.Done(frontier.Entry{URL: "http://b.test/", FP: 2, Host: "b.test"}, Outcome{Status: 200, Date: stamp(-time.Hour), Content: 5}, t0.Add(-time.Second))
			c.want = []Visit{{Age: time.Second}, {Interval: 5 * time.Second}}
		}
		for _, f := range c.fetches {
			o := Outcome{Status: f.status, Date: stamp(f.at), Content: f.content}
			if f.lastModified != none {
				o.LastModified = stamp(f.lastModified)
			}
			v.Done(e, o, t0.Add(f.at))
		}
		_, got, _ := v.sched.Visits(1)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: visits %+v, want %+v", c.name, got, c.want)
		}
	}
}
