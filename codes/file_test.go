package codes

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func encode(t testing.TB, c *Codes) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func header(n, bits uint64) []byte {
	b := []byte(Magic)
	b = binary.LittleEndian.AppendUint64(b, n)
	return binary.LittleEndian.AppendUint64(b, bits)
}

// onlyReader hides bytes.Reader's other methods.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func TestFileRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, tc := range []struct{ n, bits int }{{0, 1}, {1, 1}, {3, 10}, {5, 64}, {7, 100}, {2, 128}, {20000, 130}} {
		c := Sign(randn(rng, tc.n*tc.bits), tc.n, tc.bits)
		data := encode(t, c)
		if want := HeaderSize + 8*tc.n*WordsPer(tc.bits); len(data) != want {
			t.Fatalf("%+v: %d bytes, want %d", tc, len(data), want)
		}
		for _, size := range []int64{int64(len(data)), -1} {
			got, err := ReadCodes(onlyReader{bytes.NewReader(data)}, size)
			if err != nil {
				t.Fatalf("%+v size %d: %v", tc, size, err)
			}
			if got.N != c.N || got.Bits != c.Bits || !slices.Equal(got.Words, c.Words) {
				t.Fatalf("%+v size %d: round trip differs", tc, size)
			}
		}
	}

	// ReadFile passes the file's size.
	c := Sign(randn(rng, 30*100), 30, 100)
	path := filepath.Join(t.TempDir(), "c.bin")
	if err := os.WriteFile(path, encode(t, c), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil || !slices.Equal(got.Words, c.Words) {
		t.Fatalf("ReadFile: %v", err)
	}
}

func TestReadCodesErrors(t *testing.T) {
	c := NewCodes(3, 100)
	c.SetBit(2, 99, true)
	good := encode(t, c) // 24 + 3*2*8 = 72 bytes
	highBit := slices.Clone(good)
	highBit[HeaderSize+8*3+7] |= 0x80 // code 1, last word, bit 63

	tests := []struct {
		name   string
		data   []byte
		size   int64 // -2: len(data)
		offset int64
		msg    string
	}{
		{"empty", nil, -2, 0, "header"},
		{"wrong magic", append([]byte("DPMNEBC2"), good[8:]...), -2, 0, "bad magic"},
		{"wrong magic short", []byte("XY"), -2, 0, "bad magic"},
		{"truncated magic", good[:5], -2, 5, "header"},
		{"truncated header", good[:20], -2, 20, "header"},
		{"truncated words, size known", good[:50], -2, 50, "needs 72 bytes"},
		{"truncated words, size unknown", good[:50], -1, 50, "needs 72 bytes"},
		{"size claims more than the reader has", good[:50], 72, 50, "needs 72 bytes"},
		{"trailing data", append(slices.Clone(good), 0), -2, 72, "trailing"},
		{"zero bits", header(3, 0), -2, 16, "code length"},
		{"too many bits", header(1, MaxBits+1), -2, 16, "code length"},
		{"count overflows", header(1<<62, 128), -2, 8, "do not fit"},
		{"bit above Bits", highBit, -2, HeaderSize + 8*3, "above bit 99"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			size := tc.size
			if size == -2 {
				size = int64(len(tc.data))
			}
			_, err := ReadCodes(bytes.NewReader(tc.data), size)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v, want *FormatError", err)
			}
			if fe.Offset != tc.offset || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %q (offset %d), want offset %d and %q", err, fe.Offset, tc.offset, tc.msg)
			}
			if want := "byte offset " + strconv.FormatInt(tc.offset, 10); !strings.Contains(err.Error(), want) {
				t.Fatalf("error %q does not name %q", err, want)
			}
		})
	}
}

// TestReadCodesHugeHeader: a header claiming 2^60 codes (more bytes than
// an int64 can count), 2^50 or 2·10⁹ codes (in-range sizes) on a tiny
// input fails without allocating anything near the claimed size, with the
// size known or not, and the error names the claim.
func TestReadCodesHugeHeader(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		want string
	}{
		{1 << 60, "1152921504606846976 codes of 64 bits do not fit in a file"},
		{1 << 50, "the header (1125899906842624 codes of 64 bits) needs 9007199254741016 bytes"},
		{2000000000, "the header (2000000000 codes of 64 bits) needs 16000000024 bytes"},
	} {
		data := append(header(tc.n, 64), make([]byte, 800)...)
		for _, size := range []int64{int64(len(data)), -1} {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := ReadCodes(bytes.NewReader(data), size)
			runtime.ReadMemStats(&after)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("size %d: error %v, want *FormatError", size, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("size %d: error %q, want %q", size, err, tc.want)
			}
			// Tolerance: 1 MiB of allocation (the read buffer is 64 KiB).
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
				t.Fatalf("size %d: allocated %d bytes", size, alloc)
			}
			t.Logf("size %d: %v", size, err)
		}
	}
}

func TestWriteRejectsInconsistentCodes(t *testing.T) {
	for _, c := range []*Codes{
		{N: 2, Bits: 10, Words: []uint64{0}},
		{N: 1, Bits: 10, Words: []uint64{1 << 10}},
		{N: -1, Bits: 10},
	} {
		if err := c.Write(io.Discard); err == nil {
			t.Errorf("Write accepted %+v", c)
		}
	}
}
