package experiment

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
)

// small returns a configuration that fits the test networks in a moment.
func small() dpmne.Config {
	c := dpmne.DefaultConfig()
	c.Dim = 8
	c.Autoencoder.Hidden = []int{16}
	c.Solver.Iterations = 2
	c.Autoencoder.Pretrain = 1
	c.Autoencoder.Batch = 64
	return c
}

// TestTuned: dpmne-tuned's embedding is the fit of the point Tune ranks
// first, with the cell's seed (byte for byte), and its note names that
// point; a network without labels is an error, not a guess.
func TestTuned(t *testing.T) {
	net, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	base := small()
	base.Solver.Iterations = 3
	grid := Grid{Axes: []Axis{{"Lambda", []string{"0.037", "3.7"}}, {"Features.Propagate", []string{"0", "1"}}}}
	var note string
	p := Params{Seed: 3, DPMNE: base, Grid: &grid, Note: func(s string) { note = s }}
	got, d, err := Tuned().Embed(context.Background(), net, p)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Tune(context.Background(), net, base, grid, 0.5, 5, p.Seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 {
		t.Fatalf("Tune scored %d points, want 4 (the base is one of the grid's)", len(res))
	}
	b := res[0]
	want, wd, err := DPMNE("x", "", func(c *dpmne.Config) { *c = b.Config }).Embed(context.Background(), net, Params{Seed: p.Seed, DPMNE: base})
	if err != nil {
		t.Fatal(err)
	}
	if d != wd || !slices.EqualFunc(got, want, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
		t.Errorf("dpmne-tuned's embedding is not the fit of Tune's first point (%s)", b.String(grid.Fields()))
	}
	for _, s := range []string{"Lambda=" + b.Setting[0], "Features.Propagate=" + b.Setting[1], "4 points"} {
		if !strings.Contains(note, s) {
			t.Errorf("note %q does not contain %q", note, s)
		}
	}
	unlabelled := *net
	unlabelled.Labels = nil
	if _, _, err := Tuned().Embed(context.Background(), &unlabelled, p); err == nil || !strings.Contains(err.Error(), "labels") {
		t.Errorf("no labels: err = %v, want one saying so", err)
	}
}

// fitted runs Tune on net with 2 folds and returns the value of field in
// each point, in the order Tune fitted them, and the points ranked.
func fitted(t *testing.T, net *multiplex.Network, base dpmne.Config, g Grid, field string) ([]string, []TuneResult) {
	t.Helper()
	var seen []string
	res, err := Tune(context.Background(), net, base, g, 0.5, 2, 1, func(done, total int, r TuneResult) {
		if done != len(seen)+1 || total < done {
			t.Errorf("progress %d of %d after %d points", done, total, len(seen))
		}
		v, err := r.Config.Get(field)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, v)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(seen) {
		t.Fatalf("%d points ranked, %d fitted", len(res), len(seen))
	}
	return seen, res
}

// TestTuneGrid: the grid is every combination of the axes' values, the
// first axis outermost, then the base's own point where the grid lacks
// it; a point repeated, or that fits as another, is fitted once; the base's
// point fits the base, so the point ranked first scores at least as well.
func TestTuneGrid(t *testing.T) {
	partial, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	sc := synth.Default()
	sc.Nodes, sc.Missing = 400, []float64{0}
	full, err := synth.Generate(sc, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	base := small()
	base.Lambda = 500
	lambda := func(vs ...string) Grid { return Grid{Axes: []Axis{{"Lambda", vs}}} }
	for _, tc := range []struct {
		name  string
		net   *multiplex.Network
		g     Grid
		field string
		want  []string // the field's values, in fitting order
	}{
		{"grid without the base", partial, lambda("100", "10000"), "Lambda", []string{"100", "10000", "500"}},
		{"grid with the base", partial, lambda("500", "100"), "Lambda", []string{"500", "100"}},
		{"repeated values", partial, lambda("100", "100", "500", "100"), "Lambda", []string{"100", "500"}},
		{"two axes", partial, Grid{Axes: []Axis{{"Lambda", []string{"100", "500"}}, {"FilterTau", []string{"0", "2"}}}}, "FilterTau", []string{"0", "2", "0", "2"}},
		{"feature graph, partial", partial, Grid{Axes: []Axis{{"Features.KNN", []string{"0", "8"}}}}, "Features.KNN", []string{"0", "8"}},
		// On a full network the feature graph changes nothing.
		{"feature graph, full", full, Grid{Axes: []Axis{{"Features.KNN", []string{"0", "8"}}}}, "Features.KNN", []string{"0"}},
		{"other starts", partial, Grid{Axes: []Axis{{"Solver.SpectralInit", []string{"true"}}}}, "Solver.SpectralInit", []string{"true", "false"}},
	} {
		got, res := fitted(t, tc.net, base, tc.g, tc.field)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: fitted %s %v, want %v", tc.name, tc.field, got, tc.want)
			continue
		}
		i := slices.IndexFunc(res, func(r TuneResult) bool { return reflect.DeepEqual(r.Config, base) })
		if i < 0 && tc.name != "feature graph, full" && tc.name != "two axes" {
			t.Errorf("%s: no point of the base's", tc.name)
			continue
		}
		if i >= 0 && res[0].MicroF1.Mean < res[i].MicroF1.Mean {
			t.Errorf("%s: first point scores %.4f, below the base's %.4f", tc.name, res[0].MicroF1.Mean, res[i].MicroF1.Mean)
		}
	}
}

// TestTuneStages: each stage fits the point ranked first so far once per
// value, leaving out values that fit as a point already fitted (the
// pretraining of identity encoders, the non-zero weight under the squared
// error, steps across views where every view has features of its own),
// and
// the progress total grows by its fits.
func TestTuneStages(t *testing.T) {
	net, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	base := small()
	grid := Grid{Axes: []Axis{{"Lambda", []string{"0.037", "3.7"}}}}
	for _, tc := range []struct {
		name   string
		base   func(*dpmne.Config)
		stage  Axis
		points int // the stage's fits
	}{
		{"pretraining", nil, Axis{"Autoencoder.Pretrain", []string{"1", "3", "3", "5"}}, 2},
		{"B ridge", nil, Axis{"LambdaB", []string{"0.5", "0.25"}}, 2},
		{"identity encoders' pretraining", func(c *dpmne.Config) { c.NoAutoencoder = true }, Axis{"Autoencoder.Pretrain", []string{"3"}}, 0},
		{"squared error's weight", func(c *dpmne.Config) { c.Autoencoder.Loss = "mse" }, Axis{"Autoencoder.NonzeroWeight", []string{"4"}}, 0},
		{"steps across views", nil, Axis{"Features.PropagateAcross", []string{"1"}}, 1},
	} {
		b := base
		if tc.base != nil {
			tc.base(&b)
		}
		var totals []int
		var seen []TuneResult
		res, err := Tune(context.Background(), net, b, Grid{Axes: grid.Axes, Stages: []Axis{tc.stage}}, 0.5, 2, 1, func(done, total int, r TuneResult) {
			totals = append(totals, total)
			seen = append(seen, r)
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 2+tc.points || totals[0] != 2 || totals[len(totals)-1] != 2+tc.points {
			t.Errorf("%s: %d points, totals %v; want 2 and %d", tc.name, len(res), totals, tc.points)
			continue
		}
		// The stage's points are the best of the grid with the value set.
		top := seen[0]
		if seen[1].MicroF1.Mean > top.MicroF1.Mean {
			top = seen[1]
		}
		for _, r := range seen[2:] {
			want := top.Config
			v, _ := r.Config.Get(tc.stage.Field)
			want.Set(tc.stage.Field, v)
			if !reflect.DeepEqual(r.Config, want) {
				t.Errorf("%s: a stage's point is not the grid's best with %s=%s", tc.name, tc.stage.Field, v)
			}
		}
	}
	// Steps across views where every view has features of its own change
	// nothing.
	sc := synth.Default()
	sc.Nodes, sc.FeatureDims, sc.FeatureNNZ = 300, []int{50, 50, 50}, []int{5, 5, 5}
	featured, err := synth.Generate(sc, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Tune(context.Background(), featured, base, Grid{Axes: grid.Axes, Stages: []Axis{{"Features.PropagateAcross", []string{"1"}}}}, 0.5, 2, 1, nil)
	if err != nil || len(res) != 2 {
		t.Errorf("steps across views on a network whose views all have features: %d points, err %v; want 2", len(res), err)
	}
}

// TestTuneErrors: an unknown field, a value that does not parse or that
// the configuration refuses, and an axis without values are errors naming
// the field and the value, before any fit.
func TestTuneErrors(t *testing.T) {
	net, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		g    Grid
		want string
	}{
		{Grid{Axes: []Axis{{"Lambada", []string{"1"}}}}, `unknown setting "Lambada"`},
		{Grid{Axes: []Axis{{"Autoencoder", []string{"1"}}}}, `setting "Autoencoder" is a group`},
		{Grid{Axes: []Axis{{"Lambda", []string{"x"}}}}, `Lambda = "x": want a number`},
		{Grid{Axes: []Axis{{"Features.KNN", []string{"-1"}}}}, "Features.KNN=-1: Features.KNN = -1: want ≥ 0"},
		{Grid{Axes: []Axis{{"Autoencoder.NonzeroWeight", []string{"0.5"}}}}, "Autoencoder.NonzeroWeight = 0.5"},
		{Grid{Stages: []Axis{{"Solver.Y", []string{"newton"}}}}, `Solver.Y = "newton": unknown Y solver "newton": want gd or stiefel`},
		{Grid{Axes: []Axis{{"Lambda", nil}}}, "Lambda: no values"},
	} {
		if _, err := Tune(context.Background(), net, small(), tc.g, 0.5, 2, 1, func(int, int, TuneResult) { t.Fatal("a point was fitted") }); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.g, err, tc.want)
		}
	}
}

// TestTunedMarkdown: the chosen point is listed under the table with its
// cell, in a setting sweep as in a one-column table.
func TestTunedMarkdown(t *testing.T) {
	for _, name := range []string{"table2", "pdr"} {
		s, err := Named(name, []string{"synthetic"}, []string{"test-noted"}, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		cells, err := Run(context.Background(), s, load, nil)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := Markdown(&b, s, cells, "cmd"); err != nil {
			t.Fatal(err)
		}
		want := "- test-noted on synthetic: chose 1\n"
		if name == "pdr" {
			want = "- test-noted on synthetic, pdr = 0.4: chose 1\n"
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s markdown lacks %q:\n%s", name, want, b.String())
		}
	}
}

// noted is the oracle, noting its seed as dpmne-tuned notes its choice.
var noted = Method{Name: "test-noted", Embed: func(ctx context.Context, net *multiplex.Network, p Params) ([]float64, int, error) {
	p.Note("chose " + strconv.FormatUint(p.Seed, 10))
	return oracle.Embed(ctx, net, p)
}}

func init() { Register(noted) }

// dpmneConfigWith returns dpmne.DefaultConfig with edit applied.
func dpmneConfigWith(edit func(*dpmne.Config)) dpmne.Config {
	c := dpmne.DefaultConfig()
	edit(&c)
	return c
}
