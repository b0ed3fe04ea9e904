package store

import "github.com/cockroachdb/pebble/v2"

// reader is an iterator of the database kept from one read to the next.
// A Pebble iterator made for each read (each refill of a host's queue,
// each batch of seen tests) was made and closed, and opened an iterator of
// each table it sought in, again each time (at 300k pages, 0.8 s of the
// 3.2 s of the refills; 2.4 s with a kept one); one kept seeks in the
// tables it has open. A
// Pebble iterator sees the database as it was when it was made, so the
// reader's owner drops it (stale) once the database has changed in a way
// its reads must see, and the next read makes a new one.
type reader struct {
	it *pebble.Iterator // nil: none yet, or dropped
}

// stale drops the reader's iterator, and returns its error, if any.
func (r *reader) stale() error {
	if r.it == nil {
		return nil
	}
	err := r.it.Close()
	r.it = nil
	return err
}

// iter returns the reader's iterator of db, made if need be, bounded to
// keys in [lower, upper), which SetBounds copies: the caller may reuse
// them. It must be positioned (First, SeekGE ...) before use, and is the
// reader's: it is not closed after use.
func (r *reader) iter(db *pebble.DB, lower, upper []byte) (*pebble.Iterator, error) {
	if r.it == nil {
		it, err := db.NewIter(nil)
		if err != nil {
			return nil, err
		}
		r.it = it
	}
	r.it.SetBounds(lower, upper)
	return r.it, nil
}
