package multiplex

import (
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
