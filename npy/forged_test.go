package npy

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
)

// forged is a .npy header claiming huge shape with a few bytes of data.
func forged(descr, shape string, data []byte) []byte {
	return rawNPY(1, "{'descr': '"+descr+"', 'fortran_order': False, 'shape': "+shape+", }", data)
}

// TestForgedShapes: a file of a few hundred bytes whose header claims 2·10⁹
// or more elements, as a .npy file, a stored or deflated .npz member, or the
// members of a scipy sparse matrix, is refused naming the file and the
// member, or read for the bytes it holds, allocating in proportion to
// those bytes rather than to the claim.
func TestForgedShapes(t *testing.T) {
	const huge = "(2000000000, 2000000000)"
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	npyFile := write("huge.npy", forged("<f8", huge, make([]byte, 64)))
	npyBig := write("big.npy", forged("<f4", "(200000, 200000)", make([]byte, 64)))
	npyVec := write("vec.npy", forged("<i8", "(2000000000,)", make([]byte, 64)))
	// A stored member's size is trusted (it lies within the archive); a
	// deflated one's is not, and its buffer grows as data arrive.
	storedZ := write("stored.npz", makeZip(t, zip.Store, member{"x.npy", forged("<f8", "(200000, 200000)", make([]byte, 64))}))
	deflatedZ := write("deflated.npz", makeZip(t, zip.Deflate, member{"x.npy", forged("<f8", "(200000, 200000)", make([]byte, 4096))}))
	// scipy sparse: csr whose index pointers should hold a row each.
	csr := replace(csrMembers("<i4", "<i8"), "shape.npy", enc("<i8", 2000000000, 2000000000))
	csrZ := write("csr.npz", makeZip(t, zip.Deflate, csr...))
	// coo: rows and columns held by no byte, but legal; read at the size
	// of its entries.
	coo := replace(cooMembers("<i4", "<i8"), "shape.npy", enc("<i8", 2000000000, 2000000000))
	cooZ := write("coo.npz", makeZip(t, zip.Deflate, coo...))
	for _, tc := range []struct {
		name string
		read func() error
		want string // "" for no error
	}{
		{"npy", func() error { _, err := ReadFile(npyFile); return err }, npyFile + ": byte 60: shape (2000000000, 2000000000) of <f8 is too large"},
		{"npy matrix", func() error { _, err := ReadFile(npyBig); return err }, npyBig + ": byte 192: truncated: need 160000000000 bytes of data, have 64"},
		{"npy vector", func() error { _, err := ReadFile(npyVec); return err }, npyVec + ": byte 192: truncated: need 16000000000 bytes of data, have 64"},
		{"stored npz", func() error { _, err := readMember(storedZ, "x"); return err }, storedZ + "[x.npy]: byte 192: truncated: need 320000000000 bytes of data, have 64"},
		{"deflated npz", func() error { _, err := readMember(deflatedZ, "x"); return err }, deflatedZ + "[x.npy]: byte 4224: truncated: need 320000000000 bytes of data, have 4096"},
		{"csr npz", func() error { _, err := ReadSparseNPZ(csrZ); return err }, csrZ + "[indptr.npy]: byte 128: indptr has 4 entries, want 2000000001, one more than the rows"},
		{"coo npz", func() error {
			s, err := ReadSparseNPZ(cooZ)
			if err == nil && (s.Rows != 2000000000 || len(s.Data) != 4) {
				return errors.New("coo read as " + s.String())
			}
			return err
		}, ""},
	} {
		var err error
		n := testenv.Allocated(func() { err = tc.read() })
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
		if n > testenv.MaxForgedAlloc {
			t.Errorf("%s: allocated %d bytes, want at most %d", tc.name, n, testenv.MaxForgedAlloc)
		}
	}
}

// readMember reads member name of the archive at path.
func readMember(path, name string) (*Array, error) {
	z, err := OpenNPZ(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	return z.Read(name)
}

// TestHeader: ReadHeader and NPZ.Header read what Read reads before the
// data, and NPZ.Header's size bounds what a member holds whatever its
// uncompressed size claims, so that a header's claim can be checked
// against it without reading the data.
func TestHeader(t *testing.T) {
	honest := enc("<i8", 0, 1, 1, 4)
	h, err := ReadHeader(bytes.NewReader(honest))
	if err != nil {
		t.Fatal(err)
	}
	if h.Descr != "<i8" || fmt.Sprint(h.Shape) != "[4]" || h.Fortran || h.Offset != 128 || h.Offset+h.Bytes != int64(len(honest)) {
		t.Errorf("ReadHeader = %+v, want <i8 (4,) at byte 128 ending at %d", h, len(honest))
	}
	if _, err := ReadHeader(bytes.NewReader(honest[:100])); err == nil || !strings.Contains(err.Error(), "npy: byte 100: truncated") {
		t.Errorf("truncated header: err = %v", err)
	}

	claim := forged("<i8", "(2000000001,)", make([]byte, 24))
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.BestCompression)
	fw.Write(claim)
	fw.Close()
	raw := func(method uint16, data []byte, uncompressed uint64) []byte {
		var buf bytes.Buffer
		w := zip.NewWriter(&buf)
		f, err := w.CreateRaw(&zip.FileHeader{Name: "indptr.npy", Method: method, CRC32: crc32.ChecksumIEEE(claim),
			CompressedSize64: uint64(len(data)), UncompressedSize64: uncompressed})
		if err != nil {
			t.Fatal(err)
		}
		f.Write(data)
		w.Close()
		return buf.Bytes()
	}
	for _, tc := range []struct {
		name string
		zip  []byte
		size int64 // the most the member holds, by NPZ.Header
	}{
		{"honest", makeZip(t, zip.Deflate, member{"indptr.npy", honest}), int64(len(honest))},
		{"forged shape, deflated", makeZip(t, zip.Deflate, member{"indptr.npy", claim}), int64(len(claim))},
		{"forged shape, stored", makeZip(t, zip.Store, member{"indptr.npy", claim}), int64(len(claim))},
		// The member's uncompressed size lies as well: its bytes hold
		// no more than themselves, or what they inflate to.
		{"forged size, stored", raw(zip.Store, claim, 1<<40), int64(len(claim))},
		{"forged size, deflated", raw(zip.Deflate, deflated.Bytes(), 1<<40), maxInflate * int64(deflated.Len())},
	} {
		z, err := OpenNPZReader(bytes.NewReader(tc.zip), int64(len(tc.zip)))
		if err != nil {
			t.Fatal(err)
		}
		h, size, err := z.Header("indptr")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if size != tc.size {
			t.Errorf("%s: size %d, want %d", tc.name, size, tc.size)
		}
		_, rerr := z.Read("indptr")
		if held := h.Offset+h.Bytes <= size; held != (rerr == nil) {
			t.Errorf("%s: header %+v held in %d bytes: %v; Read: %v", tc.name, h, size, held, rerr)
		}
	}
}
