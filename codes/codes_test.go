package codes

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/npy"
)

func TestSign(t *testing.T) {
	tests := []struct {
		name string
		n, d int
		y    []float64
		want []uint64 // one word per code (d ≤ 64)
	}{
		{
			// column means 2, 5 (constant), 1
			name: "4x3",
			n:    4, d: 3,
			y: []float64{
				1, 5, 2,
				3, 5, -1,
				-2, 5, 0,
				6, 5, 3,
			},
			want: []uint64{0b100, 0b001, 0b000, 0b101},
		},
		{
			// 0.7+0.7+0.7 rounds to 2.0999999999999996: a naive mean would
			// be below 0.7 and give ones.
			name: "constant column rounding",
			n:    3, d: 2,
			y:    []float64{0.7, -1, 0.7, 0, 0.7, 1},
			want: []uint64{0b00, 0b00, 0b10},
		},
		{name: "one row", n: 1, d: 3, y: []float64{1, -1, 2}, want: []uint64{0}},
		{name: "empty", n: 0, d: 3, y: nil, want: []uint64{}},
		{
			name: "uncentred negative still positive after centring",
			n:    2, d: 1,
			y:    []float64{-10, -9},
			want: []uint64{0, 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := Sign(tc.y, tc.n, tc.d)
			if c.N != tc.n || c.Bits != tc.d {
				t.Fatalf("N, Bits = %d, %d, want %d, %d", c.N, c.Bits, tc.n, tc.d)
			}
			if !slices.Equal(c.Words, tc.want) {
				t.Fatalf("words %b, want %b", c.Words, tc.want)
			}
			for i := range tc.n {
				for j := range tc.d {
					if got, want := c.Bit(i, j), tc.want[i]>>j&1 == 1; got != want {
						t.Errorf("Bit(%d,%d) = %v, want %v", i, j, got, want)
					}
				}
			}
		})
	}
}

func TestCodesHighBits(t *testing.T) {
	const n, d = 50, 100
	rng := rand.New(rand.NewPCG(1, 2))
	y := randn(rng, n*d)
	c := Sign(y, n, d)
	if c.W() != 2 || len(c.Words) != 2*n {
		t.Fatalf("W=%d len=%d, want 2 and %d", c.W(), len(c.Words), 2*n)
	}
	for i := range n {
		if hi := c.Row(i)[1] >> 36; hi != 0 {
			t.Fatalf("code %d has high bits %x", i, hi)
		}
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	c.Words[3] |= 1 << 40
	if err := c.Validate(); err == nil {
		t.Fatal("Validate accepted a bit above Bits")
	}

	s := NewCodes(2, 100)
	s.SetBit(1, 99, true)
	s.SetBit(1, 0, true)
	s.SetBit(1, 0, false)
	if want := []uint64{0, 0, 0, 1 << 35}; !slices.Equal(s.Words, want) {
		t.Fatalf("SetBit words %x, want %x", s.Words, want)
	}
	if !s.Bit(1, 99) || s.Bit(1, 0) || s.Hamming(0, 1) != 1 {
		t.Fatal("Bit/Hamming wrong after SetBit")
	}
}

func TestPackBits(t *testing.T) {
	c := NewCodes(2, 10)
	for _, j := range []int{0, 2, 9} {
		c.SetBit(0, j, true)
	}
	for _, j := range []int{7, 8} {
		c.SetBit(1, j, true)
	}
	// code 0: byte 0 = bits 7 (j=0) and 5 (j=2) = 0xA0; byte 1 = bit 6 (j=9).
	// code 1: byte 0 = bit 0 (j=7); byte 1 = bit 7 (j=8).
	want := []uint8{0xA0, 0x40, 0x01, 0x80}
	p := c.PackBits()
	if !bytes.Equal(p, want) {
		t.Fatalf("PackBits = % x, want % x", p, want)
	}
	back, err := UnpackBits(p, 2, 10)
	if err != nil || !slices.Equal(back.Words, c.Words) {
		t.Fatalf("UnpackBits = %v, %v; want %v", back, err, c.Words)
	}
	if _, err := UnpackBits([]uint8{0, 0x20, 0, 0}, 2, 10); err == nil {
		t.Fatal("UnpackBits accepted a padding bit")
	}
	func() { // Codes whose words do not hold N codes panic, naming PackBits.
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "PackBits: 0 words for 2 codes of 10 bits") {
				t.Errorf("PackBits of inconsistent codes: recovered %v", r)
			}
		}()
		(&Codes{N: 2, Bits: 10}).PackBits()
	}()

	// Random codes of several lengths round-trip, and bit j sits where
	// np.packbits puts it.
	rng := rand.New(rand.NewPCG(5, 6))
	for _, bits := range []int{1, 8, 63, 64, 65, 100, 128, 130} {
		c := Sign(randn(rng, 7*bits), 7, bits)
		p := c.PackBits()
		nb := (bits + 7) / 8
		for i := range 7 {
			for j := range bits {
				if got := p[i*nb+j/8]>>(7-j%8)&1 == 1; got != c.Bit(i, j) {
					t.Fatalf("bits=%d: packed bit (%d,%d) = %v", bits, i, j, got)
				}
			}
		}
		back, err := UnpackBits(p, 7, bits)
		if err != nil || !slices.Equal(back.Words, c.Words) {
			t.Fatalf("bits=%d: round trip failed: %v", bits, err)
		}
	}
}

func TestWriteNpy(t *testing.T) {
	c := NewCodes(2, 10)
	c.SetBit(0, 0, true)
	c.SetBit(1, 9, true)
	var buf bytes.Buffer
	if err := c.WriteNpy(&buf); err != nil {
		t.Fatal(err)
	}
	a, err := npy.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	v, err := a.Int64s()
	if err != nil {
		t.Fatal(err)
	}
	if a.Descr != "|u1" || !slices.Equal(a.Shape, []int{2, 2}) || !slices.Equal(v, []int64{0x80, 0, 0, 0x40}) {
		t.Fatalf("npy: %s %v %v", a.Descr, a.Shape, v)
	}
}

func randn(rng *rand.Rand, m int) []float64 {
	y := make([]float64, m)
	for k := range y {
		y[k] = rng.NormFloat64()
	}
	return y
}
