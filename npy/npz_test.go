package npy

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// member is one file of a test zip archive.
type member struct {
	name string
	data []byte
}

// makeZip returns a zip archive of members compressed with method.
func makeZip(t testing.TB, method uint16, members ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, m := range members {
		f, err := w.CreateHeader(&zip.FileHeader{Name: m.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// rawMember is a zip member written with CreateRaw, whose sizes and
// CRC-32 may lie.
type rawMember struct {
	name         string
	data         []byte // stored, uncompressed
	uncompressed uint64
	crc          uint32
}

func makeRawZip(t testing.TB, members ...rawMember) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, m := range members {
		f, err := w.CreateRaw(&zip.FileHeader{
			Name:               m.name,
			Method:             zip.Store,
			CRC32:              m.crc,
			CompressedSize64:   uint64(len(m.data)),
			UncompressedSize64: m.uncompressed,
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// enc returns a .npy stream of a 1-D array (or 0-d if shape0 is -1) of
// vals encoded as descr, one of <i4, <i8, >i8, <u8, |b1, <f8, <c16 and
// |S<n>.
func enc(descr string, vals ...any) []byte {
	var data []byte
	for _, v := range vals {
		switch descr {
		case "<i4":
			data = binary.LittleEndian.AppendUint32(data, uint32(toInt(v)))
		case "<i8":
			data = binary.LittleEndian.AppendUint64(data, uint64(toInt(v)))
		case ">i8":
			data = binary.BigEndian.AppendUint64(data, uint64(toInt(v)))
		case "<u8":
			data = binary.LittleEndian.AppendUint64(data, uint64(toInt(v)))
		case "|b1":
			if v.(bool) {
				data = append(data, 1)
			} else {
				data = append(data, 0)
			}
		case "<f8":
			data = binary.LittleEndian.AppendUint64(data, math.Float64bits(v.(float64)))
		case "<c16":
			data = binary.LittleEndian.AppendUint64(data, math.Float64bits(v.(float64)))
			data = binary.LittleEndian.AppendUint64(data, 0)
		default:
			s := v.(string)
			n := int(descr[2] - '0')
			data = append(data, s...)
			data = append(data, make([]byte, n-len(s))...)
		}
	}
	shape := fmt.Sprintf("(%d,)", len(vals))
	return rawNPY(1, fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape), data)
}

func toInt(v any) int64 {
	switch v := v.(type) {
	case int:
		return int64(v)
	case int64:
		return v
	}
	panic("bad value")
}

// scalarS3 is the format member as scipy writes it: a 0-d |S3 array.
func scalarS3(s string) []byte {
	return rawNPY(1, "{'descr': '|S3', 'fortran_order': False, 'shape': (), }", []byte(s))
}

// The matrix
//
//	[[0 5 0 0]
//	 [0 0 0 0]
//	 [7 0 8 9]]
//
// in the layouts of scipy.sparse.save_npz.
var (
	wantRow  = []int32{0, 2, 2, 2}
	wantCol  = []int32{1, 0, 2, 3}
	wantData = []float64{5, 7, 8, 9}
)

func csrMembers(indexDescr, dataDescr string) []member {
	data := []any{5, 7, 8, 9}
	switch dataDescr {
	case "<f8":
		data = []any{5.0, 7.0, 8.0, 9.0}
	case "|b1":
		data = []any{true, true, true, true}
	}
	return []member{
		{"indices.npy", enc(indexDescr, 1, 0, 2, 3)},
		{"indptr.npy", enc(indexDescr, 0, 1, 1, 4)},
		{"format.npy", scalarS3("csr")},
		{"shape.npy", enc("<i8", 3, 4)},
		{"data.npy", enc(dataDescr, data...)},
	}
}

func cooMembers(indexDescr, dataDescr string) []member {
	data := []any{5, 7, 8, 9}
	switch dataDescr {
	case "<f8":
		data = []any{5.0, 7.0, 8.0, 9.0}
	case "|b1":
		data = []any{true, true, true, true}
	}
	return []member{
		{"row.npy", enc(indexDescr, 0, 2, 2, 2)},
		{"col.npy", enc(indexDescr, 1, 0, 2, 3)},
		{"format.npy", scalarS3("coo")},
		{"shape.npy", enc("<i4", 3, 4)},
		{"data.npy", enc(dataDescr, data...)},
	}
}

// replace returns members with the named member's data replaced, or
// removed if data is nil.
func replace(members []member, name string, data []byte) []member {
	var out []member
	for _, m := range members {
		if m.name == name {
			if data == nil {
				continue
			}
			m.data = data
		}
		out = append(out, m)
	}
	return out
}

func TestNPZ(t *testing.T) {
	for _, method := range []uint16{zip.Store, zip.Deflate} {
		members := append(csrMembers("<i4", "<i8"), member{"notes.txt", []byte("hi")})
		b := makeZip(t, method, members...)
		path := filepath.Join(t.TempDir(), "x.npz")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		z, err := OpenNPZ(path)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := z.Names(), []string{"data", "format", "indices", "indptr", "notes.txt", "shape"}; !reflect.DeepEqual(got, want) {
			t.Errorf("Names = %q, want %q", got, want)
		}
		a, err := z.Read("indptr")
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := a.Int64s(); !reflect.DeepEqual(v, []int64{0, 1, 1, 4}) || a.Descr != "<i4" {
			t.Errorf("indptr = %s %v", a.Descr, v)
		}
		_, err = z.Read("indptr.npy")
		checkFormatError(t, "member with suffix", err, -1, `no member "indptr.npy.npy"`)
		_, err = z.Read("notes.txt")
		fe := checkFormatError(t, "non-npy member", err, 0, "bad magic string")
		if fe != nil && fe.File != path+"[notes.txt]" {
			t.Errorf("File = %q", fe.File)
		}
		if err := z.Close(); err != nil {
			t.Error(err)
		}
		if err := z.Close(); err != nil {
			t.Error("second Close:", err)
		}
	}
}

func TestReadSparse(t *testing.T) {
	coords := func(fortran bool) []byte {
		var data []byte
		vals := [][]int64{{0, 2, 2, 2}, {1, 0, 2, 3}}
		if fortran {
			for j := range 4 {
				for i := range 2 {
					data = binary.LittleEndian.AppendUint64(data, uint64(vals[i][j]))
				}
			}
		} else {
			for i := range 2 {
				for j := range 4 {
					data = binary.LittleEndian.AppendUint64(data, uint64(vals[i][j]))
				}
			}
		}
		return rawNPY(1, fmt.Sprintf("{'descr': '<i8', 'fortran_order': %v, 'shape': (2, 4), }", map[bool]string{true: "True", false: "False"}[fortran]), data)
	}
	cscRow := []int32{2, 0, 2, 2}
	cscCol := []int32{0, 1, 2, 3}
	csc := []member{
		{"indices.npy", enc("<i4", 2, 0, 2, 2)},
		{"indptr.npy", enc("<i4", 0, 1, 2, 3, 4)},
		{"format.npy", scalarS3("csc")},
		{"shape.npy", enc("<i8", 3, 4)},
		{"data.npy", enc("<f8", 7.0, 5.0, 8.0, 9.0)},
	}
	for _, test := range []struct {
		name     string
		members  []member
		format   string
		row, col []int32
		data     []float64
	}{
		{"csr i4 i8", csrMembers("<i4", "<i8"), "csr", wantRow, wantCol, wantData},
		{"csr i8 f8", csrMembers("<i8", "<f8"), "csr", wantRow, wantCol, wantData},
		{"csr i8 b1", csrMembers("<i8", "|b1"), "csr", wantRow, wantCol, []float64{1, 1, 1, 1}},
		{"csr big-endian", csrMembers(">i8", ">i8"), "csr", wantRow, wantCol, wantData},
		{"csc", csc, "csc", cscRow, cscCol, []float64{7, 5, 8, 9}},
		{"coo i4 b1", cooMembers("<i4", "|b1"), "coo", wantRow, wantCol, []float64{1, 1, 1, 1}},
		{"coo i8 f8", cooMembers("<i8", "<f8"), "coo", wantRow, wantCol, wantData},
		{"coo i4 i8", cooMembers("<i4", "<i8"), "coo", wantRow, wantCol, wantData},
		{"coo sparse array", append(cooMembers("<i4", "<i8"), member{"_is_array.npy", rawNPY(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (), }", []byte{1})}), "coo", wantRow, wantCol, wantData},
		{"coo coords", append(replace(replace(cooMembers("<i4", "<f8"), "row.npy", nil), "col.npy", nil), member{"coords.npy", coords(false)}), "coo", wantRow, wantCol, wantData},
		{"coo coords fortran", append(replace(replace(cooMembers("<i4", "<f8"), "row.npy", nil), "col.npy", nil), member{"coords.npy", coords(true)}), "coo", wantRow, wantCol, wantData},
		{"format <U3", replace(cooMembers("<i4", "<f8"), "format.npy", rawNPY(1, "{'descr': '<U3', 'fortran_order': False, 'shape': (), }", []byte("c\x00\x00\x00o\x00\x00\x00o\x00\x00\x00"))), "coo", wantRow, wantCol, wantData},
		{"format (1,) |S3", replace(cooMembers("<i4", "<f8"), "format.npy", enc("|S3", "coo")), "coo", wantRow, wantCol, wantData},
		{"empty", []member{
			{"indices.npy", enc("<i4")},
			{"indptr.npy", enc("<i4", 0, 0, 0)},
			{"format.npy", scalarS3("csr")},
			{"shape.npy", enc("<i8", 2, 0)},
			{"data.npy", enc("<f8")},
		}, "csr", []int32{}, []int32{}, []float64{}},
	} {
		for _, method := range []uint16{zip.Store, zip.Deflate} {
			name := fmt.Sprintf("%s method %d", test.name, method)
			b := makeZip(t, method, test.members...)
			z, err := OpenNPZReader(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			s, err := ReadSparse(z)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if s.Format != test.format || s.Rows != 3 && test.name != "empty" || s.Cols != 4 && test.name != "empty" {
				t.Errorf("%s: got %s", name, s)
			}
			if !reflect.DeepEqual(s.Row, test.row) || !reflect.DeepEqual(s.Col, test.col) || !reflect.DeepEqual(s.Data, test.data) {
				t.Errorf("%s: got row %v col %v data %v, want %v %v %v", name, s.Row, s.Col, s.Data, test.row, test.col, test.data)
			}
		}
	}

	// ReadSparseNPZ on a file.
	path := filepath.Join(t.TempDir(), "m.npz")
	if err := os.WriteFile(path, makeZip(t, zip.Deflate, csrMembers("<i4", "<f8")...), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSparseNPZ(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.String() != "csr 3x4, 4 stored values" {
		t.Errorf("got %s", s)
	}
}

func TestReadSparseErrors(t *testing.T) {
	csr := csrMembers("<i4", "<f8")
	coo := cooMembers("<i8", "<i8")
	for _, test := range []struct {
		name    string
		members []member
		file    string // the member named in the error, "" for the archive
		offset  int64
		want    string
	}{
		{"missing indptr", replace(csr, "indptr.npy", nil), "", -1, `no member "indptr.npy" (have data, format, indices, shape)`},
		{"missing format", replace(csr, "format.npy", nil), "", -1, `no member "format.npy"`},
		{"missing col", replace(coo, "col.npy", nil), "", -1, `no member "col.npy"`},
		{"indptr last", replace(csr, "indptr.npy", enc("<i4", 0, 1, 1, 3)), "indptr.npy", 128 + 12, "indptr[3] = 3, want 4, the length of indices and data"},
		{"indptr length", replace(csr, "indptr.npy", enc("<i4", 0, 1, 4)), "indptr.npy", 128, "indptr has 3 entries, want 4, one more than the rows"},
		{"indptr first", replace(csr, "indptr.npy", enc("<i4", 1, 1, 1, 4)), "indptr.npy", 128, "indptr[0] = 1, want 0"},
		{"indptr decreasing", replace(csr, "indptr.npy", enc("<i4", 0, 2, 1, 4)), "indptr.npy", 128 + 8, "indptr[2] = 1 is less than indptr[1] = 2"},
		{"indptr floats", replace(csr, "indptr.npy", enc("<f8", 0.0, 1.0, 1.0, 4.0)), "indptr.npy", 128, "indptr is <f8, want integers"},
		{"indices out of range", replace(csr, "indices.npy", enc("<i4", 1, 0, 4, 3)), "indices.npy", 128 + 8, "indices[2] = 4 is out of range [0, 4)"},
		{"indices negative", replace(csr, "indices.npy", enc("<i4", 1, -1, 2, 3)), "indices.npy", 128 + 4, "indices[1] = -1 is out of range"},
		{"indices length", replace(csr, "indices.npy", enc("<i4", 1, 0, 2)), "indices.npy", 128, "indices has 3 entries, want 4, the length of data"},
		{"row out of range", replace(coo, "row.npy", enc("<i8", 0, 2, 3, 2)), "row.npy", 128 + 16, "row[2] = 3 is out of range [0, 3)"},
		{"col huge", replace(coo, "col.npy", enc("<u8", 1, 0, -1, 3)), "col.npy", 128 + 16, "col[2] = 18446744073709551615 is out of range [0, 4)"},
		{"coo lengths", replace(coo, "col.npy", enc("<i8", 1, 0, 2)), "col.npy", 128, "col has 3 entries, want 4"},
		{"bsr", replace(csr, "format.npy", scalarS3("bsr")), "format.npy", 128, `sparse format "bsr" is not supported`},
		{"dia", replace(csr, "format.npy", scalarS3("dia")), "format.npy", 128, `sparse format "dia" is not supported`},
		{"format number", replace(csr, "format.npy", enc("<i8", 1)), "format.npy", 128, "format is <i8 with shape (1,), want a single byte or unicode string"},
		{"two formats", replace(csr, "format.npy", enc("|S3", "csr", "csr")), "format.npy", 128, "want a single"},
		{"shape 3 values", replace(csr, "shape.npy", enc("<i8", 3, 4, 5)), "shape.npy", 128, "shape is <i8 with shape (3,), want two integers"},
		{"shape negative", replace(csr, "shape.npy", enc("<i8", 3, -4)), "shape.npy", 136, "matrix shape (3, -4) is out of range"},
		{"shape huge", replace(csr, "shape.npy", enc("<i8", 3, 1<<31)), "shape.npy", 136, "matrix shape (3, 2147483648) is out of range"},
		{"complex data", replace(csr, "data.npy", enc("<c16", 1.0, 2.0, 3.0, 4.0)), "data.npy", -2, "complex numbers are not supported"},
		{"string data", replace(csr, "data.npy", enc("|S1", "a", "b", "c", "d")), "data.npy", 128, "data is |S1, want bool, integer or float values"},
		{"coords out of range", append(replace(replace(coo, "row.npy", nil), "col.npy", nil), member{"coords.npy", rawNPY(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 4), }", binary.LittleEndian.AppendUint32(make([]byte, 28), 4))}), "coords.npy", 128 + 28, "coords[1][3] = 4 is out of range [0, 4)"},
		{"coords shape", append(replace(replace(coo, "row.npy", nil), "col.npy", nil), member{"coords.npy", enc("<i4", 0, 0, 0, 0, 0, 0, 0, 0)}), "coords.npy", 128, "coords is <i4 with shape (8,), want integers with shape (2, 4)"},
		{"bad member", replace(csr, "data.npy", []byte("\x93NUMPY\x01\x00")), "data.npy", 8, "truncated"},
	} {
		b := makeZip(t, zip.Deflate, test.members...)
		z, err := OpenNPZReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", test.name, err)
		}
		_, err = ReadSparse(z)
		fe := checkFormatError(t, test.name, err, test.offset, test.want)
		if fe != nil {
			want := ""
			if test.file != "" {
				want = "[" + test.file + "]"
			}
			if fe.File != want {
				t.Errorf("%s: File = %q, want %q", test.name, fe.File, want)
			}
		}
	}
}

func TestNPZErrors(t *testing.T) {
	dir := t.TempDir()
	good := enc("<i8", 1, 2, 3)
	crc := crc32.ChecksumIEEE(good)
	for _, test := range []struct {
		name   string
		zip    []byte
		offset int64
		want   string
		is     error
	}{
		{"not a zip", []byte("\x93NUMPY\x01\x00v\x00{'descr': ..."), -1, "not a valid zip archive", zip.ErrFormat},
		{"empty file", nil, -1, "not a valid zip archive", zip.ErrFormat},
		{"duplicate", makeZip(t, zip.Store, member{"a.npy", good}, member{"a", good}), -1, `duplicate member "a"`, nil},
		{"bad crc", makeRawZip(t, rawMember{"a.npy", good, uint64(len(good)), crc + 1}), 152, "after the array", zip.ErrChecksum},
		{"size too small", makeRawZip(t, rawMember{"a.npy", good, 140, crc}), 140, "truncated: need 24 bytes of data, have 12", nil},
		{"size too large", makeRawZip(t, rawMember{"a.npy", good, 1 << 40, crc}), 152, "after the array", io.ErrUnexpectedEOF},
		{"huge shape, size lies", makeRawZip(t, rawMember{"a.npy", enc("<i8", 1, 2, 3)[:128], 1 << 60, crc}), 128, "truncated: need 24 bytes of data, have 0", nil},
		{"trailing data", makeZip(t, zip.Deflate, member{"a.npy", append(bytes.Clone(good), 0)}), 152, "trailing data after the array", nil},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(test.name, " ", "_")+".npz")
		if err := os.WriteFile(path, test.zip, 0o644); err != nil {
			t.Fatal(err)
		}
		z, err := OpenNPZ(path)
		if err == nil {
			_, err = z.Read("a")
			z.Close()
		}
		checkFormatError(t, test.name, err, test.offset, test.want)
		if test.is != nil && !errors.Is(err, test.is) {
			t.Errorf("%s: %v is not %v", test.name, err, test.is)
		}
		if _, err := ReadSparseNPZ(path); err == nil {
			t.Errorf("%s: ReadSparseNPZ did not fail", test.name)
		}
	}

	// A member claiming a huge shape with a lying uncompressed size must
	// fail without allocating for the claimed size.
	huge := rawNPY(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000,), }", make([]byte, 1000))
	b := makeRawZip(t, rawMember{"a.npy", huge, 1 << 62, crc32.ChecksumIEEE(huge)})
	z, err := OpenNPZReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = z.Read("a")
	checkFormatError(t, "huge", err, 1128, "truncated: need 800000000000 bytes of data, have 1000")

	// A stored member whose sizes both lie, pointing past the end of the
	// archive, must not be trusted for allocation.
	var zb bytes.Buffer
	w := zip.NewWriter(&zb)
	fw, err := w.CreateRaw(&zip.FileHeader{Name: "a.npy", Method: zip.Store, CompressedSize64: 1 << 40, UncompressedSize64: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(huge)
	w.Close()
	z, err = OpenNPZReader(bytes.NewReader(zb.Bytes()), int64(zb.Len()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = z.Read("a")
	checkFormatError(t, "stored sizes lie", err, -2, "truncated: need 800000000000 bytes of data")

	// A corrupt deflate stream.
	b = makeZip(t, zip.Deflate, member{"a.npy", good})
	i := bytes.Index(b, []byte("a.npy")) + len("a.npy") + 20
	b[i] ^= 0xff
	z, err = OpenNPZReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err = z.Read("a"); err == nil {
		t.Error("corrupt deflate: no error")
	} else {
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("corrupt deflate: %v is not a FormatError", err)
		}
	}

	if _, err := OpenNPZ(filepath.Join(dir, "missing.npz")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}
