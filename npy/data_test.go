package npy

import (
	"reflect"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
)

// Tests on the DBLP data set of HeCo (4057 authors), which skip when the
// shared data directory is missing.

func TestDataLabels(t *testing.T) {
	a, err := ReadFile(testenv.File(t, "dblp4057-heco/labels.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Descr != "<i8" || !reflect.DeepEqual(a.Shape, []int{4057}) || a.Fortran {
		t.Fatalf("got %s %v fortran %v", a.Descr, a.Shape, a.Fortran)
	}
	labels, err := a.Int64s()
	if err != nil {
		t.Fatal(err)
	}
	counts := make(map[int64]int)
	for _, l := range labels {
		counts[l]++
	}
	if want := map[int64]int{0: 1197, 1: 745, 2: 1109, 3: 1006}; !reflect.DeepEqual(counts, want) {
		t.Errorf("class counts %v, want %v", counts, want)
	}
}

func TestDataSplit(t *testing.T) {
	a, err := ReadFile(testenv.File(t, "dblp4057-heco/train_20.npy"))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := a.Int64s()
	if err != nil {
		t.Fatal(err)
	}
	if len(idx) != 80 || !reflect.DeepEqual(a.Shape, []int{80}) {
		t.Fatalf("got shape %v", a.Shape)
	}
	seen := make(map[int64]bool)
	for _, i := range idx {
		if i < 0 || i >= 4057 || seen[i] {
			t.Fatalf("bad or repeated index %d", i)
		}
		seen[i] = true
	}
}

func TestDataFeatures(t *testing.T) {
	path := testenv.File(t, "dblp4057-heco/a_feat.npz")
	s, err := ReadSparseNPZ(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != "csr" || s.Rows != 4057 || s.Cols != 334 || len(s.Data) != 48810 {
		t.Fatalf("got %s", s)
	}
	for i, v := range s.Data {
		if v != 1 {
			t.Fatalf("Data[%d] = %v, want 1", i, v)
		}
	}
	// Row indices of a csr matrix never decrease.
	for k := 1; k < len(s.Row); k++ {
		if s.Row[k] < s.Row[k-1] {
			t.Fatalf("Row[%d] = %d < Row[%d] = %d", k, s.Row[k], k-1, s.Row[k-1])
		}
	}

	z, err := OpenNPZ(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if got, want := z.Names(), []string{"data", "format", "indices", "indptr", "shape"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names = %q, want %q", got, want)
	}
	f, err := z.Read("format")
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.Bytes()
	if err != nil || f.Descr != "|S3" || len(f.Shape) != 0 || string(b[0]) != "csr" {
		t.Errorf("format = %s %v %q %v", f.Descr, f.Shape, b, err)
	}
}

func TestDataAPA(t *testing.T) {
	s, err := ReadSparseNPZ(testenv.File(t, "dblp4057-heco/apa.npz"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != "coo" || s.Rows != 4057 || s.Cols != 4057 || len(s.Data) != 11113 {
		t.Fatalf("got %s", s)
	}
	type pair struct{ i, j int32 }
	entries := make(map[pair]bool, len(s.Data))
	for k := range s.Data {
		entries[pair{s.Row[k], s.Col[k]}] = true
	}
	if len(entries) != len(s.Data) {
		t.Errorf("%d distinct entries of %d", len(entries), len(s.Data))
	}
	for p := range entries {
		if !entries[pair{p.j, p.i}] {
			t.Fatalf("entry (%d, %d) has no transpose", p.i, p.j)
		}
	}
}

func TestDataAPCPA(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 45 MB")
	}
	s, err := ReadSparseNPZ(testenv.File(t, "dblp4057-heco/apcpa.npz"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != "coo" || s.Rows != 4057 || s.Cols != 4057 || len(s.Data) != 5000495 || len(s.Row) != len(s.Data) || len(s.Col) != len(s.Data) {
		t.Fatalf("got %s", s)
	}
}
