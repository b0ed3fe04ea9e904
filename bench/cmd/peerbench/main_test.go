package main

import (
	"testing"
	"time"

	"crawler/crawlertest"
)

func TestParseCases(t *testing.T) {
	got, err := parseCases("20000@0,100@5ms")
	if err != nil || len(got) != 2 || got[0] != (benchCase{20000, 0}) || got[1] != (benchCase{100, 5 * time.Millisecond}) {
		t.Fatalf("parseCases = %v, %v", got, err)
	}
	for _, bad := range []string{"", "20000", "x@0", "0@0", "10@-1s", "10@fast"} {
		if _, err := parseCases(bad); err == nil {
			t.Errorf("parseCases(%q): no error", bad)
		}
	}
}

func TestSpreadTraps(t *testing.T) {
	for _, tc := range []struct{ hosts, n int }{{200, 10}, {200, 0}, {7, 3}, {10, 10}} {
		trap := spreadTraps(tc.hosts, tc.n)
		kinds := map[crawlertest.Trap]int{}
		count := 0
		for h := range tc.hosts {
			if trap == nil {
				break
			}
			if k := trap(h); k != crawlertest.NoTrap {
				if h == 0 {
					t.Errorf("%v: host 0 is a trap", tc)
				}
				kinds[k]++
				count++
			}
		}
		want := tc.n
		if tc.n == tc.hosts {
			want = tc.n - 1 // host 0 stays good
		}
		if count != want {
			t.Errorf("%v: %d traps, want %d", tc, count, want)
		}
		if tc.n >= 5 && len(kinds) != 5 {
			t.Errorf("%v: kinds %v, want all five", tc, kinds)
		}
	}
}
