package frontier_test

import (
	"fmt"
	"testing"
	"time"

	"crawler/frontier"
	"crawler/frontier/frontiertest"
)

var (
	_ frontier.HostLimiter = (*frontier.FIFO)(nil)
	_ frontier.HostLimiter = (*frontier.Priority)(nil)
	_ frontier.HostLimiter = (*frontier.AOPIC)(nil)
	_ frontier.Waker       = (*frontier.FIFO)(nil)
	_ frontier.Waker       = (*frontier.Priority)(nil)
	_ frontier.Waker       = (*frontier.AOPIC)(nil)
)

func TestConformanceFIFO(t *testing.T) {
	frontiertest.Run(t, func() frontier.Frontier { return new(frontier.FIFO) })
}

func TestConformancePriority(t *testing.T) {
	frontiertest.Run(t, func() frontier.Frontier { return new(frontier.Priority) })
}

// FuzzConformancePriority checks Priority against the contract of every
// frontier.
func FuzzConformancePriority(f *testing.F) {
	for _, s := range conformanceSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		frontiertest.Check(t, new(frontier.Priority), ops)
	})
}

func TestConformanceAOPIC(t *testing.T) {
	frontiertest.Run(t, func() frontier.Frontier { return new(frontier.AOPIC) })
}

var conformanceSeeds = [][]byte{
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
	{0x10, 0x11, 0x22, 0x31, 0x45, 0x52, 0x63, 0x71, 0x80, 0x91, 0xa2, 0xb3},
	{0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x8b, 0x8d, 0x9e, 0x0f, 0x44, 0x4c},
}

// FuzzConformanceFIFO checks FIFO against the contract of every frontier.
func FuzzConformanceFIFO(f *testing.F) {
	for _, s := range conformanceSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		frontiertest.Check(t, new(frontier.FIFO), ops)
	})
}

// FuzzConformanceAOPIC checks AOPIC against the contract of every frontier.
func FuzzConformanceAOPIC(f *testing.F) {
	for _, s := range conformanceSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		frontiertest.Check(t, new(frontier.AOPIC), ops)
	})
}

// PerHost reads as every config number does: 0 is one entry of a host out
// at a time, a negative value no limit.
func TestPerHostZeroAndNegative(t *testing.T) {
	for _, tt := range []struct {
		perHost, want int
	}{{0, 1}, {2, 2}, {-1, 5}} {
		for name, f := range map[string]frontier.Frontier{
			"FIFO":  &frontier.FIFO{PerHost: tt.perHost},
			"AOPIC": &frontier.AOPIC{PerHost: tt.perHost},
		} {
			for i := range 5 {
				f.Push(frontier.Entry{URL: fmt.Sprintf("http://a.test/%d", i), FP: uint64(i + 1), Host: "a.test"})
			}
			out := 0
			for _, ok, _ := f.Next(time.Time{}); ok; _, ok, _ = f.Next(time.Time{}) {
				out++
			}
			if out != tt.want {
				t.Errorf("%s{PerHost: %d}: %d entries of one host out at once, want %d", name, tt.perHost, out, tt.want)
			}
		}
	}
}
