package dpmne

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/proximity"
	"github.com/dpmne/dpmne/structure"
	"github.com/dpmne/dpmne/synth"
)

// The rule on given measurements: a graph side without directions drops
// the proximity and the smoothing; a feature side without any takes the
// featureless settings; otherwise β is 300 times the ratio of the sides'
// directions; views without directions of their own leave the proximity
// where the measurement says so, and their features are smoothed along
// the kept views' union. A configuration that sets β, asks for no
// balance or drops the proximity is left as it is.
func TestBalanced(t *testing.T) {
	two := []bool{true, true}
	for _, c := range []struct {
		name  string
		cfg   Config
		b     Balance
		check func(c Config) bool
	}{
		{"nothing measured", DefaultConfig(), Balance{Kept: []bool{false, false}},
			func(c Config) bool { return c.Beta == 0 && !c.NoProximity && c.Features.Propagate == 1 }},
		{"noise graphs", DefaultConfig(), Balance{Kept: []bool{false, false}, FeatureDirections: 4},
			func(c Config) bool { return c.NoProximity && c.Features.Propagate == 0 }},
		{"no features", DefaultConfig(), Balance{Kept: two, GraphDirections: 4, HasFeatures: []bool{false, false}},
			func(c Config) bool {
				return c.Beta == featurelessBeta && c.Solver.OrthAllNodes && !c.NoProximity && c.Solver.Y == GD
			}},
		{"noise features", DefaultConfig(), Balance{Kept: two, GraphDirections: 4, HasFeatures: []bool{true, false}},
			func(c Config) bool {
				return c.Beta == featurelessBeta && c.Solver.Y == Stiefel && c.Solver.YSteps == 1 && c.Proximity.Laplacian == proximity.Normalized &&
					c.NoAutoencoder && c.Alpha == 0 && c.Features.Propagate == 0 &&
					slices.Equal(c.Proximity.Weights, []float64{1}) && c.Proximity.Norm == proximity.NormNone && c.Proximity.EqualViewWeights
			}},
		{"noise features, a view left out", DefaultConfig(), Balance{Kept: []bool{true, false, true}, GraphDirections: 4, HasFeatures: []bool{true, false, true}},
			func(c Config) bool {
				return c.Proximity.Norm == proximity.NormNone && !c.Proximity.EqualViewWeights && slices.Equal(c.Proximity.ViewWeights, []float64{1.5, 0, 1.5})
			}},
		{"graphs the features disagree with", DefaultConfig(), Balance{Kept: two, GraphDirections: 15, FeatureDirections: 4,
			Agreement: []structure.Agreement{{K: 4, Cos2: 0.001, Null: 0.002}, {}}},
			func(c Config) bool { return c.NoProximity && c.Features.Propagate == 0 }},
		{"graphs one view's features agree with", DefaultConfig(), Balance{Kept: two, GraphDirections: 15, FeatureDirections: 5,
			Agreement: []structure.Agreement{{K: 4, Cos2: 0.001, Null: 0.002}, {K: 5, Cos2: 0.2, Null: 0.002, Agree: true}}},
			func(c Config) bool { return !c.NoProximity && math.Abs(c.Beta-0.33) < 1e-12 }}, // 0.11 · 15/5, to rounding
		{"as many", DefaultConfig(), Balance{Kept: two, GraphDirections: 6, FeatureDirections: 6},
			func(c Config) bool { return c.Beta == featuredBeta && c.Features.Propagate == 1 }},
		{"graphs ahead", DefaultConfig(), Balance{Kept: two, GraphDirections: 8, FeatureDirections: 2},
			func(c Config) bool { return math.Abs(c.Beta-0.44) < 1e-12 }}, // 0.11 · 8/2
		{"a view whose graph holds none", DefaultConfig(), Balance{Kept: []bool{true, true, false}, GraphDirections: 4, FeatureDirections: 4,
			Graphs: []structure.GraphSignal{{Directions: 3}, {}, {}}, HasFeatures: []bool{true, true, false}},
			func(c Config) bool {
				return slices.Equal(c.Features.AlongUnion, []bool{false, true, false}) && slices.Equal(c.Proximity.ViewWeights, []float64{1.5, 1.5, 0})
			}},
		{"every view's graph holds some", DefaultConfig(), Balance{Kept: two, GraphDirections: 4, FeatureDirections: 4,
			Graphs: []structure.GraphSignal{{Directions: 3}, {Directions: 1}}, HasFeatures: two},
			func(c Config) bool { return c.Features.AlongUnion == nil }},
		{"a view left out", DefaultConfig(), Balance{Kept: []bool{true, false, true}, GraphDirections: 4, FeatureDirections: 4},
			func(c Config) bool { return slices.Equal(c.Proximity.ViewWeights, []float64{1.5, 0, 1.5}) }},
		{"β set", func() Config { c := DefaultConfig(); c.Beta = 50; return c }(), Balance{Kept: []bool{false, false}},
			func(c Config) bool { return c.Beta == 50 && !c.NoProximity && c.Features.Propagate == 1 }},
		{"unbalanced", func() Config { c := DefaultConfig(); c.Unbalanced = true; return c }(), Balance{Kept: []bool{false, false}},
			func(c Config) bool { return c.Beta == 0 && !c.NoProximity }},
		{"paper", Paper(), Balance{Kept: []bool{false, false}},
			func(c Config) bool { return c.Beta == paperBeta && !c.NoProximity }},
	} {
		if got := c.cfg.Balanced(c.b); !c.check(got) {
			t.Errorf("%s: β %v, proximity off %v, propagate %d, view weights %v, R(Y) over all %v", c.name, got.Beta, got.NoProximity, got.Features.Propagate, got.Proximity.ViewWeights, got.Solver.OrthAllNodes)
		}
	}
}

// Measure on planted networks of 2,000 nodes: where only the graphs carry
// the classes, the features (uniform noise) hold no direction and the
// graphs' union some; where only the features do, the graphs (Erdős–Rényi)
// hold none and each view's features some. A pure-noise side's weight is
// thus 0, under the 0.05 of the planted side's that the rule allows.
func TestMeasurePlanted(t *testing.T) {
	if testing.Short() {
		t.Skip("measures two 2,000-node networks")
	}
	const n, c = 2000, 4
	for _, tc := range []struct {
		name          string
		cfg           synth.Config
		graphs, feats bool
	}{
		{"graphs", synth.Config{Nodes: n, Classes: c, Views: 2, DegreeIn: []float64{8}, DegreeOut: []float64{2},
			FeatureDims: []int{100}, FeatureNNZ: []int{10}, Signal: []float64{1.0 / c}, Missing: []float64{0}}, true, false},
		{"features", synth.Config{Nodes: n, Classes: c, Views: 2, DegreeIn: []float64{2}, DegreeOut: []float64{6},
			FeatureDims: []int{100}, FeatureNNZ: []int{10}, Signal: []float64{0.6}, Missing: []float64{0}}, false, true},
	} {
		net, err := synth.Generate(tc.cfg, rand.New(rand.NewPCG(9, 9)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := Measure(context.Background(), net)
		if err != nil {
			t.Fatal(err)
		}
		if (b.GraphDirections > 0) != tc.graphs || (b.FeatureDirections > 0) != tc.feats {
			t.Errorf("%s: graphs %d directions, features %d; want graphs %v, features %v\n%v", tc.name, b.GraphDirections, b.FeatureDirections, tc.graphs, tc.feats, b.Report(net))
		}
		if tc.graphs && b.GraphDirections != c-1 {
			t.Errorf("%s: %d graph directions for %d planted classes, want %d", tc.name, b.GraphDirections, c, c-1)
		}
		got := DefaultConfig().Balanced(b)
		if tc.feats && !got.NoProximity {
			t.Errorf("%s: the noise graphs keep the proximity (β %v)", tc.name, got.Beta)
		}
		if tc.graphs && got.Beta != featurelessBeta {
			t.Errorf("%s: β %v with noise features, want the featureless %v", tc.name, got.Beta, featurelessBeta)
		}
	}
}

// A feature matrix's directions never exceed structure.DefaultK, and
// Measure is the same on a second call: its nulls come from a fixed seed.
func TestMeasureDeterministic(t *testing.T) {
	net, err := synth.Generate(synth.Config{Nodes: 300, Classes: 3, Views: 2, DegreeIn: []float64{6}, DegreeOut: []float64{1},
		FeatureDims: []int{40}, FeatureNNZ: []int{6}, Signal: []float64{0.5}, Missing: []float64{0.2}}, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	a, err1 := Measure(context.Background(), net)
	b, err2 := Measure(context.Background(), net)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !slices.Equal(a.Report(net), b.Report(net)) {
		t.Errorf("two measurements differ:\n%v\n%v", a.Report(net), b.Report(net))
	}
	if a.FeatureDirections > structure.DefaultK {
		t.Errorf("%d feature directions", a.FeatureDirections)
	}
}

// Measure's agreement on planted networks of 2,000 nodes: graphs and
// features planted on the same classes agree; graphs planted on 12 groups
// drawn independently of the 4 classes the features carry (a decoy: the
// graphs hold structure, but not the features') do not, though both sides
// hold directions.
func TestMeasureAgreement(t *testing.T) {
	if testing.Short() {
		t.Skip("measures two 2,000-node networks")
	}
	gen := func(groups int, seed uint64) *multiplex.Network {
		net, err := synth.Generate(synth.Config{Nodes: 2000, Classes: 4, Views: 2, DegreeIn: []float64{8}, DegreeOut: []float64{2},
			FeatureDims: []int{100}, FeatureNNZ: []int{10}, Signal: []float64{0.5}, Missing: []float64{0}, GraphGroups: groups}, rand.New(rand.NewPCG(seed, seed)))
		if err != nil {
			t.Fatal(err)
		}
		return net
	}
	same, decoy := gen(0, 5), gen(12, 6)
	for _, tc := range []struct {
		name  string
		net   *multiplex.Network
		agree bool
	}{{"same classes", same, true}, {"decoy graphs", decoy, false}} {
		b, err := Measure(context.Background(), tc.net)
		if err != nil {
			t.Fatal(err)
		}
		if b.GraphDirections == 0 || b.FeatureDirections == 0 {
			t.Fatalf("%s: graphs %d directions, features %d: want both", tc.name, b.GraphDirections, b.FeatureDirections)
		}
		for s, a := range b.Agreement {
			if a.K == 0 || a.Agree != tc.agree {
				t.Errorf("%s: view %d: %+v, want agree %v", tc.name, s, a, tc.agree)
			}
		}
		if got := DefaultConfig().Balanced(b); tc.agree == got.NoProximity {
			t.Errorf("%s: proximity dropped %v, want it kept exactly where graphs and features agree", tc.name, got.NoProximity)
		}
	}
}

// Weak graphs: synth-mixed's union holds no direction past the margin, but
// the eigenvalues below its rewired copies' edge have directions that
// agree with the features, so the proximity keeps them; synth-features'
// Erdős–Rényi graphs hold none to compare, and stay out.
func TestMeasureWeakGraphs(t *testing.T) {
	if testing.Short() {
		t.Skip("measures two 10,000-node networks")
	}
	for _, tc := range []struct {
		data   string
		graphs bool
	}{{"synth-mixed", true}, {"synth-features", false}} {
		f, _ := synth.LookupFamily(tc.data)
		net, err := f.Generate()
		if err != nil {
			t.Fatal(err)
		}
		b, err := Measure(context.Background(), net)
		if err != nil {
			t.Fatal(err)
		}
		got := DefaultConfig().Balanced(b)
		if b.Union.Directions != 0 || (b.GraphDirections > 0) != tc.graphs || got.NoProximity == tc.graphs {
			t.Errorf("%s: union %d directions, graphs %d, proximity off %v; want weak graphs kept %v\n%v", tc.data, b.Union.Directions, b.GraphDirections, got.NoProximity, tc.graphs, b.Report(net))
		}
	}
}

// A measurement given to Fit (Options.Balance) is used as Fit's own: the
// same embedding to the bit, Options.Measured called with it, and the
// network not measured again (no measuring phase).
func TestFitGivenBalance(t *testing.T) {
	net, err := synth.Generate(synth.Config{Nodes: 300, Classes: 3, Views: 2, DegreeIn: []float64{6}, DegreeOut: []float64{1},
		FeatureDims: []int{40}, FeatureNNZ: []int{6}, Signal: []float64{0.5}, Missing: []float64{0.2}}, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Dim, cfg.Solver.Iterations = 8, 3
	b, err := Measure(context.Background(), net)
	if err != nil {
		t.Fatal(err)
	}
	fit := func(opt Options) ([]float64, []string, Balance) {
		t.Helper()
		var phases []string
		var got Balance
		opt.Phase = func(what string) func() { phases = append(phases, what); return nil }
		opt.Measured = func(m Balance) { got = m }
		m, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 0)), opt)
		if err != nil {
			t.Fatal(err)
		}
		return m.Embedding().RawMatrix().Data, phases, got
	}
	own, ownPhases, _ := fit(Options{})
	given, givenPhases, measured := fit(Options{Balance: &b})
	if !slices.Equal(own, given) {
		t.Error("the embedding with the measurement given differs from the fit's own")
	}
	if !slices.Equal(measured.Report(net), b.Report(net)) {
		t.Error("Options.Measured did not receive the given measurement")
	}
	if len(givenPhases) != len(ownPhases)-1 || !strings.HasPrefix(ownPhases[0], "measuring") || slices.ContainsFunc(givenPhases, func(p string) bool { return strings.HasPrefix(p, "measuring") }) {
		t.Errorf("phases %q with the measurement given, %q without: want the measuring phase left out", givenPhases, ownPhases)
	}
}
