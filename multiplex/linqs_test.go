package multiplex

import (
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
)

func TestLoadLINQSCora(t *testing.T) {
	content := testenv.File(t, "cora/cora.content")
	cites := testenv.File(t, "cora/cora.cites")
	net, err := LoadLINQS(content, cites, LINQSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := net.Validate(); err != nil {
		t.Fatal(err)
	}
	// Counts from ../shared/data/README.md.
	if net.N() != 2708 {
		t.Errorf("nodes = %d, want 2708", net.N())
	}
	cit, _ := net.View("citation")
	if got := cit.NumEdges(); got != 5278 {
		t.Errorf("citation edges = %d, want 5278", got)
	}
	attr, _ := net.View("attribute")
	if attr.Features.Cols != 1433 || attr.Features.NNZ() != 49216 {
		t.Errorf("attributes %d dims, %d ones; want 1433, 49216", attr.Features.Cols, attr.Features.NNZ())
	}
	if got := attr.NumEdges(); got != 8440 {
		t.Errorf("attribute kNN edges = %d, want 8440 (k=%d)", got, DefaultLINQSKNN)
	}
	counts, unknown := net.Labels.Counts()
	want := map[string]int{"Case_Based": 298, "Genetic_Algorithms": 418, "Neural_Networks": 818,
		"Probabilistic_Methods": 426, "Reinforcement_Learning": 217, "Rule_Learning": 180, "Theory": 351}
	if len(counts) != 7 || unknown != 0 {
		t.Fatalf("classes %d, unknown %d; want 7, 0", len(counts), unknown)
	}
	for c, name := range net.Labels.Names {
		if counts[c] != want[name] {
			t.Errorf("class %s: %d nodes, want %d", name, counts[c], want[name])
		}
	}
	// The edge counts behind DefaultLINQSKNN's choice.
	for k, want := range map[int]int{3: 6384, 5: 10461} {
		g, err := KNNGraph(attr.Features, k, nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		if g.NNZ()/2 != want {
			t.Errorf("k=%d: %d edges, want %d", k, g.NNZ()/2, want)
		}
	}
}
