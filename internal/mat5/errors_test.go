package mat5_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/mat5"
)

var le = writer{order: binary.LittleEndian}

// withVars returns a file holding the given top-level elements.
func withVars(w writer, elems ...[]byte) []byte {
	b := w.header("errors")
	for _, e := range elems {
		b = append(b, e...)
	}
	return b
}

// zlibBytes returns b compressed with zlib.
func zlibBytes(b []byte) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	return z.Bytes()
}

// compressedElem returns an miCOMPRESSED element holding z.
func compressedElem(w writer, z []byte) []byte {
	tag := w.order.AppendUint32(nil, miCOMPRESSED)
	tag = w.order.AppendUint32(tag, uint32(len(z)))
	return append(tag, z...)
}

// shortened returns the miMATRIX element m with its last k bytes cut and
// its size reduced to match, so that its last inner element is truncated.
func shortened(w writer, m []byte, k int) []byte {
	m = append([]byte(nil), m[:len(m)-k]...)
	w.order.PutUint32(m[4:], uint32(len(m)-8))
	return m
}

func TestErrors(t *testing.T) {
	x := roundTripVars[0] // 2×3 double
	good := le.file(roundTripVars[:3]...)
	goodZ := writer{order: binary.LittleEndian, compress: true}.file(roundTripVars[:3]...)
	xm := le.matrix(x)

	badHeader := bytes.Repeat([]byte("this is not a MAT-file "), 10)
	v73 := le.header("MATLAB 7.3 MAT-file")
	le.order.PutUint16(v73[124:], 0x0200)
	badVersion := le.header("MATLAB 5.0 MAT-file")
	le.order.PutUint16(badVersion[124:], 0x0101)

	hugeTop := append([]byte(nil), xm...)
	le.order.PutUint32(hugeTop[4:], 0xfffffff0)

	badSmall := append([]byte(nil), xm...)
	le.order.PutUint32(badSmall[8:], 7<<16|miUINT32) // flags as a 7-byte small element

	zx := zlibBytes(xm)
	badZHeader := append([]byte(nil), zx...)
	badZHeader[0] ^= 0xff
	badZSum := append([]byte(nil), zx...)
	badZSum[len(badZSum)-1] ^= 0xff
	cutZ := zx[:len(zx)/2]

	hugeInflated := zlibBytes(le.nums(miUINT32, []float64{miMATRIX, 0xfffffff8}))
	shortInflated := zlibBytes(le.nums(miUINT32, []float64{miMATRIX, 1000}))
	notMatrix := zlibBytes(le.elem(miDOUBLE, le.nums(miDOUBLE, []float64{1})))

	nested := tvar{class: mat5.DoubleClass, dims: []int{1, 1}, store: miDOUBLE, real: []float64{1}}
	for range 70 {
		nested = tvar{class: mat5.CellClass, dims: []int{1, 1}, cell: []tvar{nested}}
	}
	nested.name = "deep"

	for _, tc := range []struct {
		name    string
		data    []byte
		wantMsg string
		wantOff int64
		wantVar string
	}{
		{"empty file", nil, "empty file: not a MAT-file", 0, ""},
		{"short header", good[:100], "need a 128-byte header, have 100 bytes", 0, ""},
		{"not a MAT-file", badHeader, `want endian indicator "IM" or "MI"`, 126, ""},
		{"version 7.3", v73, "7.3 (HDF5) is not supported", 124, ""},
		{"bad version", badVersion, "unsupported MAT-file version 0x0101", 124, ""},
		{"cut in first tag", good[:131], "truncated variable: need an 8-byte tag, have 3 bytes", 128, ""},
		{"cut after first tag", good[:140], fmt.Sprintf("truncated data element (variable, miMATRIX): need %d bytes, have 4", len(xm)-8), 128, ""},
		{"cut in last variable", good[:len(good)-3], "truncated data element (variable, miMATRIX)", -1, ""},
		{"cut in compressed variable", goodZ[:200], "truncated data element (variable, miCOMPRESSED)", 128, ""},
		{"cut in real part", withVars(le, shortened(le, xm, 8)), "truncated data element (real part, miDOUBLE): need 48 bytes, have 40", 128 + 56, "x"},
		{"size larger than file", withVars(le, hugeTop), "need 4294967280 bytes", 128, ""},
		{"bad small element", withVars(le, badSmall), "array flags: small data element claims 7 bytes, at most 4 fit", 136, ""},
		{"top-level double", withVars(le, le.elem(miDOUBLE, le.nums(miDOUBLE, []float64{1}))), "top-level data element of type miDOUBLE", 128, ""},
		{"bad zlib header", withVars(le, compressedElem(le, badZHeader)), "bad compressed data: zlib: invalid header", 128, ""},
		{"bad zlib checksum", withVars(le, compressedElem(le, badZSum)), "bad compressed data: zlib: invalid checksum", 128, ""},
		{"truncated zlib stream", withVars(le, compressedElem(le, cutZ)), "truncated compressed data", 128, ""},
		{"inflated size beyond bound", withVars(le, compressedElem(le, hugeInflated)), "claims 4294967288 inflated bytes", 128, ""},
		{"inflated data short", withVars(le, compressedElem(le, shortInflated)), "truncated compressed data: inflated stream ends after 8 bytes", 128, ""},
		{"compressed non-matrix", withVars(le, compressedElem(le, notMatrix)), "compressed element holds miDOUBLE, want miMATRIX", 128, ""},
		{"error inside compressed", withVars(le, le.variable(x), compressedElem(le, zlibBytes(shortened(le, xm, 8)))),
			"compressed element, inflated byte 56: truncated data element (real part, miDOUBLE)", 128 + int64(len(xm)), "x"},
		{"negative dims", withVars(le, le.matrix(tvar{name: "neg", class: mat5.DoubleClass, dims: []int{-1, 3}, store: miDOUBLE})),
			"dimension 1 is negative: -1", 128 + 32, "neg"},
		{"overflowing dims", withVars(le, le.matrix(tvar{name: "big", class: mat5.DoubleClass, dims: []int{1 << 30, 1 << 30, 1 << 30}, store: miDOUBLE})),
			"overflow", 128 + 32, "big"},
		{"huge dims, no data", withVars(le, le.matrix(tvar{name: "big", class: mat5.DoubleClass, dims: []int{1 << 30, 1 << 15}, store: miDOUBLE})),
			"real part: want 35184372088832 elements", -1, "big"},
		{"huge cell", withVars(le, le.matrix(tvar{name: "c", class: mat5.CellClass, dims: []int{1 << 20, 1 << 10}})),
			"truncated cell array: 1073741824 elements need at least 8589934592 bytes", -1, "c"},
		{"too few values", withVars(le, le.matrix(tvar{name: "few", class: mat5.DoubleClass, dims: []int{2, 2}, store: miDOUBLE, real: []float64{1, 2, 3}})),
			"real part: want 4 elements (32 bytes of miDOUBLE), have 24 bytes", -1, "few"},
		{"char as double", withVars(le, le.matrix(tvar{name: "s", class: mat5.CharClass, dims: []int{1, 1}, store: miDOUBLE, rows: nil})),
			"char data: want miUTF8", -1, "s"},
		{"row index out of range", withVars(le, le.matrix(tvar{name: "sp", class: mat5.SparseClass, dims: []int{2, 1}, store: miDOUBLE, ir: []int{2}, jc: []int{0, 1}, real: []float64{1}})),
			"row indices: element 0 is 2, want 0 to 1", -1, "sp"},
		{"negative row index", withVars(le, le.matrix(tvar{name: "sp", class: mat5.SparseClass, dims: []int{2, 1}, store: miDOUBLE, ir: []int{-1}, jc: []int{0, 1}, real: []float64{1}})),
			"row indices: element 0 is -1", -1, "sp"},
		{"decreasing column starts", withVars(le, le.matrix(tvar{name: "sp", class: mat5.SparseClass, dims: []int{2, 2}, store: miDOUBLE, ir: []int{0, 1}, jc: []int{0, 2, 1}, real: []float64{1, 2}})),
			"Jc[1] = 2 is greater than Jc[2] = 1", -1, "sp"},
		{"column starts beyond row indices", withVars(le, le.matrix(tvar{name: "sp", class: mat5.SparseClass, dims: []int{2, 1}, store: miDOUBLE, ir: []int{0}, jc: []int{0, 5}, real: []float64{1}})),
			"column indices: element 1 is 5, want 0 to 1", -1, "sp"},
		{"sparse without values", withVars(le, le.matrix(tvar{name: "sp", class: mat5.SparseClass, dims: []int{2, 1}, noData: true, ir: []int{0}, jc: []int{0, 1}})),
			"need the real part of 1 non-zeros", -1, "sp"},
		{"too many empty char rows", withVars(le, le.matrix(tvar{name: "e", class: mat5.CharClass, dims: []int{1 << 19, 0}, store: miUTF8}), le.matrix(tvar{name: "e2", class: mat5.CharClass, dims: []int{1<<19 + 1, 0}, store: miUTF8})),
			"char array of 524289 empty rows: want at most 1048576 in all", -1, "e2"},
		{"nested too deep", withVars(le, le.matrix(nested)), "cell arrays nested more than 64 deep", -1, "deep{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}{1}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := mat5.Read(bytes.NewReader(tc.data))
			var fe *mat5.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Read = %v, %v; want a *FormatError", f, err)
			}
			if !strings.Contains(fe.Msg, tc.wantMsg) {
				t.Errorf("Msg = %q, want it to contain %q", fe.Msg, tc.wantMsg)
			}
			if tc.wantOff >= 0 && fe.Offset != tc.wantOff {
				t.Errorf("Offset = %d, want %d (%v)", fe.Offset, tc.wantOff, err)
			}
			if fe.Offset < 0 || fe.Offset > int64(len(tc.data)) {
				t.Errorf("Offset = %d, outside the %d-byte file", fe.Offset, len(tc.data))
			}
			if fe.Var != tc.wantVar {
				t.Errorf("Var = %q, want %q", fe.Var, tc.wantVar)
			}
			if want := fmt.Sprintf("byte %d: ", fe.Offset); !strings.Contains(err.Error(), want) {
				t.Errorf("Error() = %q, want it to name the offset (%q)", err, want)
			}
		})
	}
}

// TestTruncatedEverywhere cuts valid files at every length and checks that
// each cut gives a *FormatError, except at the boundaries between variables,
// where a file may end.
func TestTruncatedEverywhere(t *testing.T) {
	// One variable of each kind keeps the test short.
	var vars []tvar
	for _, name := range []string{"x", "scalar", "cplx", "sp", "s16", "c", "st", "after"} {
		for _, v := range roundTripVars {
			if v.name == name {
				vars = append(vars, v)
			}
		}
	}
	for _, w := range allWriters {
		data := w.file(vars...)
		ends := map[int]bool{128: true}
		n := 128
		for _, v := range vars {
			n += len(w.variable(v))
			ends[n] = true
		}
		for cut := range len(data) {
			_, err := mat5.Read(bytes.NewReader(data[:cut]))
			// Zero bytes from a variable boundary up to the next multiple
			// of 8, which end the file, read as padding: in a big-endian
			// file, a tag cut there cannot be told from padding.
			a := (cut + 7) &^ 7
			padded := a == cut && !ends[cut] && cut%8 == 0
			if padded {
				padded = false
				for e := range ends {
					if e < cut && (e+7)&^7 == cut && !bytes.ContainsFunc(data[e:cut], func(r rune) bool { return r != 0 }) {
						padded = true
					}
				}
			}
			if ends[cut] || padded {
				if err != nil {
					t.Errorf("%v: cut at variable boundary %d: %v", w, cut, err)
				}
				continue
			}
			var fe *mat5.FormatError
			if !errors.As(err, &fe) {
				t.Errorf("%v: cut at %d of %d: error %v, want a *FormatError", w, cut, len(data), err)
				continue
			}
			if !strings.Contains(fe.Msg, "truncated") && !strings.Contains(fe.Msg, "need") && !strings.Contains(fe.Msg, "empty file") {
				t.Errorf("%v: cut at %d: message %q does not say what was expected", w, cut, fe.Msg)
			}
		}
	}
}
