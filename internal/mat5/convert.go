package mat5

import (
	"bytes"
	"encoding/binary"
	"math"
	"unicode/utf16"
)

// floats converts len(dst) numbers of data type typ from b, which holds
// exactly that many, to float64.
func (d *decoder) floats(dst []float64, b []byte, typ uint32) {
	le := d.le
	switch typ {
	case miINT8:
		b = b[:len(dst)]
		for i, c := range b {
			dst[i] = float64(int8(c))
		}
	case miUINT8:
		b = b[:len(dst)]
		for i, c := range b {
			dst[i] = float64(c)
		}
	case miINT16:
		for i := range dst {
			dst[i] = float64(int16(u16(le, b[2*i:])))
		}
	case miUINT16:
		for i := range dst {
			dst[i] = float64(u16(le, b[2*i:]))
		}
	case miINT32:
		for i := range dst {
			dst[i] = float64(int32(u32(le, b[4*i:])))
		}
	case miUINT32:
		for i := range dst {
			dst[i] = float64(u32(le, b[4*i:]))
		}
	case miSINGLE:
		for i := range dst {
			dst[i] = float64(math.Float32frombits(u32(le, b[4*i:])))
		}
	case miDOUBLE:
		for i := range dst {
			dst[i] = math.Float64frombits(u64(le, b[8*i:]))
		}
	case miINT64:
		for i := range dst {
			dst[i] = float64(int64(u64(le, b[8*i:])))
		}
	case miUINT64:
		for i := range dst {
			dst[i] = float64(u64(le, b[8*i:]))
		}
	default:
		panic("mat5: internal error: floats called with non-numeric type")
	}
}

func u16(le bool, b []byte) uint16 {
	if le {
		return binary.LittleEndian.Uint16(b)
	}
	return binary.BigEndian.Uint16(b)
}

func u32(le bool, b []byte) uint32 {
	if le {
		return binary.LittleEndian.Uint32(b)
	}
	return binary.BigEndian.Uint32(b)
}

func u64(le bool, b []byte) uint64 {
	if le {
		return binary.LittleEndian.Uint64(b)
	}
	return binary.BigEndian.Uint64(b)
}

// maxEmptyRows bounds the number of rows, over all char arrays of a file, of
// char arrays without characters: each row becomes an empty string, with no
// bytes in the file to bound their number.
const maxEmptyRows = 1 << 20

// char decodes the data of a char array into one string per row.
func (d *decoder) char(s span, pos *int, dims []int, numel int) ([]string, error) {
	rows := dims[0]
	cols := 0
	if rows > 0 {
		cols = numel / rows
	}
	if cols == 0 {
		if rows > maxEmptyRows-d.emptyRows {
			return nil, d.errAt(s.off, "char array of %d empty rows: want at most %d in all", rows, maxEmptyRows)
		}
		d.emptyRows += rows
	}
	if *pos == len(s.b) && numel == 0 {
		return make([]string, rows), nil
	}
	e, err := d.next(s, pos, "char data")
	if err != nil {
		return nil, err
	}
	b := e.data.b
	var units []rune
	isUTF16 := false
	switch e.typ {
	case miUTF8:
		units = bytes.Runes(b)
	case miINT8, miUINT8:
		units = make([]rune, len(b))
		for i, c := range b {
			units[i] = rune(c) // Latin-1
		}
	case miINT16, miUINT16, miUTF16:
		if len(b)%2 != 0 {
			return nil, d.errAt(e.off, "char data: %d bytes of %s is not a whole number of characters", len(b), miName(e.typ))
		}
		units = make([]rune, len(b)/2)
		for i := range units {
			units[i] = rune(u16(d.le, b[2*i:]))
		}
		isUTF16 = true
	case miINT32, miUINT32, miUTF32:
		if len(b)%4 != 0 {
			return nil, d.errAt(e.off, "char data: %d bytes of %s is not a whole number of characters", len(b), miName(e.typ))
		}
		units = make([]rune, len(b)/4)
		for i := range units {
			units[i] = rune(int32(u32(d.le, b[4*i:])))
		}
	default:
		return nil, d.errAt(e.off, "char data: want miUTF8, miUINT16 or miUTF16, have %s", miName(e.typ))
	}
	if len(units) != numel {
		if rows != 1 || e.typ != miUTF8 {
			return nil, d.errAt(e.off, "char data: dimensions %v need %d characters, have %d", dims, numel, len(units))
		}
		// A row of UTF-8 text whose characters need more than one
		// UTF-16 code unit each.
		cols = len(units)
	}
	out := make([]string, rows)
	row := make([]rune, cols)
	var row16 []uint16
	if isUTF16 {
		row16 = make([]uint16, cols)
	}
	for i := range out {
		if isUTF16 {
			for j := range row16 {
				row16[j] = uint16(units[i+j*rows])
			}
			out[i] = string(utf16.Decode(row16))
			continue
		}
		for j := range row {
			row[j] = units[i+j*rows]
		}
		out[i] = string(row) // invalid code points become U+FFFD
	}
	return out, nil
}
