package codes

import (
	"fmt"
	"io"
	"math/bits"

	"github.com/dpmne/dpmne/npy"
)

// Codes are N binary codes of Bits bits each, packed into uint64 words in
// row-major order: code i is Words[i*W:(i+1)*W] with W = (Bits+63)/64
// (see WordsPer). Bit j of a code is bit j%64 (least significant first) of
// word j/64; 1 means positive. The unused high bits of each code's last
// word are zero.
type Codes struct {
	N, Bits int
	Words   []uint64
}

// WordsPer returns the number of uint64 words that hold a code of the
// given number of bits, (bits+63)/64.
func WordsPer(bits int) int { return (bits + 63) / 64 }

// NewCodes returns n all-zero codes of the given number of bits.
func NewCodes(n, bits int) *Codes {
	if n < 0 || bits < 0 {
		panic(fmt.Sprintf("codes: NewCodes(%d, %d): negative size", n, bits))
	}
	return &Codes{N: n, Bits: bits, Words: make([]uint64, n*WordsPer(bits))}
}

// W returns the number of words per code.
func (c *Codes) W() int { return WordsPer(c.Bits) }

// Row returns code i as a slice of the backing words (not a copy).
func (c *Codes) Row(i int) []uint64 {
	w := c.W()
	return c.Words[i*w : (i+1)*w : (i+1)*w]
}

// Bit reports whether bit j of code i is set.
func (c *Codes) Bit(i, j int) bool {
	if j < 0 || j >= c.Bits {
		panic(fmt.Sprintf("codes: bit %d out of range [0,%d)", j, c.Bits))
	}
	return c.Words[i*c.W()+j/64]>>(uint(j)%64)&1 == 1
}

// SetBit sets bit j of code i to v.
func (c *Codes) SetBit(i, j int, v bool) {
	if j < 0 || j >= c.Bits {
		panic(fmt.Sprintf("codes: bit %d out of range [0,%d)", j, c.Bits))
	}
	p := &c.Words[i*c.W()+j/64]
	m := uint64(1) << (uint(j) % 64)
	if v {
		*p |= m
	} else {
		*p &^= m
	}
}

// Hamming returns the Hamming distance between codes i and j.
func (c *Codes) Hamming(i, j int) int { return HammingDistance(c.Row(i), c.Row(j)) }

// HammingDistance returns the number of differing bits of two codes of the
// same length in words.
func HammingDistance(a, b []uint64) int {
	if len(a) != len(b) {
		panic(fmt.Sprintf("codes: HammingDistance of %d and %d words", len(a), len(b)))
	}
	d := 0
	for k, x := range a {
		d += bits.OnesCount64(x ^ b[k])
	}
	return d
}

// lastMask is the mask of the used bits of a code's last word (all ones
// when Bits is a multiple of 64).
func lastMask(nbits int) uint64 {
	if r := nbits % 64; r != 0 {
		return uint64(1)<<uint(r) - 1
	}
	return ^uint64(0)
}

// Validate checks that the fields are consistent: non-negative sizes,
// len(Words) == N*W, and zero unused high bits.
func (c *Codes) Validate() error {
	if c.N < 0 || c.Bits < 0 {
		return fmt.Errorf("codes: negative size N=%d Bits=%d", c.N, c.Bits)
	}
	w := c.W()
	if len(c.Words) != c.N*w {
		return fmt.Errorf("codes: %d words for %d codes of %d bits, want %d", len(c.Words), c.N, c.Bits, c.N*w)
	}
	if w == 0 {
		return nil
	}
	m := lastMask(c.Bits)
	for i := range c.N {
		if c.Words[i*w+w-1]&^m != 0 {
			return fmt.Errorf("codes: code %d has bits set above bit %d", i, c.Bits-1)
		}
	}
	return nil
}

// PackBits returns the codes in the layout of numpy's
// np.packbits(bits, axis=1) for an N×Bits 0/1 array: N rows of
// (Bits+7)/8 bytes, row-major, with big-endian bit order inside each byte
// (bit j of a code is bit 7−j%8 of byte j/8; the padding bits at the end
// of a row are zero). np.unpackbits(p, axis=1, count=Bits) undoes it. It
// panics if Words does not hold N codes of Bits bits (Validate).
func (c *Codes) PackBits() []uint8 {
	nb := (c.Bits + 7) / 8
	w := c.W()
	if c.N < 0 || c.Bits < 0 || len(c.Words) != c.N*w {
		panic(fmt.Sprintf("codes: PackBits: %d words for %d codes of %d bits", len(c.Words), c.N, c.Bits))
	}
	out := make([]uint8, c.N*nb)
	for i := range c.N {
		row := c.Words[i*w : (i+1)*w]
		dst := out[i*nb : (i+1)*nb]
		for b := range dst {
			dst[b] = bits.Reverse8(uint8(row[b/8] >> (8 * uint(b%8))))
		}
	}
	return out
}

// UnpackBits is the inverse of PackBits: it reads n rows of (nbits+7)/8
// bytes in np.packbits(axis=1) layout. Padding bits must be zero.
func UnpackBits(p []uint8, n, nbits int) (*Codes, error) {
	if n < 0 || nbits < 0 {
		return nil, fmt.Errorf("codes: UnpackBits: negative size n=%d bits=%d", n, nbits)
	}
	nb := (nbits + 7) / 8
	if len(p) != n*nb {
		return nil, fmt.Errorf("codes: UnpackBits: %d bytes for %d codes of %d bits, want %d", len(p), n, nbits, n*nb)
	}
	c := NewCodes(n, nbits)
	w := c.W()
	var pad uint8
	if r := nbits % 8; r != 0 {
		pad = 0xff >> uint(r) // low bits of the last byte in big-endian order
	}
	for i := range n {
		src := p[i*nb : (i+1)*nb]
		if nb > 0 && src[nb-1]&pad != 0 {
			return nil, fmt.Errorf("codes: UnpackBits: row %d has padding bits set", i)
		}
		row := c.Words[i*w : (i+1)*w]
		for b, v := range src {
			row[b/8] |= uint64(bits.Reverse8(v)) << (8 * uint(b%8))
		}
	}
	return c, nil
}

// WriteNpy writes PackBits as an N×((Bits+7)/8) uint8 .npy array, which
// numpy reads back with np.unpackbits(np.load(f), axis=1, count=Bits).
func (c *Codes) WriteNpy(w io.Writer) error {
	if err := c.Validate(); err != nil {
		return err
	}
	return npy.WriteUint8(w, []int{c.N, (c.Bits + 7) / 8}, c.PackBits())
}
