package codes

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/dpmne/dpmne/internal/sizedfile"
)

// Magic starts every codes file.
const Magic = "DPMNEBC1"

// HeaderSize is the length of the file header: Magic, N and Bits.
const HeaderSize = 24

// MaxBits is the largest code length ReadCodes accepts.
const MaxBits = 1 << 24

// chunkBytes is the size of the I/O buffers of Write and ReadCodes.
const chunkBytes = 64 << 10

// FormatError reports malformed codes-file input at a byte offset.
type FormatError struct {
	// Offset is the byte offset from the start of the file where the
	// problem is (for truncated input: where the input ended).
	Offset int64
	// Msg says what was wrong or expected.
	Msg string
	// Err is the underlying read error, if any.
	Err error
}

func (e *FormatError) Error() string {
	s := fmt.Sprintf("codes: byte offset %d: %s", e.Offset, e.Msg)
	if e.Err != nil && !errors.Is(e.Err, io.ErrUnexpectedEOF) && !errors.Is(e.Err, io.EOF) {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *FormatError) Unwrap() error { return e.Err }

// Write writes c in the codes file format (see the package documentation):
// Magic, N and Bits as little-endian uint64, then the N*W words as
// little-endian uint64. It fails when c is inconsistent (Validate).
func (c *Codes) Write(w io.Writer) error {
	if err := c.Validate(); err != nil {
		return err
	}
	buf := make([]byte, 0, chunkBytes)
	buf = append(buf, Magic...)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(c.N))
	buf = binary.LittleEndian.AppendUint64(buf, uint64(c.Bits))
	for _, x := range c.Words {
		if len(buf)+8 > cap(buf) {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		buf = binary.LittleEndian.AppendUint64(buf, x)
	}
	_, err := w.Write(buf)
	return err
}

// ReadCodes reads codes written by Write. size is the number of bytes r
// holds (for a file, its size), or negative when unknown. With a known
// size the file must be exactly as long as its header says; with an
// unknown size the words are read incrementally, so memory grows only with
// the bytes actually read, and r is not read past the last word. Bits must
// be in [1, MaxBits] and the unused high bits of every code zero. Errors
// about the content are *FormatError with the byte offset of the problem.
func ReadCodes(r io.Reader, size int64) (*Codes, error) {
	var hdr [HeaderSize]byte
	got, err := io.ReadFull(r, hdr[:])
	if m := min(got, len(Magic)); string(hdr[:m]) != Magic[:m] {
		return nil, &FormatError{Offset: 0, Msg: fmt.Sprintf("bad magic %q, want %q", hdr[:m], Magic)}
	}
	if err != nil {
		return nil, &FormatError{Offset: int64(got), Msg: fmt.Sprintf("input ends inside the %d-byte header", HeaderSize), Err: err}
	}
	n64 := binary.LittleEndian.Uint64(hdr[8:])
	bits64 := binary.LittleEndian.Uint64(hdr[16:])
	if bits64 < 1 || bits64 > MaxBits {
		return nil, &FormatError{Offset: 16, Msg: fmt.Sprintf("code length %d bits outside [1, %d]", bits64, MaxBits)}
	}
	w := uint64(WordsPer(int(bits64)))
	maxWords := uint64(math.MaxInt64-HeaderSize) / 8
	if n64 > maxWords/w {
		return nil, &FormatError{Offset: 8, Msg: fmt.Sprintf("%d codes of %d bits do not fit in a file", n64, bits64)}
	}
	words := n64 * w
	want := int64(HeaderSize) + int64(words)*8
	if size >= 0 && size != want {
		if size < want {
			return nil, &FormatError{Offset: size, Msg: fmt.Sprintf("input ends, but the header (%d codes of %d bits) needs %d bytes", n64, bits64, want)}
		}
		return nil, &FormatError{Offset: want, Msg: fmt.Sprintf("%d bytes of trailing data after %d codes of %d bits", size-want, n64, bits64)}
	}
	c := &Codes{N: int(n64), Bits: int(bits64)}
	if size >= 0 {
		c.Words = make([]uint64, 0, words)
	} else {
		c.Words = make([]uint64, 0, min(words, chunkBytes/8))
	}
	buf := make([]byte, min(uint64(chunkBytes), words*8))
	for uint64(len(c.Words)) < words {
		m := min(uint64(len(buf)), (words-uint64(len(c.Words)))*8)
		got, err := io.ReadFull(r, buf[:m])
		if err != nil {
			off := int64(HeaderSize) + int64(len(c.Words))*8 + int64(got)
			return nil, &FormatError{Offset: off, Msg: fmt.Sprintf("input ends, but the header (%d codes of %d bits) needs %d bytes", n64, bits64, want), Err: err}
		}
		for k := 0; k < int(m); k += 8 {
			c.Words = append(c.Words, binary.LittleEndian.Uint64(buf[k:]))
		}
	}
	mask := lastMask(c.Bits)
	for i := range c.N {
		k := i*int(w) + int(w) - 1
		if c.Words[k]&^mask != 0 {
			return nil, &FormatError{Offset: HeaderSize + int64(k)*8, Msg: fmt.Sprintf("code %d has bits set above bit %d", i, c.Bits-1)}
		}
	}
	return c, nil
}

// ReadFile reads a codes file with ReadCodes, passing its size (unknown
// for a pipe, whose codes are then read as they arrive).
func ReadFile(path string) (*Codes, error) { return sizedfile.Read(path, ReadCodes) }
