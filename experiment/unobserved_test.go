package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/baseline"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
)

// unobservedNet returns a small two-view network whose first five nodes
// are observed in no view (as AMiner's 425 papers): with features in
// view0 (featured) or with adjacency rows only (as AMiner).
func unobservedNet(t *testing.T, featured bool) *multiplex.Network {
	t.Helper()
	cfg := synth.Config{
		Nodes: 80, Classes: 3, Views: 2,
		DegreeIn: []float64{5}, DegreeOut: []float64{1},
		FeatureDims: []int{30, 0}, FeatureNNZ: []int{5, 0}, Signal: []float64{0.5, 0},
		Missing: []float64{0.2},
	}
	if !featured {
		cfg.FeatureDims, cfg.FeatureNNZ, cfg.Signal = []int{0}, []int{0}, []float64{0}
	}
	net, err := synth.Generate(cfg, rand.New(rand.NewPCG(4, 2)))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range net.Views {
		keep := append([]bool(nil), v.Observed...)
		for i := range 5 {
			keep[i] = false
		}
		net.Views[k] = v.Restrict(keep)
	}
	if err := net.Validate(); err != nil {
		t.Fatal(err)
	}
	if u := net.NumUnobserved(); u < 5 {
		t.Fatalf("%d nodes in no view, want at least the first 5", u)
	}
	return net
}

// checkEmbedding fails t unless emb is n×d with finite values.
func checkEmbedding(t *testing.T, what string, emb []float64, n, d int) {
	t.Helper()
	if len(emb) != n*d || d < 1 {
		t.Fatalf("%s: %d values for %d nodes × d = %d", what, len(emb), n, d)
	}
	for k, x := range emb {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("%s: node %d has %v", what, k/d, x)
		}
	}
}

// TestNodesObservedNowhereDPMNE: DPMNE, with the default configuration
// and with the paper's, fits a network with nodes observed in no view
// without error and with finite values, and gives all such nodes one and
// the same row: zero in Y, minus Y's column means once centred.
func TestNodesObservedNowhereDPMNE(t *testing.T) {
	ctx := context.Background()
	paper := dpmne.Paper()
	paper.Dim = 8
	for _, featured := range []bool{true, false} {
		net := unobservedNet(t, featured)
		var none []int
		for i, p := range net.ViewPatterns() {
			if p == 0 {
				none = append(none, i)
			}
		}
		for _, c := range []struct {
			name string
			cfg  dpmne.Config
		}{{"default", dpmneConfigWith(func(c *dpmne.Config) { c.Dim = 8 })}, {"paper", paper}} {
			what := fmt.Sprintf("featured %v, %s", featured, c.name)
			m, err := dpmne.Fit(ctx, net, c.cfg, rand.New(rand.NewPCG(1, 0)), dpmne.Options{})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			e := m.Embedding()
			_, d := e.Dims()
			emb := e.RawMatrix().Data
			checkEmbedding(t, what, emb, net.N(), d)
			// Nothing tells such nodes apart: Y's row is zero (no code to
			// fit, no edge, and R(Y)'s gradient vanishes there), so the
			// embedding is one row for all of them.
			for _, i := range none {
				for j, y := range m.Y.RawRowView(i) {
					if y != 0 {
						t.Fatalf("%s: node %d, in no view, has Y[%d] = %v, want 0", what, i, j, y)
					}
				}
			}
			for _, i := range none[1:] {
				for j := range d {
					if emb[i*d+j] != emb[none[0]*d+j] {
						t.Fatalf("%s: nodes %d and %d, both in no view, differ in column %d: %v, %v", what, none[0], i, j, emb[none[0]*d+j], emb[i*d+j])
					}
				}
			}
		}
	}
}

// TestNodesObservedNowhereBaselines: every baseline of baseline.Methods
// embeds a network with nodes observed in no view, with features and
// without, without error and with finite values.
func TestNodesObservedNowhereBaselines(t *testing.T) {
	for _, featured := range []bool{true, false} {
		net := unobservedNet(t, featured)
		for _, b := range baseline.Methods() {
			what := fmt.Sprintf("featured %v, %s", featured, b.Name)
			emb, d, err := Baseline(b).Embed(context.Background(), net, Params{Dim: 8, Seed: 1, Labels: net.Labels.Class})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			checkEmbedding(t, what, emb, net.N(), d)
		}
	}
}
