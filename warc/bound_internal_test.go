package warc

import (
	"context"
	"testing"
	"time"

	"crawler/fetch"
)

// What a Writer has taken and not written stays bounded when an exchange
// ahead of the others is slow to come (a large one compressed on its
// caller's goroutine): the compressors go on, but Record blocks once the
// exchanges compressed and waiting for their turn fill the slots, and all
// are written, in order, once the slow one is.
func TestRecordBoundedBehindSlowExchange(t *testing.T) {
	w, err := NewWriter(t.TempDir(), Options{Compressors: 1})
	if err != nil {
		t.Fatal(err)
	}
	x := func(path string) *fetch.Exchange {
		return &fetch.Exchange{URL: "http://example.com" + path, IP: "192.0.2.1", Date: time.Now(),
			Request:  []byte("GET " + path + " HTTP/1.1\r\nHost: example.com\r\n\r\n"),
			Response: []byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")}
	}
	// Take the first place in the order as Record does, and hold it.
	w.qmu.Lock()
	slow := job{x: x("/slow"), seq: w.nextSeq, pending: w.pending}
	w.nextSeq++
	slow.pending.Add(1)
	w.qmu.Unlock()

	taken := make(chan int, 2*cap(w.slots))
	go func() {
		for i := range 2 * cap(w.slots) {
			if err := w.Record(context.Background(), x("/fast")); err != nil {
				t.Error(err)
				return
			}
			taken <- i
		}
	}()
	for range cap(w.slots) {
		<-taken
	}
	select {
	case i := <-taken:
		t.Fatalf("Record took exchange %d behind the slow one, with %d slots", i, cap(w.slots))
	case <-time.After(100 * time.Millisecond):
	}
	e := encoders.Get().(*encoder)
	w.write(w.encode(e, slow))
	e.release()
	for range cap(w.slots) {
		<-taken
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.exchanges != 2*cap(w.slots)+1 {
		t.Errorf("%d exchanges written, want %d", w.exchanges, 2*cap(w.slots)+1)
	}
}
