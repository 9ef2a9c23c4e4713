package multiplex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
	"github.com/dpmne/dpmne/npy"
)

// TestLoadRefusals: input the loaders once took, or refused without
// saying where, is refused with the file, the line (or the matrix entry)
// and the field.
func TestLoadRefusals(t *testing.T) {
	f64 := func(shape []int, v []float64) string {
		return npyBytes(t, func(b *bytes.Buffer) error { return npy.WriteFloat64(b, shape, v) })
	}
	dedo := func(edges, nodes string) map[string]string {
		return map[string]string{
			"manifest.json": `{"format":"multiplex-edges","edges":"e.edges","nodes":"n.txt","label_column":"c"}`,
			"e.edges":       edges, "n.txt": nodes,
		}
	}
	native := func(files map[string]string) map[string]string {
		if _, ok := files["manifest.json"]; !ok {
			files["manifest.json"] = `{"labels":"l.txt","views":[{"name":"v","edges":"e.txt"}]}`
		}
		if _, ok := files["l.txt"]; !ok {
			files["l.txt"] = "a x\n"
		}
		return files
	}
	linqs := func(content, cites string) map[string]string {
		return map[string]string{"manifest.json": `{"format":"linqs","content":"c","cites":"e"}`, "c": content, "e": cites}
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // in the error, after the directory
	}{
		// De Domenico: ids are integers.
		{"multiplex edges, node id", dedo("1 1 2\n1 2 x 1\n", "id c\n1 a\n2 b\n"), []string{"e.edges:2: field 3", `node id "x" is not an integer`}},
		{"multiplex edges, first node id", dedo("1 1.5 2\n", "id c\n1 a\n"), []string{"e.edges:1: field 2", `node id "1.5" is not an integer`}},
		{"manifest, a key twice", map[string]string{"manifest.json": "{\"views\": [\n{\"name\": \"v\", \"edges\": \"e.txt\",\n \"edges\": \"f.txt\"}]}", "e.txt": "a b\n", "f.txt": "a b\n"},
			[]string{"manifest.json:3: key \"edges\" given twice in \"views[0]\": keep one (a JSON reader keeps either)"}},
		{"manifest, a key twice but for case", map[string]string{"manifest.json": `{"Name": "x", "name": "y", "views": [{"name": "v", "edges": "e.txt"}]}`, "e.txt": "a b\n"},
			[]string{`manifest.json:1: keys "Name" and "name", which name one field (case is ignored), both given in the top-level object: keep one`}},
		{"a view that observes no node", map[string]string{"manifest.json": `{"views": [{"name": "v", "edges": "e.txt"}, {"name": "w", "edges": "w.txt"}]}`, "e.txt": "a b\n", "w.txt": "# none\n"},
			[]string{`w.txt: view "w" observes no node: nothing in `, `w.txt names one (comments and blank lines only?): give the view data, or drop it from the manifest`}},
		{"multiplex layers file, a layer without edges", map[string]string{
			"manifest.json": `{"format":"multiplex-edges","edges":"e.edges","layers":"l.txt"}`,
			"e.edges":       "1 1 2\n", "l.txt": "id name\n1 a\n2 b\n"}, []string{`e.edges: no edge in layer 2, which `, `l.txt names "b": a view observes the nodes its edges name (drop the layer from `}},
		{"multiplex edges, negative node id", dedo("1 1 2\n1 -1 2 1\n", "id c\n1 a\n2 b\n"), []string{"e.edges:2: field 2", "node id -1 is negative: want an integer from 0"}},
		{"multiplex edges, negative layer id", dedo("-1 1 2\n", "id c\n1 a\n2 b\n"), []string{"e.edges:1: field 1", "layer id -1 is negative: want an integer from 0"}},
		{"multiplex edges, 20-digit layer id", dedo("99999999999999999999 1 2\n", "id c\n1 a\n2 b\n"), []string{"e.edges:1: field 1", `layer id "99999999999999999999" is too large: want an integer from 0 to 9223372036854775807`}},
		{"multiplex layers file, negative id", map[string]string{
			"manifest.json": `{"format":"multiplex-edges","edges":"e.edges","layers":"l.txt"}`,
			"e.edges":       "1 1 2\n", "l.txt": "id name\n-1 a\n"}, []string{"l.txt:2: field 1", "layer id -1 is negative"}},
		{"multiplex nodes file, negative id", dedo("1 1 2\n", "id c\n1 a\n-2 b\n2 b\n"), []string{"n.txt:3: field 1", "node id -2 is negative"}},
		{"multiplex nodes file, node id", dedo("1 1 2\n", "id c\n1 a\nzz b\n2 b\n"), []string{"n.txt:3: field 1", `node id "zz" is not an integer`}},
		{"multiplex nodes file, same id twice", dedo("1 1 2\n", "id c\n1 a\n01 b\n2 b\n"), []string{"n.txt:3: field 1", "node id 1 appears twice (first on line 2)"}},
		{"multiplex nodes file, node without line", dedo("1 1 2\n1 2 3\n", "id c\n1 a\n2 b\n"), []string{"n.txt: node 3, named by ", "e.edges:2, has no line"}},
		{"multiplex nodes file, label not UTF-8", dedo("1 1 2\n", "id c\n1 a\n2 \xff\n"), []string{"n.txt:3: field 2", `label "\xff" is not valid UTF-8 (byte 1)`}},
		{"multiplex layers file, name with NUL", map[string]string{
			"manifest.json": `{"format":"multiplex-edges","edges":"e.edges","layers":"l.txt"}`,
			"e.edges":       "1 1 2\n", "l.txt": "id name\n1 a\x00b\n"}, []string{"l.txt:2: field 2", `layer name "a\x00b" holds a NUL byte (byte 2)`}},
		{"multiplex label ranges overlap", map[string]string{
			"manifest.json": `{"format":"multiplex-edges","edges":"e.edges","label_ranges":[{"from":1,"to":2,"label":"a"},{"from":2,"to":3,"label":"b"}]}`,
			"e.edges":       "1 1 2\n"}, []string{"e.edges: node 2 is in two label ranges, [1, 2] (label \"a\") and [2, 3] (label \"b\")"}},
		// Native text: ids and classes are UTF-8 without NUL.
		{"edge id with NUL", native(map[string]string{"e.txt": "a b\nb\x00 c\n"}), []string{"e.txt:2: field 1", `node id "b\x00" holds a NUL byte (byte 2)`}},
		{"edge id not UTF-8", native(map[string]string{"e.txt": "a b\nb c\xc3\n"}), []string{"e.txt:2: field 2", `node id "c\xc3" is not valid UTF-8 (byte 2)`}},
		{"nodes file id not UTF-8", native(map[string]string{
			"manifest.json": `{"nodes":"n.txt","views":[{"name":"v","edges":"e.txt"}]}`,
			"n.txt":         "a\n\xfe\n", "e.txt": "a b\n"}), []string{"n.txt:2: field 1", `node id "\xfe" is not valid UTF-8`}},
		{"label id with NUL", native(map[string]string{"l.txt": "\x00 x\n", "e.txt": "a b\n"}), []string{"l.txt:1: field 1", "holds a NUL byte"}},
		{"class not UTF-8", native(map[string]string{"l.txt": "a x \xff\n", "e.txt": "a b\n"}), []string{"l.txt:1: field 3", `class "\xff" is not valid UTF-8`}},
		{"feature id with NUL", native(map[string]string{
			"manifest.json": `{"views":[{"name":"v","features":"f.txt","knn":1}]}`,
			"f.txt":         "a 0:1\nb\x00 0:2\n"}), []string{"f.txt:2: field 1", "NUL byte"}},
		// LINQS.
		{"linqs paper id not UTF-8", linqs("1 0 1 A\n\xff 1 0 B\n", "1 1\n"), []string{"c:2: field 1", `paper id "\xff" is not valid UTF-8`}},
		{"linqs class with NUL", linqs("1 0 1 A\n2 1 0 B\x00\n", "1 2\n"), []string{"c:2: field 4", `class label "B\x00" holds a NUL byte`}},
		{"linqs attribute NaN", linqs("1 0 1 A\n2 NaN 0 B\n", "1 2\n"), []string{"c:2: field 2", `attribute "NaN" is not a finite number`}},
		{"linqs attribute Inf", linqs("1 0 inf A\n", "1 1\n"), []string{"c:1: field 3", `attribute "inf" is not a finite number`}},
		// Non-finite matrix values, or values past float32's range,
		// named by file and entry.
		{"npy feature past float32", map[string]string{
			"manifest.json": `{"views":[{"name":"v","features":"f.npy","knn":1}]}`,
			"f.npy":         f64([]int{2, 2}, []float64{1, 0, 0, 1e300})}, []string{"f.npy: entry (1, 1) is 1e+300, beyond float32's range"}},
		{"npy feature NaN", map[string]string{
			"manifest.json": `{"views":[{"name":"v","features":"f.npy","knn":1}]}`,
			"f.npy":         f64([]int{2, 2}, []float64{1, math.NaN(), 0, 1})}, []string{"f.npy: entry (0, 1) is NaN, want a finite number"}},
		{"npz feature Inf", map[string]string{
			"manifest.json": `{"views":[{"name":"v","features":"f.npz","knn":1}]}`,
			"f.npz":         npzBytes(t, "coo", 2, 2, map[string][]int64{"row": {0, 1}, "col": {0, 1}}, []float64{1, math.Inf(-1)})}, []string{"f.npz: entry (1, 1) is -Inf, want a finite number"}},
		{"npz feature sum past float32", map[string]string{
			"manifest.json": `{"views":[{"name":"v","features":"f.npz","knn":1}]}`,
			"f.npz":         npzBytes(t, "coo", 2, 2, map[string][]int64{"row": {0, 1, 1}, "col": {0, 1, 1}}, []float64{1, 3e38, 3e38})}, []string{"f.npz: entry (1, 1): the values stored for it sum past float32's range"}},
		{"mat sparse feature NaN", map[string]string{
			"manifest.json": `{"views":[{"name":"v","features":"x.mat:S","knn":1}]}`,
			"x.mat":         matBytes(matVar{name: "S", sparse: true, dims: []int{2, 2}, ir: []int{0, 1}, jc: []int{0, 1, 2}, re: []float64{1, math.NaN()}})}, []string{"x.mat:S: entry (1, 1) is NaN, want a finite number"}},
	} {
		dir := testenv.WriteFiles(t, tc.files)
		_, err := Load(dir, "")
		if err == nil {
			t.Errorf("%s: loaded", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: err = %q, want %q", tc.name, err, w)
			}
		}
	}
}

// TestLineTooLong: a line past the limit is refused naming the file, the
// line and the limit, not as bufio.Scanner's "token too long".
func TestLineTooLong(t *testing.T) {
	old := maxLineBytes
	maxLineBytes = 1 << 20
	t.Cleanup(func() { maxLineBytes = old })
	dir := testenv.WriteFiles(t, map[string]string{"e.edges": "a b\nb c\n" + strings.Repeat("x", 1<<20+1) + " y\n"})
	_, err := Load(filepath.Join(dir, "e.edges"), "")
	want := filepath.Join(dir, "e.edges") + ":3: line longer than 1 MiB, the most a line may hold (a binary file given for a text one?)"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want %s", err, want)
	}
	if err != nil && strings.Contains(err.Error(), "token too long") {
		t.Errorf("err = %v", err)
	}
}

// TestMultiplexEdgesCanonicalIDs: integer node ids are read as numbers,
// "01" and "1" being one node, as the nodes file reads them.
func TestMultiplexEdgesCanonicalIDs(t *testing.T) {
	dir := testenv.WriteFiles(t, map[string]string{"e.edges": "1 01 2\n1 1 +3\n2 2 3\n", "n.txt": "id c\n1 a\n2 b\n3 a\n"})
	net, err := LoadMultiplexEdges(filepath.Join(dir, "e.edges"), MultiplexEdgesOptions{Nodes: filepath.Join(dir, "n.txt"), LabelColumn: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(net.Nodes.IDs(), " "); got != "1 2 3" {
		t.Errorf("nodes %q, want \"1 2 3\"", got)
	}
}

// TestValidateNonFinite: a non-finite feature in a network built in
// memory is named by its view, entry and node.
func TestValidateNonFinite(t *testing.T) {
	net, err := Load(testenv.WriteFiles(t, tinyFiles(t)), "")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := net.View("friends")
	v.Features.Val[len(v.Features.Val)-1] = float32(math.Inf(1))
	err = net.Validate()
	want := `view "friends": features entry (1, 1) (node "b") is +Inf, want a finite number`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

// TestResolveNotManifest: a matrix file given where a data set is wanted
// is refused by what it is, and a text file that is not an edge list
// either is refused at its line, both with the inputs that are accepted
// and a minimal manifest, rather than with a JSON syntax error; a text
// file that is an edge list loads (TestEdgeList).
func TestResolveNotManifest(t *testing.T) {
	dir := testenv.WriteFiles(t, map[string]string{
		"x.mat": "MATLAB 5.0 MAT-file", "x.npz": "PK\x03\x04", "x.npy": "\x93NUMPY", "zipped": "PK\x03\x04",
		"mat":       "MATLAB 5.0 MAT-file, Platform: GLNXA64",
		"x.content": "1 0 1 0 1 A\n", "x.csv": "a,b,c,d,e\n", "data": "{x}", "blank": "# only a comment\n",
		"binary":      "\x00\x01\x02 \xff\xfe\n",
		"bad.json":    "{\"name\": ",
		"other/x.txt": "a b\n",
	})
	for _, tc := range []struct {
		file string
		want string
	}{
		{"x.mat", "x.mat: a MAT-file, not a manifest; give a named data set (aarhus, acm, "},
		{"mat", "mat: a MAT-file, not a manifest; give a named data set (aarhus, acm, "},
		{"x.npz", "x.npz: a NumPy .npz archive, not a manifest; give a named data set"},
		{"zipped", "zipped: a zip archive, not a manifest; give a named data set"},
		{"x.npy", "x.npy: a NumPy .npy array, not a manifest"},
		{"x.content", "x.content:1: 6 fields, want an edge list's <src> <dst> [weight] or <layer> <src> <dst> [weight]; read as an edge list, as it is not a JSON manifest (which starts with '{'); docs/formats.md describes"},
		{"x.csv", "x.csv:1: 5 fields, want an edge list's"},
		{"blank", "blank: no edge lines, only blank or comment lines; read as an edge list"},
		{"binary", "binary:1: field 1: node id \"\\x00\\x01\\x02\" holds a NUL byte (byte 1); read as an edge list"},
		{"other", "other: a directory without manifest.json; give a named data set"},
		{"bad.json", "bad.json:1: truncated JSON"}, // a manifest, broken
		{"data", "data:1: invalid JSON"},           // starts as one
	} {
		_, err := Load(filepath.Join(dir, tc.file), "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.file, err, tc.want)
			continue
		}
		if !strings.HasSuffix(tc.file, "json") && tc.file != "data" {
			// One line pointing to the formats, not their description.
			if !strings.HasSuffix(err.Error(), formatsPointer) || strings.Contains(err.Error(), MinimalManifest) || len(err.Error()) > 400 {
				t.Errorf("%s: err = %v (%d bytes), want it to end with %q", tc.file, err, len(err.Error()), formatsPointer)
			}
		}
	}
	if _, err := ParseManifest("minimal.json", []byte(MinimalManifest)); err != nil {
		t.Errorf("MinimalManifest: %v", err)
	}
}

// TestManifestTooLarge: ReadManifest reads at most MaxManifestSize bytes.
func TestManifestTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.json")
	if err := os.WriteFile(p, bytes.Repeat([]byte(" "), MaxManifestSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadManifest(p)
	if err == nil || !strings.Contains(err.Error(), "m.json: more than 16 MiB: too large for a manifest") {
		t.Errorf("err = %v", err)
	}
}

// TestProcFile: a file whose Stat size is 0 but that has data, such as
// /proc/self/environ, is read (here refused for its NUL bytes) rather than
// called empty.
func TestProcFile(t *testing.T) {
	const p = "/proc/self/environ"
	if b, err := os.ReadFile(p); err != nil || len(b) == 0 || !bytes.Contains(b, []byte{0}) {
		t.Skip("no /proc/self/environ with variables")
	}
	dir := testenv.WriteFiles(t, map[string]string{"manifest.json": `{"nodes":"` + p + `","views":[{"name":"v","edges":"e.txt"}]}`, "e.txt": "a b\n"})
	_, err := Load(dir, "")
	if err == nil || strings.Contains(err.Error(), "empty") || !strings.Contains(err.Error(), p+":1: field 1") || !strings.Contains(err.Error(), "holds a NUL byte") {
		t.Errorf("err = %v, want %s:1: field 1 …: holds a NUL byte", err, p)
	}
}

// edgeFile writes a generated edge list of lines "<i> <i+1>" into dir and
// returns its manifest directory.
func edgeFile(t *testing.T, lines int) string {
	t.Helper()
	var b bytes.Buffer
	for i := range lines {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteByte('\n')
	}
	return testenv.WriteFiles(t, map[string]string{
		"manifest.json": `{"views":[{"name":"v","edges":"e.txt"}]}`,
		"e.txt":         b.String(),
	})
}

// cancelInLines is a context cancelled at the first look at its Err from
// a line reader in the middle of a file (lineReader.next, which looks
// every checkEveryLines lines), so that a load stops there however often
// the loader looks before and between its files.
type cancelInLines struct {
	context.Context
	cancel context.CancelFunc
}

func (c *cancelInLines) Err() error {
	var pc [1]uintptr
	runtime.Callers(2, pc[:]) // Err's caller
	if f, _ := runtime.CallersFrames(pc[:]).Next(); strings.HasSuffix(f.Function, ".(*lineReader).next") {
		c.cancel()
	}
	return c.Context.Err()
}

// TestLoadContextCanceled: a load of a large generated edge file stops
// once its context is cancelled, in the middle of the file, with an error
// that wraps context.Canceled and names the line it stopped at; a context
// cancelled before the load stops every format before its first file.
func TestLoadContextCanceled(t *testing.T) {
	const lines = 200000
	dir := edgeFile(t, lines)
	ctx := &cancelInLines{}
	ctx.Context, ctx.cancel = context.WithCancel(context.Background())
	defer ctx.cancel()
	_, err := LoadContext(ctx, dir, "")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want it to wrap context.Canceled", err)
	}
	m := regexp.MustCompile(`loading stopped at .*e\.txt:(\d+): context canceled`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("err = %v, want it to name the line it stopped at", err)
	}
	if line, _ := strconv.Atoi(m[1]); line >= lines {
		t.Errorf("stopped at line %d of %d, want before the end", line, lines)
	}

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, files := range []map[string]string{
		{"manifest.json": `{"nodes":"n.txt","views":[{"name":"v","edges":"e.txt"}]}`, "n.txt": "a\nb\n", "e.txt": "a b\n"},
		{"manifest.json": `{"format":"linqs","content":"c","cites":"e"}`, "c": "1 0 1 A\n", "e": "1 1\n"},
		{"manifest.json": `{"format":"multiplex-edges","edges":"e"}`, "e": "1 1 2\n"},
	} {
		dir := testenv.WriteFiles(t, files)
		if _, err := LoadContext(cancelled, dir, ""); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want it to wrap context.Canceled", files["manifest.json"], err)
		}
		m, err := ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Bounds(cancelled); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Bounds: err = %v, want nil or context.Canceled", files["manifest.json"], err)
		}
	}
}

// TestLineReaderStops: the line reader looks at its context every
// checkEveryLines lines, or every checkEveryBytes bytes of long lines.
func TestLineReaderStops(t *testing.T) {
	for _, tc := range []struct {
		line string
		max  int // lines read, at most, after the cancellation
	}{
		{"a b\n", checkEveryLines},
		{strings.Repeat("x", 100000) + "\n", checkEveryBytes/100000 + 1},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := strings.NewReader(strings.Repeat(tc.line, 2*tc.max+10))
		lr := newLineReader(ctx, "gen", r, true)
		n := 0
		for lr.next() {
			n++
		}
		if n > tc.max || !errors.Is(lr.err(), context.Canceled) {
			t.Errorf("line of %d bytes: read %d lines, err %v; want at most %d and context.Canceled", len(tc.line), n, lr.err(), tc.max)
		}
	}
}

// TestBounds: the bounds Bounds reads from headers, and none from claims
// nothing holds (the forged files of TestForgedShapes).
func TestBounds(t *testing.T) {
	csr := npzBytes(t, "csr", 6, 40, map[string][]int64{"indices": {0, 39}, "indptr": {0, 1, 1, 1, 1, 1, 2}}, []float64{1, 2})
	coo := npzBytes(t, "coo", g, g, map[string][]int64{"row": {0, 1, 2}, "col": {1, 2, 0}}, []float64{1, 1, 1})
	wide := npzBytes(t, "coo", 3, g, map[string][]int64{"row": {0, 1, 2}, "col": {1, 0, 1}}, []float64{1, 1, 1})
	empty := npyBytes(t, func(b *bytes.Buffer) error { return npy.WriteFloat32(b, []int{g, 0}, nil) })
	short := npyBytes(t, func(b *bytes.Buffer) error { return npy.WriteFloat32(b, []int{7, 2}, make([]float32, 14)) })
	short = short[:len(short)-4] // claims 7 rows, holds 6½
	labels := npyBytes(t, func(b *bytes.Buffer) error { return npy.WriteInt64(b, []int{9}, make([]int64, 9)) })
	// A csr matrix whose indptr claims an entry per row, 16 GB, in 32
	// bytes (the 851-byte e.npz).
	forged := npzMembers(t, "csr", g, g, map[string][]int64{"indices": {0, 1, 2}}, []float64{1, 1, 1})
	forged["indptr"] = rawNPY(fmt.Sprintf("{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }", g+1), make([]byte, 32))
	for _, tc := range []struct {
		name  string
		files map[string]string
		nodes int
		cols  []int // per view; -1 for no features
	}{
		{"tiny", tinyFiles(t), 4, []int{4, -1, 3}},
		{"csr features", map[string]string{"manifest.json": `{"views":[{"name":"v","features":"f.npz","knn":1}]}`, "f.npz": csr}, 6, []int{40}},
		{"labels npy", map[string]string{"manifest.json": `{"labels":"l.npy","views":[{"name":"v","edges":"e.npz"}]}`, "l.npy": labels, "e.npz": coo}, 9, []int{-1}},
		{"forged coo", map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"e.npz"}]}`, "e.npz": coo}, 0, []int{-1}},
		{"forged indptr", map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"e.npz"}]}`, "e.npz": zipBytes(t, forged)}, 0, []int{-1}},
		{"forged width", map[string]string{"manifest.json": `{"views":[{"name":"v","features":"f.npz"}]}`, "f.npz": wide}, 0, []int{0}},
		{"forged width allowed", map[string]string{"manifest.json": `{"views":[{"name":"v","features":"f.npz","feature_dim":2000000000}]}`, "f.npz": wide}, 0, []int{g}},
		{"npy without columns", map[string]string{"manifest.json": `{"views":[{"name":"v","features":"f.npy"}]}`, "f.npy": empty}, 0, []int{0}},
		{"truncated npy", map[string]string{"manifest.json": `{"views":[{"name":"v","features":"f.npy"}]}`, "f.npy": short}, 0, []int{2}},
		{"text edges", map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"e.txt"}]}`, "e.txt": "a b\n"}, 0, []int{-1}},
		{"linqs", map[string]string{"manifest.json": `{"format":"linqs","content":"c","cites":"e"}`, "c": "1 0 1 0 A\n2 1 0 0 B\n", "e": "1 2\n"}, 2, []int{-1, 3}},
		{"multiplex edges", map[string]string{"manifest.json": `{"format":"multiplex-edges","edges":"e","layers":"l"}`, "e": "1 1 2\n", "l": "id name\n1 a\n2 b\n"}, 0, []int{-1}},
	} {
		m, err := ReadManifest(testenv.WriteFiles(t, tc.files))
		if err != nil {
			t.Fatal(err)
		}
		var b *Bounds
		n := testenv.Allocated(func() { b, err = m.Bounds(context.Background()) })
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if n > testenv.MaxForgedAlloc {
			t.Errorf("%s: allocated %d bytes, want at most %d", tc.name, n, testenv.MaxForgedAlloc)
		}
		var cols []int
		for _, v := range b.Views {
			c := v.FeatureCols
			if !v.Features {
				c = -1
			}
			cols = append(cols, c)
		}
		if b.Nodes != tc.nodes || fmt.Sprint(cols) != fmt.Sprint(tc.cols) {
			t.Errorf("%s: %d nodes (%s), feature columns %v; want %d, %v", tc.name, b.Nodes, b.NodesFrom, cols, tc.nodes, tc.cols)
		}
	}
}

// TestBoundsNamed: on every named data set present, the bounds hold for
// the loaded network.
func TestBoundsNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("loads every named data set")
	}
	dir := testenv.DataDir(t)
	for _, name := range Names() {
		m, _ := Named(name, dir)
		b, err := m.Bounds(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		net, err := m.Load()
		if err != nil {
			t.Logf("%s: %v", name, err) // not fetched
			continue
		}
		if b.Nodes > net.N() || len(b.Views) > len(net.Views) {
			t.Errorf("%s: bounds %d nodes, %d views; loaded %d, %d", name, b.Nodes, len(b.Views), net.N(), len(net.Views))
			continue
		}
		for s, v := range net.Views[:len(b.Views)] {
			if b.Views[s].Features != (v.Features != nil) || v.Features != nil && b.Views[s].FeatureCols > v.Features.Cols {
				t.Errorf("%s: view %s: bounds %+v, loaded %d feature columns", name, v.Name, b.Views[s], v.FeatureMatrix().Cols)
			}
		}
		t.Logf("%s: at least %d of %d nodes (%s)", name, b.Nodes, net.N(), b.NodesFrom)
	}
}
