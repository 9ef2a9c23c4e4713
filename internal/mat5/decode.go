package mat5

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

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

var miNames = [...]string{
	miINT8:       "miINT8",
	miUINT8:      "miUINT8",
	miINT16:      "miINT16",
	miUINT16:     "miUINT16",
	miINT32:      "miINT32",
	miUINT32:     "miUINT32",
	miSINGLE:     "miSINGLE",
	miDOUBLE:     "miDOUBLE",
	miINT64:      "miINT64",
	miUINT64:     "miUINT64",
	miMATRIX:     "miMATRIX",
	miCOMPRESSED: "miCOMPRESSED",
	miUTF8:       "miUTF8",
	miUTF16:      "miUTF16",
	miUTF32:      "miUTF32",
}

func miName(t uint32) string {
	if int(t) < len(miNames) && miNames[t] != "" {
		return miNames[t]
	}
	return "data type " + strconv.FormatUint(uint64(t), 10)
}

// numSize returns the size in bytes of one number of data type t, or 0 if t
// is not a numeric data type.
func numSize(t uint32) int {
	switch t {
	case miINT8, miUINT8:
		return 1
	case miINT16, miUINT16:
		return 2
	case miINT32, miUINT32, miSINGLE:
		return 4
	case miDOUBLE, miINT64, miUINT64:
		return 8
	}
	return 0
}

const (
	headerLen = 128
	// maxDepth bounds the nesting of cell arrays.
	maxDepth = 64
	// maxNumel bounds the product of the dimensions of an array, so that
	// sizes computed from it cannot overflow.
	maxNumel = 1 << 48
	// maxRatio is the largest ratio of inflated to deflated size that
	// deflate can achieve.
	maxRatio = 1032
)

// span is a byte range of the file or of an inflated stream.
type span struct {
	b   []byte
	off int64 // offset of b[0] in the file or in the inflated stream
}

// element is one data element.
type element struct {
	typ  uint32
	data span
	off  int64 // offset of the tag
	end  int   // index just past the data, before padding, in the parent span
}

type decoder struct {
	file  string
	order binary.ByteOrder
	le    bool

	// zoff is the file offset of the miCOMPRESSED element being read, or -1.
	zoff int64
	// name is the top-level variable being read, and cells the 1-based
	// indices of the cell elements being read within it.
	name  string
	cells []int

	emptyRows int // rows of char arrays without characters so far

	// want, when non-nil, names the only top-level variables to decode.
	want map[string]bool

	// limit, when positive, bounds held, the bytes taken so far
	// (Options.Limit, File.Held).
	limit, held int64

	// ctx, when not nil, stops the read (Options.Context).
	ctx context.Context

	// sizes says that variables are not decoded but what they take
	// counted in held by their headers (Held).
	sizes bool
}

// fits returns an error where n more bytes, for what, would take held
// past the limit; take takes them.
func (d *decoder) fits(off, n int64, what string) error {
	if d.limit > 0 && (n > d.limit || d.held > d.limit-n) {
		return d.errAt(off, "%s needs %d bytes, with the %d bytes read before it more than the memory limit of %d bytes", what, n, d.held, d.limit)
	}
	return nil
}

func (d *decoder) take(off, n int64, what string) error {
	if err := d.fits(off, n, what); err != nil {
		return err
	}
	d.held += n
	return nil
}

// errAt returns a *FormatError for offset off of the current stream.
func (d *decoder) errAt(off int64, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if d.zoff >= 0 {
		msg = fmt.Sprintf("compressed element, inflated byte %d: %s", off, msg)
		off = d.zoff
	}
	return &FormatError{File: d.file, Var: d.varPath(), Offset: off, Msg: msg}
}

func (d *decoder) varPath() string {
	if len(d.cells) == 0 {
		return d.name
	}
	var b strings.Builder
	b.WriteString(d.name)
	for _, i := range d.cells {
		fmt.Fprintf(&b, "{%d}", i)
	}
	return b.String()
}

func parse(b []byte, file string, want map[string]bool) (*File, error) {
	return parseWith(b, file, want, Options{})
}

func parseWith(b []byte, file string, want map[string]bool, opt Options) (*File, error) {
	d := &decoder{file: file, zoff: -1, want: want, limit: opt.Limit, held: int64(len(b)), sizes: opt.sizes, ctx: opt.Context}
	switch {
	case len(b) == 0:
		return nil, d.errAt(0, "empty file: not a MAT-file")
	case len(b) < headerLen:
		return nil, d.errAt(0, "not a MAT-file: need a %d-byte header, have %d bytes", headerLen, len(b))
	}
	switch string(b[126:128]) {
	case "IM":
		d.order, d.le = binary.LittleEndian, true
	case "MI":
		d.order = binary.BigEndian
	default:
		return nil, d.errAt(126, "not a Level 5 MAT-file: want endian indicator \"IM\" or \"MI\", have %q", b[126:128])
	}
	switch v := d.order.Uint16(b[124:]); v {
	case 0x0100:
	case 0x0200:
		return nil, d.errAt(124, "MAT-file version 7.3 (HDF5) is not supported")
	default:
		return nil, d.errAt(124, "unsupported MAT-file version 0x%04x, want 0x0100", v)
	}
	f := &File{Header: strings.TrimRight(string(b[:116]), " \t\r\n\x00")}

	whole := span{b: b}
	pos := headerLen
	for pos < len(b) {
		d.name, d.cells = "", d.cells[:0]
		// Tolerate zero bytes padding an miCOMPRESSED element to 8 bytes:
		// no tag starts with a zero word.
		if a := (pos + 7) &^ 7; a > pos && a <= len(b) && allZero(b[pos:a]) &&
			(a == len(b) || len(b)-pos >= 4 && d.order.Uint32(b[pos:]) == 0) {
			pos = a
			continue
		}
		if d.ctx != nil && d.ctx.Err() != nil {
			return nil, fmt.Errorf("%s: byte %d: reading stopped before the next variable: %w", d.file, pos, d.ctx.Err())
		}
		e, err := d.next(whole, &pos, "variable")
		if err != nil {
			return nil, err
		}
		var v *Var
		switch e.typ {
		case miMATRIX:
			if d.want != nil && !d.want[d.peekName(e.data.b)] {
				continue
			}
			if d.sizes {
				d.held += d.numericSize(e.data.b)
				continue
			}
			v, err = d.matrix(e.data, 0, true)
		case miCOMPRESSED:
			pos = e.end // MATLAB does not pad compressed elements.
			v, err = d.compressed(e)
		default:
			return nil, d.errAt(e.off, "top-level data element of type %s, want miMATRIX or miCOMPRESSED", miName(e.typ))
		}
		if err != nil {
			return nil, err
		}
		if v != nil {
			f.Vars = append(f.Vars, v)
		}
	}
	f.Held = d.held
	return f, nil
}

// peekSize returns the name of the miMATRIX of n bytes whose contents
// start with b, and the bytes its values take once decoded by their
// declared dimensions: 8 a value of a numeric array (16 complex), 8 an
// index pointer of a sparse one and twice its n bytes for its indices and
// values; n for the others. "", n when b is too short or malformed to
// tell; the full decode then reports the problem, and the values as they
// are made are bounded still.
func (d *decoder) peekSize(b []byte, n int64) (name string, widened int64) {
	s := span{b: b}
	pos := 0
	var el [3]element
	for i := range el {
		var err error
		if el[i], err = d.next(s, &pos, "variable"); err != nil {
			return "", n
		}
	}
	fl, dm, nm := el[0], el[1], el[2]
	if nm.typ != miINT8 || len(fl.data.b) != 8 || dm.typ != miINT32 && dm.typ != miUINT32 || len(dm.data.b)%4 != 0 {
		return "", n
	}
	name = string(nm.data.b)
	flags := d.order.Uint32(fl.data.b)
	class := Class(flags)
	numel := int64(1)
	var last int64
	for i := 0; i < len(dm.data.b); i += 4 {
		x := int64(int32(d.order.Uint32(dm.data.b[i:])))
		if x < 0 {
			return name, n
		}
		last = x
		if x != 0 && numel > maxNumel/x {
			return name, math.MaxInt64 / 2
		}
		numel *= x
	}
	switch {
	case class.isNumeric():
		per := int64(8)
		if flags&0x800 != 0 {
			per = 16
		}
		return name, numel * per
	case class == SparseClass:
		return name, 8*(last+1) + 2*n
	}
	return name, n
}

// numericSize returns what the values of the numeric miMATRIX whose
// contents start with b take once widened (peekSize), 0 for another
// class: a lower bound on what decoding it takes.
func (d *decoder) numericSize(b []byte) int64 {
	if len(b) < 16 {
		return 0
	}
	flags := d.order.Uint32(b[8:])
	if d.order.Uint32(b)&0xffff0000 != 0 || !Class(flags).isNumeric() {
		return 0
	}
	_, w := d.peekSize(b, 0)
	return w
}

// peekName returns the name of the miMATRIX whose contents start with b (the
// array flags, dimensions and name elements), or "" when b is too short or
// malformed to tell; the full decode then reports the problem.
func (d *decoder) peekName(b []byte) string {
	s := span{b: b}
	pos := 0
	var e element
	var err error
	for range 3 {
		if e, err = d.next(s, &pos, "variable"); err != nil {
			return ""
		}
	}
	if e.typ != miINT8 {
		return ""
	}
	return string(e.data.b)
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// next reads the data element at s.b[*pos:] and advances *pos past it and
// its padding. what names the element in errors.
func (d *decoder) next(s span, pos *int, what string) (element, error) {
	p := *pos
	rest := len(s.b) - p
	off := s.off + int64(p)
	if rest < 8 {
		return element{}, d.errAt(off, "truncated %s: need an 8-byte tag, have %d bytes", what, rest)
	}
	w := d.order.Uint32(s.b[p:])
	if n := int(w >> 16); n != 0 {
		// Small data element: type and size in 4 bytes, data in the next 4.
		if n > 4 {
			return element{}, d.errAt(off, "%s: small data element claims %d bytes, at most 4 fit", what, n)
		}
		*pos = p + 8
		return element{typ: w & 0xffff, data: span{s.b[p+4 : p+4+n], off + 4}, off: off, end: p + 4 + n}, nil
	}
	n := uint64(d.order.Uint32(s.b[p+4:]))
	if n > uint64(rest-8) {
		return element{}, d.errAt(off, "truncated data element (%s, %s): need %d bytes, have %d", what, miName(w), n, rest-8)
	}
	end := p + 8 + int(n)
	// Padding is to a multiple of 8 bytes from the tag, which need not be
	// aligned in the file after an miCOMPRESSED element.
	*pos = min(p+8+(int(n)+7)&^7, len(s.b))
	return element{typ: w, data: span{s.b[p+8 : end], off + 8}, off: off, end: end}, nil
}

// compressed inflates an miCOMPRESSED element and decodes the miMATRIX
// element inside it.
func (d *decoder) compressed(e element) (*Var, error) {
	zb := e.data.b
	zr, err := zlib.NewReader(bytes.NewReader(zb))
	if err != nil {
		return nil, d.errAt(e.off, "bad compressed data: %v", err)
	}
	defer zr.Close()
	var tag [8]byte
	if n, err := io.ReadFull(zr, tag[:]); err != nil {
		return nil, d.zerr(e.off, err, "an 8-byte tag", n)
	}
	w := d.order.Uint32(tag[:])
	if w != miMATRIX {
		return nil, d.errAt(e.off, "compressed element holds %s, want miMATRIX", miName(w))
	}
	n := uint64(d.order.Uint32(tag[4:]))
	if limit := uint64(len(zb))*maxRatio + 64; n > limit {
		return nil, d.errAt(e.off, "compressed element claims %d inflated bytes, but %d compressed bytes hold at most %d", n, len(zb), limit)
	}
	// Inflate only enough to read the name and dimensions first: to skip
	// unwanted variables without inflating the rest (with a variable
	// filter), and to bound what the variable takes by its dimensions
	// before inflating it.
	var prefix [512]byte
	pre, err := io.ReadFull(zr, prefix[:min(n, uint64(len(prefix)))])
	if err != nil {
		return nil, d.zerr(e.off, err, fmt.Sprintf("a %d-byte miMATRIX element", n), pre+8)
	}
	name, widened := d.peekSize(prefix[:pre], int64(n))
	if d.want != nil && name != "" && !d.want[name] {
		return nil, nil
	}
	if d.sizes {
		d.held += int64(n) + d.numericSize(prefix[:pre])
		return nil, nil
	}
	if d.limit > 0 {
		what := fmt.Sprintf("compressed variable %q (%d bytes inflated, %d once widened)", name, n, widened)
		if err := d.fits(e.off, int64(n)+widened, what); err != nil {
			if fe, ok := err.(*FormatError); ok {
				fe.Var = name
			}
			return nil, err
		}
		if err := d.take(e.off, int64(n), what); err != nil {
			return nil, err
		}
	}
	buf := make([]byte, n)
	copy(buf, prefix[:pre])
	var rest io.Reader = zr
	if d.ctx != nil {
		rest = &ctxReader{ctx: d.ctx, r: zr}
	}
	if k, err := io.ReadFull(rest, buf[pre:]); err != nil {
		if d.ctx != nil && d.ctx.Err() != nil && errors.Is(err, d.ctx.Err()) {
			return nil, fmt.Errorf("%s: byte %d: variable %q: inflating stopped after %d of %d bytes: %w", d.file, e.off, name, pre+k, n, err)
		}
		return nil, d.zerr(e.off, err, fmt.Sprintf("a %d-byte miMATRIX element", n), pre+k+8)
	}
	// Read to the end of the stream to verify its checksum.
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return nil, d.zerr(e.off, err, "the zlib checksum", int(n)+8)
	}
	d.zoff = e.off
	defer func() { d.zoff = -1 }()
	return d.matrix(span{buf, 8}, 0, true)
}

// ctxReader reads r until ctx is done, looking at ctx before the first
// read and after every ctxEvery bytes; once done, Read returns ctx's
// error.
type ctxReader struct {
	ctx  context.Context
	r    io.Reader
	next int64 // bytes read before the next look
}

// ctxEvery is how many inflated bytes a compressed variable's reading goes
// between two looks at its context.
const ctxEvery = 4 << 20

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.next <= 0 {
		if err := c.ctx.Err(); err != nil {
			return 0, err
		}
		c.next = ctxEvery
	}
	if int64(len(p)) > c.next {
		p = p[:c.next]
	}
	n, err := c.r.Read(p)
	c.next -= int64(n)
	return n, err
}

// zerr describes an error from inflating the compressed element at off,
// after have bytes had been inflated while reading want.
func (d *decoder) zerr(off int64, err error, want string, have int) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return d.errAt(off, "truncated compressed data: inflated stream ends after %d bytes, reading %s", have, want)
	}
	return d.errAt(off, "bad compressed data: %v (after %d inflated bytes, reading %s)", err, have, want)
}

// matrix decodes the contents s of an miMATRIX element. depth is the number
// of enclosing cell arrays; top is whether the element is a top-level
// variable.
func (d *decoder) matrix(s span, depth int, top bool) (*Var, error) {
	if depth > maxDepth {
		return nil, d.errAt(s.off, "cell arrays nested more than %d deep", maxDepth)
	}
	if len(s.b) == 0 {
		// MATLAB writes empty cell elements as empty miMATRIX elements.
		return &Var{Class: DoubleClass, Dims: []int{0, 0}, Numeric: &Numeric{Real: []float64{}}}, nil
	}
	pos := 0
	fl, err := d.next(s, &pos, "array flags")
	if err != nil {
		return nil, err
	}
	if (fl.typ != miUINT32 && fl.typ != miINT32) || len(fl.data.b) != 8 {
		return nil, d.errAt(fl.off, "array flags: want 8 bytes of miUINT32, have %d bytes of %s", len(fl.data.b), miName(fl.typ))
	}
	flags := d.order.Uint32(fl.data.b)
	class := Class(flags)
	isComplex := flags&0x800 != 0
	isLogical := flags&0x200 != 0
	if class == 0 || class > OpaqueClass {
		return nil, d.errAt(fl.data.off, "unknown array class %d", uint8(class))
	}
	v := &Var{Class: class}

	var dm element
	if class != OpaqueClass {
		// Opaque arrays have no dimensions element.
		if dm, err = d.next(s, &pos, "dimensions"); err != nil {
			return nil, err
		}
	}
	nm, err := d.next(s, &pos, "array name")
	if err != nil {
		return nil, err
	}
	if nm.typ != miINT8 && nm.typ != miUINT8 && nm.typ != miUTF8 {
		return nil, d.errAt(nm.off, "array name: want miINT8, have %s", miName(nm.typ))
	}
	v.Name = string(nm.data.b)
	if top {
		d.name = v.Name
	}
	if class != OpaqueClass {
		// Decoded after the name, so that errors can name the variable.
		if v.Dims, err = d.dims(dm); err != nil {
			return nil, err
		}
	}

	numel := 1
	for _, n := range v.Dims {
		numel *= n // checked by dims not to overflow
	}
	switch {
	case class.isNumeric():
		v.Numeric, err = d.numeric(s, &pos, numel, isComplex, isLogical)
	case class == SparseClass:
		v.Sparse, err = d.sparse(s, &pos, v.Dims, isComplex, isLogical)
	case class == CellClass:
		v.Cell, err = d.cell(s, &pos, numel, depth)
	case class == CharClass:
		v.Char, err = d.char(s, &pos, v.Dims, numel)
	default:
		// Struct, object, function handle and opaque arrays are not
		// decoded; the rest of the element is skipped.
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// dims decodes a dimensions element.
func (d *decoder) dims(e element) ([]int, error) {
	b := e.data.b
	if (e.typ != miINT32 && e.typ != miUINT32) || len(b) == 0 || len(b)%4 != 0 {
		return nil, d.errAt(e.off, "dimensions: want a multiple of 4 bytes of miINT32, have %d bytes of %s", len(b), miName(e.typ))
	}
	dims := make([]int, len(b)/4)
	numel := 1
	for i := range dims {
		x := int32(d.order.Uint32(b[4*i:]))
		if x < 0 {
			return nil, d.errAt(e.data.off+int64(4*i), "dimension %d is negative: %d", i+1, x)
		}
		n := int(x)
		dims[i] = n
		if n != 0 && numel > maxNumel/n {
			return nil, d.errAt(e.data.off, "dimensions %v overflow: more than %d elements", dims[:i+1], maxNumel)
		}
		numel *= n
	}
	return dims, nil
}

// numbers converts the numeric data element e, which must hold exactly want
// numbers, or at least want numbers if atLeast is set, to float64.
func (d *decoder) numbers(e element, want int, atLeast bool, what string) ([]float64, error) {
	size := numSize(e.typ)
	if size == 0 {
		return nil, d.errAt(e.off, "%s: want numeric data, have %s", what, miName(e.typ))
	}
	have := len(e.data.b) / size
	if len(e.data.b)%size != 0 || have < want || (!atLeast && have != want) {
		return nil, d.errAt(e.off, "%s: want %d elements (%d bytes of %s), have %d bytes", what, want, want*size, miName(e.typ), len(e.data.b))
	}
	if err := d.take(e.off, 8*int64(want), fmt.Sprintf("%s of %d values widened to float64", what, want)); err != nil {
		return nil, err
	}
	dst := make([]float64, want)
	d.floats(dst, e.data.b[:want*size], e.typ)
	return dst, nil
}

// ints converts the first n integers of the data element e, each of which
// must lie in [0, limit).
func (d *decoder) ints(e element, n, limit int, what string) ([]int, error) {
	size := numSize(e.typ)
	if size == 0 || e.typ == miSINGLE || e.typ == miDOUBLE {
		return nil, d.errAt(e.off, "%s: want integer data, have %s", what, miName(e.typ))
	}
	b := e.data.b
	if len(b)%size != 0 || len(b)/size < n {
		return nil, d.errAt(e.off, "%s: want %d elements (%d bytes of %s), have %d bytes", what, n, n*size, miName(e.typ), len(b))
	}
	signed := e.typ == miINT8 || e.typ == miINT16 || e.typ == miINT32 || e.typ == miINT64
	if err := d.take(e.off, 8*int64(n), fmt.Sprintf("%s of %d values", what, n)); err != nil {
		return nil, err
	}
	dst := make([]int, n)
	for i := range dst {
		var u uint64
		switch size {
		case 1:
			u = uint64(b[i])
			if signed {
				u = uint64(int8(u))
			}
		case 2:
			u = uint64(d.order.Uint16(b[2*i:]))
			if signed {
				u = uint64(int16(u))
			}
		case 4:
			u = uint64(d.order.Uint32(b[4*i:]))
			if signed {
				u = uint64(int32(u))
			}
		default:
			u = d.order.Uint64(b[8*i:])
		}
		// Negative signed values are huge as uint64.
		if u >= uint64(limit) {
			return nil, d.errAt(e.data.off+int64(i*size), "%s: element %d is %d, want 0 to %d", what, i, int64(u), limit-1)
		}
		dst[i] = int(u)
	}
	return dst, nil
}

func (d *decoder) numeric(s span, pos *int, numel int, isComplex, isLogical bool) (*Numeric, error) {
	num := &Numeric{Logical: isLogical}
	if *pos == len(s.b) && numel == 0 && !isComplex {
		num.Real = []float64{}
		return num, nil
	}
	re, err := d.next(s, pos, "real part")
	if err != nil {
		return nil, err
	}
	if num.Real, err = d.numbers(re, numel, false, "real part"); err != nil {
		return nil, err
	}
	if isComplex {
		im, err := d.next(s, pos, "imaginary part")
		if err != nil {
			return nil, err
		}
		if num.Imag, err = d.numbers(im, numel, false, "imaginary part"); err != nil {
			return nil, err
		}
	}
	return num, nil
}

func (d *decoder) sparse(s span, pos *int, dims []int, isComplex, isLogical bool) (*Sparse, error) {
	if len(dims) != 2 {
		return nil, d.errAt(s.off, "sparse array has %d dimensions, want 2", len(dims))
	}
	sp := &Sparse{Rows: dims[0], Cols: dims[1], Logical: isLogical}
	ir, err := d.next(s, pos, "row indices")
	if err != nil {
		return nil, err
	}
	jc, err := d.next(s, pos, "column indices")
	if err != nil {
		return nil, err
	}
	irSize := numSize(ir.typ)
	if irSize == 0 {
		return nil, d.errAt(ir.off, "row indices: want integer data, have %s", miName(ir.typ))
	}
	maxNNZ := len(ir.data.b) / irSize
	if sp.Jc, err = d.ints(jc, sp.Cols+1, maxNNZ+1, "column indices"); err != nil {
		return nil, err
	}
	for j := 0; j < sp.Cols; j++ {
		if sp.Jc[j] > sp.Jc[j+1] {
			return nil, d.errAt(jc.data.off, "column indices: Jc[%d] = %d is greater than Jc[%d] = %d", j, sp.Jc[j], j+1, sp.Jc[j+1])
		}
	}
	nnz := sp.Jc[sp.Cols]
	if sp.Ir, err = d.ints(ir, nnz, max(sp.Rows, 0), "row indices"); err != nil {
		return nil, err
	}
	switch {
	case *pos < len(s.b):
		pr, err := d.next(s, pos, "real part")
		if err != nil {
			return nil, err
		}
		if sp.Data, err = d.numbers(pr, nnz, true, "real part"); err != nil {
			return nil, err
		}
	case isLogical || nnz == 0:
		sp.Data = make([]float64, nnz)
		for i := range sp.Data {
			sp.Data[i] = 1
		}
	default:
		return nil, d.errAt(s.off+int64(*pos), "truncated sparse array: need the real part of %d non-zeros", nnz)
	}
	if isComplex {
		pi, err := d.next(s, pos, "imaginary part")
		if err != nil {
			return nil, err
		}
		if sp.Imag, err = d.numbers(pi, nnz, true, "imaginary part"); err != nil {
			return nil, err
		}
	}
	return sp, nil
}

func (d *decoder) cell(s span, pos *int, numel, depth int) ([]*Var, error) {
	// Every element takes at least an 8-byte tag.
	if rest := len(s.b) - *pos; numel > rest/8 {
		return nil, d.errAt(s.off+int64(*pos), "truncated cell array: %d elements need at least %d bytes, have %d", numel, 8*numel, rest)
	}
	cells := make([]*Var, numel)
	d.cells = append(d.cells, 0)
	for i := range cells {
		d.cells[len(d.cells)-1] = i + 1
		e, err := d.next(s, pos, "cell element")
		if err != nil {
			return nil, err
		}
		if e.typ != miMATRIX {
			return nil, d.errAt(e.off, "cell element: want miMATRIX, have %s", miName(e.typ))
		}
		if cells[i], err = d.matrix(e.data, depth+1, false); err != nil {
			return nil, err
		}
	}
	d.cells = d.cells[:len(d.cells)-1]
	return cells, nil
}
