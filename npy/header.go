package npy

import (
	"encoding/binary"
	"fmt"
	"math"
)

// dtype is a parsed simple dtype descr.
type dtype struct {
	kind byte // 'b', 'i', 'u', 'f', 'S' or 'U'
	size int  // bytes per element
	big  bool // big-endian
}

// nativeBig says whether this machine is big-endian, for '=' and '|'.
var nativeBig = binary.NativeEndian.Uint16([]byte{0, 1}) == 1

// parseDescr parses a dtype descr string such as "<f8" or "|S3". It
// returns a message saying what is wrong when the descr is not supported.
func parseDescr(s string) (dtype, string) {
	var t dtype
	rest := s
	t.big = nativeBig
	if rest != "" {
		switch rest[0] {
		case '<':
			t.big = false
			rest = rest[1:]
		case '>':
			t.big = true
			rest = rest[1:]
		case '|', '=':
			rest = rest[1:]
		}
	}
	if rest == "" {
		return t, fmt.Sprintf("invalid dtype %q", s)
	}
	t.kind = rest[0]
	digits := rest[1:]
	n := -1
	if digits != "" {
		n = 0
		for i := 0; i < len(digits); i++ {
			c := digits[i]
			if c < '0' || c > '9' || n > math.MaxInt32/10 {
				n = -2
				break
			}
			n = n*10 + int(c-'0')
		}
		if n > math.MaxInt32/4 {
			n = -2
		}
	}
	switch t.kind {
	case 'O':
		return t, fmt.Sprintf("dtype %q: object arrays need pickle; save with allow_pickle=False", s)
	case 'b':
		if n == 1 {
			t.size = 1
			return t, ""
		}
	case 'i', 'u':
		if n == 1 || n == 2 || n == 4 || n == 8 {
			t.size = n
			return t, ""
		}
	case 'f':
		if n == 2 || n == 4 || n == 8 {
			t.size = n
			return t, ""
		}
		if n == 12 || n == 16 {
			return t, fmt.Sprintf("dtype %q: long double is not supported", s)
		}
	case 'S', 'U':
		// NumPy never writes zero-length strings (it uses S1), and a zero
		// item size would let a tiny file claim any number of elements.
		if n == 0 {
			return t, fmt.Sprintf("dtype %q has zero item size", s)
		}
		if n > 0 {
			t.size = n
			if t.kind == 'U' {
				t.size *= 4
			}
			return t, ""
		}
	case 'c':
		return t, fmt.Sprintf("dtype %q: complex numbers are not supported", s)
	case 'M', 'm':
		return t, fmt.Sprintf("dtype %q: datetime and timedelta are not supported", s)
	case 'V':
		return t, fmt.Sprintf("dtype %q: void (raw record) dtypes are not supported", s)
	}
	return t, fmt.Sprintf("unsupported dtype %q", s)
}

// Header is the header of a .npy array: what ReadHeader and NPZ.Header
// read before the data, checked as Read checks it (a dtype this package
// reads, a shape whose size fits in an int).
type Header struct {
	Descr   string // dtype descr as in the header, e.g. "<f8"
	Shape   []int  // empty for a 0-d array
	Fortran bool   // fortran_order

	// Offset is the byte offset of the data in the .npy stream, and
	// Bytes the size of the data that Descr and Shape claim; the data
	// end at Offset+Bytes.
	Offset, Bytes int64

	dt dtype
}

// Len returns the number of elements the header claims, the product of
// its shape (1 for a 0-d array).
func (h *Header) Len() int64 {
	n := int64(1)
	for _, d := range h.Shape {
		n *= int64(d) // fits: parseHeader checks that Bytes does
	}
	return n
}

// Held returns the bytes an array of this header takes once read and
// converted: its data as stored (Bytes) and, for a bool or numeric dtype,
// the 8 bytes a value that Float64s or Int64s makes of each element (a u1
// array takes 9 bytes an element, not 1), or for strings a copy of the
// data. It is what a caller bounds before reading the data (ReadFileContext).
func (h *Header) Held() int64 {
	switch h.dt.kind {
	case 'b', 'i', 'u', 'f':
		if n := h.Len(); n <= (math.MaxInt64-h.Bytes)/8 {
			return h.Bytes + 8*n
		}
		return math.MaxInt64
	}
	return h.Bytes + min(h.Bytes, math.MaxInt64-h.Bytes)
}

// headerParser parses a .npy header dict literal.
type headerParser struct {
	b      []byte
	i      int
	base   int64 // offset of b[0] in the stream
	file   string
	allowL bool // accept Python 2 long integers such as 3L
}

func (p *headerParser) errorf(i int, format string, args ...any) *FormatError {
	return &FormatError{File: p.file, Offset: p.base + int64(i), Msg: fmt.Sprintf(format, args...)}
}

// found describes the input at position i for error messages.
func (p *headerParser) found(i int) string {
	if i >= len(p.b) {
		return "end of header"
	}
	end := min(i+12, len(p.b))
	return fmt.Sprintf("%q", p.b[i:end])
}

func (p *headerParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *headerParser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// str parses a quoted string without escapes.
func (p *headerParser) str(what string) (string, error) {
	start := p.i
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.errorf(start, "want %s as a quoted string, found %s", what, p.found(start))
	}
	for j := start + 1; j < len(p.b); j++ {
		c := p.b[j]
		switch {
		case c == q:
			p.i = j + 1
			return string(p.b[start+1 : j]), nil
		case c == '\\' || c < ' ' || c >= 0x7f:
			return "", p.errorf(j, "unexpected byte %q in %s string", c, what)
		}
	}
	return "", p.errorf(len(p.b), "unterminated %s string", what)
}

func isIdent(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// word parses a Python identifier or number token.
func (p *headerParser) word() string {
	start := p.i
	for p.i < len(p.b) && isIdent(p.b[p.i]) {
		p.i++
	}
	return string(p.b[start:p.i])
}

// dim parses one non-negative dimension.
func (p *headerParser) dim() (int, error) {
	start := p.i
	if p.peek() == '-' {
		p.i++
		return 0, p.errorf(start, "negative dimension -%s in shape", p.word())
	}
	w := p.word()
	digits := w
	if p.allowL && len(w) > 1 && (w[len(w)-1] == 'L' || w[len(w)-1] == 'l') {
		digits = w[:len(w)-1]
	}
	if digits == "" {
		return 0, p.errorf(start, "want a dimension, found %s", p.found(start))
	}
	n := 0
	for k := 0; k < len(digits); k++ {
		c := digits[k]
		if c < '0' || c > '9' {
			return 0, p.errorf(start, "invalid dimension %q", w)
		}
		if n > (maxInt-int(c-'0'))/10 {
			return 0, p.errorf(start, "dimension %s is too large", w)
		}
		n = n*10 + int(c-'0')
	}
	if len(digits) > 1 && digits[0] == '0' {
		return 0, p.errorf(start, "invalid dimension %q: leading zero", w)
	}
	return n, nil
}

// tuple parses the shape tuple.
func (p *headerParser) tuple() ([]int, error) {
	start := p.i
	if p.peek() != '(' {
		return nil, p.errorf(start, "want shape as a tuple, found %s", p.found(start))
	}
	p.i++
	shape := []int{}
	for {
		p.space()
		if p.peek() == ')' {
			p.i++
			return shape, nil
		}
		d, err := p.dim()
		if err != nil {
			return nil, err
		}
		shape = append(shape, d)
		p.space()
		switch p.peek() {
		case ',':
			p.i++
		case ')':
			if len(shape) == 1 {
				return nil, p.errorf(p.i, "shape (%d) is not a tuple: want (%d,)", d, d)
			}
			p.i++
			return shape, nil
		default:
			return nil, p.errorf(p.i, "want ',' or ')' in shape, found %s", p.found(p.i))
		}
	}
}

// parseHeader parses the header dict in b, which starts at byte base of
// the stream, and checks the shape against the dtype. It sets every field
// of the Header but Offset.
func parseHeader(b []byte, base int64, file string, allowL bool) (*Header, error) {
	p := &headerParser{b: b, base: base, file: file, allowL: allowL}
	h := &Header{}
	p.space()
	if p.peek() != '{' {
		return nil, p.errorf(p.i, "header is not a dict: want '{', found %s", p.found(p.i))
	}
	p.i++
	var seenDescr, seenFortran, seenShape bool
	shapeAt := 0
	for {
		p.space()
		if p.peek() == '}' {
			p.i++
			break
		}
		keyAt := p.i
		key, err := p.str("key")
		if err != nil {
			return nil, err
		}
		p.space()
		if p.peek() != ':' {
			return nil, p.errorf(p.i, "want ':' after key %q, found %s", key, p.found(p.i))
		}
		p.i++
		p.space()
		valAt := p.i
		switch key {
		case "descr":
			if seenDescr {
				return nil, p.errorf(keyAt, "duplicate key 'descr'")
			}
			seenDescr = true
			if p.peek() == '[' {
				return nil, p.errorf(valAt, "structured dtypes (descr given as a list) are not supported")
			}
			if h.Descr, err = p.str("descr"); err != nil {
				return nil, err
			}
			var msg string
			if h.dt, msg = parseDescr(h.Descr); msg != "" {
				return nil, p.errorf(valAt, "%s", msg)
			}
		case "fortran_order":
			if seenFortran {
				return nil, p.errorf(keyAt, "duplicate key 'fortran_order'")
			}
			seenFortran = true
			switch w := p.word(); w {
			case "True":
				h.Fortran = true
			case "False":
				h.Fortran = false
			default:
				return nil, p.errorf(valAt, "want fortran_order True or False, found %s", p.found(valAt))
			}
		case "shape":
			if seenShape {
				return nil, p.errorf(keyAt, "duplicate key 'shape'")
			}
			seenShape = true
			shapeAt = valAt
			if h.Shape, err = p.tuple(); err != nil {
				return nil, err
			}
		default:
			return nil, p.errorf(keyAt, "unexpected key %q in header: want 'descr', 'fortran_order' and 'shape'", key)
		}
		p.space()
		if p.peek() == ',' {
			p.i++
			continue
		}
		if p.peek() == '}' {
			p.i++
			break
		}
		return nil, p.errorf(p.i, "want ',' or '}' in header dict, found %s", p.found(p.i))
	}
	end := p.i
	p.space()
	if p.i < len(p.b) {
		return nil, p.errorf(p.i, "unexpected %s after header dict", p.found(p.i))
	}
	switch {
	case !seenDescr:
		return nil, p.errorf(end-1, "header has no 'descr' key")
	case !seenFortran:
		return nil, p.errorf(end-1, "header has no 'fortran_order' key")
	case !seenShape:
		return nil, p.errorf(end-1, "header has no 'shape' key")
	}

	// Check the size of the data, guarding against overflow.
	count := int64(1)
	zero := false
	for _, d := range h.Shape {
		if d == 0 {
			zero = true
		}
	}
	if !zero {
		for _, d := range h.Shape {
			if int64(d) > math.MaxInt64/count {
				return nil, p.errorf(shapeAt, "shape %s has too many elements", shapeString(h.Shape))
			}
			count *= int64(d)
		}
	} else {
		count = 0
	}
	if count > int64(maxInt) || h.dt.size > 0 && count > math.MaxInt64/int64(h.dt.size) {
		return nil, p.errorf(shapeAt, "shape %s of %s is too large", shapeString(h.Shape), h.Descr)
	}
	h.Bytes = count * int64(h.dt.size)
	return h, nil
}
