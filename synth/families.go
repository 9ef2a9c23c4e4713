package synth

import (
	"math/rand/v2"

	"github.com/dpmne/dpmne/multiplex"
)

// A Family is a named synthetic data set: a configuration and the seed it is
// generated with, so that its name always denotes the same network.
type Family struct {
	// Name is the family's name ("graph-only", …) and Data the name of
	// its data set ("synth-graph", …), the one a --data flag takes.
	Name, Data  string
	Description string
	Config      Config
	Seed        uint64
}

// FamilyNodes is the number of nodes of every family.
const FamilyNodes = 10_000

// Families returns the synthetic families that separate where the class
// signal lives, each with FamilyNodes nodes, 5 classes (chance 0.2) and 3
// views:
//
//   - graph-only (synth-graph): homophilous graphs; every view's features,
//     where it has its own, are uniform noise (Signal 1/Classes: Signal 0
//     would tell a class by the block of dimensions its nodes avoid).
//   - features-only (synth-features): class-correlated features; every
//     graph is an Erdős–Rényi graph, an edge inside a class as likely as
//     one across (DegreeOut = (Classes−1)·DegreeIn).
//   - mixed (synth-mixed): weakly homophilous graphs and weakly
//     class-correlated features, each carrying part of the signal.
//   - noisy-view (synth-noisy): two good views (homophilous graphs,
//     class-correlated features) and a third whose denser graph is
//     heterophilous (an edge across classes three times as likely as one
//     inside) and whose features are noise.
//   - decoy (synth-decoy): class-correlated features as features-only's,
//     and homophilous graphs planted on 20 groups drawn independently of
//     the classes: graphs with strong community structure that is not the
//     classes' (nor the features').
//   - partial (synth-partial): graphs and features of moderate signal,
//     each view missing 60% of the nodes as multiplex.PartialViews draws
//     them (a node missing from all three is restored in one, so each
//     view's PDR is about 0.53).
//
// The degrees and signals are set so that a method using the informative
// side scores clearly between chance and 1 (dpmne experiment suite).
//
// The slice is new on each call; the same Family always generates the same
// network.
func Families() []Family {
	const n, c = FamilyNodes, 5
	noise := 1.0 / c // the class block's share of the dimensions
	return []Family{
		{Name: "graph-only", Data: "synth-graph", Seed: 101,
			Description: "homophilous graphs, noise features",
			Config: Config{Nodes: n, Classes: c, Views: 3,
				DegreeIn: []float64{3, 3, 2.5}, DegreeOut: []float64{3},
				FeatureDims: []int{100, 100, 0}, FeatureNNZ: []int{10, 10, 0}, Signal: []float64{noise, noise, 0},
				Missing: []float64{0}}},
		{Name: "features-only", Data: "synth-features", Seed: 102,
			Description: "class-correlated features, random graphs",
			Config: Config{Nodes: n, Classes: c, Views: 3,
				DegreeIn: []float64{1.5}, DegreeOut: []float64{6},
				FeatureDims: []int{100, 100, 0}, FeatureNNZ: []int{10, 10, 0}, Signal: []float64{0.35, 0.35, 0},
				Missing: []float64{0}}},
		{Name: "mixed", Data: "synth-mixed", Seed: 103,
			Description: "weak graphs and weak features, each carrying part",
			Config: Config{Nodes: n, Classes: c, Views: 3,
				DegreeIn: []float64{2.5, 2, 2}, DegreeOut: []float64{3},
				FeatureDims: []int{100, 100, 0}, FeatureNNZ: []int{10, 10, 0}, Signal: []float64{0.3, 0.3, 0},
				Missing: []float64{0}}},
		{Name: "noisy-view", Data: "synth-noisy", Seed: 104,
			Description: "two good views and one heterophilous view with noise features",
			Config: Config{Nodes: n, Classes: c, Views: 3,
				DegreeIn: []float64{4, 4, 1}, DegreeOut: []float64{3, 3, 12},
				FeatureDims: []int{100}, FeatureNNZ: []int{10}, Signal: []float64{0.3, 0.3, noise},
				Missing: []float64{0}}},
		{Name: "decoy", Data: "synth-decoy", Seed: 106,
			Description: "class-correlated features, graphs planted on groups that are not the classes",
			Config: Config{Nodes: n, Classes: c, Views: 3,
				DegreeIn: []float64{8, 6, 6}, DegreeOut: []float64{2},
				FeatureDims: []int{100, 100, 0}, FeatureNNZ: []int{10, 10, 0}, Signal: []float64{0.35, 0.35, 0},
				Missing: []float64{0}, GraphGroups: 20}},
		{Name: "partial", Data: "synth-partial", Seed: 105,
			Description: "moderate graphs and features, 60% of the nodes missing from each view",
			Config: Config{Nodes: n, Classes: c, Views: 3,
				DegreeIn: []float64{6, 5, 4}, DegreeOut: []float64{3},
				FeatureDims: []int{100, 100, 0}, FeatureNNZ: []int{10, 10, 0}, Signal: []float64{0.4, 0.4, 0},
				Missing: []float64{0.6}}},
	}
}

// LookupFamily returns the family whose data set is called name
// ("synth-graph", …).
func LookupFamily(name string) (Family, bool) {
	for _, f := range Families() {
		if name == f.Data {
			return f, true
		}
	}
	return Family{}, false
}

// FamilyData returns the data set names of the families, in Families order.
func FamilyData() []string {
	var s []string
	for _, f := range Families() {
		s = append(s, f.Data)
	}
	return s
}

// Generate draws the family's network with its own seed; the network is
// named after the family's data set.
func (f Family) Generate() (*multiplex.Network, error) {
	net, err := Generate(f.Config, rand.New(rand.NewPCG(f.Seed, 0)))
	if err != nil {
		return nil, err
	}
	net.Name = f.Data
	return net, nil
}
