package mat5_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/mat5"
	"github.com/dpmne/dpmne/internal/testenv"
)

// roundTripVars covers every class and storage the reader decodes. All
// values are exactly representable in their storage type, so they must be
// read back exactly.
var roundTripVars = []tvar{
	{name: "x", class: mat5.DoubleClass, dims: []int{2, 3}, store: miDOUBLE,
		real: []float64{1, -1.5, 1e300, math.Inf(-1), math.NaN(), 0x1p-1074}},
	{name: "u8double", class: mat5.DoubleClass, dims: []int{3, 2}, store: miUINT8,
		real: []float64{0, 1, 255, 7, 128, 1}},
	{name: "i8double", class: mat5.DoubleClass, dims: []int{1, 3}, store: miINT8,
		real: []float64{-128, 127, -1}},
	{name: "idx", class: mat5.Int32Class, dims: []int{1, 4}, store: miINT32,
		real: []float64{0, -2147483648, 2147483647, 42}},
	{name: "scalar", class: mat5.Int32Class, dims: []int{1, 1}, store: miINT32,
		real: []float64{-7}}, // fits a small data element
	{name: "i16narrow", class: mat5.Int16Class, dims: []int{2, 1}, store: miINT8,
		real: []float64{-3, 100}},
	{name: "u16", class: mat5.Uint16Class, dims: []int{1, 2}, store: miUINT16,
		real: []float64{65535, 1}},
	{name: "i16", class: mat5.Int16Class, dims: []int{1, 2}, store: miINT16,
		real: []float64{-32768, 32767}},
	{name: "u32", class: mat5.Uint32Class, dims: []int{1, 1}, store: miUINT32,
		real: []float64{4294967295}},
	{name: "sgl", class: mat5.SingleClass, dims: []int{1, 3}, store: miSINGLE,
		real: []float64{0.5, -3.25, 16777216}},
	{name: "u64", class: mat5.Uint64Class, dims: []int{1, 2}, store: miUINT64,
		real: []float64{1 << 53, 18446744073709549568}},
	{name: "i64", class: mat5.Int64Class, dims: []int{1, 2}, store: miINT64,
		real: []float64{-1 << 53, -9223372036854775808}},
	{name: "lg", class: mat5.Uint8Class, dims: []int{2, 2}, store: miUINT8, logical: true,
		real: []float64{1, 0, 0, 1}},
	{name: "cplx", class: mat5.DoubleClass, dims: []int{1, 2}, store: miDOUBLE,
		real: []float64{1, 2}, imag: []float64{-0.5, 0}},
	{name: "nd", class: mat5.DoubleClass, dims: []int{2, 2, 2}, store: miUINT16,
		real: []float64{1, 2, 3, 4, 5, 6, 7, 8}},
	{name: "empty", class: mat5.DoubleClass, dims: []int{0, 0}, store: miDOUBLE,
		real: []float64{}},
	{name: "sp", class: mat5.SparseClass, dims: []int{4, 3}, store: miUINT8, pad: 2,
		ir: []int{0, 3, 1, 2}, jc: []int{0, 2, 2, 4}, real: []float64{1, 2, 3, 250}},
	{name: "spd", class: mat5.SparseClass, dims: []int{2, 2}, store: miDOUBLE,
		ir: []int{1}, jc: []int{0, 0, 1}, real: []float64{-0.25}},
	{name: "splog", class: mat5.SparseClass, dims: []int{3, 2}, store: miUINT8, logical: true,
		ir: []int{2, 0}, jc: []int{0, 1, 2}, real: []float64{1, 1}},
	{name: "splognodata", class: mat5.SparseClass, dims: []int{3, 2}, logical: true, noData: true,
		ir: []int{1}, jc: []int{0, 0, 1}, real: []float64{1}},
	{name: "spcplx", class: mat5.SparseClass, dims: []int{2, 2}, store: miDOUBLE,
		ir: []int{0, 1}, jc: []int{0, 1, 2}, real: []float64{1, 2}, imag: []float64{3, -4}},
	{name: "spempty", class: mat5.SparseClass, dims: []int{5, 0}, store: miDOUBLE,
		ir: []int{}, jc: []int{0}, real: []float64{}},
	{name: "s", class: mat5.CharClass, dims: []int{1, 5}, store: miUTF8, rows: []string{"hello"}},
	{name: "s16", class: mat5.CharClass, dims: []int{2, 3}, store: miUINT16, rows: []string{"abc", "déf"}},
	{name: "sutf16", class: mat5.CharClass, dims: []int{1, 3}, store: miUTF16, rows: []string{"a😀"}},
	{name: "s32", class: mat5.CharClass, dims: []int{1, 2}, store: miUTF32, rows: []string{"€😀"}},
	{name: "sutf8", class: mat5.CharClass, dims: []int{1, 3}, store: miUTF8, rows: []string{"na€"}},
	{name: "slatin1", class: mat5.CharClass, dims: []int{1, 2}, store: miUINT8, rows: []string{"é!"}},
	{name: "sempty", class: mat5.CharClass, dims: []int{1, 0}, store: miUTF8, rows: []string{""}},
	{name: "c", class: mat5.CellClass, dims: []int{3, 1}, cell: []tvar{
		{class: mat5.DoubleClass, dims: []int{1, 1}, store: miDOUBLE, real: []float64{3.5}},
		{class: mat5.CellClass, dims: []int{1, 2}, cell: []tvar{
			{class: mat5.CharClass, dims: []int{1, 2}, store: miUTF8, rows: []string{"hi"}},
			{class: mat5.Int32Class, dims: []int{1, 1}, store: miINT32, real: []float64{9}},
		}},
		{emptyMatrix: true},
	}},
	// A cell of views, as HAN-style data sets store their adjacency
	// matrices: a 1×3 cell of sparse matrices.
	{name: "adj", class: mat5.CellClass, dims: []int{1, 3}, cell: []tvar{
		{class: mat5.SparseClass, dims: []int{3, 3}, store: miDOUBLE, ir: []int{1, 0}, jc: []int{0, 1, 2, 2}, real: []float64{1, 1}},
		{class: mat5.SparseClass, dims: []int{3, 3}, store: miUINT8, ir: []int{2, 1}, jc: []int{0, 0, 1, 2}, real: []float64{1, 1}},
		{class: mat5.SparseClass, dims: []int{3, 3}, store: miDOUBLE, logical: true, noData: true, ir: []int{2, 0}, jc: []int{0, 1, 1, 2}, real: []float64{1, 1}},
	}},
	{name: "st", class: mat5.StructClass, dims: []int{1, 1}, fields: []string{"a", "bb"}, cell: []tvar{
		{class: mat5.DoubleClass, dims: []int{1, 1}, store: miDOUBLE, real: []float64{1}},
		{class: mat5.CharClass, dims: []int{1, 1}, store: miUTF8, rows: []string{"z"}},
	}},
	{name: "after", class: mat5.DoubleClass, dims: []int{1, 1}, store: miDOUBLE, real: []float64{2}},
}

func TestRoundTrip(t *testing.T) {
	for _, w := range allWriters {
		t.Run(w.String(), func(t *testing.T) {
			f, err := mat5.Read(bytes.NewReader(w.file(roundTripVars...)))
			if err != nil {
				t.Fatal(err)
			}
			if want := "MATLAB 5.0 MAT-file, written by the mat5 tests"; f.Header != want {
				t.Errorf("Header = %q, want %q", f.Header, want)
			}
			if len(f.Vars) != len(roundTripVars) {
				t.Fatalf("got %d variables, want %d", len(f.Vars), len(roundTripVars))
			}
			for i, want := range roundTripVars {
				checkVar(t, want.name, f.Vars[i], want)
				if v, ok := f.Var(want.name); !ok || v != f.Vars[i] {
					t.Errorf("Var(%q) = %v, %t; want variable %d", want.name, v, ok, i)
				}
			}
			if _, ok := f.Var("missing"); ok {
				t.Error(`Var("missing") found a variable`)
			}
		})
	}
}

// checkVar checks that got holds exactly what want describes.
func checkVar(t *testing.T, path string, got *mat5.Var, want tvar) {
	t.Helper()
	if want.emptyMatrix {
		want = tvar{class: mat5.DoubleClass, dims: []int{0, 0}, real: []float64{}}
	}
	if got.Name != want.name || got.Class != want.class || !slices.Equal(got.Dims, want.dims) {
		t.Errorf("%s: got name %q class %v dims %v, want %q %v %v", path, got.Name, got.Class, got.Dims, want.name, want.class, want.dims)
		return
	}
	set := 0
	for _, ok := range []bool{got.Numeric != nil, got.Sparse != nil, got.Cell != nil, got.Char != nil} {
		if ok {
			set++
		}
	}
	switch want.class {
	case mat5.StructClass:
		if set != 0 {
			t.Errorf("%s: struct array has data set", path)
		}
		if _, _, _, err := got.Dense(); err == nil || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("%s: Dense error = %v, want one saying struct is not supported", path, err)
		}
		return
	}
	if set != 1 {
		t.Errorf("%s: %d of Numeric, Sparse, Cell and Char are set, want 1", path, set)
		return
	}
	switch want.class {
	case mat5.CellClass:
		if len(got.Cell) != len(want.cell) {
			t.Errorf("%s: %d cell elements, want %d", path, len(got.Cell), len(want.cell))
			return
		}
		for i := range want.cell {
			checkVar(t, path+"{"+string(rune('1'+i))+"}", got.Cell[i], want.cell[i])
		}
	case mat5.CharClass:
		if !slices.Equal(got.Char, want.rows) {
			t.Errorf("%s: Char = %q, want %q", path, got.Char, want.rows)
		}
	case mat5.SparseClass:
		s := got.Sparse
		if s == nil {
			t.Errorf("%s: Sparse not set", path)
			return
		}
		if s.Rows != want.dims[0] || s.Cols != want.dims[1] || s.Logical != want.logical {
			t.Errorf("%s: sparse %d×%d logical %t, want %v logical %t", path, s.Rows, s.Cols, s.Logical, want.dims, want.logical)
		}
		if !slices.Equal(s.Jc, want.jc) || !slices.Equal(s.Ir, want.ir) {
			t.Errorf("%s: Jc %v Ir %v, want %v %v", path, s.Jc, s.Ir, want.jc, want.ir)
		}
		checkFloats(t, path+" data", s.Data, want.real)
		checkFloats(t, path+" imag", s.Imag, want.imag)
	default:
		n := got.Numeric
		if n == nil {
			t.Errorf("%s: Numeric not set", path)
			return
		}
		if n.Logical != want.logical {
			t.Errorf("%s: Logical = %t, want %t", path, n.Logical, want.logical)
		}
		checkFloats(t, path+" real", n.Real, want.real)
		checkFloats(t, path+" imag", n.Imag, want.imag)
	}
}

// checkFloats checks that got and want are bit for bit equal (NaNs match any
// NaN), and that both are nil or neither is.
func checkFloats(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if (got == nil) != (want == nil) || len(got) != len(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
		return
	}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Errorf("%s[%d] = %v, want exactly %v", what, i, got[i], want[i])
		}
	}
}

func TestDenseAt(t *testing.T) {
	w := writer{order: binary.LittleEndian}
	f, err := mat5.Read(bytes.NewReader(w.file(roundTripVars...)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		rows, cols int
		want       []float64 // row-major
	}{
		{"u8double", 3, 2, []float64{0, 7, 1, 128, 255, 1}},
		{"nd", 2, 4, []float64{1, 3, 5, 7, 2, 4, 6, 8}},
		{"sp", 4, 3, []float64{1, 0, 0, 0, 0, 3, 0, 0, 250, 2, 0, 0}},
		{"empty", 0, 0, []float64{}},
	} {
		v, _ := f.Var(tc.name)
		data, r, c, err := v.Dense()
		if err != nil || r != tc.rows || c != tc.cols || !slices.Equal(data, tc.want) {
			t.Errorf("%s: Dense() = %v, %d, %d, %v; want %v, %d, %d", tc.name, data, r, c, err, tc.want, tc.rows, tc.cols)
			continue
		}
		for i := range r {
			for j := range c {
				if got := v.At(i, j); got != tc.want[i*c+j] {
					t.Errorf("%s: At(%d, %d) = %v, want %v", tc.name, i, j, got, tc.want[i*c+j])
				}
			}
		}
	}
	for _, name := range []string{"s", "c", "st"} {
		v, _ := f.Var(name)
		if _, _, _, err := v.Dense(); err == nil {
			t.Errorf("%s: Dense succeeded on a %v array", name, v.Class)
		}
	}
	v, _ := f.Var("x")
	func() {
		defer func() {
			if recover() == nil {
				t.Error("At(2, 0) on a 2×3 array did not panic")
			}
		}()
		v.At(2, 0)
	}()
}

func TestOpaqueSkipped(t *testing.T) {
	for _, w := range allWriters {
		// An opaque (MATLAB class object) array: flags, name, type system,
		// class name and a uint32 metadata array, with no dimensions.
		var body []byte
		body = append(body, w.elem(miUINT32, w.nums(miUINT32, []float64{float64(mat5.OpaqueClass), 0}))...)
		body = append(body, w.elem(miINT8, []byte("str"))...)
		body = append(body, w.elem(miINT8, []byte("MCOS"))...)
		body = append(body, w.elem(miINT8, []byte("string"))...)
		body = append(body, w.matrix(tvar{class: mat5.Uint32Class, dims: []int{2, 1}, store: miUINT32, real: []float64{3707764736, 2}})...)
		file := w.header("opaque")
		file = append(file, w.wrap(w.elem(miMATRIX, body))...)
		file = append(file, w.variable(roundTripVars[0])...)
		f, err := mat5.Read(bytes.NewReader(file))
		if err != nil {
			t.Fatalf("%v: %v", w, err)
		}
		if len(f.Vars) != 2 {
			t.Fatalf("%v: got %d variables, want 2", w, len(f.Vars))
		}
		if v := f.Vars[0]; v.Name != "str" || v.Class != mat5.OpaqueClass || v.Numeric != nil || v.Dims != nil {
			t.Errorf("%v: opaque variable read as %+v", w, v)
		}
		checkVar(t, "x", f.Vars[1], roundTripVars[0])
	}
}

func TestZeroPaddedCompressed(t *testing.T) {
	// Some writers pad miCOMPRESSED elements to 8 bytes with zeros.
	for _, order := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
		w := writer{order: order, compress: true}
		file := w.header("padded")
		for _, v := range roundTripVars[:3] {
			file = append(file, w.variable(v)...)
			for len(file)%8 != 0 {
				file = append(file, 0)
			}
		}
		f, err := mat5.Read(bytes.NewReader(file))
		if err != nil {
			t.Fatalf("%v: %v", w, err)
		}
		if len(f.Vars) != 3 {
			t.Fatalf("%v: got %d variables, want 3", w, len(f.Vars))
		}
		for i, v := range roundTripVars[:3] {
			checkVar(t, v.name, f.Vars[i], v)
		}
	}
}

func TestMixedCompression(t *testing.T) {
	// Uncompressed variables after unpadded compressed ones start at
	// offsets that are not multiples of 8.
	for _, order := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
		v6, v7 := writer{order: order}, writer{order: order, compress: true}
		file := v6.header("mixed")
		var vars []tvar
		for i, v := range roundTripVars {
			w := v6
			if i%3 == 0 {
				w = v7
			}
			file = append(file, w.variable(v)...)
			vars = append(vars, v)
		}
		f, err := mat5.Read(bytes.NewReader(file))
		if err != nil {
			t.Fatalf("%v: %v", v6, err)
		}
		if len(f.Vars) != len(vars) {
			t.Fatalf("%v: got %d variables, want %d", v6, len(f.Vars), len(vars))
		}
		for i, v := range vars {
			checkVar(t, v.name, f.Vars[i], v)
		}
	}
}

func TestACM3025(t *testing.T) {
	path := testenv.File(t, "acm3025/ACM3025.mat")
	f, err := mat5.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const n = 3025
	get := func(name string, class mat5.Class, dims ...int) *mat5.Var {
		t.Helper()
		v, ok := f.Var(name)
		if !ok {
			t.Fatalf("no variable %q", name)
		}
		if v.Class != class || !slices.Equal(v.Dims, dims) || v.Numeric == nil {
			t.Fatalf("%s: class %v dims %v numeric %t, want %v %v dense", name, v.Class, v.Dims, v.Numeric != nil, class, dims)
		}
		return v
	}
	nnz := func(xs []float64) int {
		k := 0
		for _, x := range xs {
			if x != 0 {
				k++
			}
		}
		return k
	}
	for _, tc := range []struct {
		name string
		nnz  int
	}{{"PAP", 29281}, {"PLP", 2210761}} {
		v := get(tc.name, mat5.DoubleClass, n, n)
		a := v.Numeric.Real
		if got := nnz(a); got != tc.nnz {
			t.Errorf("%s has %d non-zeros, want %d", tc.name, got, tc.nnz)
		}
		// If every non-zero (i,j) has a(j,i) = a(i,j), the matrix is
		// symmetric. Exact comparison: the values are stored as integers.
	sym:
		for j := range n {
			for i, x := range a[j*n : (j+1)*n] {
				if x != 0 && a[j+i*n] != x {
					t.Errorf("%s is not symmetric: (%d,%d) = %v, (%d,%d) = %v", tc.name, i, j, x, j, i, a[j+i*n])
					break sym
				}
			}
		}
	}
	feature := get("feature", mat5.DoubleClass, n, 1870)
	ones := 0
	for _, x := range feature.Numeric.Real {
		if x == 1 {
			ones++
		}
	}
	if ones != 253300 {
		t.Errorf("feature has %d ones, want 253300", ones)
	}

	label := get("label", mat5.DoubleClass, n, 3)
	var sums [3]int
	for i := range n {
		row := 0.0
		for j := range 3 {
			x := label.At(i, j)
			if x != 0 && x != 1 {
				t.Fatalf("label(%d,%d) = %v, want 0 or 1", i, j, x)
			}
			row += x
			sums[j] += int(x)
		}
		if row != 1 {
			t.Fatalf("label row %d sums to %v, want 1 (one-hot)", i, row)
		}
	}
	if sums != [3]int{1061, 965, 999} {
		t.Errorf("label column sums = %v, want [1061 965 999]", sums)
	}

	for _, tc := range []struct {
		name string
		n    int
	}{{"train_idx", 600}, {"val_idx", 300}, {"test_idx", 2125}} {
		v := get(tc.name, mat5.Int32Class, 1, tc.n)
		if tc.name == "train_idx" {
			if m := slices.Min(v.Numeric.Real); m != 0 {
				t.Errorf("train_idx min = %v, want 0", m)
			}
		}
		for _, x := range v.Numeric.Real {
			if x < 0 || x >= n || x != math.Trunc(x) {
				t.Fatalf("%s holds %v, want an index in [0, %d)", tc.name, x, n)
			}
		}
	}
}

func BenchmarkReadACM(b *testing.B) {
	path := testenv.File(b, "acm3025/ACM3025.mat")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := mat5.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	}
}

func TestReadFileNamesPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.mat")
	if err := os.WriteFile(path, []byte("not a mat file"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := mat5.ReadFile(path)
	var fe *mat5.FormatError
	if !errors.As(err, &fe) || fe.File != path || !strings.HasPrefix(err.Error(), path+": byte 0: ") {
		t.Errorf("ReadFile error = %v, want a *FormatError naming %s", err, path)
	}
	if _, err := mat5.ReadFile(filepath.Join(t.TempDir(), "missing.mat")); err == nil || !strings.Contains(err.Error(), "missing.mat") {
		t.Errorf("ReadFile of a missing file: error = %v, want one naming it", err)
	}
}

func TestFormatErrorString(t *testing.T) {
	for _, tc := range []struct {
		err  *mat5.FormatError
		want string
	}{
		{&mat5.FormatError{File: "ACM3025.mat", Var: "PAP", Offset: 1234, Msg: "truncated data element: need 9150625 bytes, have 12"},
			`ACM3025.mat: byte 1234: variable "PAP": truncated data element: need 9150625 bytes, have 12`},
		{&mat5.FormatError{Offset: 0, Msg: "empty file: not a MAT-file"},
			`mat5: byte 0: empty file: not a MAT-file`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

// TestReadFileVarsACM reads two variables of the real file and checks that
// the others are skipped and the values equal a full read.
func TestReadFileVarsACM(t *testing.T) {
	p := testenv.File(t, "acm3025/ACM3025.mat")
	f, err := mat5.ReadFileVars(p, "PAP", "label", "nosuch")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Vars) != 2 || f.Vars[0].Name != "PAP" || f.Vars[1].Name != "label" {
		names := []string{}
		for _, v := range f.Vars {
			names = append(names, v.Name)
		}
		t.Fatalf("read %v, want [PAP label]", names)
	}
	full, err := mat5.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := full.Var("label")
	if !slices.Equal(f.Vars[1].Numeric.Real, want.Numeric.Real) {
		t.Error("label differs from a full read")
	}
}
