package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestSorted checks that sorted orders a batch's writes by key, keeps the
// writes to one key in the order they were made, and that applying the
// sorted batch leaves what the batch would have left.
func TestSorted(t *testing.T) {
	t.Parallel()
	db, err := pebble.Open("", &pebble.Options{FS: vfs.NewMem(), Logger: quiet{}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	type write struct {
		key, value string
		deleted    bool
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var writes []write
	b := db.NewBatch()
	for i := range 2000 {
		// Keys of 1 to 12 bytes over a small alphabet, so that many share
		// their first 8 bytes, are prefixes of others, or repeat.
		key := make([]byte, 1+rng.IntN(12))
		for j := range key {
			key[j] = "ab\x00\xff"[rng.IntN(4)]
		}
		w := write{key: string(key), value: fmt.Sprint(i)}
		if rng.IntN(3) == 0 {
			w = write{key: string(key), deleted: true}
		}
		writes = append(writes, w)
		if w.deleted {
			err = b.Delete(key, nil)
		} else {
			err = b.Set(key, []byte(w.value), nil)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	out, err := new(sorter).sorted(db, b)
	if err != nil {
		t.Fatal(err)
	}
	var got []write
	for r := out.Reader(); ; {
		kind, key, value, ok, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, write{string(key), string(value), kind == pebble.InternalKeyKindDelete})
	}
	if len(got) != len(writes) {
		t.Fatalf("%d writes, want %d", len(got), len(writes))
	}
	for i := 1; i < len(got); i++ {
		if got[i-1].key > got[i].key {
			t.Fatalf("write %d: key %q after %q", i, got[i].key, got[i-1].key)
		}
	}
	// Per key, the writes in the order made.
	byKey := map[string][]write{}
	for _, w := range writes {
		byKey[w.key] = append(byKey[w.key], w)
	}
	for i := 0; i < len(got); {
		want := byKey[got[i].key]
		for j, w := range want {
			if got[i+j] != w {
				t.Fatalf("write %d of key %q: %+v, want %+v", j, w.key, got[i+j], w)
			}
		}
		i += len(want)
	}
	if err := db.Apply(out, nil); err != nil {
		t.Fatal(err)
	}
	for key, ws := range byKey {
		last := ws[len(ws)-1]
		v, closer, err := db.Get([]byte(key))
		switch {
		case last.deleted && err != pebble.ErrNotFound:
			t.Errorf("key %q: %v, want deleted", key, err)
		case !last.deleted && err != nil:
			t.Errorf("key %q: %v", key, err)
		case !last.deleted && string(v) != last.value:
			t.Errorf("key %q = %q, want %q", key, v, last.value)
		}
		if err == nil {
			closer.Close()
		}
	}
}

// BenchmarkSorted sorts a commit group of a crawl: 20 pages of 10 new
// links (a seen key and a queue entry each), a queue entry deleted and a
// host written.
func BenchmarkSorted(b *testing.B) {
	db, err := pebble.Open("", &pebble.Options{FS: vfs.NewMem(), Logger: quiet{}})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	group := db.NewBatch()
	value := bytes.Repeat([]byte("v"), 31)
	for range 20 {
		for range 10 {
			group.Set(appendSeenKey(nil, rng.Uint64()), nil, nil)
			group.Set(appendQueueKey(nil, rng.Uint32N(20000), rng.Uint64N(1<<22)), value, nil)
		}
		group.Delete(appendQueueKey(nil, rng.Uint32N(20000), rng.Uint64N(1<<22)), nil)
		group.Set(appendHostKey(nil, fmt.Sprintf("h%d.crawler.test", rng.IntN(20000))), binary.BigEndian.AppendUint64(nil, rng.Uint64()), nil)
	}
	repr := group.Repr()
	b.ReportAllocs()
	var t sorter
	for b.Loop() {
		in := db.NewBatch()
		if err := in.SetRepr(bytes.Clone(repr)); err != nil {
			b.Fatal(err)
		}
		out, err := t.sorted(db, in)
		if err != nil {
			b.Fatal(err)
		}
		out.Close()
	}
}
