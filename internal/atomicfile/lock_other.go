//go:build !unix

package atomicfile

import (
	"errors"
	"os"
)

// lock locks nothing where there is no flock: a writer goes on unlocked,
// and RemoveStale, refused, removes nothing, so that no temporary file is
// ever removed from under a live writer.
func lock(f *os.File, wait bool) error {
	if wait {
		return nil
	}
	return errors.ErrUnsupported
}
