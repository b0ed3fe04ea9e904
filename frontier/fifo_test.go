package frontier_test

import (
	"fmt"
	"testing"
	"time"

	"crawler/frontier"
)

var _ frontier.Frontier = (*frontier.FIFO)(nil)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func entry(host string, n int) frontier.Entry {
	return frontier.Entry{URL: fmt.Sprintf("http://%s/%d", host, n), Host: host, FP: uint64(n)}
}

// drain hands out every ready entry at now, completing each at once with the
// given delay, and returns their URLs in order.
func drain(f *frontier.FIFO, now time.Time, delay time.Duration) []string {
	var got []string
	for {
		e, ok, _ := f.Next(now)
		if !ok {
			return got
		}
		got = append(got, e.URL)
		f.Done(e, frontier.Result{Next: now.Add(delay)})
	}
}

func TestFIFOBreadthFirstAcrossHosts(t *testing.T) {
	var f frontier.FIFO
	f.Push(entry("a", 1))
	f.Push(entry("b", 2))
	f.Push(entry("a", 3))
	f.Push(entry("c", 4))
	got := drain(&f, t0, 0)
	want := []string{"http://a/1", "http://b/2", "http://a/3", "http://c/4"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	if f.Len() != 0 {
		t.Fatalf("Len = %d after drain", f.Len())
	}
}

func TestFIFODelayedHostDoesNotBlockOthers(t *testing.T) {
	var f frontier.FIFO
	for i := range 3 {
		f.Push(entry("slow", i))
	}
	for i := range 3 {
		f.Push(entry("fast", 10+i))
	}
	// slow's first URL is handed out and the host must then wait an hour.
	e, ok, _ := f.Next(t0)
	if !ok || e.Host != "slow" {
		t.Fatalf("first Next = %v %v", e, ok)
	}
	f.Done(e, frontier.Result{Next: t0.Add(time.Hour)})
	got := drain(&f, t0, 0)
	want := []string{"http://fast/10", "http://fast/11", "http://fast/12"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("while slow waits: %v, want %v", got, want)
	}
	_, ok, wake := f.Next(t0.Add(time.Minute))
	if ok || !wake.Equal(t0.Add(time.Hour)) {
		t.Fatalf("Next before slow is ready = ok %v wake %v, want wake %v", ok, wake, t0.Add(time.Hour))
	}
	e, ok, _ = f.Next(t0.Add(time.Hour))
	if !ok || e.URL != "http://slow/1" {
		t.Fatalf("Next when slow is ready = %v %v", e, ok)
	}
}

func TestFIFOPerHostConcurrency(t *testing.T) {
	for _, perHost := range []int{0, 1, 2, 5} {
		f := frontier.FIFO{PerHost: perHost}
		for i := range 10 {
			f.Push(entry("h", i))
		}
		var out []frontier.Entry
		for {
			e, ok, wake := f.Next(t0)
			if !ok {
				if !wake.IsZero() {
					t.Fatalf("busy host gave wake %v, want zero (ready only after Done)", wake)
				}
				break
			}
			out = append(out, e)
		}
		if want := max(perHost, 1); len(out) != want {
			t.Fatalf("PerHost=%d: %d handed out at once, want %d", perHost, len(out), want)
		}
		f.Done(out[0], frontier.Result{})
		if _, ok, _ := f.Next(t0); !ok {
			t.Fatalf("PerHost=%d: no entry after Done freed a slot", perHost)
		}
	}
}

func TestFIFORetryKeepsPlace(t *testing.T) {
	var f frontier.FIFO
	f.Push(entry("a", 1))
	f.Push(entry("a", 2))
	f.Push(entry("b", 3))
	e, _, _ := f.Next(t0)
	f.Done(e, frontier.Result{Retry: true, Next: t0.Add(time.Second)})
	if f.Len() != 3 {
		t.Fatalf("Len after retry = %d, want 3", f.Len())
	}
	got := drain(&f, t0, 0)
	if fmt.Sprint(got) != "[http://b/3]" {
		t.Fatalf("while a waits: %v", got)
	}
	got = drain(&f, t0.Add(time.Second), 0)
	if fmt.Sprint(got) != "[http://a/1 http://a/2]" {
		t.Fatalf("after a's delay: %v, want the retried entry first", got)
	}
}

func TestFIFODonePanicsOnUnknownEntry(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Done of an entry never handed out did not panic")
		}
	}()
	var f frontier.FIFO
	f.Done(entry("x", 1), frontier.Result{})
}

func ExampleFIFO() {
	var f frontier.FIFO
	f.Push(frontier.Entry{URL: "http://a.example/", Host: "a.example"})
	f.Push(frontier.Entry{URL: "http://a.example/next", Host: "a.example"})
	f.Push(frontier.Entry{URL: "http://b.example/", Host: "b.example"})

	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for {
		e, ok, wake := f.Next(now)
		if !ok {
			if wake.IsZero() {
				break
			}
			now = wake // a real crawler sleeps until wake
			continue
		}
		fmt.Println(now.Format("15:04:05"), e.URL)
		f.Done(e, frontier.Result{Next: now.Add(time.Second)}) // one second between requests to a host
	}
	// Output:
	// 00:00:00 http://a.example/
	// 00:00:00 http://b.example/
	// 00:00:01 http://a.example/next
}

var _ frontier.Expediter = (*frontier.FIFO)(nil)

// Expedited entries come before those pushed, within their host and
// across hosts, in the order expedited, and a retried one keeps its
// place; a host's politeness holds for them.
func TestFIFOExpedite(t *testing.T) {
	var f frontier.FIFO
	for i := range 3 {
		f.Push(entry("a", i))
		f.Push(entry("b", 10+i))
	}
	f.Expedite(entry("b", 20))
	f.Expedite(entry("a", 21))
	f.Expedite(entry("b", 22))
	if f.Len() != 9 {
		t.Fatalf("Len = %d, want 9", f.Len())
	}
	e, _, _ := f.Next(t0)
	if e.URL != "http://b/20" {
		t.Fatalf("first = %s, want the first expedited", e.URL)
	}
	f.Done(e, frontier.Result{Retry: true, Next: t0.Add(time.Second)})
	got := drain(&f, t0, 0)
	// b is not ready for a second: a's expedited entry, then a's own.
	want := []string{"http://a/21", "http://a/0", "http://a/1", "http://a/2"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("while b waits: %v, want %v", got, want)
	}
	got = drain(&f, t0.Add(time.Second), 0)
	want = []string{"http://b/20", "http://b/22", "http://b/10", "http://b/11", "http://b/12"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("then: %v, want %v", got, want)
	}
}
