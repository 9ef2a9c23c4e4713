package multiplex

import (
	"context"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
)

// TestLabelsEveryFormat: "labels" names the classes in a manifest of any
// format, read by the same reader as the native format's; where it cannot
// be read it is refused by name, never dropped.
func TestLabelsEveryFormat(t *testing.T) {
	files := map[string]string{
		"pp.edges":    "a b\nb c\nc d\n",
		"pp.labels":   "a x\nc y\nd x y\n",
		"stray.txt":   "a x\nzz y\n",
		"lab.npy":     "\x93NUMPY",
		"c.content":   "a 1 0 p\nb 0 1 q\nc 1 1 p\n",
		"c.cites":     "a b\nb c\n",
		"abc.labels":  "a x\nb y\n",
		"m.edges":     "1 1 2\n2 2 3\n",
		"m_nodes.txt": "nodeID city\n1 A\n2 B\n3 A\n",
		"m.labels":    "1 x\n3 y\n",
		"nodes.txt":   "a\nb\nc\nd\ne\n",
		"n.edges":     "a b\n",
		"n.labels":    "e x\nb y\n",
	}
	for _, tc := range []struct {
		name     string
		manifest string
		want     string // the classes of the nodes in order, "-" for none
		err      string // "" for a load
	}{
		{"edge list", `{"format": "edge-list", "edges": "pp.edges", "labels": "pp.labels"}`, "x - y x", ""},
		{"edge list, an id not in it", `{"format": "edge-list", "edges": "pp.edges", "labels": "stray.txt"}`,
			"", `stray.txt:2: field 1: node id "zz" is not among the 4 nodes of `},
		{"edge list, labels by position", `{"format": "edge-list", "edges": "pp.edges", "labels": "lab.npy"}`,
			"", "lab.npy: labels in a matrix file (.npy, .mat) are read by position, which only a native manifest (with its nodes) can give; want a text file of lines <id> <class>"},
		{"linqs: the file replaces the content's classes", `{"name": "c", "format": "linqs", "content": "c.content", "cites": "c.cites", "labels": "abc.labels"}`, "x y -", ""},
		{"linqs without", `{"name": "c", "format": "linqs", "content": "c.content", "cites": "c.cites"}`, "p q p", ""},
		{"multiplex-edges", `{"name": "m", "format": "multiplex-edges", "edges": "m.edges", "labels": "m.labels"}`, "x - y", ""},
		{"multiplex-edges, labels twice", `{"name": "m", "format": "multiplex-edges", "edges": "m.edges", "nodes": "m_nodes.txt", "label_column": "city", "labels": "m.labels"}`,
			"", `format multiplex-edges: give the labels once, by "labels" (a file of lines <id> <class>), "label_column" or "label_ranges"`},
		{"native", `{"name": "n", "nodes": "nodes.txt", "labels": "n.labels", "views": [{"name": "v", "edges": "n.edges"}]}`, "- y - - x", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := map[string]string{"manifest.json": tc.manifest}
			for k, v := range files {
				fs[k] = v
			}
			net, err := Load(testenv.WriteFiles(t, fs), "")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v\nwant %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := classString(net); got != tc.want {
				t.Errorf("classes %q, want %q", got, tc.want)
			}
		})
	}
}

// classString lists the first class of each node in order, "-" for none.
func classString(net *Network) string {
	if net.Labels == nil {
		return "no labels"
	}
	var out []string
	for _, c := range net.Labels.Class {
		if c < 0 {
			out = append(out, "-")
			continue
		}
		out = append(out, net.Labels.Names[c])
	}
	return strings.Join(out, " ")
}

// TestReadLabels: labels for the nodes of a network already loaded,
// multi-label lines kept, every mistake named by its file, line and field.
func TestReadLabels(t *testing.T) {
	nodes, err := NodesOf([]string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	dir := testenv.WriteFiles(t, map[string]string{
		"ok":       "# id class\nc z\na x y\n",
		"unknown":  "a x\nd y\n",
		"twice":    "a x\na y\n",
		"no class": "a\n",
		"dup":      "a x x\n",
		"empty":    "# nothing\n",
		"l.mat":    "MATLAB",
	})
	lab, err := ReadLabels(context.Background(), dir+"/ok", nodes, "net")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(lab.Names, " "); got != "x y z" || lab.Class[0] != 0 || lab.Class[1] != -1 || lab.Class[2] != 2 || len(lab.Multi[0]) != 2 {
		t.Errorf("names %q, classes %v, multi %v", got, lab.Class, lab.Multi)
	}
	for file, want := range map[string]string{
		"unknown":  `unknown:2: field 1: node id "d" is not among the 3 nodes of net`,
		"twice":    `twice:2: field 1: node "a" already labelled on line 1`,
		"no class": "no class:1: want <id> <class> [<class>…]",
		"dup":      `dup:1: field 3: class "x" is already given in field 2`,
		"empty":    "empty: no label lines",
		"l.mat":    "l.mat: labels in a matrix file",
		"missing":  "no such file",
	} {
		if _, err := ReadLabels(context.Background(), dir+"/"+file, nodes, "net"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", file, err, want)
		}
	}
	if nodes.Len() != 3 {
		t.Errorf("ReadLabels added nodes: %d", nodes.Len())
	}
}
