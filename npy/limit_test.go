package npy

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
)

// zeros is a .npy array of n zero values of descr (item bytes each).
func zeros(descr string, n, item int) []byte {
	return rawNPY(1, "{'descr': '"+descr+"', 'fortran_order': False, 'shape': ("+itoa(n)+",), }", make([]byte, n*item))
}

func itoa(n int) string {
	return strings.TrimSuffix(strings.TrimPrefix(shapeString([]int{n}), "("), ",)")
}

// TestSparseLimitCOO: a deflated COO .npz of a few KB whose members
// hold 1M values each (8 MB inflated, 16 MB widened for data) is refused
// by ReadSparseLimit before any of the large members is read, naming the
// member and the bytes; members whose headers disagree are refused before
// any is read; SparseHeld counts what a read takes.
func TestSparseLimitCOO(t *testing.T) {
	const nnz = 1 << 20
	members := []member{
		{"row.npy", zeros("<i8", nnz, 8)},
		{"col.npy", zeros("<i8", nnz, 8)},
		{"format.npy", scalarS3("coo")},
		{"shape.npy", enc("<i8", 3, 4)},
		{"data.npy", zeros("<f8", nnz, 8)},
	}
	archive := makeZip(t, zip.Deflate, members...)
	if len(archive) > 256<<10 {
		t.Fatalf("the test archive takes %d bytes, want a few KB", len(archive))
	}
	p := filepath.Join(t.TempDir(), "bomb.npz")
	if err := os.WriteFile(p, archive, 0o644); err != nil {
		t.Fatal(err)
	}
	z, err := OpenNPZ(p)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	var s *Sparse
	n := testenv.Allocated(func() { s, err = ReadSparseLimit(z, 10<<20) })
	var fe *FormatError
	if !errors.As(err, &fe) || fe.File != p+"[data.npy]" || !strings.Contains(err.Error(), "holds 16777216 bytes once read and widened (1048576 values of <f8)") {
		t.Fatalf("ReadSparseLimit = %v, %v, want data.npy refused by the limit", s, err)
	}
	if n > 2<<20 {
		t.Errorf("allocated %d bytes before refusing, want under 2 MiB (the members inflate to 24 MB)", n)
	}
	held, largest, err := SparseHeld(z)
	if want := int64(16+12+12) * nnz; err != nil || held != want || largest != p+"[data.npy]" {
		t.Errorf("SparseHeld = %d, %q, %v, want %d, data.npy", held, largest, err, want)
	}

	// A row member shorter than data: refused by the headers.
	bad := makeZip(t, zip.Deflate, replace(members, "row.npy", zeros("<i8", 5, 8))...)
	z2, err := OpenNPZReader(bytes.NewReader(bad), int64(len(bad)))
	if err != nil {
		t.Fatal(err)
	}
	n = testenv.Allocated(func() { _, err = ReadSparse(z2) })
	if err == nil || !strings.Contains(err.Error(), "row has 5 entries, want 1048576, the length of data") {
		t.Fatalf("err = %v, want the row member refused", err)
	}
	if n > 2<<20 {
		t.Errorf("allocated %d bytes refusing members that disagree, want under 2 MiB", n)
	}
}

// TestHeld: a u1 array holds 9 bytes a value once widened, an f8 16.
func TestHeld(t *testing.T) {
	for _, tc := range []struct {
		descr string
		item  int
		want  int64
	}{{"|u1", 1, 9 * 1000}, {"<f8", 8, 16 * 1000}, {"|S4", 4, 8 * 1000}} {
		h, err := ReadHeader(bytes.NewReader(zeros(tc.descr, 1000, tc.item)))
		if err != nil || h.Held() != tc.want || h.Len() != 1000 {
			t.Errorf("%s: Held = %d (%v), want %d", tc.descr, h.Held(), err, tc.want)
		}
	}
}

// TestReadFileContextCheck: the check sees the header before any data is
// read, and its error is returned.
func TestReadFileContextCheck(t *testing.T) {
	p := filepath.Join(t.TempDir(), "u.npy")
	if err := os.WriteFile(p, zeros("|u1", 1<<20, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	refuse := errors.New("too large")
	var seen int64
	var err error
	n := testenv.Allocated(func() {
		_, err = ReadFileContext(context.Background(), p, func(h *Header) error { seen = h.Held(); return refuse })
	})
	if err != refuse || seen != 9<<20 {
		t.Fatalf("err = %v, held %d, want the check's error and 9 MiB", err, seen)
	}
	if n > 256<<10 {
		t.Errorf("allocated %d bytes, want the data unread", n)
	}
}
