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
//
// # Permissions and links
//
// The written file has the permissions a plain create or overwrite would
// give it:
//
//   - a new file gets 0666 less the process's umask (and a directory's
//     default ACL), as os.Create's: the temporary file is created with
//     mode 0666 and the kernel applies the umask itself, so the umask is
//     never read, nor changed, and there is no race with other goroutines;
//   - a file replaced keeps its permission bits (an 0600 file stays
//     0600): the temporary file is created with them, so it is never
//     more open than the file it replaces, even while it is written. Its
//     owner is the writer, as with any rename;
//   - a destination that is a symbolic link is written through: the
//     file the link points to (following a chain of links, up to 40, and
//     a dangling link's target alike) is replaced atomically, its
//     temporary file in the target's directory, and the link itself is
//     kept, as a shell's "> link" would write through it;
//   - a destination that exists and is no regular file (a directory, a
//     device such as /dev/null, a FIFO, a socket) is refused with an
//     error saying so: renaming over it would replace the device node,
//     not write to it.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// maxLinks is the longest chain of symbolic links Write follows, as
// Linux's path resolution (ELOOP past 40).
const maxLinks = 40

// Write creates path with the content that write produces. If write or any
// step fails, path is left as it was and the temporary file is removed.
// A new file gets 0666 less the umask, a replaced one keeps its mode, and
// a symbolic link is written through (the package comment says how).
func Write(path string, write func(w io.Writer) error) (err error) {
	target, fi, err := resolve(path)
	if err != nil {
		return err
	}
	perm := fs.FileMode(0o666) // less the umask, which the kernel applies
	if fi != nil {
		perm = fi.Mode().Perm()
	}
	RemoveStale(target)
	tmp, err := createTemp(filepath.Dir(target), tempPrefix(target), perm)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if fi != nil && runtime.GOOS != "windows" {
		// The umask took bits from the kept mode: give them back.
		if err = tmp.Chmod(perm); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
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
	if runtime.GOOS == "windows" {
		// An open file cannot be renamed there, and nothing is locked.
		if err = tmp.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return os.Rename(tmp.Name(), target)
	}
	// Renamed while still open and locked, so that no RemoveStale can
	// take it between the two steps.
	if err = os.Rename(tmp.Name(), target); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// resolve returns the file that a write to path replaces or creates:
// path itself, or where the symbolic link path points (through a chain
// of links, each read relative to its own directory), with its
// FileInfo, nil when it does not exist. An existing target that is no
// regular file is an error, and so is a chain longer than maxLinks.
func resolve(path string) (string, fs.FileInfo, error) {
	target := path
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return target, nil, nil
		case err != nil:
			return "", nil, fmt.Errorf("writing %s: %w", path, err)
		case fi.Mode()&fs.ModeSymlink == 0 && !fi.Mode().IsRegular():
			what := "not a regular file"
			switch t := fi.Mode().Type(); {
			case t&fs.ModeDir != 0:
				what = "a directory"
			case t&fs.ModeNamedPipe != 0:
				what = "a FIFO"
			case t&fs.ModeDevice != 0:
				what = "a device"
			case t&fs.ModeSocket != 0:
				what = "a socket"
			}
			if target != path {
				what = fmt.Sprintf("a link to %s, %s", target, what)
			}
			return "", nil, fmt.Errorf("writing %s: it is %s, not a regular file: an output is written to a new file renamed over the old, which would replace it, not write into it", path, what)
		case fi.Mode()&fs.ModeSymlink == 0:
			return target, fi, nil
		case hops == maxLinks:
			return "", nil, fmt.Errorf("writing %s: more than %d symbolic links to follow (a loop?)", path, maxLinks)
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", nil, fmt.Errorf("writing %s: %w", path, err)
		}
		if !filepath.IsAbs(link) {
			// Not cleaned: ".." is the kernel's to resolve, through
			// directories that may be links themselves.
			link = filepath.Dir(target) + string(filepath.Separator) + link
		}
		target = link
	}
}

// createTemp creates a new file in dir named prefix and a random tail,
// as os.CreateTemp does, but with mode perm less the umask (the kernel's
// doing, at creation) instead of 0600.
func createTemp(dir, prefix string, perm fs.FileMode) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		return f, err
	}
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
