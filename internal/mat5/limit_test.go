package mat5_test

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dpmne/dpmne/internal/mat5"
	"github.com/dpmne/dpmne/internal/testenv"
)

// TestLimitCompressed: a compressed uint8 variable of a few kilobytes whose
// dimensions declare 4 MB of values (32 MB once widened to float64) is
// refused by Options.Limit before it is inflated, naming the file, the
// variable and the bytes; Held counts the same by the headers alone, and
// within the limit the variable is read and counted.
func TestLimitCompressed(t *testing.T) {
	const rows, cols = 4000, 1000
	w := writer{order: binary.LittleEndian, compress: true}
	data := w.file(tvar{name: "bomb", class: mat5.Uint8Class, dims: []int{rows, cols}, store: miUINT8, real: make([]float64, rows*cols)})
	if len(data) > 64<<10 {
		t.Fatalf("the test file takes %d bytes, want a few KB", len(data))
	}
	p := filepath.Join(t.TempDir(), "bomb.mat")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	n := testenv.Allocated(func() { _, err = mat5.ReadFileWith(p, mat5.Options{Limit: 16 << 20}) })
	var fe *mat5.FormatError
	if !errors.As(err, &fe) || fe.File != p || fe.Var != "bomb" || !strings.Contains(err.Error(), "4000056 bytes inflated, 32000000 once widened") || !strings.Contains(err.Error(), "memory limit of 16777216 bytes") {
		t.Fatalf("err = %v, want the variable refused by the limit", err)
	}
	if n > 1<<20 {
		t.Errorf("allocated %d bytes before refusing, want less than 1 MiB (the variable inflates to 4 MB)", n)
	}
	held, err := mat5.Held(p)
	if want := int64(len(data)) + rows*cols + 56 + 8*rows*cols; err != nil || held != want {
		t.Errorf("Held = %d, %v, want %d", held, err, want)
	}
	f, err := mat5.ReadFileWith(p, mat5.Options{Limit: 64 << 20})
	if err != nil || len(f.Vars) != 1 || f.Held < held {
		t.Fatalf("within the limit: %v, held %d", err, f.Held)
	}
}

// TestLimitUncompressed: an uncompressed variable's values are refused by
// the limit before they are widened.
func TestLimitUncompressed(t *testing.T) {
	w := writer{order: binary.LittleEndian}
	data := w.file(tvar{name: "u", class: mat5.Uint8Class, dims: []int{1000, 100}, store: miUINT8, real: make([]float64, 100000)})
	p := filepath.Join(t.TempDir(), "u.mat")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := mat5.ReadFileWith(p, mat5.Options{Limit: 500000})
	if err == nil || !strings.Contains(err.Error(), `variable "u": real part of 100000 values widened to float64 needs 800000 bytes`) {
		t.Fatalf("err = %v, want the values refused", err)
	}
}

// TestContextInflate: a read whose context is done stops within a
// compressed variable's inflating (ctxReader), naming the file and the
// variable, with an error wrapping the context's; and before the next
// variable.
func TestContextInflate(t *testing.T) {
	w := writer{order: binary.LittleEndian, compress: true}
	data := w.file(tvar{name: "big", class: mat5.Uint8Class, dims: []int{4000, 1000}, store: miUINT8, real: make([]float64, 4000*1000)})
	p := filepath.Join(t.TempDir(), "big.mat")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := mat5.ReadFileWith(p, mat5.Options{Context: ctx})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), p) {
		t.Fatalf("err = %v, want context.Canceled naming %s", err, p)
	}
	// Cancelled within the inflating: a context done after its first
	// looks (a Done channel read counts none), seen by the reader.
	r := &cancelAfter{n: 2}
	_, err = mat5.ReadFileWith(p, mat5.Options{Context: r})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), `variable "big": inflating stopped after`) {
		t.Fatalf("err = %v, want the inflating stopped", err)
	}
}

// cancelAfter is a context whose Err is nil for its first n calls and
// context.Canceled after.
type cancelAfter struct {
	context.Context
	n int
}

func (c *cancelAfter) Err() error {
	if c.n > 0 {
		c.n--
		return nil
	}
	return context.Canceled
}
func (c *cancelAfter) Done() <-chan struct{}       { return nil }
func (c *cancelAfter) Value(any) any               { return nil }
func (c *cancelAfter) Deadline() (time.Time, bool) { return time.Time{}, false }
