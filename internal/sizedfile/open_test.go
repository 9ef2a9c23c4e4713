//go:build unix

package sizedfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenFIFOCancelled: opening a FIFO that no writer opens returns once
// the context is cancelled, with an error wrapping context.Canceled that
// names the file, and the open left waiting is released (no reader is left
// on the FIFO, so a writer's non-blocking open fails with ENXIO). With a
// writer, the FIFO opens and reads.
func TestOpenFIFOCancelled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Cancelled whether or not the open already waits: both are released.
	time.AfterFunc(20*time.Millisecond, cancel)
	f, err := Open(ctx, p)
	if f != nil {
		f.Close()
	}
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), p) {
		t.Fatalf("Open = %v, want context.Canceled naming %s", err, p)
	}
	released := false
	for range 500 {
		w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if errors.Is(err, syscall.ENXIO) {
			released = true
			break
		}
		if err == nil {
			w.Close()
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !released {
		t.Error("the FIFO still has a reader after Open returned")
	}

	done := make(chan struct{})
	go func() {
		defer close(done)
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.WriteString("hello")
		w.Close()
	}()
	f, err = Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 5)
	if _, err := f.Read(b); err != nil && string(b) != "hello" {
		t.Errorf("read %q, %v", b, err)
	}
	<-done
}

// TestOpenCancelledBefore: a context already done opens nothing.
func TestOpenCancelledBefore(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Open(ctx, "/nonexistent"); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
