package experiment

import (
	"context"
	"slices"
	"testing"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/baseline"
)

// TestBaselines: table2 and table3 list DPMNE and every baseline that
// embeds in floats by default, table5 every baseline of codes; each
// baseline is registered, takes its dimension from the cell or else the
// base configuration, and runs through an experiment.
func TestBaselines(t *testing.T) {
	for _, name := range []string{"table2", "table3", "table5"} {
		s, err := Named(name, []string{"synthetic"}, nil, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if s.Methods[0] != "dpmne" {
			t.Errorf("%s: methods %v, want dpmne first", name, s.Methods)
		}
		for _, b := range baseline.Methods() {
			if slices.Contains(s.Methods, b.Name) != (b.Codes == (name == "table5")) {
				t.Errorf("%s: methods %v, %s (codes %v) in or out wrongly", name, s.Methods, b.Name, b.Codes)
			}
			if _, err := Lookup(b.Name); err != nil {
				t.Error(err)
			}
		}
	}
	net, _ := load("")
	m, _ := Lookup("spectral")
	for _, tc := range []struct{ cell, base, want int }{{0, 8, 8}, {4, 8, 4}} {
		_, d, err := m.Embed(context.Background(), net, Params{Dim: tc.cell, Seed: 1, DPMNE: dpmneConfigWith(func(c *dpmne.Config) { c.Dim = tc.base })})
		if err != nil {
			t.Fatal(err)
		}
		if d != tc.want {
			t.Errorf("cell dim %d, base dim %d: d = %d, want %d", tc.cell, tc.base, d, tc.want)
		}
	}
	s, _ := Named("table2", []string{"synthetic"}, []string{"spectral", "smoothed-features"}, 2, 1)
	s.DPMNE.Dim = 16
	cells, err := Run(context.Background(), s, load, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		// The synthetic default's classes are recovered far above chance
		// (1/4) by both (about 0.9 measured).
		t.Logf("%s: micro-F1 %.3f", c.Method, c.MicroF1.Mean)
		if c.MicroF1.Mean < 0.6 {
			t.Errorf("%s: micro-F1 %.3f, want ≥ 0.6", c.Method, c.MicroF1.Mean)
		}
	}
}

// TestSquaredErrorMethods: the methods with the squared error fit under a
// base configuration that weighs the non-zero entries (an experiment's
// --nonzero-weight), which that loss would reject, and dpmne-unweighted
// fits unweighted whatever the base says.
func TestSquaredErrorMethods(t *testing.T) {
	net, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	embed := func(name string, c dpmne.Config) []float64 {
		m, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		e, _, err := m.Embed(context.Background(), net, Params{Seed: 1, DPMNE: c})
		if err != nil {
			t.Fatalf("%s under non-zero weight %g: %v", name, c.Autoencoder.NonzeroWeight, err)
		}
		return e
	}
	base := dpmneConfigWith(func(c *dpmne.Config) {
		c.Dim = 8
		c.Autoencoder.Hidden = []int{16}
		c.Solver.Iterations = 2
		c.Autoencoder.Pretrain = 1
		c.Autoencoder.Batch = 64
		c.Autoencoder.NonzeroWeight = 4
	})
	for _, name := range []string{"dpmne-mse", "dpmne-paper"} {
		embed(name, base)
	}
	one := base
	one.Autoencoder.NonzeroWeight = 1
	if !slices.Equal(embed("dpmne-unweighted", base), embed("dpmne", one)) {
		t.Error("dpmne-unweighted under weight 4 differs from dpmne at weight 1")
	}
	if slices.Equal(embed("dpmne", base), embed("dpmne", one)) {
		t.Error("the weight changes nothing")
	}
}
