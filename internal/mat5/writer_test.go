package mat5_test

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf16"

	"github.com/dpmne/dpmne/internal/mat5"
)

// This file holds a small MAT-file writer used only to build test input.

// Data types of data elements.
const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15
	miUTF8       = 16
	miUTF16      = 17
	miUTF32      = 18
)

type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// writer writes MAT-files in one of the layouts the format allows.
type writer struct {
	order    byteOrder
	compress bool // wrap each variable in an miCOMPRESSED element
	small    bool // use the small data element format for data of at most 4 bytes
}

func (w writer) String() string {
	s := "LE"
	if w.order == binary.BigEndian {
		s = "BE"
	}
	if w.compress {
		s += "/v7"
	} else {
		s += "/v6"
	}
	if w.small {
		s += "/small"
	}
	return s
}

// allWriters lists every combination of byte order, compression and tag format.
var allWriters = func() []writer {
	var ws []writer
	for _, o := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, c := range []bool{false, true} {
			for _, s := range []bool{false, true} {
				ws = append(ws, writer{order: o, compress: c, small: s})
			}
		}
	}
	return ws
}()

// tvar describes a variable to write.
type tvar struct {
	name    string
	class   mat5.Class
	dims    []int
	store   uint32    // data type of real and imaginary parts
	real    []float64 // numeric values or sparse non-zeros
	imag    []float64 // written when non-nil
	logical bool

	// Sparse: row indices and column starts; nzmax extra padding entries
	// are written after the non-zeros.
	ir, jc []int
	pad    int
	noData bool // omit the value element of a logical sparse array

	cell []tvar // cell elements, or struct field values

	// Char: rows of text, written column-major in store
	// (miUTF8, miUINT16, miUTF16 or miUTF32).
	rows []string

	fields      []string // struct field names
	emptyMatrix bool     // write as a zero-byte miMATRIX element
}

// file returns a whole MAT-file holding vars.
func (w writer) file(vars ...tvar) []byte {
	var b bytes.Buffer
	b.Write(w.header("MATLAB 5.0 MAT-file, written by the mat5 tests"))
	for _, v := range vars {
		b.Write(w.variable(v))
	}
	return b.Bytes()
}

func (w writer) header(text string) []byte {
	h := make([]byte, 128)
	copy(h, text)
	for i := len(text); i < 116; i++ {
		h[i] = ' '
	}
	w.order.PutUint16(h[124:], 0x0100)
	w.order.PutUint16(h[126:], 'M'<<8|'I')
	return h
}

// variable returns the top-level element for v.
func (w writer) variable(v tvar) []byte { return w.wrap(w.matrix(v)) }

// wrap returns the miMATRIX element m, compressed when w compresses.
func (w writer) wrap(m []byte) []byte {
	if !w.compress {
		return m
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(m)
	zw.Close()
	tag := make([]byte, 8)
	w.order.PutUint32(tag, miCOMPRESSED)
	w.order.PutUint32(tag[4:], uint32(z.Len()))
	return append(tag, z.Bytes()...) // no padding, as MATLAB writes it
}

// elem returns a data element.
func (w writer) elem(typ uint32, data []byte) []byte {
	if w.small && len(data) <= 4 && len(data) > 0 {
		b := make([]byte, 8)
		w.order.PutUint32(b, uint32(len(data))<<16|typ)
		copy(b[4:], data)
		return b
	}
	b := make([]byte, 8, 8+len(data)+7)
	w.order.PutUint32(b, typ)
	w.order.PutUint32(b[4:], uint32(len(data)))
	b = append(b, data...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

// nums encodes xs as data type typ.
func (w writer) nums(typ uint32, xs []float64) []byte {
	var b []byte
	for _, x := range xs {
		switch typ {
		case miINT8:
			b = append(b, byte(int8(x)))
		case miUINT8:
			b = append(b, byte(x))
		case miINT16:
			b = w.order.AppendUint16(b, uint16(int16(x)))
		case miUINT16:
			b = w.order.AppendUint16(b, uint16(x))
		case miINT32:
			b = w.order.AppendUint32(b, uint32(int32(x)))
		case miUINT32:
			b = w.order.AppendUint32(b, uint32(x))
		case miSINGLE:
			b = w.order.AppendUint32(b, math.Float32bits(float32(x)))
		case miDOUBLE:
			b = w.order.AppendUint64(b, math.Float64bits(x))
		case miINT64:
			b = w.order.AppendUint64(b, uint64(int64(x)))
		case miUINT64:
			b = w.order.AppendUint64(b, uint64(x))
		default:
			panic(fmt.Sprintf("nums: type %d", typ))
		}
	}
	return b
}

func (w writer) int32s(xs []int) []byte {
	var b []byte
	for _, x := range xs {
		b = w.order.AppendUint32(b, uint32(int32(x)))
	}
	return b
}

// matrix returns the miMATRIX element for v.
func (w writer) matrix(v tvar) []byte {
	if v.emptyMatrix {
		return w.elem(miMATRIX, nil)
	}
	flags := uint32(v.class)
	if v.imag != nil {
		flags |= 0x800
	}
	if v.logical {
		flags |= 0x200
	}
	nzmax := 0
	if v.class == mat5.SparseClass {
		nzmax = len(v.ir) + v.pad
	}
	var b []byte
	b = append(b, w.elem(miUINT32, w.order.AppendUint32(w.order.AppendUint32(nil, flags), uint32(nzmax)))...)
	b = append(b, w.elem(miINT32, w.int32s(v.dims))...)
	b = append(b, w.elem(miINT8, []byte(v.name))...)
	switch v.class {
	case mat5.CellClass:
		for _, c := range v.cell {
			b = append(b, w.matrix(c)...)
		}
	case mat5.StructClass:
		n := 0
		for _, f := range v.fields {
			n = max(n, len(f)+1)
		}
		b = append(b, w.elem(miINT32, w.int32s([]int{n}))...)
		var names []byte
		for _, f := range v.fields {
			names = append(names, f...)
			names = append(names, make([]byte, n-len(f))...)
		}
		b = append(b, w.elem(miINT8, names)...)
		for _, c := range v.cell {
			b = append(b, w.matrix(c)...)
		}
	case mat5.CharClass:
		b = append(b, w.elem(v.store, w.chars(v))...)
	case mat5.SparseClass:
		pad := make([]int, v.pad)
		b = append(b, w.elem(miINT32, w.int32s(append(append([]int(nil), v.ir...), pad...)))...)
		b = append(b, w.elem(miINT32, w.int32s(v.jc))...)
		if !v.noData {
			b = append(b, w.elem(v.store, w.nums(v.store, append(append([]float64(nil), v.real...), make([]float64, v.pad)...)))...)
		}
		if v.imag != nil {
			b = append(b, w.elem(v.store, w.nums(v.store, append(append([]float64(nil), v.imag...), make([]float64, v.pad)...)))...)
		}
	default:
		b = append(b, w.elem(v.store, w.nums(v.store, v.real))...)
		if v.imag != nil {
			b = append(b, w.elem(v.store, w.nums(v.store, v.imag))...)
		}
	}
	return w.elem(miMATRIX, b)
}

// chars encodes the rows of a char array column-major. All rows must have
// the same number of code units of the storage type.
func (w writer) chars(v tvar) []byte {
	var cols [][]uint32 // code units per row
	for _, r := range v.rows {
		var u []uint32
		switch v.store {
		case miUTF8:
			for _, c := range []byte(r) {
				u = append(u, uint32(c))
			}
		case miUINT16, miUTF16:
			for _, c := range utf16.Encode([]rune(r)) {
				u = append(u, uint32(c))
			}
		case miUTF32, miUINT8:
			for _, c := range r {
				u = append(u, uint32(c))
			}
		}
		cols = append(cols, u)
	}
	var b []byte
	if len(cols) == 0 {
		return b
	}
	for j := range cols[0] {
		for i := range cols {
			c := cols[i][j]
			switch v.store {
			case miUTF8, miUINT8:
				b = append(b, byte(c))
			case miUINT16, miUTF16:
				b = w.order.AppendUint16(b, uint16(c))
			case miUTF32:
				b = w.order.AppendUint32(b, c)
			}
		}
	}
	return b
}
