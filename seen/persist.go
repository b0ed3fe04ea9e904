package seen

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/bits-and-blooms/bitset"
)

// Saved sets begin with a header naming the set's kind and the fingerprint
// function, so a set saved by one build is never read as another kind or
// checked against fingerprints of another hash:
//
//	"crawler/seen <kind> v1 xxh3-64/seed=0\n" then uvarint fields, then data.
const hashName = "xxh3-64/seed=0"

// ErrFormat is returned when loading bytes that are not a saved set of the
// expected kind.
var ErrFormat = errors.New("seen: not a saved set of this kind")

func header(kind string) string { return "crawler/seen " + kind + " v1 " + hashName + "\n" }

// encoder appends uvarints after a header.
type encoder []byte

func (e encoder) uint(v uint64) encoder { return binary.AppendUvarint(e, v) }

// decoder reads uvarints after checking the header.
type decoder struct {
	b   []byte
	err error
}

func newDecoder(data []byte, kind string) *decoder {
	h := header(kind)
	if len(data) < len(h) || string(data[:len(h)]) != h {
		return &decoder{err: ErrFormat}
	}
	return &decoder{b: data[len(h):]}
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = fmt.Errorf("%w: truncated", ErrFormat)
		return 0
	}
	d.b = d.b[n:]
	return v
}

// MarshalBinary saves the set: its fingerprints, not its table layout.
func (s *Exact) MarshalBinary() ([]byte, error) {
	e := encoder(header("exact"))
	zero := uint64(0)
	if s.hasZero {
		zero = 1
	}
	e = e.uint(uint64(s.n)).uint(zero)
	for _, fp := range s.slots {
		if fp != 0 {
			e = binary.LittleEndian.AppendUint64(e, fp)
		}
	}
	return e, nil
}

// UnmarshalBinary replaces the set with one saved by MarshalBinary.
func (s *Exact) UnmarshalBinary(data []byte) error {
	d := newDecoder(data, "exact")
	n, zero := d.uint(), d.uint()
	if d.err != nil {
		return d.err
	}
	if zero > 1 || n < zero || n-zero != uint64(len(d.b))/8 || len(d.b)%8 != 0 {
		return fmt.Errorf("%w: %d fingerprints announced, %d bytes of them", ErrFormat, n, len(d.b))
	}
	*s = Exact{}
	s.resize(tableSize(int(n)))
	if zero == 1 {
		s.Add(0)
	}
	for b := d.b; len(b) > 0; b = b[8:] {
		s.Add(binary.LittleEndian.Uint64(b))
	}
	return nil
}

// MarshalBinary saves the filter with its parameters.
func (b *Bloom) MarshalBinary() ([]byte, error) {
	return marshalBits(encoder(header("bloom")).uint(b.m).uint(uint64(b.k)).uint(uint64(b.n)), b.bits)
}

// UnmarshalBinary replaces the filter with one saved by MarshalBinary.
func (b *Bloom) UnmarshalBinary(data []byte) error {
	d := newDecoder(data, "bloom")
	m, k, n := d.uint(), d.uint(), d.uint()
	bs, err := unmarshalBits(d, m)
	if err != nil {
		return err
	}
	if k == 0 || k > 64 {
		return fmt.Errorf("%w: k=%d", ErrFormat, k)
	}
	*b = Bloom{bits: bs, words: bs.Words(), m: m, k: int(k), n: int(n)}
	return nil
}

// MarshalBinary saves the bitmap.
func (b *Bitmap) MarshalBinary() ([]byte, error) {
	return marshalBits(encoder(header("bitmap")).uint(b.m).uint(uint64(b.n)), b.bits)
}

// UnmarshalBinary replaces the bitmap with one saved by MarshalBinary.
func (b *Bitmap) UnmarshalBinary(data []byte) error {
	d := newDecoder(data, "bitmap")
	m, n := d.uint(), d.uint()
	bs, err := unmarshalBits(d, m)
	if err != nil {
		return err
	}
	*b = Bitmap{bits: bs, m: m, n: int(n)}
	return nil
}

// marshalBits appends the words of bs, little-endian. bitset's own
// UnmarshalBinary panics on a damaged length (found by FuzzUnmarshal), so
// saved sets carry the bare words and the length is checked here.
func marshalBits(e encoder, bs *bitset.BitSet) ([]byte, error) {
	for _, w := range bs.Words() {
		e = binary.LittleEndian.AppendUint64(e, w)
	}
	return e, nil
}

func unmarshalBits(d *decoder, m uint64) (*bitset.BitSet, error) {
	if d.err != nil {
		return nil, d.err
	}
	words := (m + 63) / 64
	if m == 0 || uint64(len(d.b)) != words*8 {
		return nil, fmt.Errorf("%w: %d bits announced, %d bytes stored", ErrFormat, m, len(d.b))
	}
	set := make([]uint64, words)
	for i := range set {
		set[i] = binary.LittleEndian.Uint64(d.b[8*i:])
	}
	return bitset.FromWithLength(uint(m), set), nil
}
