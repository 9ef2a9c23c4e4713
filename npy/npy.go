package npy

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dpmne/dpmne/internal/sizedfile"
)

// magic is the string every .npy stream starts with.
const magic = "\x93NUMPY"

// FormatError reports malformed input.
type FormatError struct {
	// File is the path of the file, "" for Read, and
	// "path.npz[member.npy]" for a member of a .npz archive.
	File string

	// Offset is the byte offset within the .npy stream where the
	// problem is, or -1 when the problem has no position in a .npy
	// stream (a broken zip archive, a missing member).
	Offset int64

	// Msg says what was expected.
	Msg string

	// Err is the underlying error, if any, for example from
	// archive/zip or compress/flate.
	Err error
}

// Error returns the error as "file: byte offset: message".
func (e *FormatError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
	} else {
		b.WriteString("npy")
	}
	b.WriteString(": ")
	if e.Offset >= 0 {
		b.WriteString("byte ")
		b.WriteString(strconv.FormatInt(e.Offset, 10))
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *FormatError) Unwrap() error { return e.Err }

// Array is an n-dimensional array read from a .npy stream.
//
// The accessors Float64s, Int64s, Bytes and Strings return the elements
// in storage order, which is column-major when Fortran is set; call
// RowMajor first to get C order.
//
// Arrays are made by Read, ReadFile and NPZ.Read; the zero Array has no
// dtype and its accessors return errors.
type Array struct {
	Descr   string // dtype descr as in the header, e.g. "<i8", "|b1", "<f4", "|S3"
	Shape   []int  // empty for a 0-d array
	Fortran bool   // fortran_order: the data are stored in column-major order

	dt   dtype
	data []byte // raw element bytes in storage order and byte order
	file string // for error messages
	off  int64  // offset of data in the .npy stream, or -1
}

// Len returns the number of elements, the product of the shape (1 for a
// 0-d array).
func (a *Array) Len() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// Read reads one .npy array from r. It reads exactly the bytes of the
// array and no more, so consecutive arrays can be read from one stream.
// The data are read incrementally, growing the buffer as they arrive; an
// input that ends early gives a *FormatError saying "truncated".
func Read(r io.Reader) (*Array, error) {
	return readArray(&stream{r: r, size: -1})
}

// ReadFile reads the .npy file at path. Unlike Read, it requires the
// array to end exactly at the end of the file.
func ReadFile(path string) (*Array, error) {
	return ReadFileContext(context.Background(), path, nil)
}

// ReadFileContext is ReadFile, with two more checks. check, when not nil,
// is called with the array's header once it is read and before any of the
// data are: an error of check is returned as is, and nothing more is read
// (a caller bounds there what the array will take, Header.Held). And the
// data are read in chunks of a few megabytes, ctx being looked at before
// each (and a read waiting on a FIFO or a pipe returning once it is done):
// once ctx is done the reading stops with an error wrapping ctx's, naming
// the file and the byte reached. A FIFO that no writer opens is waited
// for until ctx is done.
func ReadFileContext(ctx context.Context, path string, check func(*Header) error) (*Array, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f, err := openFile(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A read waiting on a FIFO or a pipe returns once ctx is done.
	defer context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Unix(1, 0)) })()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	s := &stream{r: f, file: path, size: -1, ctx: ctx, check: check}
	if fi.Mode().IsRegular() {
		s.size = fi.Size()
		s.trusted = true
	}
	a, err := readArray(s)
	if err != nil {
		return nil, err
	}
	if s.size >= 0 && s.off < s.size {
		return nil, s.errorf(s.off, "%d bytes of trailing data after the array", s.size-s.off)
	}
	return a, nil
}

// stream tracks the position in a .npy stream being read.
type stream struct {
	r    io.Reader
	file string // for errors
	off  int64  // bytes read so far

	// size is the number of bytes in the stream, or -1 if unknown.
	size int64

	// trusted says size may be used to allocate buffers. Otherwise
	// buffers grow as the data arrive.
	trusted bool

	// member says the stream is a zip member, whose read errors all
	// mean malformed input.
	member bool

	// ctx, when not nil, is looked at before each chunk of the data;
	// check, when not nil, is called with the header before the data
	// are read (ReadFileContext).
	ctx   context.Context
	check func(*Header) error
}

// chunk is the most bytes of an array's data read between two looks at
// the stream's context.
const chunk = 4 << 20

// stopped returns the error of a read stopped at the current offset by
// the stream's context, or nil while it is not done.
func (s *stream) stopped() error {
	if s.ctx == nil || s.ctx.Err() == nil {
		return nil
	}
	name := s.file
	if name == "" {
		name = "npy"
	}
	return fmt.Errorf("%s: byte %d: reading stopped: %w", name, s.off, s.ctx.Err())
}

func (s *stream) errorf(off int64, format string, args ...any) *FormatError {
	return &FormatError{File: s.file, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// initialChunk is the largest buffer allocated before any data have
// arrived, when the stream size is not trusted.
const initialChunk = 64 << 10

// next reads exactly n bytes, described by what in errors.
func (s *stream) next(n int64, what string) ([]byte, error) {
	if s.size >= 0 && n > s.size-s.off {
		return nil, s.errorf(s.size, "truncated: need %d bytes of %s, have %d", n, what, s.size-s.off)
	}
	if n > int64(maxInt) {
		return nil, s.errorf(s.off, "%s of %d bytes is too large", what, n)
	}
	if s.trusted || n <= initialChunk || s.buffered(n) {
		buf := make([]byte, n)
		for k := int64(0); k < n; {
			if err := s.stopped(); err != nil {
				return nil, err
			}
			step := n - k
			if s.ctx != nil {
				step = min(step, chunk)
			}
			m, err := io.ReadFull(s.r, buf[k:k+step])
			s.off += int64(m)
			k += int64(m)
			if err != nil {
				return nil, s.readError(err, n, k, what)
			}
		}
		return buf, nil
	}
	buf := make([]byte, 0, initialChunk)
	for int64(len(buf)) < n {
		if err := s.stopped(); err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			c := int(min(2*int64(cap(buf)), n))
			nb := make([]byte, len(buf), c)
			copy(nb, buf)
			buf = nb
		}
		m, err := io.ReadFull(s.r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		s.off += int64(m)
		if err != nil {
			return nil, s.readError(err, n, int64(len(buf)), what)
		}
	}
	return buf, nil
}

// buffered reports whether the reader is an in-memory reader, such as a
// bytes.Reader, that holds at least n more bytes, so that a buffer of n
// bytes may be allocated before reading.
func (s *stream) buffered(n int64) bool {
	r, ok := s.r.(interface{ Len() int })
	return ok && int64(r.Len()) >= n
}

// readError converts an error from reading n bytes of what, of which
// have arrived.
func (s *stream) readError(err error, n, have int64, what string) error {
	if err := s.stopped(); err != nil {
		return err
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return s.errorf(s.off, "truncated: need %d bytes of %s, have %d", n, what, have)
	}
	if s.member || isZipError(err) {
		fe := s.errorf(s.off, "reading %s", what)
		fe.Err = err
		return fe
	}
	name := s.file
	if name == "" {
		name = "npy"
	}
	return fmt.Errorf("%s: byte %d: reading %s: %w", name, s.off, what, err)
}

func isZipError(err error) bool {
	return errors.Is(err, zip.ErrFormat) || errors.Is(err, zip.ErrChecksum) || errors.Is(err, zip.ErrAlgorithm)
}

// readArray reads one array from s.
func readArray(s *stream) (*Array, error) {
	h, err := readHeader(s)
	if err != nil {
		return nil, err
	}
	if s.check != nil {
		if err := s.check(h); err != nil {
			return nil, err
		}
	}
	a := &Array{
		Descr:   h.Descr,
		Shape:   h.Shape,
		Fortran: h.Fortran,
		dt:      h.dt,
		file:    s.file,
		off:     h.Offset,
	}
	a.data, err = s.next(h.Bytes, "data")
	if err != nil {
		return nil, err
	}
	return a, nil
}

// ReadHeader reads the header of one .npy array from r, as Read does,
// and leaves r at the start of its data: it reads the magic string, the
// version and the header, and no more. Malformed input gives a
// *FormatError. A header that claims more data than the input holds is
// not an error here (nothing of the data is read): compare Offset+Bytes
// with the input's size.
func ReadHeader(r io.Reader) (*Header, error) {
	return readHeader(&stream{r: r, size: -1})
}

// readHeader reads the magic string, the version and the header from s.
func readHeader(s *stream) (*Header, error) {
	var pre [8]byte // magic string and version
	m, err := io.ReadFull(s.r, pre[:])
	s.off += int64(m)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, s.readError(err, 8, int64(m), "magic string")
	}
	if m == 0 {
		return nil, s.errorf(0, "empty file: want the magic string %q", magic)
	}
	if k := min(m, len(magic)); string(pre[:k]) != magic[:k] {
		return nil, s.errorf(0, "bad magic string %q, want %q", pre[:k], magic)
	}
	if m < len(pre) {
		return nil, s.errorf(int64(m), "truncated: need %d bytes of magic string and version, have %d", len(pre), m)
	}
	major, minor := pre[6], pre[7]
	if major < 1 || major > 3 || minor != 0 {
		return nil, s.errorf(6, "unsupported format version %d.%d, want 1.0, 2.0 or 3.0", major, minor)
	}

	lenSize := int64(4)
	if major == 1 {
		lenSize = 2
	}
	lb, err := s.next(lenSize, "header length")
	if err != nil {
		return nil, err
	}
	var hlen int64
	if lenSize == 2 {
		hlen = int64(binary.LittleEndian.Uint16(lb))
	} else {
		hlen = int64(binary.LittleEndian.Uint32(lb))
	}
	if s.size >= 0 && hlen > s.size-s.off {
		return nil, s.errorf(8, "header length %d exceeds file size: %d bytes follow", hlen, s.size-s.off)
	}
	hdr, err := s.next(hlen, "header")
	if err != nil {
		return nil, err
	}
	h, err := parseHeader(hdr, s.off-hlen, s.file, major < 3)
	if err != nil {
		return nil, err
	}
	h.Offset = s.off
	return h, nil
}

// errorf returns a FormatError about element i of a.
func (a *Array) errorf(i int, format string, args ...any) *FormatError {
	off := int64(-1)
	if a.off >= 0 {
		off = a.off + int64(i)*int64(a.dt.size)
	}
	return &FormatError{File: a.file, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// shapeString formats a shape as a Python tuple.
func shapeString(shape []int) string {
	var b bytes.Buffer
	b.WriteByte('(')
	for i, d := range shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}

const maxInt = int(^uint(0) >> 1)

// openFile opens path for ReadFileContext: a FIFO without a writer is
// waited for only until ctx is done (sizedfile.Open).
func openFile(ctx context.Context, path string) (*os.File, error) {
	return sizedfile.Open(ctx, path)
}
