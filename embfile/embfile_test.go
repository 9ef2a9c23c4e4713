package embfile_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/embfile"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/npy"
)

func TestIDsPath(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"emb.npy", "emb.ids.txt"},
		{"out/emb.NPY", "out/emb.ids.txt"},
		{"codes.bin", "codes.ids.txt"},
		{"a.b/emb", "a.b/emb.ids.txt"},
		{"emb.tar.npy", "emb.tar.ids.txt"},
	} {
		if got := embfile.IDsPath(tc.path); got != tc.want {
			t.Errorf("IDsPath(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

func TestIsNPY(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"emb.npy", true},
		{"emb.NPY", true},
		{"emb.npy.txt", false},
		{"emb.txt", false},
		{"npy", false},
	} {
		if got := embfile.IsNPY(tc.path); got != tc.want {
			t.Errorf("IsNPY(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestReadIDs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		want          []string
	}{
		{"plain", "a\nb\n", []string{"a", "b"}},
		{"no final newline", "a\nb", []string{"a", "b"}},
		{"crlf", "a\r\nb\r\n", []string{"a", "b"}},
		{"bom", "\xef\xbb\xbfa\nb\n", []string{"a", "b"}},
		{"spaces", " a \n\tb\n", []string{"a", "b"}},
	} {
		p := filepath.Join(dir, tc.name+".txt")
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := embfile.ReadIDs(p)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: ReadIDs = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := embfile.ReadIDs(filepath.Join(dir, "missing.txt")); !os.IsNotExist(err) {
		t.Errorf("missing file: err = %v", err)
	}
}

// TestRoundTrip: what WriteNPY and WriteWord2Vec write, Read and
// ReadVectors read back, rounded to float32 (word2vec text holds the
// shortest decimal that reads back as the float32).
func TestRoundTrip(t *testing.T) {
	ids := []string{"n1", "n2", "n3", "n4"}
	y := mat.NewDense(4, 3, []float64{
		1, 2, 3,
		-0.1, 1e-30, 7,
		0, 0, 0,
		1.0 / 3, 2.5, -4,
	})
	want := make([]float64, 12)
	for i, v := range y.RawMatrix().Data {
		want[i] = float64(float32(v))
	}
	nodes, err := multiplex.NodesOf(ids)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		write func(path string) error
		ids   string // the ids file WriteNPY writes
	}{
		{"emb.npy", func(p string) error { return embfile.WriteNPY(p, "", ids, y) }, "emb.ids.txt"},
		{"named.npy", func(p string) error { return embfile.WriteNPY(p, filepath.Join(dir, "names.txt"), ids, y) }, "names.txt"},
		{"emb.w2v", func(p string) error { return embfile.WriteWord2Vec(p, ids, y) }, ""},
	} {
		p := filepath.Join(dir, tc.name)
		if err := tc.write(p); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		idsPath := ""
		if tc.ids != "" {
			idsPath = filepath.Join(dir, tc.ids)
			got, err := embfile.ReadIDs(idsPath)
			if err != nil || !slices.Equal(got, ids) {
				t.Errorf("%s: ids file %q, %v", tc.name, got, err)
			}
		}
		x, d, err := embfile.Read(p, nodes, embfile.ReadOptions{IDs: idsPath})
		if err != nil || d != 3 || !slices.Equal(float32s(x), want) {
			t.Errorf("%s: Read = %v, %d, %v; want %v", tc.name, x, d, err, want)
		}
		gotIDs, v, d, err := embfile.ReadVectors(p, idsPath)
		if err != nil || d != 3 || !slices.Equal(float32s(v), want) || !slices.Equal(gotIDs, ids) {
			t.Errorf("%s: ReadVectors = %q, %v, %d, %v", tc.name, gotIDs, v, d, err)
		}
	}
}

// float32s rounds x to float32 in place, for comparison.
func float32s(x []float64) []float64 {
	for i, v := range x {
		x[i] = float64(float32(v))
	}
	return x
}

func TestWriteIDCount(t *testing.T) {
	dir := t.TempDir()
	y := mat.NewDense(2, 1, []float64{1, 2})
	for name, err := range map[string]error{
		"npy": embfile.WriteNPY(filepath.Join(dir, "e.npy"), "", []string{"a"}, y),
		"w2v": embfile.WriteWord2Vec(filepath.Join(dir, "e.txt"), []string{"a"}, y),
	} {
		if err == nil || !strings.Contains(err.Error(), "1 ids for 2 rows") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 0 {
		t.Errorf("files written: %q", names)
	}
}

// TestReadErrors: each error names the file and what was wrong.
func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	npyOf := func(name string, shape []int, data []float32) string {
		var b bytes.Buffer
		if err := npy.WriteFloat32(&b, shape, data); err != nil {
			t.Fatal(err)
		}
		return write(name, b.Bytes())
	}
	var codes bytes.Buffer
	if err := npy.WriteUint8(&codes, []int{2, 1}, []uint8{1, 2}); err != nil {
		t.Fatal(err)
	}
	nodes, err := multiplex.NodesOf([]string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, ids, want string
	}{
		{"1-D", npyOf("flat.npy", []int{2}, []float32{1, 2}), "", "flat.npy: shape [2], want a 2-D n×d array"},
		{"codes", write("codes.npy", codes.Bytes()), "", "codes.npy: dtype |u1, want a float embedding"},
		{"empty", npyOf("empty.npy", []int{0, 2}, nil), "", "empty.npy: shape [0 2]: an embedding needs rows and columns"},
		{"no ids, rows", npyOf("three.npy", []int{3, 1}, []float32{1, 2, 3}), "", "three.npy: no ids file " + filepath.Join(dir, "three.ids.txt") + " to name the node of each of its 3 rows (and 3 rows for 2 nodes cannot be the nodes in order)"},
		{"ids count", npyOf("two.npy", []int{2, 1}, []float32{1, 2}), write("one.txt", []byte("a\n")), "one.txt: 1 ids for the 2 rows of"},
		{"missing node", npyOf("ac.npy", []int{2, 1}, []float32{1, 2}), write("ac.txt", []byte("a\nc\n")), `ac.npy: no row for node "b" (and maybe others)`},
		{"w2v empty", write("empty.txt", nil), "", "empty.txt: empty file"},
		{"w2v header", write("header.txt", []byte("2\n")), "", `header.txt:1: header "2", want "<count> <dims>"`},
		{"w2v dims", write("dims.txt", []byte("2 0\n")), "", `dims.txt:1: header "2 0", want two positive integers`},
		{"w2v fields", write("fields.txt", []byte("2 2\na 1\n")), "", "fields.txt:2: 2 fields, want an id and 2 values"},
		{"w2v number", write("number.txt", []byte("1 1\na x\n")), "", `number.txt:2: field 2: "x" is not a number`},
		{"w2v count", write("count.txt", []byte("3 1\na 1\nb 2\n")), "", "count.txt: header says 3 vectors, file has 2"},
	} {
		_, _, err := embfile.Read(tc.path, nodes, embfile.ReadOptions{IDs: tc.ids})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestReadVectorsDuplicateIDs: a .npy embedding's ids name one row each.
func TestReadVectorsDuplicateIDs(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "e.npy")
	if err := embfile.WriteNPY(p, "", []string{"a", "b"}, mat.NewDense(2, 1, []float64{1, 2})); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(embfile.IDsPath(p), []byte("a\na\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := embfile.ReadVectors(p, ""); err == nil || !strings.HasPrefix(err.Error(), embfile.IDsPath(p)+": ") {
		t.Errorf("err = %v, want one naming %s", err, embfile.IDsPath(p))
	}
}

// TestReadWord2Vec: a byte-order mark is not part of the header, an id given
// twice is an error naming both lines, and a line quoted in an error is cut
// short (a binary file's first "line" can be kilobytes).
func TestReadWord2Vec(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, want string // want "" for success
	}{
		{"bom", "\ufeff2 2\na 1 0\nb 0 1\n", ""},
		{"duplicate id", "2 2\na 1 0\na 0 1\n", `:3: id "a" already has a vector on line 2`},
		{"binary", strings.Repeat("\x00\x01binary", 1000) + "\n", "…\", want"},
	} {
		p := filepath.Join(dir, tc.name+".txt")
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		ids, _, err := embfile.ReadWord2Vec(p)
		switch {
		case tc.want == "" && (err != nil || len(ids) != 2 || ids[0] != "a"):
			t.Errorf("%s: ids %q, err %v", tc.name, ids, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		case err != nil && len(err.Error()) > 300:
			t.Errorf("%s: a %d-byte error", tc.name, len(err.Error()))
		}
	}
}

// TestReadNodeOrder: a .npy embedding without its ids file is refused,
// naming the file it lacks, unless the caller says its rows are the
// nodes in order, which needs one row per node and no ids file.
func TestReadNodeOrder(t *testing.T) {
	dir := t.TempDir()
	nodes, err := multiplex.NodesOf([]string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	npyOf := func(name string, rows int) string {
		var b bytes.Buffer
		data := make([]float32, rows)
		for i := range data {
			data[i] = float32(i + 1)
		}
		if err := npy.WriteFloat32(&b, []int{rows, 1}, data); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	two, three := npyOf("two.npy", 2), npyOf("three.npy", 3)
	named := filepath.Join(dir, "named.npy")
	if err := embfile.WriteNPY(named, "", []string{"b", "a"}, mat.NewDense(2, 1, []float64{1, 2})); err != nil {
		t.Fatal(err)
	}
	w2v := filepath.Join(dir, "e.txt")
	if err := embfile.WriteWord2Vec(w2v, []string{"b", "a"}, mat.NewDense(2, 1, []float64{1, 2})); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		path string
		opt  embfile.ReadOptions
		want string // the rows of a and b, or the error
	}{
		{"no ids", two, embfile.ReadOptions{}, two + ": no ids file " + filepath.Join(dir, "two.ids.txt") + " to name the node of each of its 2 rows"},
		{"node order", two, embfile.ReadOptions{NodeOrder: true}, "[1 2]"},
		{"ids beside", named, embfile.ReadOptions{}, "[2 1]"},
		{"node order, ids beside", named, embfile.ReadOptions{NodeOrder: true}, named + ": its rows are named by the ids file " + filepath.Join(dir, "named.ids.txt") + ", not taken in node order"},
		{"node order, ids given", two, embfile.ReadOptions{IDs: filepath.Join(dir, "named.ids.txt"), NodeOrder: true}, two + ": its rows are named by the ids file " + filepath.Join(dir, "named.ids.txt")},
		{"node order, other rows", three, embfile.ReadOptions{NodeOrder: true}, three + ": 3 rows for 2 nodes: rows in node order need one per node"},
		{"node order, word2vec", w2v, embfile.ReadOptions{NodeOrder: true}, w2v + ": text names its rows, which are not taken in node order"},
	} {
		y, _, err := embfile.Read(tc.path, nodes, tc.opt)
		got := fmt.Sprint(y)
		if err != nil {
			got = err.Error()
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: got %s\nwant %s", tc.name, got, tc.want)
		}
	}
	_, _, err = embfile.Read(two, nodes, embfile.ReadOptions{})
	if me := (*embfile.MissingIDsError)(nil); !errors.As(err, &me) || me.IDs != filepath.Join(dir, "two.ids.txt") || me.Rows != 2 || me.Nodes != 2 {
		t.Errorf("err = %#v, want a *MissingIDsError", err)
	}
}

// TestFormat: an output path's format is the one its extension says, or
// the one given; an extension that says none is refused with the list,
// and standard output takes a given text format.
func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		path, format string
		given        bool
		want         string // the format, or the error
	}{
		{"e.npy", "npy", false, "npy"},
		{"e.NPY", "npy", false, "npy"},
		{"e.txt", "npy", false, "w2v"},
		{"e.vec", "npy", false, "w2v"},
		{"e.csv", "npy", false, "csv"},
		{"e.tsv", "npy", false, "tsv"},
		{"e.bin", "w2v", true, "w2v"},
		{"e", "csv", true, "csv"},
		{"", "npy", false, "npy"},
		{"-", "csv", true, "csv"},
		{"-", "w2v", true, "w2v"},
		{"e.dat", "npy", false, `--out e.dat: extension ".dat", want one that says the format: .npy (float32 array, its ids beside it in .ids.txt), .txt, .w2v, .emb or .vec (word2vec text), .csv or .tsv (text, the id first); or give --format npy, w2v, csv or tsv`},
		{"emb", "npy", false, "--out emb: no extension, want one that says the format: .npy"},
		{"e.csv", "npy", true, "--format npy for --out e.csv, whose extension means csv: drop --format, or name the file to match"},
		{"e.npy", "tsv", true, "--format tsv for --out e.npy, whose extension means npy"},
		{"e.csv", "xml", true, `--format "xml": want npy, w2v, csv or tsv`},
		{"-", "npy", false, "--out -: standard output takes a text format: give --format w2v, csv or tsv"},
		{"-", "npy", true, "--out - --format npy: a .npy goes with its ids file beside it, which standard output has none of: give --format w2v, csv or tsv, or a file name"},
	} {
		got, err := embfile.Format(tc.path, tc.format, tc.given)
		if err != nil {
			got = err.Error()
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("Format(%q, %q, %v) = %s\nwant %s", tc.path, tc.format, tc.given, got, tc.want)
		}
	}
}

// TestWriteText: CSV and TSV hold the id first, quoted where RFC 4180
// quotes it, after a header of the dimensions; encoding/csv, and
// ReadDelimited, read back the same ids and float32 values.
func TestWriteText(t *testing.T) {
	ids := []string{"a", "b,c", `q"x`, " lead", "tab\tid"}
	y := mat.NewDense(5, 2, []float64{1, -0.5, 0.1, 2, 3, 4, 1e-7, 5, 6, 7})
	for _, tc := range []struct {
		format string
		want   string
	}{
		{"csv", "id,0,1\na,1,-0.5\n\"b,c\",0.1,2\n\"q\"\"x\",3,4\n\" lead\",1e-07,5\ntab\tid,6,7\n"},
		{"tsv", "id\t0\t1\na\t1\t-0.5\nb,c\t0.1\t2\n\"q\"\"x\"\t3\t4\n\" lead\"\t1e-07\t5\n\"tab\tid\"\t6\t7\n"},
		{"w2v", "5 2\na 1 -0.5\nb,c 0.1 2\nq\"x 3 4\n lead 1e-07 5\ntab\tid 6 7\n"},
	} {
		var b bytes.Buffer
		if err := embfile.WriteText(&b, tc.format, ids, y); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.format, b.String(), tc.want)
		}
		if tc.format == "w2v" {
			continue
		}
		p := filepath.Join(t.TempDir(), "e."+tc.format)
		if err := embfile.Write(p, "", tc.format, ids, y); err != nil {
			t.Fatal(err)
		}
		got, v, d, err := embfile.ReadVectors(p, "")
		if err != nil || d != 2 || !slices.Equal(got, ids) || !slices.Equal(float32s(v), float32s(slices.Clone(y.RawMatrix().Data))) {
			t.Errorf("%s read back: %q, %v, %d, %v", tc.format, got, v, d, err)
		}
	}
	if err := embfile.WriteText(io.Discard, "npy", ids, y); err == nil {
		t.Error("WriteText wrote npy")
	}
	if err := embfile.WriteText(io.Discard, "csv", ids[:2], y); err == nil || !strings.Contains(err.Error(), "2 ids for 5 rows") {
		t.Errorf("2 ids for 5 rows: %v", err)
	}
}

// TestReadDelimited: a header is skipped only on the first line, and every
// error names the file and line.
func TestReadDelimited(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content, want string // want: the ids, or the error
	}{
		{"header", "id,x,y\na,1,2\nb,3,4\n", "[a b]"},
		{"no header", "a,1,2\nb,3,4\n", "[a b]"},
		{"pandas' header", ",0,1\na,1,2\n", "[a]"},
		{"header by number", "ID,1,2\na,1,2\n", "[a]"},
		{"a node 0 1 first", "a,0,1\nb,3,4\n", "[a b]"},
		{"spaces", "a, 1 , 2\n", "[a]"},
		{"a word", "id,x\na,1\nb,x\n", `:3: field 2: "x" is not a number`},
		{"fields", "a,1,2\nb,3\n", ":2: 2 fields, want an id and 2 values"},
		{"an id alone", "a\n", ":1: an id alone, want an id and its values"},
		{"twice", "a,1\na,2\n", `:2: id "a" already has a vector on line 1`},
		{"quote", "a,1\n\"b,2\n", `:2: byte 6: extraneous or missing " in quoted-field`},
		{"header only", "id,0,1\n", `: no rows, want lines of an id and its values separated by ','`},
		{"empty", "", `: no rows, want lines of an id and its values separated by ','`},
	} {
		p := filepath.Join(dir, tc.name+".csv")
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		ids, _, err := embfile.ReadDelimited(p, ',')
		got := fmt.Sprint(ids)
		if err != nil {
			got = strings.TrimPrefix(err.Error(), p)
		}
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestReadNonFinite: every reader refuses a NaN or ±Inf by one check,
// naming the file, the row, its id and the column (and for text the
// line); an all-zero row is read as it is.
func TestReadNonFinite(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nan := float32(math.NaN())
	var b bytes.Buffer
	if err := npy.WriteFloat32(&b, []int{3, 2}, []float32{1, 2, 0, 0, 3, nan}); err != nil {
		t.Fatal(err)
	}
	npy32 := write("nan.npy", b.String())
	write("nan.ids.txt", "a\nb\nc\n")
	b.Reset()
	if err := npy.WriteFloat64(&b, []int{3, 2}, []float64{1, 2, math.Inf(-1), 0, 3, 4}); err != nil {
		t.Fatal(err)
	}
	npy64 := write("inf.npy", b.String())
	write("inf.ids.txt", "a\nb\nc\n")
	nodes, err := multiplex.NodesOf([]string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
		line       int
		value      float64
	}{
		{npy32, `nan.npy: row 2 (id "c"), column 1: NaN, want a finite number (an embedding holds no NaN or ±Inf)`, 0, math.NaN()},
		{npy64, `inf.npy: row 1 (id "b"), column 0: -Inf, want a finite number`, 0, math.Inf(-1)},
		{write("nan.txt", "3 2\na 1 2\n\nb 0 0\nc 3 NaN\n"), `nan.txt:5: row 2 (id "c"), column 1: NaN, want a finite number`, 5, math.NaN()},
		{write("inf.txt", "3 2\na 1 2\nb +Inf 0\nc 3 4\n"), `inf.txt:3: row 1 (id "b"), column 0: +Inf, want a finite number`, 3, math.Inf(1)},
		{write("nan.csv", "id,0,1\na,1,2\nb,0,0\nc,3,nan\n"), `nan.csv:4: row 2 (id "c"), column 1: NaN, want a finite number`, 4, math.NaN()},
		{write("nan.tsv", "a\t1\t2\nb\tinf\t0\nc\t3\t4\n"), `nan.tsv:2: row 1 (id "b"), column 0: +Inf, want a finite number`, 2, math.Inf(1)},
	} {
		_, _, err := embfile.Read(tc.path, nodes, embfile.ReadOptions{})
		_, _, _, errV := embfile.ReadVectors(tc.path, "")
		for _, err := range []error{err, errV} {
			var nf *embfile.NonFiniteError
			if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, tc.want)) {
				t.Errorf("err = %v, want %s", err, tc.want)
			} else if !errors.As(err, &nf) || nf.Line != tc.line || fmt.Sprint(nf.Value) != fmt.Sprint(tc.value) {
				t.Errorf("%s: %#v", tc.path, err)
			}
		}
	}
	// The text readers themselves, and Check.
	if _, _, err := embfile.ReadWord2Vec(filepath.Join(dir, "nan.txt")); err == nil {
		t.Error("ReadWord2Vec: NaN read")
	}
	if _, _, err := embfile.ReadDelimited(filepath.Join(dir, "nan.csv"), ','); err == nil {
		t.Error("ReadDelimited: NaN read")
	}
	if err := embfile.Check("m", []string{"a", "b"}, []float64{0, 0, 1, math.Inf(1)}, 2); err == nil || err.Error() != `m: row 1 (id "b"), column 1: +Inf, want a finite number (an embedding holds no NaN or ±Inf)` {
		t.Errorf("Check: %v", err)
	}
	// A zero row passes.
	y, d, err := embfile.Read(write("zero.txt", "3 2\na 1 2\nb 0 0\nc 3 4\n"), nodes, embfile.ReadOptions{})
	if err != nil || d != 2 || y[2] != 0 || y[3] != 0 {
		t.Errorf("zero row: %v %d %v", y, d, err)
	}
}

// TestReadWord2VecLineTooLong: a line past the limit is refused naming
// the file, the line and the limit, not as bufio.Scanner's "token too
// long".
func TestReadWord2VecLineTooLong(t *testing.T) {
	old := *embfile.MaxLineBytes
	*embfile.MaxLineBytes = 1000
	t.Cleanup(func() { *embfile.MaxLineBytes = old })
	p := filepath.Join(t.TempDir(), "long.txt")
	if err := os.WriteFile(p, []byte("2 1\na 1\nb "+strings.Repeat("1", 1000)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := embfile.ReadWord2Vec(p)
	if want := p + ":3: line longer than 1000 bytes, the most a line may hold (a binary file given for a text one?)"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// An .npy that is not a float embedding is refused by its header, before
// its data are read: a uint8 array (packed codes) whose header claims 10⁹
// values in a file of a few bytes is called by its dtype, not truncated
// nor allocated.
func TestReadNPYRefusedByHeader(t *testing.T) {
	for _, tc := range []struct{ descr, shape, want string }{
		{"|u1", "(100000, 10000)", "dtype |u1, want a float embedding"},
		{"<f4", "(100000,)", "want a 2-D n×d array"},
	} {
		dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", tc.descr, tc.shape)
		pad := 64 - (10+len(dict)+1)%64
		hdr := append([]byte("\x93NUMPY\x01\x00"), byte(len(dict)+pad+1), 0)
		hdr = append(hdr, dict...)
		hdr = append(hdr, bytes.Repeat([]byte(" "), pad)...)
		hdr = append(hdr, '\n', 1, 2, 3)
		path := filepath.Join(t.TempDir(), "x.npy")
		if err := os.WriteFile(path, hdr, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, _, err := embfile.ReadPartial(path, nil, embfile.ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: err = %v, want %q", tc.descr, tc.shape, err, tc.want)
		}
	}
}
