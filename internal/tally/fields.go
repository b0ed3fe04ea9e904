package tally

import (
	"reflect"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Fields pairs the atomic.Int64 fields of a struct of counters C with the
// int64 or int fields of a snapshot struct S named alike (case aside), so
// that a counter is added with a field in each and nothing else. Make one
// with PairFields, once; it is read-only after.
type Fields[C, S any] struct {
	pairs []pair
}

type pair struct {
	offset uintptr // of the counter in C
	field  int     // index of its field in S
}

// PairFields pairs each atomic.Int64 of C, but those named in skip, with
// the field of S of its name. A counter without a field panics: called at
// init, a test of the package finds it.
func PairFields[C, S any](skip ...string) Fields[C, S] {
	var f Fields[C, S]
	ct, st := reflect.TypeFor[C](), reflect.TypeFor[S]()
	for i := range ct.NumField() {
		c := ct.Field(i)
		if c.Type != reflect.TypeFor[atomic.Int64]() || contains(skip, c.Name) {
			continue
		}
		sf, ok := st.FieldByNameFunc(func(name string) bool { return strings.EqualFold(name, c.Name) })
		if !ok {
			panic("tally: counter " + c.Name + " of " + ct.Name() + " has no field in " + st.Name())
		}
		f.pairs = append(f.pairs, pair{c.Offset, sf.Index[0]})
	}
	return f
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// Len returns the number of counters paired.
func (f Fields[C, S]) Len() int { return len(f.pairs) }

// Counter returns the i-th counter paired of c, and the index of its
// field in S.
func (f Fields[C, S]) Counter(c *C, i int) (counter *atomic.Int64, field int) {
	p := f.pairs[i]
	return (*atomic.Int64)(unsafe.Add(unsafe.Pointer(c), p.offset)), p.field
}

// Copy loads each counter of c into its field of s.
func (f Fields[C, S]) Copy(s *S, c *C) {
	v := reflect.ValueOf(s).Elem()
	for i := range f.pairs {
		counter, field := f.Counter(c, i)
		v.Field(field).SetInt(counter.Load())
	}
}

// AddInt64s adds to sum each int64 field of s (counters, and durations,
// which are int64s too); other fields stay sum's.
func AddInt64s[S any](sum, s *S) {
	a, b := reflect.ValueOf(sum).Elem(), reflect.ValueOf(s).Elem()
	for i := range a.NumField() {
		if f := a.Field(i); f.Kind() == reflect.Int64 {
			f.SetInt(f.Int() + b.Field(i).Int())
		}
	}
}
