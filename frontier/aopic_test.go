package frontier_test

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"crawler/frontier"
)

var _ frontier.Frontier = (*frontier.AOPIC)(nil)

// seed returns a seed entry of host with fingerprint fp.
func seed(host string, fp uint64) frontier.Entry {
	return frontier.Entry{URL: fmt.Sprintf("http://%s/%d", host, fp), Host: host, FP: fp}
}

// child returns an entry of host with fingerprint fp, linked from parent.
func child(parent frontier.Entry, host string, fp uint64) frontier.Entry {
	e := seed(host, fp)
	e.Depth, e.Referrer = parent.Depth+1, parent.URL
	return e
}

func near(x, y float64) bool { return math.Abs(x-y) <= 1e-9*max(1, math.Abs(x), math.Abs(y)) }

func mustNext(t testing.TB, a *frontier.AOPIC, now time.Time) frontier.Entry {
	t.Helper()
	e, ok, wake := a.Next(now)
	if !ok {
		t.Fatalf("Next(%v) = none, wake %v", now, wake)
	}
	return e
}

func wantCredit(t *testing.T, a *frontier.AOPIC, fp uint64, want float64) {
	t.Helper()
	if got := a.Credit(fp); !near(got, want) {
		t.Errorf("credit of %d = %v, want %v", fp, got, want)
	}
}

func wantLambda(t *testing.T, a *frontier.AOPIC, want float64) {
	t.Helper()
	if got := a.Lambda(); !near(got, want) {
		t.Errorf("lambda = %v, want %v", got, want)
	}
}

func wantImportance(t *testing.T, a *frontier.AOPIC, fp uint64, want float64) {
	t.Helper()
	if got, ok := a.Importance(fp); !ok || !near(got, want) {
		t.Errorf("importance of %d = %v, %v; want %v", fp, got, ok, want)
	}
}

func TestAOPICSeedSharesCredit(t *testing.T) {
	var a frontier.AOPIC
	s := seed("a", 1)
	a.Push(s)
	e := mustNext(t, &a, t0)
	if e.URL != s.URL || e.Importance != 1 {
		t.Fatalf("Next = %v, want the seed with importance 1", e)
	}
	for fp := uint64(2); fp <= 5; fp++ {
		a.Push(child(s, fmt.Sprint("h", fp), fp))
	}
	a.Done(e, frontier.Result{Links: []uint64{2, 3, 4, 5}})
	for fp := uint64(2); fp <= 5; fp++ {
		wantCredit(t, &a, fp, 0.225)
	}
	wantCredit(t, &a, 1, 0)
	wantLambda(t, &a, 0.1)
	wantImportance(t, &a, 1, 1/1.9)     // the seed
	wantImportance(t, &a, 2, 0.225/1.9) // a link
	if _, ok := a.Importance(99); ok {
		t.Error("Importance of an unknown fingerprint reports true")
	}
}

// A redirect is one page under two URLs: its credit and its history go to
// its target whole, untaxed, so do the shares links bring it later, and
// Top ranks the target, not the redirect.
func TestAOPICRedirect(t *testing.T) {
	var a frontier.AOPIC
	s := seed("a", 1)
	a.Push(s)
	a.Push(child(s, "a", 2)) // the redirect's target
	a.Push(child(s, "b", 3)) // a page linking to the redirect, later
	a.Done(mustNext(t, &a, t0), frontier.Result{Links: []uint64{2}, Redirect: true})
	wantCredit(t, &a, 2, 1)
	wantLambda(t, &a, 0)
	wantImportance(t, &a, 2, 1) // the seed's history moved to the target
	wantImportance(t, &a, 1, 1) // the redirect's is its target's

	b, ok, _ := a.Next(t0)
	if !ok || b.FP != 2 {
		t.Fatalf("Next = %+v, %v; want the target", b, ok)
	}
	a.Done(b, frontier.Result{Links: []uint64{1, 3}}) // links back to the redirect
	// The share sent to the redirect reached its target, fetched, which
	// passes it on to its host's waiting pages: none, so lambda takes it.
	wantCredit(t, &a, 3, 0.45)
	wantLambda(t, &a, 0.1+0.45)
	top := a.Top(10)
	for _, r := range top {
		if r.FP == 1 {
			t.Errorf("Top ranks the redirect: %+v", top)
		}
	}
	if len(top) != 2 || top[0].FP != 2 {
		t.Errorf("Top = %+v, want the target first, then the other page", top)
	}
}

func TestAOPICTax(t *testing.T) {
	a := frontier.AOPIC{Tax: 0.5}
	s := seed("a", 1)
	a.Push(s)
	a.Push(child(s, "b", 2))
	a.Done(mustNext(t, &a, t0), frontier.Result{Links: []uint64{2}})
	wantCredit(t, &a, 2, 0.5)
	wantLambda(t, &a, 0.5)

	// 0 is DefaultTax; a negative Tax is none.
	for _, tt := range []struct{ tax, lambda float64 }{{0, frontier.DefaultTax}, {-1, 0}} {
		a := frontier.AOPIC{Tax: tt.tax}
		a.Push(s)
		a.Push(child(s, "b", 2))
		a.Done(mustNext(t, &a, t0), frontier.Result{Links: []uint64{2}})
		wantCredit(t, &a, 2, 1-tt.lambda)
		wantLambda(t, &a, tt.lambda)
	}
}

func TestAOPICUnknownLinksGoToLambda(t *testing.T) {
	var a frontier.AOPIC
	s := seed("a", 1)
	a.Push(s)
	a.Push(child(s, "b", 2))
	// 2 is listed twice and gets two shares; 98 and 99 are unknown.
	a.Done(mustNext(t, &a, t0), frontier.Result{Links: []uint64{2, 98, 2, 99}})
	wantCredit(t, &a, 2, 0.45)
	wantLambda(t, &a, 0.1+0.45)
}

func TestAOPICNoLinksGivesAllToLambda(t *testing.T) {
	var a frontier.AOPIC
	a.Push(seed("a", 1))
	a.Done(mustNext(t, &a, t0), frontier.Result{})
	wantLambda(t, &a, 1)
}

func TestAOPICFetchedPageRecordsHistoryAndPassesCredit(t *testing.T) {
	var a frontier.AOPIC
	a.Push(seed("a", 1))
	a.Push(seed("b", 2))
	a.Done(mustNext(t, &a, t0), frontier.Result{}) // 1: lambda 1
	e := mustNext(t, &a, t0)
	if e.FP != 2 {
		t.Fatalf("Next = %d, want 2", e.FP)
	}
	a.Done(e, frontier.Result{Links: []uint64{1}}) // 1 is fetched
	wantCredit(t, &a, 1, 0)
	wantLambda(t, &a, 2)
	// Histories: 1 received 1 and 0.9; 2 received 1.
	wantImportance(t, &a, 1, 1.9/2.9) // the fetched page
	wantImportance(t, &a, 2, 1/2.9)
}

// A share sent to a fetched page goes on to the waiting pages of its host,
// and lifts that host among the others.
func TestAOPICFetchedPagePassesCreditToItsHost(t *testing.T) {
	var a frontier.AOPIC
	s := seed("a", 1)
	a.Push(s)
	a.Push(child(s, "a", 2))
	a.Push(child(s, "a", 3))
	a.Push(child(s, "b", 4))
	a.Done(mustNext(t, &a, t0), frontier.Result{Links: []uint64{2, 3, 4}}) // 0.3 each
	e := mustNext(t, &a, t0)
	if e.FP != 2 {
		t.Fatalf("Next = %d, want 2", e.FP)
	}
	a.Done(e, frontier.Result{Links: []uint64{4}}) // 4: 0.57
	// 4 (host b) holds 0.57 and 3 (host a) 0.3; two links to the fetched
	// page 1 (0.2565 each) reach 3, a's only waiting page, through its host.
	e = mustNext(t, &a, t0)
	if e.FP != 4 {
		t.Fatalf("Next = %d, want 4", e.FP)
	}
	a.Done(e, frontier.Result{Links: []uint64{1, 1}})
	wantCredit(t, &a, 3, 0.3+0.513)
	wantLambda(t, &a, 0.1+0.03+0.057)
	wantImportance(t, &a, 1, (1+0.513)/a.Received()) // the fetched page: its history over all received
	// With no page of a waiting, a share to 1 goes to lambda.
	e = mustNext(t, &a, t0)
	if e.FP != 3 {
		t.Fatalf("Next = %d, want 3", e.FP)
	}
	a.Done(e, frontier.Result{Links: []uint64{1}})
	wantLambda(t, &a, 0.1+0.03+0.057+0.813)
	if msg := a.CheckHeaps(); msg != "" {
		t.Fatal(msg)
	}
}

func TestAOPICLambdaSpreadsOverWaitingPages(t *testing.T) {
	var a frontier.AOPIC
	s := seed("a", 1)
	a.Push(s)
	a.Push(child(s, "b", 2))
	a.Push(child(s, "c", 3))
	a.Push(child(s, "d", 4))
	e := mustNext(t, &a, t0)
	// Six shares of 0.15: two each for 2 and 4, one for 3, and one for the
	// unknown 99 that goes to lambda with the tax.
	a.Done(e, frontier.Result{Links: []uint64{2, 2, 4, 4, 3, 99}})
	wantLambda(t, &a, 0.25)
	// Lambda (0.25) holds less than the best page (2: 0.3): no spread.
	e = mustNext(t, &a, t0)
	if e.FP != 2 {
		t.Fatalf("Next = %d, want 2", e.FP)
	}
	wantLambda(t, &a, 0.25)
	a.Done(e, frontier.Result{Links: []uint64{99}}) // lambda 0.25 + 0.3
	// Lambda (0.55) holds more than 4 (0.3): 0.275 each to 3 and 4, and 4
	// goes first still.
	e = mustNext(t, &a, t0)
	if e.FP != 4 {
		t.Fatalf("Next = %d, want 4", e.FP)
	}
	wantLambda(t, &a, 0)
	wantCredit(t, &a, 4, 0.575)
	wantCredit(t, &a, 3, 0.425)
	a.Push(child(e, "e", 5))
	wantCredit(t, &a, 5, 0) // joined after the spread: no share of it
	a.Done(e, frontier.Result{Links: []uint64{5}})
	wantCredit(t, &a, 5, 0.9*0.575)
	wantCredit(t, &a, 3, 0.425)
	// Importance counts what 3 received through links, not lambda's share.
	if received := 1 + 5*0.15 + 0.9*0.575; !near(a.Received(), received) {
		t.Errorf("received %v, want %v", a.Received(), received)
	}
	wantImportance(t, &a, 3, 0.15/a.Received())
}

func TestAOPICRetryKeepsCredit(t *testing.T) {
	var a frontier.AOPIC
	s := seed("a", 1)
	a.Push(s)
	a.Push(child(s, "b", 2))
	a.Push(child(s, "b", 3))
	a.Done(mustNext(t, &a, t0), frontier.Result{Links: []uint64{2, 3, 2}})
	e := mustNext(t, &a, t0)
	if e.FP != 2 {
		t.Fatalf("Next = %d, want 2", e.FP)
	}
	e.Tries++
	a.Done(e, frontier.Result{Retry: true, Next: t0.Add(time.Second)})
	if a.Len() != 2 {
		t.Fatalf("Len after retry = %d, want 2", a.Len())
	}
	wantCredit(t, &a, 2, 0.6)
	if _, ok, wake := a.Next(t0); ok || !wake.Equal(t0.Add(time.Second)) {
		t.Fatalf("Next while b waits: ok %v wake %v", ok, wake)
	}
	e = mustNext(t, &a, t0.Add(time.Second))
	if e.FP != 2 || e.Tries != 1 {
		t.Fatalf("Next after the delay = %d (tries %d), want 2 (tries 1)", e.FP, e.Tries)
	}
}

// TestAOPICKeepsEntries checks that entries come back from Next as they
// were pushed (or given back to Done for a retry), whatever the form of
// their URL and Referrer, and that Top reports the URLs as pushed.
func TestAOPICKeepsEntries(t *testing.T) {
	pushed := []frontier.Entry{
		{URL: "http://a.com/", Host: "a.com"},
		{URL: "https://a.com?q", Host: "a.com", Depth: 1, Referrer: "http://a.com/"},
		{URL: "http://a.com:8080/", Host: "a.com", Depth: 1, Hops: 2, Referrer: "http://a.com/"},
		{URL: "http://a.community/x", Host: "a.com", Depth: 2, Referrer: "http://b.com/"},
		{URL: "ftp://a.com/", Host: "a.com", Depth: math.MaxInt, Hops: -1, Tries: 3, Referrer: "http://b.com/"},
		{URL: "http://b.com/", Host: "b.com", Referrer: "http://a.com/"},
		{URL: "http://a.com#f", Host: "a.com", Depth: 1, Referrer: "https://a.com?q"},
		{URL: "", Host: "a.com", Depth: math.MinInt, Referrer: "http://a.com/"},
		{URL: "http://a.com/long/" + strings.Repeat("x", 300), Host: "a.com", Referrer: "http://a.com/"},
	}
	a := frontier.AOPIC{PerHost: len(pushed)}
	want := map[uint64]frontier.Entry{}
	for i, e := range pushed {
		e.FP = uint64(i + 1)
		a.Push(e)
		want[e.FP] = e
	}
	check := func(e frontier.Entry) {
		t.Helper()
		e.Importance = 0
		if e != want[e.FP] {
			t.Errorf("Next = %+v, pushed %+v", e, want[e.FP])
		}
	}
	for range pushed {
		e := mustNext(t, &a, t0)
		check(e)
		if e.FP == 3 {
			e.Tries, e.Referrer = 1, "http://c.com/"
			want[e.FP] = e
			a.Done(e, frontier.Result{Retry: true})
			check(mustNext(t, &a, t0))
		}
	}
	for _, r := range a.Top(len(pushed)) {
		if r.URL != want[r.FP].URL {
			t.Errorf("Top has %q for %d, want %q", r.URL, r.FP, want[r.FP].URL)
		}
	}
}

// TestAOPICKnowsEveryPage pushes enough pages for the fingerprint index
// to grow a few times, and looks each up.
func TestAOPICKnowsEveryPage(t *testing.T) {
	var a frontier.AOPIC
	const n = 5000
	for fp := uint64(1); fp <= n; fp++ {
		a.Push(seed(fmt.Sprint("h", fp%7), fp))
	}
	a.Push(seed("h0", n)) // known: ignored
	if a.Len() != n {
		t.Fatalf("Len = %d, want %d", a.Len(), n)
	}
	for fp := uint64(0); fp <= n+1; fp++ {
		imp, ok := a.Importance(fp)
		if want := fp >= 1 && fp <= n; ok != want || ok && !near(imp, 1.0/n) {
			t.Fatalf("Importance(%d) = %v, %v; want %v, %v", fp, imp, ok, 1.0/n, want)
		}
	}
}

func TestAOPICPoliteness(t *testing.T) {
	var a frontier.AOPIC
	s := seed("slow", 1)
	a.Push(s)
	a.Push(child(s, "slow", 2))
	a.Push(seed("fast", 3))
	a.Push(child(s, "fast", 4))
	e := mustNext(t, &a, t0)
	if e.FP != 1 {
		t.Fatalf("first Next = %d, want 1", e.FP)
	}
	a.Done(e, frontier.Result{Next: t0.Add(time.Hour), Links: []uint64{2, 2, 2}})
	// 2 holds the most credit (0.9), but slow must wait an hour.
	var got []uint64
	for {
		e, ok, wake := a.Next(t0)
		if !ok {
			if !wake.Equal(t0.Add(time.Hour)) {
				t.Fatalf("wake = %v, want %v", wake, t0.Add(time.Hour))
			}
			break
		}
		got = append(got, e.FP)
		a.Done(e, frontier.Result{})
	}
	if fmt.Sprint(got) != "[3 4]" {
		t.Fatalf("while slow waits: %v, want [3 4]", got)
	}
	if e := mustNext(t, &a, t0.Add(time.Hour)); e.FP != 2 {
		t.Fatalf("Next when slow is ready = %d, want 2", e.FP)
	}
}

func TestAOPICPerHost(t *testing.T) {
	a := frontier.AOPIC{PerHost: 2}
	for fp := range uint64(5) {
		a.Push(seed("h", fp))
	}
	mustNext(t, &a, t0)
	e := mustNext(t, &a, t0)
	if _, ok, wake := a.Next(t0); ok || !wake.IsZero() {
		t.Fatalf("third Next with PerHost 2: ok %v wake %v", ok, wake)
	}
	a.Done(e, frontier.Result{})
	mustNext(t, &a, t0)
}

func TestAOPICTop(t *testing.T) {
	var a frontier.AOPIC
	s := seed("a", 1)
	a.Push(s)
	a.Push(child(s, "b", 2))
	a.Push(child(s, "c", 3))
	a.Push(child(s, "d", 4))
	a.Done(mustNext(t, &a, t0), frontier.Result{Links: []uint64{3, 2, 3, 3}})
	top := a.Top(3)
	want := []frontier.Ranked{
		{URL: "http://a/1", FP: 1, Importance: 1 / 1.9},
		{URL: "http://c/3", FP: 3, Importance: 0.675 / 1.9},
		{URL: "http://b/2", FP: 2, Importance: 0.225 / 1.9},
	}
	if len(top) != len(want) {
		t.Fatalf("Top(3) = %v, want %v", top, want)
	}
	for i := range want {
		if top[i].URL != want[i].URL || top[i].FP != want[i].FP || !near(top[i].Importance, want[i].Importance) {
			t.Fatalf("Top(3) = %v, want %v", top, want)
		}
	}
	if all := a.Top(10); len(all) != 4 || all[3].FP != 4 {
		t.Fatalf("Top(10) = %v, want all 4 pages, 4 last", all)
	}
	if a.Top(0) != nil {
		t.Fatal("Top(0) is not nil")
	}
}

// TestAOPICConservation crawls a random graph and checks after every step
// that credit is conserved (waiting and handed-out pages plus lambda hold
// one unit per seed), that importances sum to 1, and that the received
// total grows by what Done handed out.
func TestAOPICConservation(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var a frontier.AOPIC
	const pages = 300
	var known []frontier.Entry
	seeds := 0
	push := func(e frontier.Entry) {
		a.Push(e)
		known = append(known, e)
	}
	for i := range 3 {
		push(seed(fmt.Sprint("h", i), uint64(i)))
		seeds++
	}
	check := func() {
		t.Helper()
		sum, imp := a.Lambda(), 0.0
		for _, e := range known {
			sum += a.Credit(e.FP)
			x, _ := a.Importance(e.FP)
			imp += x
		}
		if !near(sum, float64(seeds)) {
			t.Fatalf("credit sums to %v, want %d", sum, seeds)
		}
		if !near(imp, 1) {
			t.Fatalf("importances sum to %v, want 1", imp)
		}
	}
	var out []frontier.Entry
	now := t0
	for step := 0; a.Len() > 0 || len(out) > 0; step++ {
		if e, ok, _ := a.Next(now); ok {
			out = append(out, e)
			check()
		}
		if len(out) == 0 || r.IntN(3) == 0 {
			now = now.Add(time.Second)
			continue
		}
		i := r.IntN(len(out))
		e := out[i]
		out = append(out[:i], out[i+1:]...)
		if r.IntN(10) == 0 {
			a.Done(e, frontier.Result{Retry: true})
			check()
			continue
		}
		var links []uint64
		for range r.IntN(8) {
			if len(known) < pages && r.IntN(2) == 0 {
				fp := uint64(len(known))
				push(child(e, fmt.Sprint("h", r.IntN(10)), fp))
				links = append(links, fp)
			} else {
				links = append(links, uint64(r.IntN(pages+50))) // some unknown
			}
		}
		a.Done(e, frontier.Result{Links: links, Next: now.Add(time.Duration(r.IntN(3)) * time.Second)})
		check()
	}
	if len(known) < 100 {
		t.Fatalf("only %d pages crawled", len(known))
	}
}

// TestAOPICTrap: in miniature, a calendar whose every page links to one
// new page loses a tenth of its credit at every step, and falls behind a
// page with several in-links.
func TestAOPICTrap(t *testing.T) {
	const q, cal = 10, 100 // calendar pages are 100, 101, ...
	var a frontier.AOPIC
	s := seed("a", 1)
	a.Push(s)
	var order []uint64
	for {
		e := mustNext(t, &a, t0)
		order = append(order, e.FP)
		if e.FP == q {
			break
		}
		var links []uint64
		switch {
		case e.FP == 1: // the seed links to the calendar and to 2, 3, 4
			links = []uint64{cal, 2, 3, 4}
			for _, fp := range links {
				a.Push(child(e, fmt.Sprint("h", fp), fp))
			}
		case e.FP >= cal:
			links = []uint64{e.FP + 1}
			a.Push(child(e, "cal", e.FP+1))
		default: // 2, 3 and 4 link to q
			if e.FP == 2 {
				a.Push(child(e, "q", q))
			}
			links = []uint64{q}
		}
		a.Done(e, frontier.Result{Links: links})
	}
	// 2, 3, 4 and the calendar's first page got 0.225 each; the calendar's
	// second 0.9 of that, while q got 0.2025 from each of two pages.
	if want := "[1 100 2 3 10]"; fmt.Sprint(order) != want {
		t.Errorf("order = %v, want %v", order, want)
	}
	wantCredit(t, &a, cal+1, 0.9*0.225)
	c1, _ := a.Importance(cal)
	c2, _ := a.Importance(cal + 1)
	imp, _ := a.Importance(q)
	if !(imp > c1 && c1 > c2) {
		t.Errorf("importances: q %v, calendar %v, %v; want decreasing", imp, c1, c2)
	}
}

func TestAOPICDonePanicsOnUnknownEntry(t *testing.T) {
	for _, name := range []string{"unknown", "waiting", "fetched"} {
		t.Run(name, func(t *testing.T) {
			var a frontier.AOPIC
			a.Push(seed("a", 1))
			a.Push(seed("a", 2))
			e := mustNext(t, &a, t0)
			a.Done(e, frontier.Result{})
			defer func() {
				if recover() == nil {
					t.Fatalf("Done of an entry %s did not panic", name)
				}
			}()
			switch name {
			case "unknown":
				a.Done(seed("x", 9), frontier.Result{})
			case "waiting":
				a.Done(seed("a", 3-e.FP), frontier.Result{})
			case "fetched":
				a.Done(e, frontier.Result{})
			}
		})
	}
}

func ExampleAOPIC() {
	// A small site: the home page links to a news page, an about page and a
	// calendar; the news page and the calendar link to the about page too,
	// and each calendar page to the next month.
	links := map[string][]string{
		"/":      {"/news", "/about", "/cal/1"},
		"/news":  {"/about"},
		"/cal/1": {"/about", "/cal/2"},
		"/cal/2": {"/cal/3"},
	}
	fp := func(path string) uint64 { // a crawler uses canon.Fingerprint
		h := fnv.New64a()
		h.Write([]byte(path))
		return h.Sum64()
	}
	entry := func(path string) frontier.Entry {
		return frontier.Entry{URL: "http://a.example" + path, FP: fp(path), Host: "a.example"}
	}

	var f frontier.AOPIC
	f.Push(entry("/")) // a seed: it brings credit 1
	pushed := map[string]bool{"/": true}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for range 4 { // a budget of 4 fetches
		e, ok, _ := f.Next(now)
		if !ok {
			break
		}
		fmt.Printf("fetch %-24s importance %.3f\n", e.URL, e.Importance)
		path := e.URL[len("http://a.example"):]
		var fps []uint64
		for _, l := range links[path] {
			if !pushed[l] {
				pushed[l] = true
				c := entry(l)
				c.Depth, c.Referrer = e.Depth+1, e.URL
				f.Push(c)
			}
			fps = append(fps, fp(l))
		}
		f.Done(e, frontier.Result{Links: fps})
	}
	for _, r := range f.Top(3) {
		fmt.Printf("top   %-24s importance %.3f\n", r.URL, r.Importance)
	}
	// Output:
	// fetch http://a.example/        importance 1.000
	// fetch http://a.example/news    importance 0.158
	// fetch http://a.example/about   importance 0.263
	// fetch http://a.example/cal/1   importance 0.138
	// top   http://a.example/about   importance 0.332
	// top   http://a.example/        importance 0.326
	// top   http://a.example/cal/2   importance 0.147
}

// Hold keeps a host waiting until a later time, never an earlier one.
func TestAOPICHold(t *testing.T) {
	var a frontier.AOPIC
	a.Push(frontier.Entry{URL: "http://a.test/", FP: 1, Host: "a.test"})
	a.Push(frontier.Entry{URL: "http://b.test/", FP: 2, Host: "b.test"})
	a.Hold("a.test", t0.Add(time.Minute))
	a.Hold("a.test", t0.Add(time.Second)) // earlier: no change
	a.Hold("unknown.test", t0.Add(time.Hour))
	e, ok, _ := a.Next(t0)
	if !ok || e.Host != "b.test" {
		t.Fatalf("Next = %v %v, want b.test's entry: a.test is held", e.URL, ok)
	}
	if _, ok, wake := a.Next(t0); ok || !wake.Equal(t0.Add(time.Minute)) {
		t.Fatalf("Next: ok %v, wake %v; want a.test held until a minute on", ok, wake)
	}
	if e, ok, _ := a.Next(t0.Add(time.Minute)); !ok || e.Host != "a.test" {
		t.Fatalf("a minute on: Next = %v %v, want a.test's entry", e.URL, ok)
	}
}
