package codes

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReadCodes checks that ReadCodes never panics, that every error is a
// *FormatError inside the input, and that whatever it accepts writes back
// to the same bytes, with the size known and unknown.
func FuzzReadCodes(f *testing.F) {
	c := NewCodes(3, 100)
	c.SetBit(0, 0, true)
	c.SetBit(2, 99, true)
	var buf bytes.Buffer
	_ = c.Write(&buf)
	good := buf.Bytes()
	f.Add(good)
	f.Add(good[:30])
	f.Add(good[:HeaderSize])
	f.Add([]byte("DPMNEBC1"))
	f.Add([]byte("DPMNEBC2" + string(good[8:])))
	f.Add(append(header(1<<60, 64), make([]byte, 64)...))
	f.Add(append(header(1<<50, 1), make([]byte, 64)...))
	f.Add(append(header(1, 64), 1, 2, 3, 4, 5, 6, 7, 8))
	f.Add(append(header(2, 1), 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0))
	f.Add(header(0, 7))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, size := range []int64{int64(len(data)), -1} {
			got, err := ReadCodes(bytes.NewReader(data), size)
			if err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("size %d: error %v is not a *FormatError", size, err)
				}
				if fe.Offset < 0 || fe.Offset > int64(len(data)) {
					t.Fatalf("size %d: offset %d outside input of %d bytes", size, fe.Offset, len(data))
				}
				continue
			}
			if err := got.Validate(); err != nil {
				t.Fatalf("size %d: accepted invalid codes: %v", size, err)
			}
			var out bytes.Buffer
			if err := got.Write(&out); err != nil {
				t.Fatal(err)
			}
			n := out.Len()
			if size < 0 && n > len(data) || size >= 0 && n != len(data) || !bytes.Equal(out.Bytes(), data[:n]) {
				t.Fatalf("size %d: rewrite differs from input", size)
			}
		}
	})
}
