package multiplex

import (
	"slices"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
)

// Counts from ../shared/data/README.md, each parsed from the files.
func TestNamedACM(t *testing.T) {
	net, err := Load("acm", testenv.DataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if net.N() != 3025 {
		t.Errorf("nodes = %d, want 3025", net.N())
	}
	for _, c := range []struct {
		view  string
		edges int
	}{{"PAP", 13128}, {"PLP", 1103868}} {
		v, ok := net.View(c.view)
		if !ok {
			t.Fatalf("no view %s", c.view)
		}
		if v.NumEdges() != c.edges {
			t.Errorf("%s: %d edges, want %d", c.view, v.NumEdges(), c.edges)
		}
		if v.Features.Cols != 1870 || v.Features.NNZ() != 253300 {
			t.Errorf("%s: features %d dims, %d ones; want 1870, 253300", c.view, v.Features.Cols, v.Features.NNZ())
		}
		if v.NumObserved() != 3025 {
			t.Errorf("%s: %d observed, want all 3025", c.view, v.NumObserved())
		}
	}
	counts, unknown := net.Labels.Counts()
	if len(counts) != 3 || counts[0] != 1061 || counts[1] != 965 || counts[2] != 999 || unknown != 0 {
		t.Errorf("classes %v (unknown %d), want [1061 965 999]", counts, unknown)
	}
}

func TestNamedDBLP(t *testing.T) {
	net, err := Load("dblp4057", testenv.DataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if net.N() != 4057 {
		t.Errorf("nodes = %d, want 4057", net.N())
	}
	apa, _ := net.View("APA")
	if apa.NumEdges() != 3528 {
		t.Errorf("APA: %d edges, want 3528", apa.NumEdges())
	}
	if apa.Features.Cols != 334 || apa.Features.NNZ() != 48810 {
		t.Errorf("features %d dims, %d ones; want 334, 48810", apa.Features.Cols, apa.Features.NNZ())
	}
	counts, _ := net.Labels.Counts()
	want := []int{1197, 745, 1109, 1006}
	for c := range want {
		if counts[c] != want[c] {
			t.Errorf("class %d: %d, want %d", c, counts[c], want[c])
		}
	}
	aptpa, _ := net.View("APTPA")
	for _, v := range net.Views {
		t.Logf("%s: %d edges, %d observed", v.Name, v.NumEdges(), v.NumObserved())
	}
	// Top-10 shared-term links per author, union: the README's figure.
	if aptpa.NumEdges() != 40363 {
		t.Errorf("APTPA: %d edges, want 40363", aptpa.NumEdges())
	}
	if aptpa.NumObserved() != 4057 {
		t.Errorf("APTPA observed %d, want 4057 (every author has a paper)", aptpa.NumObserved())
	}
}

func TestNamedAll(t *testing.T) {
	dir := testenv.DataDir(t)
	for _, name := range Names() {
		if _, err := Load(name, dir); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// heco checks a HeCo set against ../shared/data/README.md: its nodes, each
// view's undirected edges without self-loops and nodes with no edge there
// (unobserved: the loader ignores the diagonal the files set), the nodes in
// no view, and the class sizes. Every view is featureless (adjacency rows).
func heco(t *testing.T, name string, nodes int, views []hecoView, unobserved int, classes []int) {
	t.Helper()
	net, err := Load(name, testenv.DataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if net.N() != nodes {
		t.Errorf("nodes = %d, want %d", net.N(), nodes)
	}
	if len(net.Views) != len(views) {
		t.Fatalf("%d views, want %d", len(net.Views), len(views))
	}
	for k, c := range views {
		v := net.Views[k]
		if v.Name != c.name {
			t.Errorf("view %d is %s, want %s", k, v.Name, c.name)
		}
		if v.NumEdges() != c.edges {
			t.Errorf("%s: %d edges, want %d", c.name, v.NumEdges(), c.edges)
		}
		if got := nodes - v.NumObserved(); got != c.edgeless {
			t.Errorf("%s: %d unobserved, want %d (the nodes with no edge there)", c.name, got, c.edgeless)
		}
		for i := range nodes {
			if v.Observed[i] != (v.Adj.RowNNZ(i) > 0) {
				t.Fatalf("%s: node %d observed %v with %d edges", c.name, i, v.Observed[i], v.Adj.RowNNZ(i))
			}
		}
		if v.Features != nil {
			t.Errorf("%s: own features, want none (adjacency rows)", c.name)
		}
	}
	if got := net.NumUnobserved(); got != unobserved {
		t.Errorf("%d nodes in no view, want %d", got, unobserved)
	}
	counts, unknown := net.Labels.Counts()
	if !slices.Equal(counts, classes) || unknown != 0 {
		t.Errorf("classes %v (unknown %d), want %v", counts, unknown, classes)
	}
}

type hecoView struct {
	name            string
	edges, edgeless int
}

func TestNamedFreebase(t *testing.T) {
	heco(t, "freebase", 3492, []hecoView{{"MAM", 125605, 13}, {"MDM", 2456, 1627}, {"MWM", 3607, 1401}}, 11, []int{1327, 618, 1547})
}

func TestNamedAMiner(t *testing.T) {
	heco(t, "aminer", 6564, []hecoView{{"PAP", 7706, 2363}, {"PRP", 61630, 791}}, 425, []int{1333, 1114, 526, 3591})
}
