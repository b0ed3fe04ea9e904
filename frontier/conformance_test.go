package frontier_test

import (
	"testing"

	"crawler/frontier"
	"crawler/frontier/frontiertest"
)

func TestConformanceFIFO(t *testing.T) {
	frontiertest.Run(t, func() frontier.Frontier { return new(frontier.FIFO) })
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
