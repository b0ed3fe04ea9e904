package crawler

import (
	"reflect"
	"testing"
	"time"

	"crawler/fetch"
)

// TestCountersFillStats checks that every live counter lands in the Stats
// field of its name, and nowhere else.
func TestCountersFillStats(t *testing.T) {
	c := newCounters()
	c.robotsFetched.Add(7)
	c.inflight.Store(3)
	c.nearDuplicates.Add(2)
	s := c.snapshot()
	if s.RobotsFetched != 7 || s.InFlight != 3 || s.NearDuplicates != 2 {
		t.Fatalf("RobotsFetched %d, InFlight %d, NearDuplicates %d; want 7, 3, 2", s.RobotsFetched, s.InFlight, s.NearDuplicates)
	}
	if counterFields.Len() < 25 {
		t.Fatalf("%d counters paired with Stats fields; want every atomic.Int64 of counters", counterFields.Len())
	}
	// Each counter set to its own number shows up once, under its name.
	for i := range counterFields.Len() {
		c := newCounters()
		counter, field := counterFields.Counter(c, i)
		counter.Store(int64(100 + i))
		s := c.snapshot()
		v := reflect.ValueOf(s)
		for j := range v.NumField() {
			if k := v.Field(j).Kind(); k != reflect.Int64 && k != reflect.Int || v.Type().Field(j).Name == "Elapsed" {
				continue
			}
			if got, want := v.Field(j).Int() == int64(100+i), j == field; got != want {
				t.Errorf("counter %d: Stats.%s = %d", i, v.Type().Field(j).Name, v.Field(j).Int())
			}
		}
	}
}

// TestStatsPlus checks that the totals add the counters and Elapsed and
// keep the later Run's gauges.
func TestStatsPlus(t *testing.T) {
	before := &Stats{Requests: 5, DNSLookups: 1, Elapsed: time.Second, Seen: 10, Errors: map[string]int64{fetch.KindDNS: 1}}
	last := Stats{Requests: 2, Unchanged: 4, Elapsed: time.Second, Seen: 12, InFlight: 1, Errors: map[string]int64{fetch.KindDNS: 2}}
	sum := before.plus(last)
	if sum.Requests != 7 || sum.Unchanged != 4 || sum.DNSLookups != 1 || sum.Elapsed != 2*time.Second {
		t.Errorf("counters: %+v", sum)
	}
	if sum.Seen != 12 || sum.InFlight != 1 || sum.Errors[fetch.KindDNS] != 3 {
		t.Errorf("gauges or errors: Seen %d, InFlight %d, dns errors %d; want 12, 1, 3", sum.Seen, sum.InFlight, sum.Errors[fetch.KindDNS])
	}
}
