package tally

import (
	"sync/atomic"
	"testing"
	"time"
)

type testCounters struct {
	Skipped   atomic.Int64
	requests  atomic.Int64
	bytesRead atomic.Int64
	inflight  atomic.Int64
}

type testSnapshot struct {
	Requests  int64
	BytesRead int64
	InFlight  int
	Elapsed   time.Duration
	Name      string
}

// Each counter lands in its field, a skipped one in none; AddInt64s adds
// the int64 fields alone.
func TestFields(t *testing.T) {
	f := PairFields[testCounters, testSnapshot]("Skipped")
	if f.Len() != 3 {
		t.Fatalf("%d pairs; want 3", f.Len())
	}
	var c testCounters
	c.requests.Store(4)
	c.bytesRead.Store(100)
	c.inflight.Store(2)
	c.Skipped.Store(9)
	var s testSnapshot
	f.Copy(&s, &c)
	if s != (testSnapshot{Requests: 4, BytesRead: 100, InFlight: 2}) {
		t.Errorf("Copy: %+v", s)
	}
	sum := testSnapshot{Requests: 1, InFlight: 7, Elapsed: time.Second, Name: "a"}
	AddInt64s(&sum, &testSnapshot{Requests: 2, BytesRead: 3, InFlight: 9, Elapsed: time.Second, Name: "b"})
	if sum != (testSnapshot{Requests: 3, BytesRead: 3, InFlight: 7, Elapsed: 2 * time.Second, Name: "a"}) {
		t.Errorf("AddInt64s: %+v", sum)
	}
}

// A counter with no field of its name panics when paired.
func TestFieldsMissing(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a counter without a field")
		}
	}()
	PairFields[testCounters, struct{ Requests int64 }]("Skipped")
}
