package npy

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// Float64s returns the elements converted to float64, in storage order
// (column-major when a.Fortran is set; see RowMajor). It accepts bool,
// signed and unsigned integer and floating-point dtypes of either byte
// order. Bools become 0 and 1; integers beyond ±2⁵³ are rounded as
// NumPy's astype(float64) rounds them.
func (a *Array) Float64s() ([]float64, error) {
	out := make([]float64, a.Len())
	switch a.dt.kind {
	case 'b', 'i', 'u':
		decodeInt(out, a.data, a.dt)
	case 'f':
		decodeFloat(out, a.data, a.dt)
	default:
		return nil, a.typeError("numbers")
	}
	return out, nil
}

// Int64s returns the elements converted to int64, in storage order
// (column-major when a.Fortran is set; see RowMajor). It accepts bool
// and integer dtypes, and floating-point dtypes whose values are all
// integers in the int64 range. It returns an error for a uint64 value
// above math.MaxInt64 and for a float value that is not an integer.
func (a *Array) Int64s() ([]int64, error) {
	n := a.Len()
	switch a.dt.kind {
	case 'b', 'i', 'u':
		out := make([]int64, n)
		decodeInt(out, a.data, a.dt)
		if a.dt.kind == 'u' && a.dt.size == 8 {
			for i, v := range out {
				if v < 0 {
					return nil, a.errorf(i, "element %d of %s array is %d, which overflows int64", i, a.Descr, uint64(v))
				}
			}
		}
		return out, nil
	case 'f':
		f := make([]float64, n)
		decodeFloat(f, a.data, a.dt)
		out := make([]int64, n)
		for i, v := range f {
			// -2⁶³ is exact in float64; 2⁶³ is the first value beyond range.
			if v != math.Trunc(v) || v < -(1<<63) || v >= 1<<63 {
				return nil, a.errorf(i, "element %d of %s array is %v, not an int64", i, a.Descr, v)
			}
			out[i] = int64(v)
		}
		return out, nil
	}
	return nil, a.typeError("integers")
}

// Bytes returns the elements of a |S<n> array of fixed-length byte
// strings, with trailing NUL bytes trimmed as NumPy trims them, in
// storage order. The slices share one newly allocated buffer.
func (a *Array) Bytes() ([][]byte, error) {
	if a.dt.kind != 'S' {
		return nil, a.typeError("byte strings")
	}
	n, size := a.Len(), a.dt.size
	buf := bytes.Clone(a.data)
	out := make([][]byte, n)
	for i := range out {
		s := bytes.TrimRight(buf[i*size:(i+1)*size], "\x00")
		out[i] = s[:len(s):len(s)]
	}
	return out, nil
}

// Strings returns the elements of a byte string (S<n>) or Unicode
// string (U<n>) array as strings, with trailing NULs trimmed, in storage
// order. Byte strings are returned as they are, without decoding.
func (a *Array) Strings() ([]string, error) {
	n, size := a.Len(), a.dt.size
	out := make([]string, n)
	switch a.dt.kind {
	case 'S':
		for i := range out {
			out[i] = string(bytes.TrimRight(a.data[i*size:(i+1)*size], "\x00"))
		}
	case 'U':
		var order binary.ByteOrder = binary.LittleEndian
		if a.dt.big {
			order = binary.BigEndian
		}
		var buf []byte
		for i := range out {
			e := a.data[i*size : (i+1)*size]
			k := len(e) / 4
			for k > 0 && order.Uint32(e[4*(k-1):]) == 0 {
				k--
			}
			buf = buf[:0]
			for j := range k {
				r := order.Uint32(e[4*j:])
				if r > utf8.MaxRune || 0xd800 <= r && r < 0xe000 {
					return nil, a.errorf(i, "element %d of %s array holds invalid code point %#x", i, a.Descr, r)
				}
				buf = utf8.AppendRune(buf, rune(r))
			}
			out[i] = string(buf)
		}
	default:
		return nil, a.typeError("strings")
	}
	return out, nil
}

// RowMajor returns a with its elements in C (row-major) order. When a
// is already in C order, or its Fortran order coincides with C order
// because at most one dimension is longer than 1, RowMajor returns a
// with Fortran cleared if need be; otherwise it returns a reordered copy.
func (a *Array) RowMajor() *Array {
	if !a.Fortran {
		return a
	}
	b := *a
	b.Fortran = false
	b.Shape = slices.Clone(a.Shape)
	// Dimensions of length 1 do not affect the order.
	var dims []int
	for _, d := range a.Shape {
		if d != 1 {
			dims = append(dims, d)
		}
	}
	n := a.Len()
	if len(dims) <= 1 || n == 0 {
		return &b
	}
	size := a.dt.size
	// Fortran strides, in elements.
	stride := make([]int, len(dims))
	s := 1
	for k, d := range dims {
		stride[k] = s
		s *= d
	}
	dst := make([]byte, len(a.data))
	idx := make([]int, len(dims))
	src := 0
	for i := range n {
		copy(dst[i*size:(i+1)*size], a.data[src*size:(src+1)*size])
		// Advance the C-order index, last dimension fastest.
		for k := len(dims) - 1; k >= 0; k-- {
			idx[k]++
			src += stride[k]
			if idx[k] < dims[k] {
				break
			}
			src -= dims[k] * stride[k]
			idx[k] = 0
		}
	}
	b.data = dst
	b.off = -1
	return &b
}

func (a *Array) typeError(want string) error {
	if a.Descr == "" {
		return fmt.Errorf("npy: array has no dtype")
	}
	name := a.file
	if name == "" {
		name = "npy"
	}
	return fmt.Errorf("%s: %s array does not hold %s", name, a.Descr, want)
}

// decodeInt converts bool and integer elements to out, which must have
// one element per element of d. uint64 values are converted with Go's
// conversion rules, which wrap to negative for int64 outputs.
func decodeInt[T int64 | float64](out []T, d []byte, t dtype) {
	le, be := binary.LittleEndian, binary.BigEndian
	switch {
	case t.kind == 'b':
		for i := range out {
			if d[i] != 0 {
				out[i] = 1
			} else {
				out[i] = 0
			}
		}
	case t.size == 1 && t.kind == 'u':
		for i := range out {
			out[i] = T(d[i])
		}
	case t.size == 1:
		for i := range out {
			out[i] = T(int8(d[i]))
		}
	case t.size == 2 && t.kind == 'u' && !t.big:
		for i := range out {
			out[i] = T(le.Uint16(d[2*i:]))
		}
	case t.size == 2 && t.kind == 'u':
		for i := range out {
			out[i] = T(be.Uint16(d[2*i:]))
		}
	case t.size == 2 && !t.big:
		for i := range out {
			out[i] = T(int16(le.Uint16(d[2*i:])))
		}
	case t.size == 2:
		for i := range out {
			out[i] = T(int16(be.Uint16(d[2*i:])))
		}
	case t.size == 4 && t.kind == 'u' && !t.big:
		for i := range out {
			out[i] = T(le.Uint32(d[4*i:]))
		}
	case t.size == 4 && t.kind == 'u':
		for i := range out {
			out[i] = T(be.Uint32(d[4*i:]))
		}
	case t.size == 4 && !t.big:
		for i := range out {
			out[i] = T(int32(le.Uint32(d[4*i:])))
		}
	case t.size == 4:
		for i := range out {
			out[i] = T(int32(be.Uint32(d[4*i:])))
		}
	case t.size == 8 && t.kind == 'u' && !t.big:
		for i := range out {
			out[i] = T(le.Uint64(d[8*i:]))
		}
	case t.size == 8 && t.kind == 'u':
		for i := range out {
			out[i] = T(be.Uint64(d[8*i:]))
		}
	case t.size == 8 && !t.big:
		for i := range out {
			out[i] = T(int64(le.Uint64(d[8*i:])))
		}
	case t.size == 8:
		for i := range out {
			out[i] = T(int64(be.Uint64(d[8*i:])))
		}
	default:
		panic("npy: bad integer dtype")
	}
}

// decodeFloat converts floating-point elements to out.
func decodeFloat(out []float64, d []byte, t dtype) {
	le, be := binary.LittleEndian, binary.BigEndian
	switch {
	case t.size == 2 && !t.big:
		for i := range out {
			out[i] = halfToFloat64(le.Uint16(d[2*i:]))
		}
	case t.size == 2:
		for i := range out {
			out[i] = halfToFloat64(be.Uint16(d[2*i:]))
		}
	case t.size == 4 && !t.big:
		for i := range out {
			out[i] = float64(math.Float32frombits(le.Uint32(d[4*i:])))
		}
	case t.size == 4:
		for i := range out {
			out[i] = float64(math.Float32frombits(be.Uint32(d[4*i:])))
		}
	case t.size == 8 && !t.big:
		for i := range out {
			out[i] = math.Float64frombits(le.Uint64(d[8*i:]))
		}
	case t.size == 8:
		for i := range out {
			out[i] = math.Float64frombits(be.Uint64(d[8*i:]))
		}
	default:
		panic("npy: bad float dtype")
	}
}

// halfToFloat64 converts an IEEE 754 binary16 value.
func halfToFloat64(h uint16) float64 {
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	var f float64
	switch exp {
	case 0:
		f = math.Ldexp(frac, -24) // subnormal
	case 0x1f:
		if frac == 0 {
			f = math.Inf(1)
		} else {
			f = math.NaN()
		}
	default:
		f = math.Ldexp(frac+0x400, exp-25)
	}
	if h&0x8000 != 0 {
		f = -f
	}
	return f
}
