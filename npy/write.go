package npy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

const (
	// arrayAlign is the alignment NumPy gives the start of the data.
	arrayAlign = 64

	// growthAxisMaxDigits is the width NumPy reserves for the length of
	// the first axis, so that the header can be rewritten in place when
	// an array grows.
	growthAxisMaxDigits = 21
)

// WriteFloat32 writes data as a little-endian float32 ('<f4') array of
// the given shape in C order. A nil or empty shape writes a 0-d array,
// which holds one value. The product of shape must equal len(data).
func WriteFloat32(w io.Writer, shape []int, data []float32) error {
	return writeArray(w, "<f4", 4, shape, len(data), func(b []byte, off int) {
		for i := range len(b) / 4 {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(data[off+i]))
		}
	})
}

// WriteFloat64 writes data as a little-endian float64 ('<f8') array; see
// WriteFloat32.
func WriteFloat64(w io.Writer, shape []int, data []float64) error {
	return writeArray(w, "<f8", 8, shape, len(data), func(b []byte, off int) {
		for i := range len(b) / 8 {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(data[off+i]))
		}
	})
}

// WriteInt64 writes data as a little-endian int64 ('<i8') array; see
// WriteFloat32.
func WriteInt64(w io.Writer, shape []int, data []int64) error {
	return writeArray(w, "<i8", 8, shape, len(data), func(b []byte, off int) {
		for i := range len(b) / 8 {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(data[off+i]))
		}
	})
}

// WriteUint8 writes data as a uint8 ('|u1') array, for example the
// output of numpy.packbits; see WriteFloat32.
func WriteUint8(w io.Writer, shape []int, data []uint8) error {
	hdr, err := encodeHeader("|u1", shape, len(data))
	if err != nil {
		return err
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	if len(data) > 0 {
		_, err = w.Write(data)
	}
	return err
}

// writeChunk is the largest buffer used for encoding data.
const writeChunk = 64 << 10

// writeArray writes the header and then the data in chunks, which fill
// encodes: fill(b, off) encodes elements off, off+1, ... into b.
func writeArray(w io.Writer, descr string, size int, shape []int, n int, fill func(b []byte, off int)) error {
	hdr, err := encodeHeader(descr, shape, n)
	if err != nil {
		return err
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	buf := make([]byte, min(n*size, writeChunk))
	for off := 0; off < n; {
		k := min(n-off, len(buf)/size)
		b := buf[:k*size]
		fill(b, off)
		if _, err := w.Write(b); err != nil {
			return err
		}
		off += k
	}
	return nil
}

// encodeHeader returns the magic string, version, header length and
// header that numpy.save writes for a C-order array, checking that shape
// holds n elements.
func encodeHeader(descr string, shape []int, n int) ([]byte, error) {
	count := 1
	for _, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("npy: negative dimension in shape %v", shape)
		}
		if d != 0 && count > maxInt/d {
			return nil, fmt.Errorf("npy: shape %v has too many elements", shape)
		}
		count *= d
	}
	if count != n {
		return nil, fmt.Errorf("npy: shape %v holds %d elements, have %d values", shape, count, n)
	}

	var b strings.Builder
	b.WriteString("{'descr': '")
	b.WriteString(descr)
	b.WriteString("', 'fortran_order': False, 'shape': ")
	b.WriteString(shapeString(shape))
	b.WriteString(", }")
	if len(shape) > 0 {
		b.WriteString(strings.Repeat(" ", max(0, growthAxisMaxDigits-len(strconv.Itoa(shape[0])))))
	}
	dict := b.String()

	for _, lenSize := range []int{2, 4} {
		prefix := len(magic) + 2 + lenSize
		hlen := len(dict) + 1 // for the final newline
		pad := arrayAlign - (prefix+hlen)%arrayAlign
		total := hlen + pad
		if lenSize == 2 && total > math.MaxUint16 {
			continue
		}
		if int64(total) > math.MaxUint32 {
			break
		}
		out := make([]byte, 0, prefix+total)
		out = append(out, magic...)
		if lenSize == 2 {
			out = append(out, 1, 0)
			out = binary.LittleEndian.AppendUint16(out, uint16(total))
		} else {
			out = append(out, 2, 0)
			out = binary.LittleEndian.AppendUint32(out, uint32(total))
		}
		out = append(out, dict...)
		for range pad {
			out = append(out, ' ')
		}
		out = append(out, '\n')
		return out, nil
	}
	return nil, errors.New("npy: header too large")
}
