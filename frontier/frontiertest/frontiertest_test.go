package frontiertest_test

import (
	"fmt"
	"testing"
	"time"

	"crawler/frontier"
	"crawler/frontier/frontiertest"
)

// impolite is a broken frontier: one queue, no politeness.
type impolite struct{ q []frontier.Entry }

func (f *impolite) Push(e frontier.Entry)                { f.q = append(f.q, e) }
func (f *impolite) Len() int                             { return len(f.q) }
func (f *impolite) Done(frontier.Entry, frontier.Result) {}
func (f *impolite) Next(time.Time) (frontier.Entry, bool, time.Time) {
	if len(f.q) == 0 {
		return frontier.Entry{}, false, time.Time{}
	}
	e := f.q[0]
	f.q = f.q[1:]
	return e, true, time.Time{}
}

// recorder is a testing.TB that records the first failure and stops the
// check there.
type recorder struct {
	testing.TB
	msg string
}

type stop struct{}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	panic(stop{})
}

func check(f frontier.Frontier, ops []byte) (msg string) {
	r := &recorder{}
	defer func() {
		if v := recover(); v != nil && v != (stop{}) {
			panic(v)
		}
		msg = r.msg
	}()
	frontiertest.Check(r, f, ops)
	return ""
}

func TestCheckFindsImpoliteFrontier(t *testing.T) {
	// Push two entries of host h0, hand both out.
	msg := check(new(impolite), []byte{0, 0x28, 3, 3})
	if msg == "" {
		t.Fatal("Check passed a frontier that hands out a busy host")
	}
	t.Log(msg)
}

func TestCheckPassesFIFO(t *testing.T) {
	if msg := check(new(frontier.FIFO), []byte{0, 0x28, 3, 3, 5, 0x0d, 3, 0x3f, 3}); msg != "" {
		t.Fatal(msg)
	}
}
