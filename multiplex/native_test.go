package multiplex

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
	"github.com/dpmne/dpmne/npy"
	"github.com/dpmne/dpmne/sparse"
)

func npyBytes(t *testing.T, write func(*bytes.Buffer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// tinyFiles is a valid three-view native data set: text edges with weights
// and CRLF endings, sparse text features, an explicit observed list, a dense
// .npy feature matrix with an id list, and multi-word labels.
func tinyFiles(t *testing.T) map[string]string {
	return map[string]string{
		"manifest.json": `{
  "name": "tiny",
  "nodes": "nodes.txt",
  "labels": "labels.txt",
  "views": [
    {"name": "friends", "edges": "friends.edges", "features": "friends.feat", "feature_dim": 4},
    {"name": "work", "edges": "work.edges", "observed": "work.observed"},
    {"name": "profile", "features": "profile.npy", "feature_ids": "profile.ids", "knn": 1}
  ]
}`,
		"nodes.txt":     "# ids\na\nb\nc\nd\n",
		"labels.txt":    "a x\r\nb y\r\nc x\r\n",
		"friends.edges": "a b\r\nb c 2.5\r\nb a\r\nc c\r\n",
		"friends.feat":  "a 0:1 3:2\nb 1:1\nc\n",
		"work.edges":    "# u v\nc d\n",
		"work.observed": "c\nd\nb\n",
		"profile.ids":   "d\na\n",
		"profile.npy": npyBytes(t, func(b *bytes.Buffer) error {
			return npy.WriteFloat32(b, []int{2, 3}, []float32{1, 0, 2, 0, 1, 1})
		}),
	}
}

func TestNativeLoad(t *testing.T) {
	dir := testenv.WriteFiles(t, tinyFiles(t))
	net, err := Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := net.Nodes.IDs(); !reflect.DeepEqual(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("ids %v", got)
	}
	fr, _ := net.View("friends")
	// a-b given both ways merges to one edge, c-c is a dropped self-loop.
	if fr.NumEdges() != 2 || fr.Adj.At(1, 2) != 2.5 || fr.Adj.At(2, 1) != 2.5 {
		t.Errorf("friends: %d edges, b-c weight %v; want 2, 2.5", fr.NumEdges(), fr.Adj.At(1, 2))
	}
	if want := []bool{true, true, true, false}; !reflect.DeepEqual(fr.Observed, want) {
		t.Errorf("friends observed %v, want %v", fr.Observed, want)
	}
	if fr.Features.Cols != 4 || fr.Features.At(0, 3) != 2 || fr.Features.RowNNZ(2) != 0 {
		t.Errorf("friends features wrong: %+v", fr.Features)
	}
	wk, _ := net.View("work")
	if want := []bool{false, true, true, true}; !reflect.DeepEqual(wk.Observed, want) {
		t.Errorf("work observed %v, want %v (b listed without edges)", wk.Observed, want)
	}
	pr, _ := net.View("profile")
	if want := []bool{true, false, false, true}; !reflect.DeepEqual(pr.Observed, want) {
		t.Errorf("profile observed %v, want %v", pr.Observed, want)
	}
	// Row 0 of profile.npy belongs to d (index 3), row 1 to a.
	if pr.Features.At(3, 0) != 1 || pr.Features.At(3, 2) != 2 || pr.Features.At(0, 1) != 1 {
		t.Errorf("profile features not placed by feature_ids")
	}
	if pr.NumEdges() != 1 {
		t.Errorf("profile kNN edges %d, want 1 (a-d)", pr.NumEdges())
	}
	if net.Labels.Class[3] != -1 || net.Labels.Names[net.Labels.Class[1]] != "y" {
		t.Errorf("labels %+v", net.Labels)
	}
}

// TestNativeRoundTrip writes a loaded network and reads it back unchanged.
func TestNativeRoundTrip(t *testing.T) {
	net, err := Load(testenv.WriteFiles(t, tinyFiles(t)), "")
	if err != nil {
		t.Fatal(err)
	}
	part, err := Partial(net, 0.25, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	for _, orig := range []*Network{net, part} {
		dir := t.TempDir()
		if err := WriteNative(orig, dir); err != nil {
			t.Fatal(err)
		}
		back, err := Load(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Nodes.IDs(), orig.Nodes.IDs()) || !reflect.DeepEqual(back.Labels, orig.Labels) {
			t.Fatalf("ids or labels differ after round trip")
		}
		for k, v := range orig.Views {
			b := back.Views[k]
			if !reflect.DeepEqual(v.Observed, b.Observed) || !equalCSR(v.Adj, b.Adj) || !equalCSR(v.Features, b.Features) {
				t.Errorf("view %s differs after round trip:\n%v %+v %+v\n%v %+v %+v", v.Name, v.Observed, v.Adj, v.Features, b.Observed, b.Adj, b.Features)
			}
		}
	}
}

func TestNativeMultiLabel(t *testing.T) {
	files := tinyFiles(t)
	files["labels.txt"] = "a x y\nb y\n"
	net, err := Load(testenv.WriteFiles(t, files), "")
	if err != nil {
		t.Fatal(err)
	}
	if net.Labels.Multi == nil || len(net.Labels.Multi[0]) != 2 || net.Labels.Multi[2] != nil {
		t.Errorf("multi-label %+v", net.Labels.Multi)
	}
	// Node a is x first and y too, b is y: x is 1 node's first class and
	// 1 node's at all, y 1 node's first and 2 nodes' at all.
	s := Summarize(net)
	want := []ClassCount{{Name: "x", Count: 1, Any: 1}, {Name: "y", Count: 1, Any: 2}}
	if !s.MultiLabel || !slices.Equal(s.Classes, want) {
		t.Errorf("summary: multi-label %v, classes %+v, want %+v", s.MultiLabel, s.Classes, want)
	}
}

// TestNativeNodeObservedNowhere: a node listed in nodes.txt with no edge,
// feature row or observed entry in any view is kept (it carries nothing),
// counted by NumUnobserved and Summarize, written and read back.
func TestNativeNodeObservedNowhere(t *testing.T) {
	files := tinyFiles(t)
	files["nodes.txt"] = "a\nb\nc\nd\ne\n"
	net, err := Load(testenv.WriteFiles(t, files), "")
	if err != nil {
		t.Fatal(err)
	}
	if net.N() != 5 || net.NumUnobserved() != 1 {
		t.Fatalf("%d nodes, %d unobserved; want 5, 1 (e)", net.N(), net.NumUnobserved())
	}
	if s := Summarize(net); s.Unobserved != 1 {
		t.Errorf("summary: %d unobserved, want 1", s.Unobserved)
	}
	pat := net.ViewPatterns()
	if pat[4] != 0 || net.PatternName(pat[4]) != "none" {
		t.Errorf("node e: pattern %b (%s), want 0 (none)", pat[4], net.PatternName(pat[4]))
	}
	part, err := Partial(net, 0.25, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	// Partial keeps every node observed somewhere in net observed
	// somewhere: e stays the one node in no view.
	if part.NumUnobserved() != 1 {
		t.Errorf("partial: %d unobserved, want 1", part.NumUnobserved())
	}
	dir := t.TempDir()
	if err := WriteNative(net, dir); err != nil {
		t.Fatal(err)
	}
	back, err := Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if back.N() != 5 || back.NumUnobserved() != 1 {
		t.Errorf("read back: %d nodes, %d unobserved; want 5, 1", back.N(), back.NumUnobserved())
	}
}

// TestNativeIgnoreDiagonal: with "ignore_diagonal" a self-loop does not make
// its node observed (a matrix with every diagonal entry set, as HeCo's, and
// a text self-loop); without it, it does. The loop is dropped either way.
func TestNativeIgnoreDiagonal(t *testing.T) {
	// Nodes 0–3: edge 0–1, every diagonal entry set; 2 and 3 have only
	// their loop.
	adj := npyBytes(t, func(b *bytes.Buffer) error {
		return npy.WriteFloat32(b, []int{4, 4}, []float32{
			1, 1, 0, 0,
			1, 1, 0, 0,
			0, 0, 1, 0,
			0, 0, 0, 1,
		})
	})
	for _, c := range []struct {
		ignore bool
		mat    []bool
		text   []bool
	}{
		{false, []bool{true, true, true, true}, []bool{true, true, true, true}},
		{true, []bool{true, true, false, false}, []bool{true, true, true, false}},
	} {
		ig := ""
		if c.ignore {
			ig = `, "ignore_diagonal": true`
		}
		files := map[string]string{
			"manifest.json": `{"views":[{"name":"m","edges":"a.npy"` + ig + `},{"name":"t","edges":"t.edges"` + ig + `}]}`,
			"a.npy":         adj,
			// 2–0 links node 2; 3 has only its loop.
			"t.edges": "0 1\n2 0\n3 3\n0 0\n",
		}
		net, err := Load(testenv.WriteFiles(t, files), "")
		if err != nil {
			t.Fatalf("ignore %v: %v", c.ignore, err)
		}
		m, _ := net.View("m")
		tv, _ := net.View("t")
		if !reflect.DeepEqual(m.Observed, c.mat) || !reflect.DeepEqual(tv.Observed, c.text) {
			t.Errorf("ignore %v: observed %v and %v, want %v and %v", c.ignore, m.Observed, tv.Observed, c.mat, c.text)
		}
		if m.NumEdges() != 1 || m.Adj.CountDiagonal() != 0 || tv.NumEdges() != 2 || tv.Adj.CountDiagonal() != 0 {
			t.Errorf("ignore %v: %d and %d edges, want 1 and 2 and no loops", c.ignore, m.NumEdges(), tv.NumEdges())
		}
		// Node 3 has only loops in both views: observed nowhere when
		// they are ignored.
		if got, want := net.NumUnobserved(), map[bool]int{false: 0, true: 1}[c.ignore]; got != want {
			t.Errorf("ignore %v: %d unobserved, want %d", c.ignore, got, want)
		}
	}
}

// TestNativeErrors checks that each kind of bad input gives an error naming
// the file and the line (or byte offset) and what was expected.
func TestNativeErrors(t *testing.T) {
	good := tinyFiles(t)
	npy3 := npyBytes(t, func(b *bytes.Buffer) error { return npy.WriteFloat32(b, []int{3, 3}, make([]float32, 9)) })
	tests := []struct {
		name   string
		change map[string]string
		want   []string // substrings of the error
	}{
		{"unknown node in edges", map[string]string{"work.edges": "c d\nc zz\n"}, []string{"work.edges:2", "field 2", `"zz"`, "nodes.txt"}},
		{"duplicate node id", map[string]string{"nodes.txt": "# ids\na\nb\na\n"}, []string{"nodes.txt:4", `"a" appears twice (first on line 2)`}},
		{"non-numeric weight", map[string]string{"friends.edges": "a b\nb c heavy\n"}, []string{"friends.edges:2", "field 3", "weight"}},
		{"non-numeric feature", map[string]string{"friends.feat": "a 0:1\nb 1:x\n"}, []string{"friends.feat:2", "field 2", "not a finite number"}},
		{"feature without colon", map[string]string{"friends.feat": "a 0:1 7\n"}, []string{"friends.feat:1", "field 3", "<index>:<value>"}},
		{"feature index beyond dim", map[string]string{"friends.feat": "a 9:1\n"}, []string{"friends.feat:1", "feature_dim"}},
		{"too many edge fields", map[string]string{"work.edges": "c d 1 2\n"}, []string{"work.edges:1", "want <id> <id> [weight]"}},
		{"empty edge file", map[string]string{"work.edges": ""}, []string{"work.edges", "empty"}},
		{"empty nodes file", map[string]string{"nodes.txt": ""}, []string{"nodes.txt", "empty"}},
		{"only comments", map[string]string{"nodes.txt": "# nothing\n"}, []string{"nodes.txt", "no ids"}},
		{"feature rows and ids disagree", map[string]string{"profile.ids": "d\na\nb\n"}, []string{"profile.ids", "3 ids for the 2 feature rows"}},
		{"observed list omits a node with edges", map[string]string{"work.observed": "c\n"}, []string{"work.observed", `"d"`, "not listed as observed", "work.edges:2 names it"}},
		{"observed list omits a node with features", map[string]string{"manifest.json": `{"views":[{"name":"v","features":"friends.feat","feature_dim":4,"observed":"o.txt"}]}`, "o.txt": "a\nc\n"}, []string{"o.txt", `"b"`, "friends.feat:2 names it"}},
		{"missing file", map[string]string{"manifest.json": strings.Replace(good["manifest.json"], "work.edges", "nowhere.edges", 1)}, []string{`view "work"`, "nowhere.edges", "no such file"}},
		{"truncated npy", map[string]string{"profile.npy": good["profile.npy"][:len(good["profile.npy"])-5]}, []string{"profile.npy", "byte", "truncated"}},
		{"npy bad magic", map[string]string{"profile.npy": "NOTNUMPY" + good["profile.npy"][8:]}, []string{"profile.npy", "byte 0"}},
		{"label duplicate", map[string]string{"labels.txt": "a x\na y\n"}, []string{"labels.txt:2", "already labelled on line 1"}},
		{"manifest syntax", map[string]string{"manifest.json": "{\n  \"name\": \"x\",\n  \"views\": [\n}"}, []string{"manifest.json:4", "invalid JSON"}},
		{"manifest unknown field", map[string]string{"manifest.json": `{"name":"x","vews":[]}`}, []string{"manifest.json", `unknown field "vews"`}},
		{"manifest self_loops", map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"work.edges","self_loops":true}]}`}, []string{"manifest.json", `"self_loops": true is no longer read`}},
		{"manifest wrong type", map[string]string{"manifest.json": `{"name":"x","views":[{"name":"v","knn":"three"}]}`}, []string{"manifest.json:1", "knn"}},
		{"manifest empty", map[string]string{"manifest.json": ""}, []string{"manifest.json", "empty"}},
		{"manifest no views", map[string]string{"manifest.json": `{"name":"x"}`}, []string{"manifest.json", "no views"}},
		{"manifest duplicate view", map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"work.edges"},{"name":"v","edges":"work.edges"}]}`}, []string{"manifest.json", `"v" appears twice`}},
		{"labels and features disagree", map[string]string{
			"manifest.json": `{"labels":"labels.npy","views":[{"name":"v","features":"f.npy","knn":1}]}`,
			"labels.npy":    npyBytes(t, func(b *bytes.Buffer) error { return npy.WriteInt64(b, []int{4}, []int64{0, 1, 0, 1}) }),
			"f.npy":         npy3,
		}, []string{"f.npy", "3 rows, want one per node: 4 nodes in", "labels.npy"}},
		{"nonsquare adjacency", map[string]string{
			"manifest.json": `{"views":[{"name":"v","edges":"e.npy"}]}`,
			"e.npy":         npyBytes(t, func(b *bytes.Buffer) error { return npy.WriteFloat32(b, []int{2, 3}, make([]float32, 6)) }),
		}, []string{"e.npy", "2×3", "square"}},
		{"mat without variable", map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"x.mat"}]}`, "x.mat": "MATLAB"}, []string{"x.mat", "file.mat:VAR"}},
		{"truncated mat", map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"x.mat:A"}]}`, "x.mat": "MATLAB 5.0 MAT-file"}, []string{"x.mat"}},
		{"truncated npz", map[string]string{"manifest.json": `{"views":[{"name":"v","edges":"x.npz"}]}`, "x.npz": "PK\x03\x04trunc"}, []string{"x.npz"}},
		{"weights summed past float32", map[string]string{
			"manifest.json": strings.Replace(good["manifest.json"], `"edges": "friends.edges",`, `"edges": "friends.edges", "merge": "sum",`, 1),
			"friends.edges": "a b 3e38\nb a 3e38\n",
		}, []string{"friends.edges", "sum past float32's range"}},
		{"class given twice", map[string]string{"labels.txt": "a x y x\n"}, []string{"labels.txt:1", "field 4", `class "x" is already given in field 2`}},
		{"duplicate feature index", map[string]string{"friends.feat": "a 0:1 3:1 0:2\n"}, []string{"friends.feat:1", "field 4", "feature index 0 is already given in field 2"}},
		{"negative weight", map[string]string{"friends.edges": "a b\nb c -1.5\n"}, []string{"friends.edges:2", "field 3", "weight -1.5: want > 0"}},
		{"zero weight", map[string]string{"friends.edges": "a b 0\n"}, []string{"friends.edges:1", "field 3", "want > 0"}},
		{"negative adjacency entry", map[string]string{
			"manifest.json": `{"views":[{"name":"v","edges":"e.npy"}]}`,
			"e.npy":         npyBytes(t, func(b *bytes.Buffer) error { return npy.WriteFloat32(b, []int{2, 2}, []float32{0, -2, -2, 0}) }),
		}, []string{"e.npy", `view "v"`, "entry (0, 1) is -2", "> 0"}},
		{"merge error, pair reversed", map[string]string{
			"manifest.json": strings.Replace(good["manifest.json"], `"edges": "friends.edges",`, `"edges": "friends.edges", "merge": "error",`, 1),
			"friends.edges": "a b\nb c\nb a 3\n",
		}, []string{"friends.edges:3", "edge b a", "already on line 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := make(map[string]string)
			for k, v := range good {
				files[k] = v
			}
			for k, v := range tc.change {
				files[k] = v
			}
			_, err := Load(testenv.WriteFiles(t, files), "")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestNativeBOM: a UTF-8 byte-order mark opening a text file or the
// manifest is not part of its first id, comment or JSON.
func TestNativeBOM(t *testing.T) {
	for _, nodes := range []string{"\xef\xbb\xbfa\nb\nc\nd\n", "\xef\xbb\xbf# ids\na\nb\nc\nd\n"} {
		files := tinyFiles(t)
		files["manifest.json"] = "\xef\xbb\xbf" + files["manifest.json"]
		files["nodes.txt"] = nodes
		files["labels.txt"] = "\xef\xbb\xbfa x\nb y\n"
		net, err := Load(testenv.WriteFiles(t, files), "")
		if err != nil {
			t.Fatalf("%q: %v", nodes, err)
		}
		if net.Nodes.ID(0) != "a" || net.Labels.Class[0] < 0 {
			t.Errorf("%q: first node %q, class %d", nodes, net.Nodes.ID(0), net.Labels.Class[0])
		}
	}
}

// TestNativeMergeEitherWay: "merge" acts on a pair whichever way round
// its lines name it (the graph is undirected).
func TestNativeMergeEitherWay(t *testing.T) {
	for _, tc := range []struct {
		merge string
		want  float32
	}{{"max", 2}, {"sum", 3}, {"first", 1}} {
		files := map[string]string{
			"manifest.json": `{"views":[{"name":"v","edges":"e.txt","merge":"` + tc.merge + `"}]}`,
			"e.txt":         "a b 1\nb a 2\nb c\n",
		}
		net, err := Load(testenv.WriteFiles(t, files), "")
		if err != nil {
			t.Fatalf("%s: %v", tc.merge, err)
		}
		adj := net.Views[0].Adj
		if got, back := adj.At(0, 1), adj.At(1, 0); got != tc.want || back != tc.want {
			t.Errorf("merge %s: weights %v / %v, want %v both ways", tc.merge, got, back, tc.want)
		}
	}
}

// TestNativeTriangularMatrix: a matrix holding one triangle of the graph
// (scipy.sparse.triu's) loads as the undirected graph, every node with an
// entry in its row or its column observed; a self-loop is dropped but still
// marks its node observed.
func TestNativeTriangularMatrix(t *testing.T) {
	upper := []float32{
		0, 1, 0, 0, 0,
		0, 0, 2, 0, 0,
		0, 0, 0, 1, 0,
		0, 0, 0, 0, 0,
		0, 0, 0, 0, 3,
	}
	lower := make([]float32, 25)
	for i := range 5 {
		for j := range 5 {
			lower[i*5+j] = upper[j*5+i]
		}
	}
	for name, m := range map[string][]float32{"upper": upper, "lower": lower} {
		files := map[string]string{
			// "self_loops": false, as older manifests may say, is read.
			"manifest.json": `{"views":[{"name":"v","edges":"m.npy","self_loops":false}]}`,
			"m.npy":         npyBytes(t, func(b *bytes.Buffer) error { return npy.WriteFloat32(b, []int{5, 5}, m) }),
		}
		net, err := Load(testenv.WriteFiles(t, files), "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		v := net.Views[0]
		if !slices.Equal(v.Observed, []bool{true, true, true, true, true}) {
			t.Errorf("%s: observed %v, want all five", name, v.Observed)
		}
		for _, e := range [][3]int{{0, 1, 1}, {1, 2, 2}, {2, 3, 1}} {
			if a, b := v.Adj.At(e[0], e[1]), v.Adj.At(e[1], e[0]); a != float32(e[2]) || b != float32(e[2]) {
				t.Errorf("%s: edge %d–%d: %v / %v, want %d both ways", name, e[0], e[1], a, b, e[2])
			}
		}
		if v.Adj.NNZ() != 6 {
			t.Errorf("%s: %d stored entries, want 6 (three edges, the self-loop dropped)", name, v.Adj.NNZ())
		}
		// An observed list must name the nodes a column alone marks too.
		files["manifest.json"] = `{"views":[{"name":"v","edges":"m.npy","observed":"o.txt"}]}`
		files["o.txt"] = "0\n1\n2\n4\n"
		if _, err := Load(testenv.WriteFiles(t, files), ""); err == nil || !strings.Contains(err.Error(), `node "3" has edges or features but is not listed as observed (it has entries in `) {
			t.Errorf("%s: observed list without node 3: err = %v", name, err)
		}
	}
}

func TestPartial(t *testing.T) {
	net, err := Load(testenv.WriteFiles(t, map[string]string{
		"manifest.json": `{"views":[{"name":"a","edges":"e.txt"},{"name":"b","edges":"e.txt"},{"name":"c","edges":"e.txt"}]}`,
		"e.txt":         ring(200),
	}), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, pdr := range []float64{0, 0.2, 0.4, 0.6} {
		p1, err := Partial(net, pdr, rand.New(rand.NewPCG(7, 7)))
		if err != nil {
			t.Fatal(err)
		}
		p2, _ := Partial(net, pdr, rand.New(rand.NewPCG(7, 7)))
		if !reflect.DeepEqual(p1.Views[0].Observed, p2.Views[0].Observed) {
			t.Fatalf("pdr %v: same seed, different result", pdr)
		}
		if err := p1.Validate(); err != nil {
			t.Fatalf("pdr %v: %v", pdr, err)
		}
		// ViewPatterns: nil when nothing is missing, else bit k = view k
		// observes the node, never 0 (Partial keeps every node somewhere).
		pat := p1.ViewPatterns()
		if (pat == nil) != (pdr == 0) {
			t.Errorf("pdr %v: ViewPatterns nil = %v", pdr, pat == nil)
		}
		for i, p := range pat {
			for k, v := range p1.Views {
				if (p&(1<<k) != 0) != v.Observed[i] {
					t.Fatalf("pdr %v: node %d pattern %b, view %d observed %v", pdr, i, p, k, v.Observed[i])
				}
			}
			if p == 0 {
				t.Fatalf("pdr %v: node %d in no view", pdr, i)
			}
		}
		for _, v := range p1.Views {
			// Each view loses round(pdr·n) nodes, less the few restored
			// because they were missing everywhere (≈ pdr³·n of 200 here).
			if got := v.PDR(); got > pdr+1e-12 || got < pdr-pdr*pdr*pdr-0.05 {
				t.Errorf("pdr %v: view %s has PDR %.3f", pdr, v.Name, got)
			}
			for i := range v.Observed {
				if !v.Observed[i] && v.Adj.RowNNZ(i) != 0 {
					t.Errorf("removed node %d keeps edges", i)
				}
			}
		}
	}
	if _, err := Partial(net, 1, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("pdr 1 accepted")
	}
}

// TestPartialSeed: PartialSeed is Partial drawing from PCG(seed, 7), the
// stream dpmne's commands and experiments name a partial network by.
func TestPartialSeed(t *testing.T) {
	net, err := Load(testenv.WriteFiles(t, map[string]string{
		"manifest.json": `{"views":[{"name":"a","edges":"e.txt"},{"name":"b","edges":"e.txt"}]}`,
		"e.txt":         ring(50),
	}), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pdr  float64
		seed uint64
	}{{0, 1}, {0.2, 1}, {0.4, 2}, {0.4, 3}} {
		got, err := PartialSeed(net, tc.pdr, tc.seed)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Partial(net, tc.pdr, rand.New(rand.NewPCG(tc.seed, 7)))
		if err != nil {
			t.Fatal(err)
		}
		if got.Fingerprint() != want.Fingerprint() {
			t.Errorf("pdr %v seed %d: PartialSeed is not Partial with PCG(seed, 7)", tc.pdr, tc.seed)
		}
	}
	a, _ := PartialSeed(net, 0.4, 2)
	b, _ := PartialSeed(net, 0.4, 3)
	if a.Fingerprint() == b.Fingerprint() {
		t.Error("seeds 2 and 3 draw the same network")
	}
	if _, err := PartialSeed(net, 1, 1); err == nil {
		t.Error("pdr 1 accepted")
	}
	if _, err := PartialSeed(nil, 0.2, 1); err == nil {
		t.Error("nil network accepted")
	}
}

func ring(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Join([]string{itoa(i), itoa((i + 1) % n)}, " ") + "\n")
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

func equalCSR(a, b *sparse.CSR) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Rows == b.Rows && a.Cols == b.Cols && slices.Equal(a.Ptr, b.Ptr) && slices.Equal(a.Ind, b.Ind) && slices.Equal(a.Val, b.Val)
}

// TestValidateWeights: a network built in code with an edge weight that is
// not finite and > 0 fails Validate, which names the view and the nodes.
func TestValidateWeights(t *testing.T) {
	for _, w := range []float32{0, -1, float32(math.Inf(1))} {
		net, err := Load(testenv.WriteFiles(t, tinyFiles(t)), "")
		if err != nil {
			t.Fatal(err)
		}
		adj := net.Views[0].Adj // friends: a–b, b–c
		for i := range adj.Rows {
			ind, val := adj.Row(i)
			for k, j := range ind {
				if (i == 0 && j == 1) || (i == 1 && j == 0) {
					val[k] = w
				}
			}
		}
		if err := net.Validate(); err == nil || !strings.Contains(err.Error(), `view "friends": edge`) || !strings.Contains(err.Error(), "want finite and > 0") {
			t.Errorf("weight %v: err = %v", w, err)
		}
	}
}

// TestValidateShapes: networks a library user can build in code that
// Validate must refuse with an error, never a panic.
func TestValidateShapes(t *testing.T) {
	load := func() *Network {
		net, err := Load(testenv.WriteFiles(t, tinyFiles(t)), "")
		if err != nil {
			t.Fatal(err)
		}
		return net
	}
	for _, tc := range []struct {
		name   string
		change func(*Network) *Network
		want   string
	}{
		{"nil", func(*Network) *Network { return nil }, "nil"},
		{"no Nodes", func(*Network) *Network { return &Network{} }, "without Nodes"},
		{"nil view", func(n *Network) *Network { n.Views[1] = nil; return n }, "view 1 is nil"},
		{"empty view", func(n *Network) *Network {
			v := n.Views[1]
			v.Adj, v.Features = sparse.Zeros(n.N(), n.N()), nil
			clear(v.Observed)
			return n
		}, `view "work" observes no node`},
		{"multi-label class out of range", func(n *Network) *Network {
			n.Labels.Multi = make([][]int, n.N())
			n.Labels.Multi[0] = []int{0, 99}
			return n
		}, "class 99 outside"},
	} {
		err := tc.change(load()).Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	// Partial refuses to empty a view, and a nil network.
	net := load()
	if _, err := PartialViews(net, []float64{0, 0.9, 0}, rand.New(rand.NewPCG(1, 1))); err == nil || !strings.Contains(err.Error(), "leaves it no node") {
		t.Errorf("Partial emptying a view: err = %v", err)
	}
	if _, err := Partial(nil, 0.2, rand.New(rand.NewPCG(1, 1))); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Errorf("Partial of a nil network: err = %v", err)
	}
	// Restrict panics, naming itself, on a keep of another length.
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "View.Restrict: 1 entries in keep") {
				t.Errorf("Restrict with a short keep: recovered %v", r)
			}
		}()
		net.Views[0].Restrict([]bool{true})
	}()
}

// TestNodesZeroValue: the zero Nodes is an empty id map.
func TestNodesZeroValue(t *testing.T) {
	var n Nodes
	if i := n.Add("a"); i != 0 {
		t.Errorf("Add(a) = %d, want 0", i)
	}
	if i := n.Add("b"); i != 1 {
		t.Errorf("Add(b) = %d, want 1", i)
	}
	if i, ok := n.Index("a"); !ok || i != 0 || n.Add("a") != 0 || n.Len() != 2 {
		t.Errorf("Index(a) = %d, %v; Len %d", i, ok, n.Len())
	}
}
