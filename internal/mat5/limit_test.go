package mat5_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
