//go:build unix

package graph

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, in user and system
// mode: on a shared machine, a serial benchmark's CPU time per op is
// steadier than its wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
