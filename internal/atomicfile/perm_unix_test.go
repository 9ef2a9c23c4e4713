//go:build unix

package atomicfile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// withUmask sets the process's umask for the test (which therefore runs
// alone: no t.Parallel in this package).
func withUmask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

// writeString writes s at path by Write, and checks while writing that
// the temporary file is no more open than want, the mode the file ends
// with.
func writeString(t *testing.T, path, s string, want fs.FileMode) error {
	t.Helper()
	return Write(path, func(w io.Writer) error {
		dir, _, _ := resolve(path)
		ents, _ := os.ReadDir(filepath.Dir(dir))
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), tempPrefix(dir)) {
				fi, err := e.Info()
				if err != nil {
					t.Fatal(err)
				}
				if got := fi.Mode().Perm(); got&^want != 0 {
					t.Errorf("temporary file %s is %v while written, more open than %v", e.Name(), got, want)
				}
			}
		}
		_, err := io.WriteString(w, s)
		return err
	})
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

// TestWriteMode: a new file gets 0666 less the umask (077 → 0600, 022 →
// 0644, 0 → 0666); a replaced one keeps its mode whatever the umask, and
// its temporary file is never more open than that.
func TestWriteMode(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		umask int
		want  fs.FileMode
	}{{0o077, 0o600}, {0o022, 0o644}, {0o027, 0o640}, {0, 0o666}} {
		withUmask(t, tc.umask)
		p := filepath.Join(dir, "new"+tc.want.String())
		if err := writeString(t, p, "x", tc.want); err != nil {
			t.Fatal(err)
		}
		if got := mode(t, p); got != tc.want {
			t.Errorf("umask %03o: new file %v, want %v", tc.umask, got, tc.want)
		}
	}
	for _, kept := range []fs.FileMode{0o600, 0o640, 0o755, 0o444} {
		for _, umask := range []int{0o022, 0o077} {
			withUmask(t, umask)
			p := filepath.Join(dir, "old")
			os.Remove(p)
			if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, kept); err != nil {
				t.Fatal(err)
			}
			if err := writeString(t, p, "new", kept); err != nil {
				t.Fatal(err)
			}
			if got := mode(t, p); got != kept {
				t.Errorf("umask %03o: replaced %v file is %v", umask, kept, got)
			}
			if b, _ := os.ReadFile(p); string(b) != "new" {
				t.Errorf("content %q", b)
			}
		}
	}
}

// TestWriteSymlink: a link is written through — the file it points to
// (through a chain of relative and absolute links, or a dangling link's
// target) is replaced in its own directory, keeping its mode, and the
// links stay links; a loop of links is refused.
func TestWriteSymlink(t *testing.T) {
	withUmask(t, 0o022)
	dir, other := t.TempDir(), t.TempDir()
	target := filepath.Join(other, "target.npy")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	// dir/a → dir/b (relative) → other/target.npy (absolute)
	a, b := filepath.Join(dir, "a.npy"), filepath.Join(dir, "b.npy")
	if err := os.Symlink("b.npy", a); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, b); err != nil {
		t.Fatal(err)
	}
	if err := writeString(t, a, "new", 0o600); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{a, b} {
		if mode(t, l)&fs.ModeSymlink == 0 {
			t.Errorf("%s: no longer a link", l)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "new" || mode(t, target) != 0o600 {
		t.Errorf("target: %q, %v; want \"new\", -rw-------", b, mode(t, target))
	}
	for _, d := range []string{dir, other} {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if strings.Contains(e.Name(), ".tmp") {
				t.Errorf("temporary file %s left in %s", e.Name(), d)
			}
		}
	}
	// A dangling link: its target is created, 0666 less the umask.
	dangling := filepath.Join(dir, "dangling.txt")
	if err := os.Symlink("../"+filepath.Base(other)+"/made.txt", dangling); err != nil {
		t.Fatal(err)
	}
	if err := writeString(t, dangling, "made", 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(other, "made.txt")); err != nil || string(b) != "made" || mode(t, filepath.Join(other, "made.txt")) != 0o644 {
		t.Errorf("dangling link's target: %q, %v", b, err)
	}
	// A loop.
	x, y := filepath.Join(dir, "x"), filepath.Join(dir, "y")
	os.Symlink("y", x)
	os.Symlink("x", y)
	if err := Write(x, func(io.Writer) error { return nil }); err == nil || !strings.Contains(err.Error(), "more than 40 symbolic links to follow") {
		t.Errorf("loop: %v", err)
	}
}

// TestWriteNotRegular: a directory, a FIFO or a device at the
// destination, or a link to one, is refused with an error saying so,
// and left as it was.
func TestWriteNotRegular(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	toNull := filepath.Join(dir, "null.txt")
	if err := os.Symlink(os.DevNull, toNull); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		sub:        "writing " + sub + ": it is a directory, not a regular file: an output is written to a new file renamed over the old, which would replace it, not write into it",
		fifo:       "writing " + fifo + ": it is a FIFO, not a regular file",
		toNull:     "writing " + toNull + ": it is a link to " + os.DevNull + ", a device, not a regular file",
		os.DevNull: "writing " + os.DevNull + ": it is a device, not a regular file",
	} {
		err := Write(p, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err })
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q…", p, err, want)
		}
	}
	if mode(t, fifo)&fs.ModeNamedPipe == 0 || mode(t, toNull)&fs.ModeSymlink == 0 {
		t.Error("refused destinations changed")
	}
}
