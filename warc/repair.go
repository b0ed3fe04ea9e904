package warc

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// openSuffix ends the name of a file while a [Writer] writes it: a file
// still so named after its Writer is gone was being written at a crash.
const openSuffix = ".open"

// Repair cuts from the WARC file at path what follows its last whole
// record: a record, or a gzip member, torn by a crash. A process killed
// in the middle of a write (kill -9 stops a large write between pages) or
// a machine that lost power (which can leave zeros past the data) leaves
// such a tail. Repair reports how many bytes it cut; a file that reads
// to its end is left as it is, and cut is 0.
//
// It cuts only what cannot be a record: the input ending inside one, or
// bytes that are not gzip or WARC where a record should start. A record
// larger than the Reader's bound is an error, and nothing is cut.
// [NewWriter] repairs the files a crashed Writer left in its directory.
func Repair(path string) (cut int64, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, fmt.Errorf("warc: %w", err)
	}
	cut, err = repair(f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("warc: %w", cerr)
	}
	return cut, err
}

// repair is Repair of the open file f.
func repair(f *os.File) (cut int64, err error) {
	info, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("warc: %w", err)
	}
	r := NewReader(f)
	whole := int64(0) // the end of the last whole record, at a member's end
	for {
		_, err = r.Next()
		if err != nil {
			break
		}
		if end, ok := r.boundary(); ok {
			whole = end
		}
	}
	switch {
	case errors.Is(err, io.EOF):
		return 0, nil
	case errors.Is(err, ErrTooLarge):
		return 0, fmt.Errorf("warc: repair %s: %w", f.Name(), err)
	}
	if err := f.Truncate(whole); err != nil {
		return 0, fmt.Errorf("warc: repair %s: %w", f.Name(), err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("warc: repair %s: %w", f.Name(), err)
	}
	return info.Size() - whole, nil
}
