package mat5_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/mat5"
	"github.com/dpmne/dpmne/internal/testenv"
)

// TestForgedDims: a MAT-file of a few hundred bytes whose dimensions claim
// billions of elements (dense, sparse, cell, char, or a compressed element
// claiming gigabytes inflated) is refused naming the file and the variable,
// or read for the bytes it holds, allocating in proportion to those bytes
// rather than to the claim. Sparse rows and the rows of an empty dense
// array are held by no byte but are legal: their users bound them.
func TestForgedDims(t *testing.T) {
	const g = 2000000000
	hugeInflated := zlibBytes(le.nums(miUINT32, []float64{miMATRIX, 0xfffffff8}))
	for _, tc := range []struct {
		name  string
		data  []byte
		want  string // "" for no error
		check func(*mat5.File) bool
	}{
		{"dense overflow", withVars(le, le.matrix(tvar{name: "d", class: mat5.DoubleClass, dims: []int{g, g}, store: miDOUBLE, real: []float64{1}})),
			`variable "d": dimensions [2000000000 2000000000] overflow`, nil},
		{"dense", withVars(le, le.matrix(tvar{name: "d", class: mat5.DoubleClass, dims: []int{200000, 200000}, store: miDOUBLE, real: []float64{1}})),
			`variable "d": real part: want 40000000000 elements (320000000000 bytes of miDOUBLE), have 8 bytes`, nil},
		{"sparse columns", withVars(le, le.matrix(tvar{name: "s", class: mat5.SparseClass, dims: []int{2, g}, store: miDOUBLE, ir: []int{0}, jc: []int{0, 1, 1}, real: []float64{1}})),
			`variable "s": column indices: want 2000000001 elements`, nil},
		{"cell", withVars(le, le.matrix(tvar{name: "c", class: mat5.CellClass, dims: []int{g, 1}})),
			`variable "c": truncated cell array: 2000000000 elements need at least 16000000000 bytes`, nil},
		{"char rows", withVars(le, le.matrix(tvar{name: "e", class: mat5.CharClass, dims: []int{g, 0}, store: miUTF8})),
			`variable "e": char array of 2000000000 empty rows`, nil},
		{"compressed", withVars(le, compressedElem(le, hugeInflated)), "claims 4294967288 inflated bytes", nil},
		{"sparse rows", withVars(le, le.matrix(tvar{name: "s", class: mat5.SparseClass, dims: []int{g, 2}, store: miDOUBLE, ir: []int{5}, jc: []int{0, 1, 1}, real: []float64{1}})),
			"", func(f *mat5.File) bool { s := f.Vars[0].Sparse; return s != nil && s.Rows == g && len(s.Ir) == 1 }},
		{"empty dense", withVars(le, le.matrix(tvar{name: "d", class: mat5.DoubleClass, dims: []int{g, 0}, store: miDOUBLE})),
			"", func(f *mat5.File) bool { v := f.Vars[0]; return v.Numeric != nil && len(v.Numeric.Real) == 0 }},
	} {
		p := filepath.Join(t.TempDir(), "forged.mat")
		if err := os.WriteFile(p, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		var f *mat5.File
		var err error
		n := testenv.Allocated(func() { f, err = mat5.ReadFile(p) })
		if n > testenv.MaxForgedAlloc {
			t.Errorf("%s: allocated %d bytes, want at most %d", tc.name, n, testenv.MaxForgedAlloc)
		}
		if tc.want == "" {
			if err != nil || !tc.check(f) {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var fe *mat5.FormatError
		if !errors.As(err, &fe) || fe.File != p || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want a *FormatError for %s saying %q", tc.name, err, p, tc.want)
		}
	}
}
