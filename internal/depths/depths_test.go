package depths

import (
	"math"
	"math/rand/v2"
	"testing"
)

// FuzzDepthTable runs a stream of operations on a Table and on a Go
// map, and checks that they always agree. Fingerprints are drawn from a
// small range so that probes collide and deletions shift entries back.
func FuzzDepthTable(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0, 0, 1, 0, 2, 0, 0x80, 0, 0x81, 0, 0x40, 0x41})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var table Table
		model := map[uint64]int{}
		for i := 0; i+1 < len(ops); i += 2 {
			fp := uint64(ops[i]&0x3f) * 0x40 // multiples of 64: the same home slot in small tables
			if ops[i]&0x40 != 0 {
				fp++
			}
			depth := int(ops[i+1])
			switch {
			case ops[i]&0x80 != 0:
				table.Remove(fp)
				delete(model, fp)
			case depth == 255:
				table.Set(fp, math.MaxUint16+1) // too deep to keep
				delete(model, fp)
			default:
				table.Set(fp, depth)
				model[fp] = depth
			}
			if table.Len() != len(model) {
				t.Fatalf("len %d, want %d", table.Len(), len(model))
			}
		}
		for fp := uint64(0); fp < 64*64+2; fp++ {
			got, ok := table.Get(fp)
			want, wantOK := model[fp]
			if got != want || ok != wantOK {
				t.Fatalf("get(%d) = %d, %v; want %d, %v", fp, got, ok, want, wantOK)
			}
		}
	})
}

// A table as large as a crawl's frontier keeps every depth through growth
// and deletion.
func TestDepthTableLarge(t *testing.T) {
	var table Table
	r := rand.New(rand.NewPCG(1, 2))
	model := map[uint64]int{}
	for i := range 200_000 {
		fp := r.Uint64()
		table.Set(fp, i%1000)
		model[fp] = i % 1000
		if i%3 == 0 {
			for k := range model { // an arbitrary one
				table.Remove(k)
				delete(model, k)
				break
			}
		}
	}
	if table.Len() != len(model) {
		t.Fatalf("len %d, want %d", table.Len(), len(model))
	}
	for fp, want := range model {
		if got, ok := table.Get(fp); !ok || got != want {
			t.Fatalf("get(%x) = %d, %v; want %d", fp, got, ok, want)
		}
	}
}
