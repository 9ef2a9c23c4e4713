package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkFormatError checks that err is a *FormatError at offset (unless
// offset is -2) whose message contains want.
func checkFormatError(t *testing.T, name string, err error, offset int64, want string) *FormatError {
	t.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Errorf("%s: got %v (%T), want a *FormatError", name, err, err)
		return nil
	}
	if offset != -2 && fe.Offset != offset {
		t.Errorf("%s: offset %d, want %d (%v)", name, fe.Offset, offset, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s: error %q does not contain %q", name, err, want)
	}
	return fe
}

func TestReadErrors(t *testing.T) {
	var good bytes.Buffer
	if err := WriteFloat64(&good, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}); err != nil {
		t.Fatal(err)
	}
	g := good.Bytes() // 128-byte header and 48 bytes of data
	data := make([]byte, 16)
	withVersion := func(major, minor byte) []byte {
		b := bytes.Clone(g)
		b[6], b[7] = major, minor
		return b
	}
	withHeaderLen := func(n uint16) []byte {
		b := bytes.Clone(g)
		binary.LittleEndian.PutUint16(b[8:], n)
		return b
	}
	for _, test := range []struct {
		name   string
		in     []byte
		offset int64
		want   string
	}{
		{"empty file", nil, 0, "empty file"},
		{"truncated magic", g[:3], 3, "truncated: need 8 bytes of magic string and version, have 3"},
		{"truncated version", g[:7], 7, "truncated"},
		{"truncated header length", g[:9], 9, "truncated: need 2 bytes of header length, have 1"},
		{"truncated header", g[:50], 50, "truncated: need 118 bytes of header, have 40"},
		{"truncated header end", g[:127], 127, "truncated: need 118 bytes of header, have 117"},
		{"no data", g[:128], 128, "truncated: need 48 bytes of data, have 0"},
		{"truncated data", g[:150], 150, "truncated: need 48 bytes of data, have 22"},
		{"one byte short", g[:len(g)-1], int64(len(g) - 1), "truncated: need 48 bytes of data, have 47"},
		{"bad magic", append([]byte("\x89PNG\r\n\x1a\n"), g[8:]...), 0, `bad magic string "\x89PNG\r\n"`},
		{"bad magic short", []byte("NUM"), 0, "bad magic string"},
		{"version 4.0", withVersion(4, 0), 6, "unsupported format version 4.0"},
		{"version 1.1", withVersion(1, 1), 6, "unsupported format version 1.1"},
		{"version 0.0", withVersion(0, 0), 6, "unsupported format version"},
		{"header too long", withHeaderLen(65535), 176, "truncated: need 65535 bytes of header, have 166"},
		{"header not a dict", rawNPY(1, "['descr', '<f8']", nil), 10, "header is not a dict"},
		{"header a tuple", rawNPY(1, "('<f8', False, (2,))", nil), 10, "header is not a dict"},
		{"missing shape", rawNPY(1, "{'descr': '<f8', 'fortran_order': False}", data), 49, "no 'shape' key"},
		{"missing descr", rawNPY(1, "{'fortran_order': False, 'shape': (2,)}", data), -2, "no 'descr' key"},
		{"missing fortran_order", rawNPY(1, "{'descr': '<f8', 'shape': (2,)}", data), -2, "no 'fortran_order' key"},
		{"extra key", rawNPY(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}", data), 66, "unexpected key \"x\""},
		{"duplicate key", rawNPY(1, "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2,)}", data), 27, "duplicate key"},
		{"object dtype", rawNPY(1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", data), 20, "object arrays need pickle; save with allow_pickle=False"},
		{"structured dtype", rawNPY(1, "{'descr': [('x', '<f8')], 'fortran_order': False, 'shape': (2,), }", data), 20, "structured dtypes"},
		{"complex dtype", rawNPY(1, "{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }", data), 20, "complex"},
		{"datetime dtype", rawNPY(1, "{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (1,), }", data), 20, "datetime"},
		{"bad dtype size", rawNPY(1, "{'descr': '<i3', 'fortran_order': False, 'shape': (1,), }", data), 20, "unsupported dtype \"<i3\""},
		{"long double", rawNPY(1, "{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }", data), 20, "long double"},
		{"descr not a string", rawNPY(1, "{'descr': 8, 'fortran_order': False, 'shape': (1,), }", data), 20, "want descr as a quoted string"},
		{"zero item size", rawNPY(1, "{'descr': '|S0', 'fortran_order': False, 'shape': (1000000000000000000,), }", nil), 20, "zero item size"},
		{"zero item size U", rawNPY(1, "{'descr': '<U0', 'fortran_order': False, 'shape': (), }", nil), 20, "zero item size"},
		{"negative dim", rawNPY(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, -1), }", data), 64, "negative dimension -1"},
		{"not a tuple", rawNPY(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2), }", data), 62, "not a tuple"},
		{"list shape", rawNPY(1, "{'descr': '<f8', 'fortran_order': False, 'shape': [2], }", data), 60, "want shape as a tuple"},
		{"float dim", rawNPY(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2.0,), }", data), 62, "want ',' or ')'"},
		{"hex dim", rawNPY(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0x2,), }", data), 61, "invalid dimension"},
		{"L in 3.0", rawNPY(3, "{'descr': '<f8', 'fortran_order': False, 'shape': (2L,), }", data), 63, "invalid dimension \"2L\""},
		{"bad bool", rawNPY(1, "{'descr': '<f8', 'fortran_order': 0, 'shape': (2,), }", data), 44, "want fortran_order True or False"},
		{"unterminated", rawNPY(1, "{'descr': '<f8", data), -2, "unexpected byte '\\n' in descr string"},
		{"no closing brace", rawNPY(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,)", data), -2, "want ',' or '}'"},
		{"trailing junk", rawNPY(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,)} x", data), 66, "unexpected \"x  "},
		{"dim overflow", rawNPY(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }", data), 61, "too large"},
		{"product overflow", rawNPY(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", data), 60, "too many elements"},
		{"bytes overflow", rawNPY(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387903,), }", data), 60, "too large"},
		{"shape larger than data", rawNPY(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,), }", data), 144, "truncated: need 8000000000 bytes of data, have 16"},
		{"shape larger than data v2", rawNPY(2, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", data), 144, "truncated: need 24 bytes of data, have 16"},
	} {
		_, err := Read(bytes.NewReader(test.in))
		fe := checkFormatError(t, test.name, err, test.offset, test.want)
		if fe != nil && fe.File != "" {
			t.Errorf("%s: File = %q, want empty", test.name, fe.File)
		}
		if fe != nil && !strings.HasPrefix(err.Error(), "npy: ") {
			t.Errorf("%s: error %q lacks the npy: prefix", test.name, err)
		}

		// The same through ReadFile, which knows the size in advance.
		path := filepath.Join(t.TempDir(), "x.npy")
		if err := os.WriteFile(path, test.in, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = ReadFile(path)
		want := test.want
		if strings.HasPrefix(want, "truncated") {
			want = "truncated"
		}
		offset := test.offset
		switch test.name {
		case "header too long":
			want, offset = "header length 65535 exceeds file size: 166 bytes follow", 8
		case "truncated header", "truncated header end":
			want, offset = "header length 118 exceeds file size", 8
		}
		fe = checkFormatError(t, "ReadFile "+test.name, err, offset, want)
		if fe != nil && fe.File != path {
			t.Errorf("ReadFile %s: File = %q, want %q", test.name, fe.File, path)
		}
	}
}

func TestReadFileTrailing(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteInt64(&buf, []int{1}, []int64{7}); err != nil {
		t.Fatal(err)
	}
	buf.WriteString("junk")
	path := filepath.Join(t.TempDir(), "x.npy")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path)
	checkFormatError(t, "trailing", err, 136, "4 bytes of trailing data")
}

func TestFormatErrorString(t *testing.T) {
	e := &FormatError{File: "a_feat.npz[indptr.npy]", Offset: 10, Msg: "header length 70000 exceeds file size"}
	if got, want := e.Error(), "a_feat.npz[indptr.npy]: byte 10: header length 70000 exceeds file size"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	e = &FormatError{Offset: -1, Msg: "m", Err: errors.New("inner")}
	if got, want := e.Error(), "npy: m: inner"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if errors.Unwrap(e).Error() != "inner" {
		t.Error("Unwrap")
	}
}

// errReader fails after its data.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadIOError(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteInt64(&buf, []int{4}, make([]int64, 4)); err != nil {
		t.Fatal(err)
	}
	bad := errors.New("disk on fire")
	for _, n := range []int{0, 5, 100, 130} {
		_, err := Read(&errReader{data: buf.Bytes()[:n], err: bad})
		if !errors.Is(err, bad) {
			t.Errorf("after %d bytes: got %v", n, err)
		}
		var fe *FormatError
		if errors.As(err, &fe) {
			t.Errorf("after %d bytes: I/O error reported as a FormatError", n)
		}
	}
}
