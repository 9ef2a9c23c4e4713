//go:build unix

package multiplex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
)

// fifo makes a FIFO at dir/name and writes into it, from another
// goroutine, what write writes; it returns a channel closed once the
// writer is done.
func fifo(t *testing.T, dir, name string, write func(*os.File)) <-chan struct{} {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		write(w)
	}()
	return done
}

// TestFIFO: a text file that is a FIFO (Stat size 0) is read as a stream,
// not refused as empty; an empty one is empty; a FIFO named as a .npz,
// which is read by random access, is refused as such.
func TestFIFO(t *testing.T) {
	dir := testenv.WriteFiles(t, map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"e.txt"}]}`})
	done := fifo(t, dir, "e.txt", func(w *os.File) { w.WriteString("a b\nb c\n") })
	net, err := Load(dir, "")
	<-done
	if err != nil || net.N() != 3 {
		t.Fatalf("FIFO edges: %v", err)
	}

	dir = testenv.WriteFiles(t, map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"e.txt"}]}`})
	done = fifo(t, dir, "e.txt", func(*os.File) {})
	_, err = Load(dir, "")
	<-done
	if err == nil || !strings.Contains(err.Error(), "e.txt: file is empty") {
		t.Errorf("empty FIFO: err = %v, want file is empty", err)
	}

	dir = testenv.WriteFiles(t, map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"e.npz"}]}`})
	if err := syscall.Mkfifo(filepath.Join(dir, "e.npz"), 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	_, err = Load(dir, "")
	if err == nil || !strings.Contains(err.Error(), "e.npz: a FIFO, not a regular file: a .npz file is read by random access") {
		t.Errorf("FIFO npz: err = %v", err)
	}
}

// TestFIFOCanceled: a load waiting on a FIFO whose writer has gone quiet
// returns once its context is cancelled, with an error wrapping
// context.Canceled.
func TestFIFOCanceled(t *testing.T) {
	dir := testenv.WriteFiles(t, map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"e.txt"}]}`})
	ctx, cancel := context.WithCancel(context.Background())
	quiet := make(chan struct{})
	done := fifo(t, dir, "e.txt", func(w *os.File) {
		w.WriteString("a b\nb c\n")
		cancel()
		<-quiet // writes nothing more, and does not close
	})
	_, err := LoadContext(ctx, dir, "")
	close(quiet)
	<-done
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "e.txt:") {
		t.Errorf("err = %v, want a stopped load at e.txt wrapping context.Canceled", err)
	}
}
