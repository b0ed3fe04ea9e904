package seen_test

import (
	"bytes"
	"encoding"
	"errors"
	"math/rand/v2"
	"testing"

	"crawler/seen"
)

type savable interface {
	seen.Set
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
}

func TestSaveAndLoad(t *testing.T) {
	for name, mk := range map[string]func() savable{
		"exact":  func() savable { return seen.NewExact(0) },
		"bloom":  func() savable { return seen.NewBloom(5000, 0.01) },
		"bitmap": func() savable { return seen.NewBitmap(1 << 16) },
	} {
		s := mk()
		r := rand.New(rand.NewPCG(11, 12))
		fps := []uint64{0}
		for range 3000 {
			fps = append(fps, r.Uint64())
		}
		for _, fp := range fps {
			s.Add(fp)
		}
		data, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		loaded := mk()
		if err := loaded.UnmarshalBinary(data); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if loaded.Len() != s.Len() {
			t.Errorf("%s: Len %d after load, want %d", name, loaded.Len(), s.Len())
		}
		for _, fp := range fps {
			if !loaded.Contains(fp) || loaded.Add(fp) {
				t.Fatalf("%s: %x lost in save and load", name, fp)
			}
		}
		for probe := range uint64(1000) {
			if loaded.Contains(probe<<32|7) != s.Contains(probe<<32|7) {
				t.Fatalf("%s: loaded set answers differently", name)
			}
		}
		// Damaged or foreign data is refused with ErrFormat, never panics.
		for _, bad := range [][]byte{nil, data[:len(data)/2], []byte("crawler/seen exact v2"), append([]byte("x"), data...)} {
			if err := mk().UnmarshalBinary(bad); !errors.Is(err, seen.ErrFormat) {
				t.Errorf("%s: loading %d damaged bytes: %v", name, len(bad), err)
			}
		}
	}
	// A count that overflows when multiplied by 8 is refused, not trusted.
	forged := append([]byte("crawler/seen exact v1 xxh3-64/seed=0\n"), 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0)
	forged = append(forged, make([]byte, 8)...)
	if err := seen.NewExact(0).UnmarshalBinary(forged); !errors.Is(err, seen.ErrFormat) {
		t.Errorf("forged count: %v", err)
	}
	// A set of one kind is not read as another.
	data, _ := seen.NewBloom(10, 0.01).MarshalBinary()
	if err := seen.NewBitmap(10).UnmarshalBinary(data); !errors.Is(err, seen.ErrFormat) {
		t.Errorf("bloom data loaded as a bitmap: %v", err)
	}
}

func FuzzUnmarshal(f *testing.F) {
	for _, s := range []savable{seen.NewExact(4), seen.NewBloom(10, 0.1), seen.NewBitmap(64)} {
		s.Add(42)
		data, _ := s.MarshalBinary()
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		for _, mk := range []func() savable{
			func() savable { return new(seen.Exact) },
			func() savable { return new(seen.Bloom) },
			func() savable { return new(seen.Bitmap) },
		} {
			s := mk()
			if s.UnmarshalBinary(data) != nil {
				continue
			}
			// What loads saves again, and loads to the same set: the same
			// bytes once saved, the same Len, the same answers.
			saved, err := s.MarshalBinary()
			if err != nil {
				t.Fatalf("%T: loaded, but does not save: %v", s, err)
			}
			again := mk()
			if err := again.UnmarshalBinary(saved); err != nil {
				t.Fatalf("%T: saved bytes do not load: %v", s, err)
			}
			if resaved, _ := again.MarshalBinary(); !bytes.Equal(resaved, saved) {
				t.Fatalf("%T: a second save differs from the first", s)
			}
			if again.Len() != s.Len() {
				t.Fatalf("%T: Len %d after a round trip, %d before", s, again.Len(), s.Len())
			}
			for _, fp := range []uint64{0, 1, 2, 42, 1 << 63} {
				if again.Contains(fp) != s.Contains(fp) {
					t.Fatalf("%T: Contains(%d) changed in a round trip", s, fp)
				}
			}
			// A loaded set is a working set: what is added is contained,
			// and Add reports it new at most once.
			n := s.Len()
			first, second := s.Add(1), s.Add(1)
			if !s.Contains(1) || second || s.Len() > n+1 || first && s.Len() != n+1 {
				t.Fatalf("%T: after Add(1) twice (%v, %v): Contains %v, Len %d from %d", s, first, second, s.Contains(1), s.Len(), n)
			}
		}
	})
}
