package mat5_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/dpmne/dpmne/internal/mat5"
)

func FuzzRead(f *testing.F) {
	byName := func(names ...string) []tvar {
		var vars []tvar
		for _, v := range roundTripVars {
			for _, n := range names {
				if v.name == n {
					vars = append(vars, v)
				}
			}
		}
		return vars
	}
	seeds := [][]byte{
		writer{order: binary.LittleEndian}.file(byName("x", "idx", "lg")...),
		writer{order: binary.BigEndian, small: true}.file(byName("sp", "spcplx", "s16")...),
		writer{order: binary.LittleEndian, compress: true, small: true}.file(byName("c", "st", "cplx")...),
		writer{order: binary.BigEndian, compress: true}.file(byName("u8double", "splog", "sutf16", "nd")...),
		writer{order: binary.LittleEndian, small: true}.file(byName("adj")...), // a 1×3 cell of sparse matrices
	}
	valid := len(seeds)
	for _, s := range seeds[:valid] {
		seeds = append(seeds, s[:len(s)-5], s[:140])
	}
	seeds = append(seeds, nil, le.header("header only"), []byte("MATLAB 5.0 MAT-file"))
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := mat5.Read(bytes.NewReader(data))
		if err != nil {
			var fe *mat5.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T) is not a *FormatError", err, err)
			}
			if fe.Offset < 0 || fe.Offset > int64(len(data)) {
				t.Fatalf("error offset %d outside the %d-byte input: %v", fe.Offset, len(data), err)
			}
			return
		}
		for _, v := range file.Vars {
			checkInvariants(t, v)
		}
	})
}

// checkInvariants checks that v is self-consistent, and that Dense and At
// work on it.
func checkInvariants(t *testing.T, v *mat5.Var) {
	t.Helper()
	numel := 1
	for _, d := range v.Dims {
		if d < 0 {
			t.Fatalf("%q: negative dimension in %v", v.Name, v.Dims)
		}
		numel *= d
	}
	switch {
	case v.Numeric != nil:
		if len(v.Numeric.Real) != numel || (v.Numeric.Imag != nil && len(v.Numeric.Imag) != numel) {
			t.Fatalf("%q: %d real and %d imaginary values for dims %v", v.Name, len(v.Numeric.Real), len(v.Numeric.Imag), v.Dims)
		}
	case v.Sparse != nil:
		s := v.Sparse
		if len(v.Dims) != 2 || s.Rows != v.Dims[0] || s.Cols != v.Dims[1] || len(s.Jc) != s.Cols+1 {
			t.Fatalf("%q: sparse %d×%d with %d column starts, dims %v", v.Name, s.Rows, s.Cols, len(s.Jc), v.Dims)
		}
		nnz := s.Jc[s.Cols]
		if len(s.Ir) != nnz || len(s.Data) != nnz || (s.Imag != nil && len(s.Imag) != nnz) {
			t.Fatalf("%q: %d non-zeros but %d row indices, %d values", v.Name, nnz, len(s.Ir), len(s.Data))
		}
		for j := range s.Cols {
			if s.Jc[j] < 0 || s.Jc[j] > s.Jc[j+1] {
				t.Fatalf("%q: bad column starts %v", v.Name, s.Jc)
			}
		}
		for _, i := range s.Ir {
			if i < 0 || i >= s.Rows {
				t.Fatalf("%q: row index %d out of range", v.Name, i)
			}
		}
		if s.Rows > 0 && s.Cols > 0 {
			v.At(s.Rows-1, s.Cols-1)
		}
	case v.Cell != nil:
		if len(v.Cell) != numel {
			t.Fatalf("%q: %d cell elements for dims %v", v.Name, len(v.Cell), v.Dims)
		}
		for _, c := range v.Cell {
			checkInvariants(t, c)
		}
		return
	case v.Char != nil:
		if len(v.Dims) == 0 || len(v.Char) != v.Dims[0] {
			t.Fatalf("%q: %d char rows for dims %v", v.Name, len(v.Char), v.Dims)
		}
		return
	default:
		if v.Class != mat5.StructClass && v.Class != mat5.ObjectClass && v.Class != mat5.FunctionClass && v.Class != mat5.OpaqueClass {
			t.Fatalf("%q: no data for class %v", v.Name, v.Class)
		}
		if _, _, _, err := v.Dense(); err == nil {
			t.Fatalf("%q: Dense succeeded on a %v array", v.Name, v.Class)
		}
		return
	}
	if rows, cols := v.Dims[0], numel/max(v.Dims[0], 1); rows*cols <= 1<<20 {
		if _, _, _, err := v.Dense(); err != nil {
			t.Fatalf("%q: Dense: %v", v.Name, err)
		}
	}
}
