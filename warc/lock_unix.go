//go:build unix

package warc

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f, held until f is closed, or
// fails at once if another open file holds it.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
