package status

import (
	"math"
	"testing"
	"time"

	"crawler"
	"crawler/politeness"
)

// TestMergeExact feeds raw samples one second apart, fetching 10 pages a
// second, to a Monitor that keeps 4: the samples kept stay at most 4,
// evenly spaced at the resolution reached, end at the last raw sample,
// and keep the rate.
func TestMergeExact(t *testing.T) {
	t.Parallel()
	m := New(&crawler.Crawler{}, Options{MaxSamples: 4})
	for i := 1; i <= 100; i++ {
		m.mu.Lock()
		m.add(Sample{T: float64(i), Fetched: int64(10 * i)})
		got := append([]Sample(nil), m.samples...)
		stride := m.stride
		m.mu.Unlock()

		if len(got) > 4 || len(got) < 2 && i >= 2 {
			t.Fatalf("after %d samples: %d kept, want 2 to 4", i, len(got))
		}
		if last := got[len(got)-1]; last.T != float64(i) {
			t.Fatalf("after %d samples: the last kept is at %v, want %d", i, last.T, i)
		}
		prev := 0.0
		for j, s := range got {
			if j < len(got)-1 && int(s.T)%stride != 0 {
				t.Fatalf("after %d samples: sample %d at %v, not on the resolution %d: %v", i, j, s.T, stride, got)
			}
			if s.T <= prev {
				t.Fatalf("after %d samples: times not increasing: %v", i, got)
			}
			prev = s.T
			if math.Abs(s.PagesPerSec-10) > 1e-9 {
				t.Fatalf("after %d samples: sample %d has rate %v, want 10", i, j, s.PagesPerSec)
			}
		}
	}
	if m.stride != 32 {
		t.Errorf("resolution after 100 samples kept 4 at a time: %d, want 32", m.stride)
	}
}

func TestRing(t *testing.T) {
	t.Parallel()
	var r ring
	r.add(PageRow{URL: "dropped"}) // no room: kept none
	if got := r.newestFirst(); len(got) != 0 {
		t.Errorf("empty ring holds %v", got)
	}
	r = ring{rows: make([]PageRow, 3)}
	for _, u := range []string{"a", "b", "c", "d", "e"} {
		r.add(PageRow{URL: u})
	}
	got := r.newestFirst()
	if len(got) != 3 || got[0].URL != "e" || got[1].URL != "d" || got[2].URL != "c" {
		t.Errorf("ring of 3 after a..e: %v, want e d c", got)
	}
}

func TestHostState(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, tc := range []struct {
		h    politeness.HostStats
		want string
	}{
		{politeness.HostStats{Retired: "x", InFlight: 1, Failures: 2}, HostRetired},
		{politeness.HostStats{InFlight: 1, Failures: 2}, HostActive},
		{politeness.HostStats{Failures: 2, Next: now.Add(time.Hour)}, HostBackingOff},
		{politeness.HostStats{Next: now.Add(time.Second)}, HostWaiting},
		{politeness.HostStats{Next: now.Add(-time.Second)}, HostIdle},
		{politeness.HostStats{}, HostIdle},
	} {
		if got := hostState(&tc.h, now); got != tc.want {
			t.Errorf("hostState(%+v) = %s, want %s", tc.h, got, tc.want)
		}
		// The same rules as SummarizeHosts: one host, one count.
		s := politeness.SummarizeHosts([]politeness.HostStats{tc.h}, now)
		counts := map[string]int{HostRetired: s.Retired, HostActive: s.Active, HostBackingOff: s.BackingOff, HostWaiting: s.Waiting, HostIdle: s.Idle}
		if counts[tc.want] != 1 {
			t.Errorf("SummarizeHosts(%+v) = %+v, not counted as %s", tc.h, s, tc.want)
		}
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	long := string(make([]byte, maxText-1)) + "é" + "tail"
	got := clip(long)
	if len(got) > maxText+len("…") || got[len(got)-len("…"):] != "…" {
		t.Errorf("clip of %d bytes: %d bytes, ending %q", len(long), len(got), got[len(got)-4:])
	}
	if got := clip("a\xffb"); got != "a\uFFFDb" {
		t.Errorf("clip(invalid UTF-8) = %q", got)
	}
}
