package multiplex

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/mat5"
	"github.com/dpmne/dpmne/internal/testenv"
	"github.com/dpmne/dpmne/npy"
)

// g is the side forged files claim: 2·10⁹, below 2³¹.
const g = 2000000000

// npzBytes returns a scipy sparse .npz (deflated, as save_npz writes it)
// of the given layout and shape with the integer members given (row and
// col, or indices and indptr) and data.
func npzBytes(t *testing.T, format string, rows, cols int64, ints map[string][]int64, data []float64) string {
	return zipBytes(t, npzMembers(t, format, rows, cols, ints, data))
}

// npzMembers returns the members of npzBytes's .npz, by name without
// ".npy".
func npzMembers(t *testing.T, format string, rows, cols int64, ints map[string][]int64, data []float64) map[string][]byte {
	t.Helper()
	m := make(map[string][]byte)
	add := func(name string, write func(*bytes.Buffer) error) {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		m[name] = b.Bytes()
	}
	// A 0-d |S3 array, as scipy writes the format.
	m["format"] = rawNPY("{'descr': '|S3', 'fortran_order': False, 'shape': (), }", []byte(format))
	add("shape", func(b *bytes.Buffer) error { return npy.WriteInt64(b, []int{2}, []int64{rows, cols}) })
	for name, v := range ints {
		add(name, func(b *bytes.Buffer) error { return npy.WriteInt64(b, []int{len(v)}, v) })
	}
	add("data", func(b *bytes.Buffer) error { return npy.WriteFloat64(b, []int{len(data)}, data) })
	return m
}

// rawNPY returns a version 1.0 .npy stream of header dict and data, which
// need not agree.
func rawNPY(dict string, data []byte) []byte {
	hlen := len(dict) + 1
	hlen += 64 - (10+hlen)%64
	b := binary.LittleEndian.AppendUint16([]byte("\x93NUMPY\x01\x00"), uint16(hlen))
	b = append(b, dict+strings.Repeat(" ", hlen-len(dict)-1)+"\n"...)
	return append(b, data...)
}

// zipBytes returns a deflated zip archive of members, each named with
// ".npy".
func zipBytes(t *testing.T, members map[string][]byte) string {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(members)) {
		f, err := w.Create(name + ".npy")
		if err != nil {
			t.Fatal(err)
		}
		f.Write(members[name])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// matVar describes a MAT-file variable to write: dense, sparse, a 1×n
// char array (char) or a cell array of elems (cell); cell elements'
// names are ignored.
type matVar struct {
	name   string
	sparse bool
	dims   []int
	ir, jc []int
	re     []float64
	char   string
	cell   bool
	elems  []matVar
}

// matBytes returns a little-endian, uncompressed Level 5 MAT-file holding
// vars.
func matBytes(vars ...matVar) string {
	var b bytes.Buffer
	hdr := make([]byte, 128)
	copy(hdr, "MATLAB 5.0 MAT-file, forged by the multiplex tests")
	binary.LittleEndian.PutUint16(hdr[124:], 0x0100)
	copy(hdr[126:], "IM")
	b.Write(hdr)
	elem := func(typ uint32, data []byte) []byte {
		e := binary.LittleEndian.AppendUint32(nil, typ)
		e = binary.LittleEndian.AppendUint32(e, uint32(len(data)))
		e = append(e, data...)
		for len(e)%8 != 0 {
			e = append(e, 0)
		}
		return e
	}
	int32s := func(v []int) []byte {
		var d []byte
		for _, x := range v {
			d = binary.LittleEndian.AppendUint32(d, uint32(int32(x)))
		}
		return d
	}
	var matrix func(v matVar, name string) []byte
	matrix = func(v matVar, name string) []byte {
		class, nzmax := uint32(mat5.DoubleClass), 0
		switch {
		case v.sparse:
			class, nzmax = uint32(mat5.SparseClass), len(v.ir)
		case v.cell:
			class = uint32(mat5.CellClass)
		case v.char != "":
			class = uint32(mat5.CharClass)
		}
		m := elem(6, binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, class), uint32(nzmax))) // miUINT32
		m = append(m, elem(5, int32s(v.dims))...)                                                                   // miINT32
		m = append(m, elem(1, []byte(name))...)                                                                     // miINT8
		switch {
		case v.cell:
			for _, e := range v.elems {
				m = append(m, matrix(e, "")...)
			}
			return elem(14, m)
		case v.char != "":
			return elem(14, append(m, elem(16, []byte(v.char))...)) // miUTF8
		case v.sparse:
			m = append(m, elem(5, int32s(v.ir))...)
			m = append(m, elem(5, int32s(v.jc))...)
		}
		var re []byte
		for _, x := range v.re {
			re = binary.LittleEndian.AppendUint64(re, math.Float64bits(x))
		}
		m = append(m, elem(9, re)...) // miDOUBLE
		return elem(14, m)            // miMATRIX
	}
	for _, v := range vars {
		b.Write(matrix(v, v.name))
	}
	return b.String()
}

// TestForgedShapes: a matrix file of a few hundred bytes claiming 2·10⁹
// rows (or columns) that nothing in the inputs holds — a scipy sparse .npz
// in the coo or csc layout, a dense .npy or MAT-file variable with no
// columns, a sparse MAT-file variable — is refused before the loader
// allocates for the claim, the error naming the file, where it claims the
// shape and the bound the inputs set; the load allocates less than
// testenv.MaxForgedAlloc.
func TestForgedShapes(t *testing.T) {
	coo := npzBytes(t, "coo", g, g, map[string][]int64{"row": {0, 1, 2}, "col": {1, 2, 0}}, []float64{1, 1, 1})
	tall := npzBytes(t, "coo", g, 3, map[string][]int64{"row": {0, 1, 2}, "col": {1, 2, 0}}, []float64{1, 1, 1})
	csc := npzBytes(t, "csc", g, 3, map[string][]int64{"indices": {0, 1, 2}, "indptr": {0, 1, 2, 3}}, []float64{1, 1, 1})
	wide := npzBytes(t, "coo", 3, g, map[string][]int64{"row": {0, 1, 2}, "col": {1, 0, 1}}, []float64{1, 1, 1})
	empty := npyBytes(t, func(b *bytes.Buffer) error { return npy.WriteFloat32(b, []int{g, 0}, nil) })
	labels5 := npyBytes(t, func(b *bytes.Buffer) error { return npy.WriteInt64(b, []int{5}, []int64{0, 1, 0, 1, 0}) })
	mat := matBytes(
		matVar{name: "S", sparse: true, dims: []int{g, 2}, ir: []int{0, 2}, jc: []int{0, 1, 2}, re: []float64{1, 1}},
		matVar{name: "E", dims: []int{g, 0}},
		matVar{name: "C", dims: []int{0, g}},
	)
	view := func(field, file string) string {
		return fmt.Sprintf(`{"views":[{"name":"v",%q:%q}]}`, field, file)
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // in the error, after the directory
	}{
		{"npz coo edges", map[string]string{"manifest.json": view("edges", "x.npz"), "x.npz": coo},
			[]string{`x.npz: member "shape" claims 2000000000×2000000000: 2000000000 rows, more than the 3 nodes the inputs hold (the entries of `, `x.npz reach row 2); to have nodes without entries, list every node in the manifest's "nodes" file`}},
		{"npz coo edges, nodes file", map[string]string{"manifest.json": `{"nodes":"n.txt","views":[{"name":"v","edges":"x.npz"}]}`, "x.npz": coo, "n.txt": "a\nb\nc\nd\n"},
			[]string{`x.npz: member "shape" claims 2000000000×2000000000: 2000000000 rows, want one per node: 4 nodes in `, `n.txt`}},
		{"npz coo edges, labels", map[string]string{"manifest.json": `{"labels":"l.npy","views":[{"name":"v","edges":"x.npz"}]}`, "x.npz": coo, "l.npy": labels5},
			[]string{`x.npz: member "shape" claims 2000000000×2000000000: 2000000000 rows, more than the 5 nodes the inputs hold (`, `l.npy has 5 labels)`}},
		{"npz coo features", map[string]string{"manifest.json": view("features", "x.npz"), "x.npz": tall},
			[]string{`x.npz: member "shape" claims 2000000000×3: 2000000000 rows, more than the 3 nodes`}},
		{"npz csc features", map[string]string{"manifest.json": view("features", "x.npz"), "x.npz": csc},
			[]string{`x.npz: member "shape" claims 2000000000×3: 2000000000 rows, more than the 3 nodes the inputs hold (the entries of `, `x.npz reach row 2)`}},
		{"npz csc edges", map[string]string{"manifest.json": view("edges", "x.npz"), "x.npz": csc},
			[]string{`x.npz: adjacency is 2000000000×3, want a square matrix`}},
		{"npz feature columns", map[string]string{"manifest.json": view("features", "x.npz"), "x.npz": wide},
			[]string{`x.npz: member "shape" claims 3×2000000000: 2000000000 feature columns, but the entries of `, `x.npz reach column 1; more than 16777216 need "feature_dim" ≥ 2000000000 in the manifest`}},
		{"npz feature ids", map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"e.txt","features":"x.npz","feature_ids":"ids.txt"}]}`, "x.npz": tall, "e.txt": "a b\n", "ids.txt": "a\nb\n"},
			[]string{`ids.txt: 2 ids for the 2000000000 feature rows of `}},
		{"npy empty features", map[string]string{"manifest.json": view("features", "x.npy"), "x.npy": empty},
			[]string{`x.npy: the header's shape (2000000000, 0): 2000000000 rows, more than the 0 nodes the inputs hold (`, `x.npy holds no elements)`}},
		{"mat sparse features", map[string]string{"manifest.json": view("features", "x.mat:S"), "x.mat": mat},
			[]string{`x.mat:S: variable "S" claims 2000000000×2: 2000000000 rows, more than the 3 nodes the inputs hold (the entries of `, `x.mat:S reach row 2)`}},
		{"mat dense features", map[string]string{"manifest.json": view("features", "x.mat:E"), "x.mat": mat},
			[]string{`x.mat:E: variable "E" claims 2000000000×0: 2000000000 rows, more than the 0 nodes`}},
		{"mat sparse labels", map[string]string{"manifest.json": `{"labels":"x.mat:S","views":[{"name":"v","edges":"e.txt"}]}`, "x.mat": mat, "e.txt": "0 1\n"},
			[]string{`x.mat:S: variable "S" claims 2000000000×2: 2000000000 rows, more than the 3 nodes`}},
		{"mat dense labels", map[string]string{"manifest.json": `{"labels":"x.mat:C","views":[{"name":"v","edges":"e.txt"}]}`, "x.mat": mat, "e.txt": "0 1\n"},
			[]string{`x.mat:C: variable "C" claims 0×2000000000: 2000000000 classes for no node`}},
	} {
		dir := testenv.WriteFiles(t, tc.files)
		var err error
		n := testenv.Allocated(func() { _, err = Load(dir, "") })
		if n > testenv.MaxForgedAlloc {
			t.Errorf("%s: allocated %d bytes, want at most %d", tc.name, n, testenv.MaxForgedAlloc)
		}
		if err == nil {
			t.Errorf("%s: loaded", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: err = %v, want %q", tc.name, err, w)
			}
		}
		if !strings.HasPrefix(err.Error(), dir) {
			t.Errorf("%s: err = %v, want it to start with the file", tc.name, err)
		}
	}
}

// TestSparseTrailingNodes: a sparse adjacency whose last rows have no
// entries has those nodes when another input holds them (labels, a nodes
// file, a dense matrix), and is refused when none does.
func TestSparseTrailingNodes(t *testing.T) {
	coo := npzBytes(t, "coo", 5, 5, map[string][]int64{"row": {0, 1}, "col": {1, 2}}, []float64{1, 1})
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // the error, or "" for a load of 5 nodes
	}{
		{"labels", map[string]string{"manifest.json": `{"labels":"l.npy","views":[{"name":"v","edges":"x.npz"}]}`,
			"l.npy": npyBytes(t, func(b *bytes.Buffer) error { return npy.WriteInt64(b, []int{5}, []int64{0, 1, 0, 1, 0}) })}, ""},
		{"nodes", map[string]string{"manifest.json": `{"nodes":"n.txt","views":[{"name":"v","edges":"x.npz"}]}`, "n.txt": "0\n1\n2\n3\n4\n"}, ""},
		{"dense features", map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"x.npz","features":"f.npy"}]}`,
			"f.npy": npyBytes(t, func(b *bytes.Buffer) error { return npy.WriteFloat32(b, []int{5, 1}, []float32{1, 2, 3, 4, 5}) })}, ""},
		{"nothing", map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"x.npz"}]}`}, `member "shape" claims 5×5: 5 rows, more than the 3 nodes the inputs hold`},
	} {
		tc.files["x.npz"] = coo
		net, err := Load(testenv.WriteFiles(t, tc.files), "")
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want == "" && net.N() != 5:
			t.Errorf("%s: %d nodes, want 5", tc.name, net.N())
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}
