//go:build !unix

package warc

import (
	"errors"
	"os"
)

// lockFile fails: files cannot be locked here, so no Writer can tell a
// file being written from one a crash left, and none repairs it.
func lockFile(*os.File) error { return errors.ErrUnsupported }
