package npy

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// rawNPY returns a .npy stream of the given major version with header
// dict and data, padded as NumPy pads it.
func rawNPY(major byte, dict string, data []byte) []byte {
	lenSize := 4
	if major == 1 {
		lenSize = 2
	}
	prefix := len(magic) + 2 + lenSize
	hlen := len(dict) + 1
	hlen += 64 - (prefix+hlen)%64
	var b []byte
	b = append(b, magic...)
	b = append(b, major, 0)
	if lenSize == 2 {
		b = binary.LittleEndian.AppendUint16(b, uint16(hlen))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(hlen))
	}
	b = append(b, dict...)
	for len(b) < prefix+hlen-1 {
		b = append(b, ' ')
	}
	b = append(b, '\n')
	return append(b, data...)
}

func TestRoundTrip(t *testing.T) {
	for _, test := range []struct {
		name  string
		shape []int
		n     int
	}{
		{"0-d", []int{}, 1},
		{"nil shape", nil, 1},
		{"empty", []int{0}, 0},
		{"empty 2-D", []int{3, 0}, 0},
		{"1-D", []int{5}, 5},
		{"2-D", []int{2, 3}, 6},
		{"3-D", []int{2, 3, 4}, 24},
		{"large", []int{1000, 129}, 129000},
	} {
		t.Run(test.name, func(t *testing.T) {
			wantShape := test.shape
			if wantShape == nil {
				wantShape = []int{}
			}
			f32 := make([]float32, test.n)
			f64 := make([]float64, test.n)
			i64 := make([]int64, test.n)
			u8 := make([]uint8, test.n)
			for i := range test.n {
				f32[i] = float32(i)*1.5 - 7.25
				f64[i] = math.Pi * float64(i-3)
				i64[i] = int64(i)*1e15 - 3
				u8[i] = uint8(i * 37)
			}
			if test.n > 3 {
				f32[1] = float32(math.Inf(-1))
				f64[2] = math.SmallestNonzeroFloat64
				f64[3] = math.MaxFloat64
				i64[1] = math.MinInt64
				i64[2] = math.MaxInt64
			}

			check := func(descr string, write func(*bytes.Buffer) error, got func(*Array) (any, error), want any) {
				t.Helper()
				var buf bytes.Buffer
				if err := write(&buf); err != nil {
					t.Fatalf("%s: write: %v", descr, err)
				}
				hl := int(binary.LittleEndian.Uint16(buf.Bytes()[8:]))
				if (10+hl)%64 != 0 {
					t.Errorf("%s: data start at byte %d, not a multiple of 64", descr, 10+hl)
				}
				a, err := Read(&buf)
				if err != nil {
					t.Fatalf("%s: read: %v", descr, err)
				}
				if buf.Len() != 0 {
					t.Errorf("%s: %d bytes left unread", descr, buf.Len())
				}
				if a.Descr != descr || a.Fortran || !reflect.DeepEqual(a.Shape, wantShape) || a.Len() != test.n {
					t.Errorf("%s: got descr %q fortran %v shape %v len %d", descr, a.Descr, a.Fortran, a.Shape, a.Len())
				}
				v, err := got(a)
				if err != nil {
					t.Fatalf("%s: convert: %v", descr, err)
				}
				if !reflect.DeepEqual(v, want) {
					t.Errorf("%s: values differ", descr)
				}
			}
			f32as64 := make([]float64, test.n)
			for i, v := range f32 {
				f32as64[i] = float64(v)
			}
			i64as64 := make([]float64, test.n)
			for i, v := range i64 {
				i64as64[i] = float64(v)
			}
			u8as64 := make([]int64, test.n)
			for i, v := range u8 {
				u8as64[i] = int64(v)
			}
			check("<f4", func(b *bytes.Buffer) error { return WriteFloat32(b, test.shape, f32) },
				func(a *Array) (any, error) { return a.Float64s() }, f32as64)
			check("<f8", func(b *bytes.Buffer) error { return WriteFloat64(b, test.shape, f64) },
				func(a *Array) (any, error) { return a.Float64s() }, f64)
			check("<i8", func(b *bytes.Buffer) error { return WriteInt64(b, test.shape, i64) },
				func(a *Array) (any, error) { return a.Int64s() }, i64)
			check("<i8", func(b *bytes.Buffer) error { return WriteInt64(b, test.shape, i64) },
				func(a *Array) (any, error) { return a.Float64s() }, i64as64)
			check("|u1", func(b *bytes.Buffer) error { return WriteUint8(b, test.shape, u8) },
				func(a *Array) (any, error) { return a.Int64s() }, u8as64)
		})
	}
}

func TestRoundTripNaN(t *testing.T) {
	var buf bytes.Buffer
	nan := math.Float32frombits(0x7fc00001)
	if err := WriteFloat32(&buf, []int{2}, []float32{nan, float32(math.Copysign(0, -1))}); err != nil {
		t.Fatal(err)
	}
	a, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := binary.LittleEndian.Uint32(a.data); got != 0x7fc00001 {
		t.Errorf("NaN stored as %#x", got)
	}
	f, _ := a.Float64s()
	if !math.IsNaN(f[0]) || !math.Signbit(f[1]) || f[1] != 0 {
		t.Errorf("got %v", f)
	}
}

// TestHeaderLayout checks the header bytes against those numpy.save
// writes.
func TestHeaderLayout(t *testing.T) {
	for _, test := range []struct {
		shape []int
		dict  string
		total int
	}{
		{[]int{2, 3}, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 128},
		{[]int{5}, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", 128},
		{[]int{}, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 128},
		// Long enough that NumPy's spare room for the first axis matters.
		// (A header without that room would be 128 bytes.)
		{[]int{0, 1e9, 1e9, 1e9, 1e9}, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 1000000000, 1000000000, 1000000000, 1000000000), }", 192},
	} {
		n := 1
		for _, d := range test.shape {
			n *= d
		}
		var buf bytes.Buffer
		if err := WriteFloat32(&buf, test.shape, make([]float32, n)); err != nil {
			t.Fatal(err)
		}
		checkHeader(t, buf.Bytes()[:test.total], test.shape, test.dict, test.total)
		if buf.Len() != test.total+4*n {
			t.Errorf("shape %v: wrote %d bytes, want %d", test.shape, buf.Len(), test.total+4*n)
		}
	}
}

func checkHeader(t *testing.T, h []byte, shape []int, dict string, total int) {
	t.Helper()
	want := []byte("\x93NUMPY\x01\x00")
	want = binary.LittleEndian.AppendUint16(want, uint16(total-10))
	want = append(want, dict...)
	for len(want) < total-1 {
		want = append(want, ' ')
	}
	want = append(want, '\n')
	if !bytes.Equal(h, want) {
		t.Errorf("shape %v: header\n%q\nwant\n%q", shape, h, want)
	}
	if len(shape) == 2 && shape[0] == 2 && shape[1] == 3 && total-10 != 'v' {
		t.Errorf("header length byte is %q, want 'v'", rune(total-10))
	}
}

func TestWriteVersion2(t *testing.T) {
	// A header too long for format 1.0.
	shape := make([]int, 25000)
	for i := range shape {
		shape[i] = 1
	}
	var buf bytes.Buffer
	if err := WriteFloat64(&buf, shape, []float64{42}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if b[6] != 2 || b[7] != 0 {
		t.Fatalf("version %d.%d, want 2.0", b[6], b[7])
	}
	if hl := binary.LittleEndian.Uint32(b[8:]); (12+hl)%64 != 0 || hl <= math.MaxUint16 {
		t.Errorf("header length %d", hl)
	}
	a, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Shape) != len(shape) || a.Len() != 1 {
		t.Errorf("got %d dims, %d elements", len(a.Shape), a.Len())
	}
	f, _ := a.Float64s()
	if f[0] != 42 {
		t.Errorf("got %v", f)
	}
}

func TestWriteErrors(t *testing.T) {
	var buf bytes.Buffer
	for _, test := range []struct {
		shape []int
		n     int
	}{
		{[]int{2, 3}, 5},
		{[]int{-1}, 0},
		{nil, 0},
		{[]int{1 << 40, 1 << 40}, 1},
	} {
		if err := WriteFloat64(&buf, test.shape, make([]float64, test.n)); err == nil {
			t.Errorf("shape %v with %d values: no error", test.shape, test.n)
		}
		if err := WriteUint8(&buf, test.shape, make([]uint8, test.n)); err == nil {
			t.Errorf("WriteUint8: shape %v with %d values: no error", test.shape, test.n)
		}
	}
}

// TestReadDtypes reads hand-made streams of every supported dtype.
func TestReadDtypes(t *testing.T) {
	le := func(vals ...uint64) func(size int) []byte {
		return func(size int) []byte {
			var b []byte
			for _, v := range vals {
				for k := range size {
					b = append(b, byte(v>>(8*k)))
				}
			}
			return b
		}
	}
	rev := func(b []byte, size int) []byte {
		c := bytes.Clone(b)
		for i := 0; i < len(c); i += size {
			for j, k := i, i+size-1; j < k; j, k = j+1, k-1 {
				c[j], c[k] = c[k], c[j]
			}
		}
		return c
	}
	neg := func(v int64) uint64 { return uint64(v) }
	for _, test := range []struct {
		kind  string
		size  int
		data  func(int) []byte
		float []float64
		ints  []int64 // nil when Int64s must fail
	}{
		{"b", 1, le(0, 1, 2), []float64{0, 1, 1}, []int64{0, 1, 1}},
		{"i", 1, le(neg(-128), 127, 0), []float64{-128, 127, 0}, []int64{-128, 127, 0}},
		{"u", 1, le(255, 1), []float64{255, 1}, []int64{255, 1}},
		{"i", 2, le(neg(-32768), 32767, neg(-1)), []float64{-32768, 32767, -1}, []int64{-32768, 32767, -1}},
		{"u", 2, le(65535, 2), []float64{65535, 2}, []int64{65535, 2}},
		{"i", 4, le(neg(math.MinInt32), math.MaxInt32), []float64{math.MinInt32, math.MaxInt32}, []int64{math.MinInt32, math.MaxInt32}},
		{"u", 4, le(math.MaxUint32, 3), []float64{math.MaxUint32, 3}, []int64{math.MaxUint32, 3}},
		{"i", 8, le(neg(math.MinInt64), math.MaxInt64), []float64{math.MinInt64, math.MaxInt64}, []int64{math.MinInt64, math.MaxInt64}},
		{"u", 8, le(math.MaxInt64, 5), []float64{math.MaxInt64, 5}, []int64{math.MaxInt64, 5}},
		{"u", 8, le(math.MaxUint64), []float64{math.MaxUint64}, nil},
		{"f", 2, le(0x3c00, 0xc000, 0x7bff, 0x0001, 0x7c00, 0xfc00), []float64{1, -2, 65504, 1.0 / (1 << 24), math.Inf(1), math.Inf(-1)}, nil},
		{"f", 2, le(0x3c00, 0x4500, 0x8000), []float64{1, 5, 0}, []int64{1, 5, 0}},
		{"f", 4, le(uint64(math.Float32bits(1.5))), []float64{1.5}, nil},
		{"f", 4, le(uint64(math.Float32bits(-3))), []float64{-3}, []int64{-3}},
		{"f", 8, le(math.Float64bits(1e300)), []float64{1e300}, nil},
		{"f", 8, le(math.Float64bits(-(1 << 63)), math.Float64bits(1<<53)), []float64{-(1 << 63), 1 << 53}, []int64{math.MinInt64, 1 << 53}},
		{"f", 8, le(math.Float64bits(1 << 63)), []float64{1 << 63}, nil},
		{"f", 8, le(math.Float64bits(math.NaN())), []float64{math.NaN()}, nil},
	} {
		for _, order := range "<>|=" {
			if order == '|' && test.size > 1 {
				continue
			}
			descr := string(order) + test.kind + string(rune('0'+test.size))
			data := test.data(test.size)
			if order == '>' || order == '=' && nativeBig {
				data = rev(data, test.size)
			}
			n := len(data) / test.size
			s := rawNPY(1, "{'descr': '"+descr+"', 'fortran_order': False, 'shape': ("+strconv.Itoa(n)+",), }", data)
			a, err := Read(bytes.NewReader(s))
			if err != nil {
				t.Errorf("%s: %v", descr, err)
				continue
			}
			f, err := a.Float64s()
			if err != nil {
				t.Errorf("%s: Float64s: %v", descr, err)
			} else if !sameFloats(f, test.float) {
				t.Errorf("%s: Float64s = %v, want %v", descr, f, test.float)
			}
			ints, err := a.Int64s()
			switch {
			case test.ints == nil && err == nil:
				t.Errorf("%s: Int64s = %v, want error", descr, ints)
			case test.ints != nil && err != nil:
				t.Errorf("%s: Int64s: %v", descr, err)
			case test.ints != nil && !reflect.DeepEqual(ints, test.ints):
				t.Errorf("%s: Int64s = %v, want %v", descr, ints, test.ints)
			}
			if _, err := a.Bytes(); err == nil {
				t.Errorf("%s: Bytes did not fail", descr)
			}
		}
	}
}

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

func TestReadStrings(t *testing.T) {
	s := rawNPY(1, "{'descr': '|S3', 'fortran_order': False, 'shape': (), }", []byte("csr"))
	a, err := Read(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.Bytes()
	if err != nil || len(b) != 1 || string(b[0]) != "csr" {
		t.Errorf("Bytes = %q, %v", b, err)
	}
	if _, err := a.Float64s(); err == nil {
		t.Error("Float64s of |S3 did not fail")
	}

	s = rawNPY(1, "{'descr': '|S4', 'fortran_order': False, 'shape': (3,), }", []byte("ab\x00\x00a\x00b\x00\x00\x00\x00\x00"))
	a, err = Read(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	b, err = a.Bytes()
	if err != nil || !reflect.DeepEqual(b, [][]byte{[]byte("ab"), []byte("a\x00b"), {}}) {
		t.Errorf("Bytes = %q, %v", b, err)
	}
	b[0] = append(b[0], 'z') // must not overwrite b[1]
	if string(b[1]) != "a\x00b" {
		t.Errorf("Bytes slices overlap: %q", b)
	}
	str, err := a.Strings()
	if err != nil || !reflect.DeepEqual(str, []string{"ab", "a\x00b", ""}) {
		t.Errorf("Strings = %q, %v", str, err)
	}

	u := []byte{}
	for _, r := range "coo" + "é\x00\x00" + "😀ab" {
		u = binary.LittleEndian.AppendUint32(u, uint32(r))
	}
	s = rawNPY(1, "{'descr': '<U3', 'fortran_order': False, 'shape': (3,), }", u)
	a, err = Read(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	str, err = a.Strings()
	if err != nil || !reflect.DeepEqual(str, []string{"coo", "é", "😀ab"}) {
		t.Errorf("Strings = %q, %v", str, err)
	}
	if _, err := a.Bytes(); err == nil {
		t.Error("Bytes of <U3 did not fail")
	}
	u = binary.BigEndian.AppendUint32(nil, 'x')
	s = rawNPY(1, "{'descr': '>U1', 'fortran_order': False, 'shape': (), }", u)
	a, err = Read(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	if str, err := a.Strings(); err != nil || str[0] != "x" {
		t.Errorf("Strings = %q, %v", str, err)
	}
	s = rawNPY(1, "{'descr': '<U1', 'fortran_order': False, 'shape': (1,), }", []byte{0, 0xd8, 0, 0})
	a, err = Read(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Strings(); err == nil {
		t.Error("Strings with a surrogate did not fail")
	}
}

// TestHeaderSyntax reads headers in the forms NumPy accepts.
func TestHeaderSyntax(t *testing.T) {
	data := make([]byte, 6*8)
	for _, test := range []struct {
		major byte
		dict  string
		shape []int
	}{
		{1, `{"shape": (2, 3), "fortran_order": False, "descr": "<f8"}`, []int{2, 3}},
		{1, `{'fortran_order':False,'shape':(6,),'descr':'<i8',}`, []int{6}},
		{1, "{'descr': '<f8',\n 'fortran_order': False,\t'shape': (2,3,),}", []int{2, 3}},
		{1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 3L), }", []int{2, 3}},
		{2, "{'descr': '<f8', 'fortran_order': False, 'shape': (6L,), }", []int{6}},
		{3, "{'descr': '<f8', 'fortran_order': False, 'shape': ( 1 , 6 ) }", []int{1, 6}},
		{1, "  {'descr': '<f8', 'fortran_order': False, 'shape': (6,)}  ", []int{6}},
	} {
		s := rawNPY(test.major, test.dict, data)
		a, err := Read(bytes.NewReader(s))
		if err != nil {
			t.Errorf("%s: %v", test.dict, err)
			continue
		}
		if !reflect.DeepEqual(a.Shape, test.shape) {
			t.Errorf("%s: shape %v, want %v", test.dict, a.Shape, test.shape)
		}
	}
}

func TestFortranOrder(t *testing.T) {
	// np.arange(24).reshape(2, 3, 4) saved in Fortran order.
	var data []byte
	for k := range 4 {
		for j := range 3 {
			for i := range 2 {
				data = binary.LittleEndian.AppendUint16(data, uint16(12*i+4*j+k))
			}
		}
	}
	s := rawNPY(1, "{'descr': '<u2', 'fortran_order': True, 'shape': (2, 3, 4), }", data)
	a, err := Read(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	if !a.Fortran {
		t.Fatal("Fortran not set")
	}
	stored, _ := a.Int64s()
	if stored[1] != 12 {
		t.Errorf("storage order: got %v", stored[:4])
	}
	c := a.RowMajor()
	if c.Fortran || !reflect.DeepEqual(c.Shape, []int{2, 3, 4}) {
		t.Errorf("RowMajor: Fortran %v shape %v", c.Fortran, c.Shape)
	}
	got, _ := c.Int64s()
	for i, v := range got {
		if v != int64(i) {
			t.Fatalf("RowMajor values %v", got)
		}
	}
	if again, _ := a.Int64s(); !reflect.DeepEqual(again, stored) {
		t.Error("RowMajor changed the original")
	}
	if c.RowMajor() != c {
		t.Error("RowMajor of a C-order array is not itself")
	}

	// Length-1 dimensions do not change the order.
	s = rawNPY(1, "{'descr': '|u1', 'fortran_order': True, 'shape': (1, 3, 1), }", []byte{1, 2, 3})
	a, err = Read(bytes.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	got, _ = a.RowMajor().Int64s()
	if !reflect.DeepEqual(got, []int64{1, 2, 3}) {
		t.Errorf("got %v", got)
	}
}

// TestReadStream reads several arrays written one after another.
func TestReadStream(t *testing.T) {
	var buf bytes.Buffer
	for i := range 3 {
		if err := WriteInt64(&buf, []int{i + 1}, make([]int64, i+1)); err != nil {
			t.Fatal(err)
		}
	}
	r := &oneByteReader{r: &buf}
	for i := range 3 {
		a, err := Read(r)
		if err != nil {
			t.Fatal(err)
		}
		if a.Len() != i+1 {
			t.Errorf("array %d has %d elements", i, a.Len())
		}
	}
	if _, err := Read(r); err == nil || !strings.Contains(err.Error(), "empty file") {
		t.Errorf("after the last array: %v", err)
	}
}

// oneByteReader returns at most one byte per Read.
type oneByteReader struct{ r *bytes.Buffer }

func (o *oneByteReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

func TestReadLarge(t *testing.T) {
	// Larger than the initial chunk, read through a reader of unknown size.
	n := 3*initialChunk + 5
	data := make([]float64, n)
	for i := range data {
		data[i] = float64(i)
	}
	var buf bytes.Buffer
	if err := WriteFloat64(&buf, []int{n}, data); err != nil {
		t.Fatal(err)
	}
	// Hide the Len method of bytes.Buffer, so that Read grows its buffer.
	a, err := Read(struct{ io.Reader }{&buf})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := a.Float64s()
	if !reflect.DeepEqual(got, data) {
		t.Error("values differ")
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.npy")
	var buf bytes.Buffer
	if err := WriteFloat32(&buf, []int{2, 2}, []float32{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := a.Float64s()
	if !reflect.DeepEqual(got, []float64{1, 2, 3, 4}) {
		t.Errorf("got %v", got)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.npy")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

func TestZeroArray(t *testing.T) {
	var a Array
	if a.Len() != 1 {
		t.Errorf("Len = %d", a.Len())
	}
	if _, err := a.Float64s(); err == nil {
		t.Error("Float64s did not fail")
	}
	if _, err := a.Int64s(); err == nil {
		t.Error("Int64s did not fail")
	}
	if _, err := a.Strings(); err == nil {
		t.Error("Strings did not fail")
	}
}
