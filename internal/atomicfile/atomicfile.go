// Package atomicfile writes files so that a crash never leaves a
// half-written one behind: the content goes to a temporary file in the same
// directory, which is synced and then renamed over the destination.
//
// A temporary file is named ".BASE.tmp…" after the destination's base
// name, and its writer holds an exclusive lock on it (flock) until the
// rename. A process killed mid-write (SIGKILL, power loss) cannot remove
// its own, and the kernel drops its lock, so every Write first removes the
// temporary files of the same destination that nobody holds locked. Where
// there is no flock (not unix), nothing is removed.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Write creates path with the content that write produces. If write or any
// step fails, path is left as it was and the temporary file is removed.
func Write(path string, write func(w io.Writer) error) (err error) {
	RemoveStale(path)
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPrefix(path)+"*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = lock(tmp, true); err != nil {
		return fmt.Errorf("writing %s: locking %s: %w", path, tmp.Name(), err)
	}
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err = write(bw); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if runtime.GOOS == "windows" {
		// An open file cannot be renamed there, and nothing is locked.
		if err = tmp.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return os.Rename(tmp.Name(), path)
	}
	// Renamed while still open and locked, so that no RemoveStale can
	// take it between the two steps.
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// RemoveStale removes the temporary files of path that no writer holds
// (those of killed processes) and returns how many it removed. Errors are
// ignored: a file that cannot be removed stays as harmless as it was.
func RemoveStale(path string) int {
	dir := filepath.Dir(path)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	prefix := tempPrefix(path)
	removed := 0
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), prefix) || !e.Type().IsRegular() {
			continue
		}
		name := filepath.Join(dir, e.Name())
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		// A writer holds its lock until the rename: a lock taken here
		// means nobody writes this file.
		if lock(f, false) == nil && os.Remove(name) == nil {
			removed++
		}
		f.Close()
	}
	return removed
}

// tempPrefix is the name of path's temporary files less their random tail.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp" }
