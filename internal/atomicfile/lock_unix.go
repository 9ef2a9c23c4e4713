//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// lock takes an exclusive flock on f: waiting for it when wait is set,
// otherwise failing at once if another open file holds it.
func lock(f *os.File, wait bool) error {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	return syscall.Flock(int(f.Fd()), how)
}
