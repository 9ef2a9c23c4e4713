package multiplex

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
)

// gz returns s gzip-compressed.
func gz(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// edgeStrings lists a network's edges as "view:u-v:w", u before v in
// node order, by view then row.
func edgeStrings(net *Network) []string {
	var out []string
	for _, v := range net.Views {
		for i := range v.Adj.Rows {
			ind, val := v.Adj.Row(i)
			for k, j := range ind {
				if int(j) > i {
					out = append(out, fmt.Sprintf("%s:%s-%s:%g", v.Name, net.Nodes.ID(i), net.Nodes.ID(int(j)), val[k]))
				}
			}
		}
	}
	return out
}

// TestEdgeList: plain edge lists given where a data set is wanted load in
// either layout, with headers, comments, commas, CRLF, a byte-order mark
// or gzip, each as LoadEdgeList documents.
func TestEdgeList(t *testing.T) {
	for _, tc := range []struct {
		name, file, content string
		nodes               []string
		edges               []string // edgeStrings
		observed            []int    // per view
	}{
		{"two fields", "follow.edges", "a b\nb c\n", []string{"a", "b", "c"}, []string{"follow:a-b:1", "follow:b-c:1"}, []int{3}},
		{"weights on some lines", "w.txt", "a b 2.5\n# a comment\n\nb c\n", []string{"a", "b", "c"}, []string{"w:a-b:2.5", "w:b-c:1"}, []int{3}},
		{"string ids", "s", "user_1 user_2\nuser_2 user_10\n", []string{"user_1", "user_2", "user_10"}, []string{"s:user_1-user_2:1", "s:user_2-user_10:1"}, []int{3}},
		{"header source target weight", "h.tsv", "source\ttarget\tweight\na\tb\t0.5\n", []string{"a", "b"}, []string{"h:a-b:0.5"}, []int{2}},
		{"header src dst after a comment", "h.txt", "# exported\nSRC DST\na b\n", []string{"a", "b"}, []string{"h:a-b:1"}, []int{2}},
		{"header from to", "h", "from to\na b\n", []string{"a", "b"}, []string{"h:a-b:1"}, []int{2}},
		{"header with _id", "h", "source_id target_id\n1 2\n", []string{"1", "2"}, []string{"h:1-2:1"}, []int{2}},
		{"header u v", "h", "u v\na b\n", []string{"a", "b"}, []string{"h:a-b:1"}, []int{2}},
		// Both words are nodes of the other lines: an edge.
		{"u v an edge", "uv", "u v\nv w\nw u\n", []string{"v", "w", "u"}, []string{"uv:v-w:1", "uv:v-u:1", "uv:w-u:1"}, []int{3}},
		// Not header words, but a weight that is no number over lines
		// whose third field is one.
		{"header by its fields", "h", "from_user to_user strength\nann bob 0.5\n", []string{"ann", "bob"}, []string{"h:ann-bob:0.5"}, []int{2}},
		{"layers, four fields", "m.edges", "follows a b 1\nlikes b c 2\nfollows c a\n", []string{"a", "b", "c"},
			[]string{"follows:a-b:1", "follows:a-c:1", "likes:b-c:2"}, []int{3, 2}},
		{"layers, names third", "m", "follows alice bob\nlikes bob carol\n", []string{"alice", "bob", "carol"},
			[]string{"follows:alice-bob:1", "likes:bob-carol:1"}, []int{2, 2}},
		{"layers, numeric ids", "m", "follows 1 2\nlikes 2 3 4\n", []string{"1", "2", "3"}, []string{"follows:1-2:1", "likes:2-3:4"}, []int{2, 2}},
		{"layers by header", "m", "layer src dst\n1 2 3\n2 3 4\n", []string{"2", "3", "4"}, []string{"1:2-3:1", "2:3-4:1"}, []int{2, 2}},
		{"layers sorted as integers", "m", "layer source target weight\n10 a b 1\n2 a b 3\n", []string{"a", "b"}, []string{"2:a-b:3", "10:a-b:1"}, []int{2, 2}},
		// MNE's input (HKUST-KnowComp/MNE): its README's template, and the
		// first lines of each layer of its sample file,
		// data/Vickers-Chan-7thGraders_multiplex.edges, directed edges
		// made undirected.
		{"MNE's template", "mne.edges", "edge_type head tail weight\nr1 n1 n2 1\nr2 n2 n3 1\n", []string{"n1", "n2", "n3"}, []string{"r1:n1-n2:1", "r2:n2-n3:1"}, []int{2, 2}},
		{"MNE's sample file", "Vickers-Chan-7thGraders_multiplex.edges", "1 1 6 1\n1 1 8 1\n2 6 1 1\n2 1 6 1\n3 8 6 1\n", []string{"1", "6", "8"},
			[]string{"1:1-6:1", "1:1-8:1", "2:1-6:1", "3:6-8:1"}, []int{3, 2, 2}},
		{"all numbers: weights", "n", "1 2 3\n2 3 1\n", []string{"1", "2", "3"}, []string{"n:1-2:3", "n:2-3:1"}, []int{3}},
		{"commas", "c.csv", "source,target,weight\na, b ,2\nb,c\n", []string{"a", "b", "c"}, []string{"c:a-b:2", "c:b-c:1"}, []int{3}},
		// CSV as encoding/csv reads it: a quoted header is a header, not
		// an edge between "source" and "target".
		{"quoted CSV header", "q.csv", "\"source\",\"target\"\n\"a\",\"b\"\nb,\"c\"\n", []string{"a", "b", "c"}, []string{"q:a-b:1", "q:b-c:1"}, []int{3}},
		{"quoted CSV, layers and weights", "q.csv", "\"layer\",\"source\",\"target\",\"weight\"\n\"x\",\"a\",\"b\",\"2\"\n\"y\", \"b\",c,0.5\n",
			[]string{"a", "b", "c"}, []string{"x:a-b:2", "y:b-c:0.5"}, []int{2, 2}},
		{"quoted CSV ids with commas and quotes", "q.csv", "\"Smith,J\",\"O\"\"Hara\"\nb,\"Smith,J\"\n", []string{"Smith,J", `O"Hara`, "b"},
			[]string{`q:Smith,J-O"Hara:1`, "q:Smith,J-b:1"}, []int{3}},
		{"CRLF and a byte-order mark", "b", "\xef\xbb\xbfa b\r\nb c 2\r\n", []string{"a", "b", "c"}, []string{"b:a-b:1", "b:b-c:2"}, []int{3}},
		{"either way round, the larger weight", "d", "a b 1\nb a 3\n", []string{"a", "b"}, []string{"d:a-b:3"}, []int{2}},
		{"a self-loop observes its node", "l", "a b\nc c\n", []string{"a", "b", "c"}, []string{"l:a-b:1"}, []int{3}},
		{"gzip, any name", "g.txt", gz(t, "layer src dst\nx a b\ny b c\n"), []string{"a", "b", "c"}, []string{"x:a-b:1", "y:b-c:1"}, []int{2, 2}},
		{"gzip, .gz", "follow.edges.gz", gz(t, "a b\n"), []string{"a", "b"}, []string{"follow:a-b:1"}, []int{2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(testenv.WriteFiles(t, map[string]string{tc.file: tc.content}), tc.file)
			net, err := Load(p, "")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(net.Nodes.IDs(), tc.nodes) {
				t.Errorf("nodes %q, want %q", net.Nodes.IDs(), tc.nodes)
			}
			if got := edgeStrings(net); !slices.Equal(got, tc.edges) {
				t.Errorf("edges %q, want %q", got, tc.edges)
			}
			var obs []int
			for _, v := range net.Views {
				obs = append(obs, v.NumObserved())
				if v.Features != nil {
					t.Errorf("view %q has features", v.Name)
				}
			}
			if !slices.Equal(obs, tc.observed) {
				t.Errorf("observed %v, want %v", obs, tc.observed)
			}
			if want := edgeStem(tc.file); net.Name != want {
				t.Errorf("name %q, want %q", net.Name, want)
			}
			// LoadEdgeList reads it the same.
			again, err := LoadEdgeList(p)
			if err != nil || again.Fingerprint() != net.Fingerprint() {
				t.Errorf("LoadEdgeList: %v, or another network", err)
			}
		})
	}
}

// TestEdgeListErrors: a plain edge list that is broken is refused at its
// file, line and field; one that is no edge list at all says which inputs
// are accepted.
func TestEdgeListErrors(t *testing.T) {
	corrupt := []byte(gz(t, "a b\nb c\n"))
	corrupt[len(corrupt)-8] ^= 0xff // the CRC
	for _, tc := range []struct {
		name, content string
		want          string
		hint          bool // the error says which inputs are accepted
	}{
		{"other fields", "a b\nc d e f g\n", "e:2: 5 fields, want <id> <id> [weight], the layout of line 1 (one layout a file)", true},
		{"other fields after a header", "layer src dst\nx a b\nc d\n", "e:3: 2 fields, want <layer> <id> <id> [weight], the layout of the header on line 1", true},
		{"a word for a weight", "a b 1\nc d x\n", `e:2: field 3: weight "x" is not a number: line 1 sets the layout <id> <id> [weight]; a list with a layer column first starts with the header "layer src dst"`, false},
		{"zero weight", "a b 0\n", "e:1: field 3: weight 0: want > 0 (leave the pair out for no edge)", false},
		{"NaN weight", "a b NaN\n", `e:1: field 3: weight "NaN" is not a finite number`, false},
		{"layer weight", "x a b 1\ny a b -2\n", "e:2: field 4: weight -2: want > 0", false},
		{"one field", "a\n", "e:1: 1 fields, want an edge list's <src> <dst> [weight] or <layer> <src> <dst> [weight]", true},
		{"a table", "1 0 1 0 1 A\n", "e:1: 6 fields, want an edge list's", true},
		{"header only", "source target\n", "e: no edge lines after the header on line 1", true},
		{"comments only", "# nothing\n\n", "e: no edge lines, only blank or comment lines", true},
		{"empty", "", "e: file is empty", false},
		{"NUL in an id", "a\x00 b\n", `e:1: field 1: node id "a\x00" holds a NUL byte (byte 2)`, true},
		{"bad UTF-8 layer", "a b c\n\xff b c\n", `e:2: field 1: layer name "\xff" is not valid UTF-8 (byte 1)`, true},
		{"empty CSV field", "a,,b\n", `e:1: field 2: "": want a field without spaces or tabs, not empty (fields are separated by commas, as on line 1)`, true},
		{"CSV quote not closed", "a,b\n\"c,d\n", `e:2: byte 5: extraneous or missing " in quoted-field: want comma-separated fields, each in double quotes whole ("a, b", with "" for a quote in it) or not at all, and a quoted field on one line`, false},
		{"CSV quote not closed on the first line", "\"a,b\nc,d\n", `e:1: byte 5: extraneous or missing " in quoted-field`, false},
		{"CSV bare quote", "a,b\nc\"d,e\n", `e:2: byte 2: bare " in non-quoted-field`, false},
		{"CSV quoted id with a space", "\"a b\",c\n", `e:1: field 1: "a b": want a field without spaces or tabs, not empty`, true},
		{"gzip of nothing", gz(t, ""), "e: file is empty (a gzip stream of no bytes)", false},
		{"gzip truncated", gz(t, "a b\nb c\n")[:20], "e:3: gzip stream truncated", false},
		{"gzip corrupt", string(corrupt), "e:3: gzip stream corrupt: gzip: invalid checksum", false},
		{"gzip header broken", "\x1f\x8b\x00", "e: starts as a gzip stream but its header is broken", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testenv.WriteFiles(t, map[string]string{"e": tc.content})
			t.Chdir(dir)
			_, err := Load("e", "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %q", err, tc.want)
			}
			if got := strings.Contains(err.Error(), formatsPointer); got != tc.hint {
				t.Errorf("says the inputs accepted: %v, want %v: %v", got, tc.hint, err)
			}
			// Without Resolve, no hint.
			if _, err := LoadEdgeList("e"); err == nil || strings.Contains(err.Error(), "docs/formats.md") {
				t.Errorf("LoadEdgeList: err = %v", err)
			}
		})
	}
}

// TestEdgeListManifest: format "edge-list" reads the file a manifest
// names, relative to it, under the manifest's name.
func TestEdgeListManifest(t *testing.T) {
	dir := testenv.WriteFiles(t, map[string]string{
		"manifest.json": `{"name": "club", "format": "edge-list", "edges": "e/club.txt.gz"}`,
		"e/club.txt.gz": gz(t, "follows a b\nfollows b c\nlikes a c\n"),
	})
	net, err := Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if net.Name != "club" || len(net.Views) != 2 || net.Views[0].Name != "follows" || net.N() != 3 {
		t.Errorf("%s: %d views, %d nodes", net.Name, len(net.Views), net.N())
	}
	if _, err := ParseManifest("m.json", []byte(`{"format": "edge-list"}`)); err == nil || !strings.Contains(err.Error(), `format edge-list needs "edges"`) {
		t.Errorf("without edges: err = %v", err)
	}
}

// TestNativeEdgeHeader: a native edge file's first line that names the
// columns is skipped, unless both its words are node ids of the data set
// (the nodes file's, or the file's own lines'); any other line is an
// edge, as before.
func TestNativeEdgeHeader(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes string // the nodes file, "" for none
		edges string
		want  []string // edgeStrings
		merge string
	}{
		{"source target weight", "a\nb\nc\n", "source target weight\na b 2\n", []string{"v:a-b:2"}, ""},
		{"Src Dst without a nodes file", "", "Src Dst\na b\n", []string{"v:a-b:1"}, ""},
		{"from to in the nodes file", "from\nto\n", "from to\n", []string{"v:from-to:1"}, ""},
		{"u v named by the file", "", "u v 2\nv w\nu w\n", []string{"v:u-v:2", "v:u-w:1", "v:v-w:1"}, ""},
		{"u v kept first", "", "u v 2\nv u 5\n", []string{"v:u-v:2"}, "first"},
		{"u v with one unknown", "", "u v\nu w\n", []string{"v:u-w:1"}, ""},
		{"a header-like line not first", "", "a b\nsource target\n", []string{"v:a-b:1", "v:source-target:1"}, ""},
		{"a comment header", "", "# source target\na b\n", []string{"v:a-b:1"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"e.txt": tc.edges}
			nodes := ""
			if tc.nodes != "" {
				files["n.txt"] = tc.nodes
				nodes = `"nodes": "n.txt", `
			}
			merge := ""
			if tc.merge != "" {
				merge = `, "merge": "` + tc.merge + `"`
			}
			files["manifest.json"] = `{` + nodes + `"views": [{"name": "v", "edges": "e.txt"` + merge + `}]}`
			net, err := Load(testenv.WriteFiles(t, files), "")
			if err != nil {
				t.Fatal(err)
			}
			got := edgeStrings(net)
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("edges %q, want %q", got, tc.want)
			}
			for _, id := range net.Nodes.IDs() {
				if (id == "source" || id == "Src" || id == "weight") && !strings.Contains(tc.edges, "a b\nsource") {
					t.Errorf("the header made node %q", id)
				}
			}
		})
	}
}

// TestGzipEverywhere: every text input of every format, and the
// manifest, may be gzip-compressed, whatever its name: the network is
// the same as from the plain files.
func TestGzipEverywhere(t *testing.T) {
	plain := tinyFiles(t)
	zipped := make(map[string]string)
	for name, content := range plain {
		if strings.HasSuffix(name, ".npy") {
			zipped[name] = content
			continue
		}
		zipped[name] = gz(t, content)
	}
	want, err := Load(testenv.WriteFiles(t, plain), "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Load(testenv.WriteFiles(t, zipped), "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Fingerprint() != want.Fingerprint() || !slices.Equal(got.Labels.Class, want.Labels.Class) {
		t.Error("native: the gzip-compressed files load another network")
	}
	// LINQS.
	content, cites := "1\t0\t1\tA\n2\t1\t1\tB\n3\t1\t0\tA\n", "1\t2\n3\t1\n"
	dir := testenv.WriteFiles(t, map[string]string{"c": content, "e": cites, "cz": gz(t, content), "ez": gz(t, cites)})
	l1, err1 := LoadLINQS(filepath.Join(dir, "c"), filepath.Join(dir, "e"), LINQSOptions{KNN: 1})
	l2, err2 := LoadLINQS(filepath.Join(dir, "cz"), filepath.Join(dir, "ez"), LINQSOptions{KNN: 1})
	if err1 != nil || err2 != nil || l1.Fingerprint() != l2.Fingerprint() {
		t.Errorf("LINQS: %v, %v, or another network", err1, err2)
	}
	// De Domenico.
	edges, layers, nodes := "1 1 2 1\n2 2 3\n", "layerID layerLabel\n1 a\n2 b\n", "nodeID nodeCity\n1 x\n2 y\n3 x\n"
	dir = testenv.WriteFiles(t, map[string]string{"e": edges, "l": layers, "n": nodes, "ez": gz(t, edges), "lz": gz(t, layers), "nz": gz(t, nodes)})
	d1, err1 := LoadMultiplexEdges(filepath.Join(dir, "e"), MultiplexEdgesOptions{Layers: filepath.Join(dir, "l"), Nodes: filepath.Join(dir, "n"), LabelColumn: "nodeCity"})
	d2, err2 := LoadMultiplexEdges(filepath.Join(dir, "ez"), MultiplexEdgesOptions{Layers: filepath.Join(dir, "lz"), Nodes: filepath.Join(dir, "nz"), LabelColumn: "nodeCity"})
	if err1 != nil || err2 != nil || d1.Fingerprint() != d2.Fingerprint() || !slices.Equal(d1.Labels.Class, d2.Labels.Class) {
		t.Errorf("De Domenico: %v, %v, or another network", err1, err2)
	}
	// An error in a compressed file names its line in the content.
	zipped["work.edges"] = gz(t, "c d\nc d e f\n")
	if _, err := Load(testenv.WriteFiles(t, zipped), ""); err == nil || !strings.Contains(err.Error(), "work.edges:2: 4 fields, want <id> <id> [weight]") {
		t.Errorf("err = %v", err)
	}
}

// TestManifestUnknownField: an unknown manifest field is reported at its
// own line, with the valid name nearest it, or where it belongs, or the
// names valid there.
func TestManifestUnknownField(t *testing.T) {
	for _, tc := range []struct {
		name, json, want string
	}{
		{"a view's field", "{\n  \"name\": \"x\",\n  \"views\": [\n    {\n      \"name\": \"v\",\n      \"edges\": \"e.txt\",\n\n\n      \"featurs\": \"f.txt\"\n    }\n  ]\n}\n",
			`m.json:9: unknown field "featurs" in views[0]; did you mean "features"?`},
		{"top level, swapped letters", "{\n\"lables\": \"l.txt\",\n\"views\": [{\"name\": \"v\", \"edges\": \"e\"}]}",
			`m.json:2: unknown field "lables" in the manifest; did you mean "labels"?`},
		{"second view", "{\"views\": [{\"name\": \"a\", \"edges\": \"e\"},\n{\"name\": \"b\",\n\"ignore_diagnal\": true}]}",
			`m.json:3: unknown field "ignore_diagnal" in views[1]; did you mean "ignore_diagonal"?`},
		{"metapath", "{\"views\": [{\"name\": \"a\", \"metapath\": {\"groups\": \"g\",\n \"topk\": 3}}]}",
			`m.json:2: unknown field "topk" in views[0].metapath; did you mean "top_k"?`},
		{"label ranges", "{\"format\": \"multiplex-edges\", \"edges\": \"e\", \"label_ranges\": [{\"from\": 1, \"to\": 2, \"label\": \"a\"},\n{\"from\": 3, \"too\": 4}]}",
			`m.json:2: unknown field "too" in label_ranges[1]; did you mean "to"?`},
		{"a view's field at the top", "{\n\"feature_dim\": 3,\n\"views\": []}",
			`m.json:2: unknown field "feature_dim" in the manifest; "feature_dim" is a field of a view (an entry of "views"); want one of name, format, nodes, labels, views, content, cites, knn, edges, layers, label_column, label_ranges`},
		{"nothing near", "{\"views\": [{\"name\": \"v\", \"edges\": \"e\",\n\"colour\": \"red\"}]}",
			`m.json:2: unknown field "colour" in views[0]; want one of name, edges, features, feature_ids, feature_dim, observed, knn, metapath, merge, ignore_diagonal, cell, names`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseManifest("m.json", []byte(tc.json))
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v\nwant   %s", err, tc.want)
			}
		})
	}
	// Another case of a field's name is that field, as encoding/json reads it.
	if m, err := ParseManifest("m.json", []byte(`{"Name": "x", "VIEWS": [{"Name": "v", "Edges": "e"}]}`)); err != nil || m.Name != "x" || m.Views[0].Edges != "e" {
		t.Errorf("case: %v", err)
	}
	// A gzip-compressed manifest reads as its content.
	dir := testenv.WriteFiles(t, map[string]string{"m.json": gz(t, "{\n\"views\": [{\"name\": \"v\", \"edgs\": \"e\"}]}")})
	if _, err := ReadManifest(filepath.Join(dir, "m.json")); err == nil || !strings.HasSuffix(err.Error(), `m.json:2: unknown field "edgs" in views[0]; did you mean "edges"?`) {
		t.Errorf("gzip: err = %v", err)
	}
}

// TestMissingNamedDataSet: a named data set whose files are not in the
// data directory says so and names the three ways to provide it.
func TestMissingNamedDataSet(t *testing.T) {
	empty := t.TempDir()
	for _, name := range Names() {
		_, err := Load(name, empty)
		var miss *MissingDataError
		if !errors.As(err, &miss) || !errors.Is(err, fs.ErrNotExist) || miss.Name != name || miss.Dir != empty {
			t.Errorf("%s: err = %v, want a MissingDataError wrapping fs.ErrNotExist", name, err)
			continue
		}
		for _, want := range []string{
			fmt.Sprintf("data set %q is not in the data directory %s (", name, empty),
			fmt.Sprintf(`"dpmne data fetch %s"`, name), "$" + DataDirEnv, "--data-dir DIR",
		} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err = %v, want %q", name, err, want)
			}
		}
	}
	// A user's manifest naming a file that is not there is no such error.
	dir := testenv.WriteFiles(t, map[string]string{"manifest.json": `{"views": [{"name": "v", "edges": "nosuch.txt"}]}`})
	_, err := Load(dir, "")
	if miss := (*MissingDataError)(nil); err == nil || errors.As(err, &miss) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("own manifest: err = %v", err)
	}
}

// TestUnobservedNodes: the nodes observed in no view, listed in order.
func TestUnobservedNodes(t *testing.T) {
	files := tinyFiles(t)
	files["nodes.txt"] = "a\nghost1\nb\nc\nd\nghost2\n"
	net, err := Load(testenv.WriteFiles(t, files), "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, i := range net.Unobserved() {
		ids = append(ids, net.Nodes.ID(i))
	}
	if !slices.Equal(ids, []string{"ghost1", "ghost2"}) || net.NumUnobserved() != 2 {
		t.Errorf("unobserved %q (%d), want ghost1, ghost2", ids, net.NumUnobserved())
	}
}

// edgeListSeeds are the seeds of FuzzEdgeList.
var edgeListSeeds = []string{
	"a b\nb c 2\n",
	"source target weight\na b 0.5\n",
	"follows a b 1\nlikes b c\n",
	"layer src dst\n1 2 3\n",
	"u v\nv w\n",
	"a,b\nb,,c\n",
	"\"source\",\"target\"\n\"a\",\"b\"\n",
	"\"a,b\",c,2\n\"c\"\",d\n",
	"from_user to_user strength\nann bob x\n",
	"\xef\xbb\xbfa b\r\n# c\r\n",
}

func FuzzEdgeList(f *testing.F) {
	for _, s := range edgeListSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(gz(f, "a b\n")))
	dir := f.TempDir()
	p := filepath.Join(dir, "e.txt")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		net, err := LoadEdgeList(p)
		if err == nil {
			if verr := net.Validate(); verr != nil {
				t.Fatalf("loaded a network that does not validate: %v", verr)
			}
		}
	})
}

// TestGzipMemory: a gzip stream is read as it is decompressed: 32 MiB of
// comment lines in a file of a few tens of KiB allocate about what the
// lines kept take (none), not the decompressed size.
func TestGzipMemory(t *testing.T) {
	line := "# " + strings.Repeat("x", 1021) + "\n"
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	for range 32 << 10 {
		w.Write([]byte(line))
	}
	w.Write([]byte("a b\n"))
	w.Close()
	p := filepath.Join(testenv.WriteFiles(t, map[string]string{"e": b.String()}), "e")
	var err error
	alloc := testenv.Allocated(func() { _, err = LoadEdgeList(p) })
	if err != nil {
		t.Fatal(err)
	}
	if alloc > 4<<20 {
		t.Errorf("allocated %d bytes reading %d bytes that decompress to 32 MiB", alloc, b.Len())
	}
}
