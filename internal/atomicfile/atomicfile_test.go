package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := Write(p, func(w io.Writer) error { _, err := io.WriteString(w, "first"); return err }); err != nil {
		t.Fatal(err)
	}
	// A failing writer leaves the old content and no temporary file.
	boom := errors.New("boom")
	err := Write(p, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "first" {
		t.Errorf("content %q after failed write, want %q", b, "first")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("%d entries in dir, want 1 (temporary file left behind)", len(ents))
	}
}

// TestRemoveStale: a write removes the temporary files of the same
// destination that no writer holds locked (a killed writer's), and leaves
// one a live writer holds and those of other destinations.
func TestRemoveStale(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "freebsd" {
		t.Skip("no flock: nothing is removed")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "out.npy")
	stale := filepath.Join(dir, tempPrefix(p)+"123")
	other := filepath.Join(dir, tempPrefix("other.npy")+"1")
	live := filepath.Join(dir, tempPrefix(p)+"456")
	for _, name := range []string{stale, other, live} {
		if err := os.WriteFile(name, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(live)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := lock(f, true); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, func(w io.Writer) error { _, err := io.WriteString(w, "whole"); return err }); err != nil {
		t.Fatal(err)
	}
	for name, keep := range map[string]bool{stale: false, other: true, live: true} {
		_, err := os.Stat(name)
		if got := err == nil; got != keep {
			t.Errorf("%s: present %v after Write, want %v", filepath.Base(name), got, keep)
		}
	}
	if b, _ := os.ReadFile(p); string(b) != "whole" {
		t.Errorf("content %q, want %q", b, "whole")
	}
}
