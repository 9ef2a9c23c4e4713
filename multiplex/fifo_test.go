//go:build unix

package multiplex

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dpmne/dpmne/internal/testenv"
	"github.com/dpmne/dpmne/npy"
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

// TestFIFONoWriter: a load whose edges are a FIFO that no writer opens
// returns once its context is cancelled (the open, which waits for a
// writer in the kernel, is not waited for), with an error wrapping
// context.Canceled that names the file.
func TestFIFONoWriter(t *testing.T) {
	dir := testenv.WriteFiles(t, map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"e.txt"}]}`})
	if err := syscall.Mkfifo(filepath.Join(dir, "e.txt"), 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := LoadContext(ctx, dir, "")
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "e.txt") {
		t.Errorf("err = %v, want a stopped load at e.txt wrapping context.Canceled", err)
	}
}

// TestFIFOLabelsClaim: .npy labels read from a FIFO whose header claims
// 2·10⁹ values are refused by the memory limit at the header, before any
// value is read; under a limit they pass, the read stops once the
// context is cancelled though the writer goes on.
func TestFIFOLabelsClaim(t *testing.T) {
	header := func(w *os.File) {
		h := "{'descr': '<i8', 'fortran_order': False, 'shape': (2000000000,), }"
		for (10+len(h)+1)%64 != 0 {
			h += " "
		}
		h += "\n"
		w.Write(append([]byte{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, byte(len(h)), byte(len(h) >> 8)}, h...))
	}
	files := map[string]string{
		"manifest.json": `{"nodes":"nodes.txt","labels":"labels.npy","views":[{"name":"v","edges":"e.txt"}]}`,
		"nodes.txt":     "a\nb\n",
		"e.txt":         "a b\n",
	}
	dir := testenv.WriteFiles(t, files)
	stop := make(chan struct{})
	done := fifo(t, dir, "labels.npy", func(w *os.File) { header(w); <-stop })
	_, err := LoadContext(WithMemoryLimit(context.Background(), 1<<30), dir, "")
	close(stop)
	<-done
	if err == nil || !strings.Contains(err.Error(), "labels.npy: the array (shape [2000000000] of <i8) takes 29.8 GiB once read and widened") {
		t.Errorf("err = %v, want the labels refused by their header", err)
	}

	dir = testenv.WriteFiles(t, files)
	ctx, cancel := context.WithCancel(context.Background())
	stop = make(chan struct{})
	done = fifo(t, dir, "labels.npy", func(w *os.File) {
		header(w)
		w.Write(make([]byte, 1<<20))
		cancel()
		// Goes on writing until the reader has gone.
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := w.Write(make([]byte, 64<<10)); err != nil {
				return
			}
		}
	})
	_, err = LoadContext(WithMemoryLimit(ctx, 0), dir, "")
	close(stop)
	<-done
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "labels.npy") {
		t.Errorf("err = %v, want the read stopped at labels.npy wrapping context.Canceled", err)
	}
}

// TestFIFOLabelsQuiet: .npy labels from a FIFO whose writer sends the
// header and goes quiet without closing: the read waiting for data
// returns once the context is cancelled.
func TestFIFOLabelsQuiet(t *testing.T) {
	dir := testenv.WriteFiles(t, map[string]string{
		"manifest.json": `{"nodes":"nodes.txt","labels":"labels.npy","views":[{"name":"v","edges":"e.txt"}]}`,
		"nodes.txt":     "a\nb\n",
		"e.txt":         "a b\n",
	})
	ctx, cancel := context.WithCancel(context.Background())
	stop := make(chan struct{})
	done := fifo(t, dir, "labels.npy", func(w *os.File) {
		var b bytes.Buffer
		npy.WriteInt64(&b, []int{1 << 20}, make([]int64, 1<<20))
		w.Write(b.Bytes()[:1<<16])
		time.AfterFunc(20*time.Millisecond, cancel)
		<-stop
	})
	_, err := LoadContext(ctx, dir, "")
	close(stop)
	<-done
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "labels.npy") {
		t.Errorf("err = %v, want the read stopped at labels.npy wrapping context.Canceled", err)
	}
}
