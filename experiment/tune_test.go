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
	"github.com/dpmne/dpmne/eval"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
)

// TestTuned: dpmne-tuned's embedding is the fit of the point Tune ranks
// first, with the cell's seed (byte for byte), and its note names that
// point; a network without labels is an error, not a guess.
func TestTuned(t *testing.T) {
	net, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	base := dpmneConfigWith(func(c *dpmne.Config) {
		c.Dim = 8
		c.Autoencoder.Hidden = []int{16}
		c.Solver.Iterations = 3
		c.Autoencoder.Pretrain = 1
		c.Autoencoder.Batch = 64
	})
	grid := Grid{Lambda: []float64{100, 1e4}, Propagate: []int{0, 1}}
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
		t.Fatalf("Tune scored %d points, want 4", len(res))
	}
	b := res[0]
	want, wd, err := DPMNE("x", "", func(c *dpmne.Config) { *c = b.Config(*c) }).Embed(context.Background(), net, Params{Seed: p.Seed, DPMNE: base})
	if err != nil {
		t.Fatal(err)
	}
	if d != wd || !slices.EqualFunc(got, want, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
		t.Errorf("dpmne-tuned's embedding is not the fit of Tune's first point (λ = %g, propagate %d)", b.Lambda, b.Propagate)
	}
	for _, s := range []string{"λ = " + strconv.FormatFloat(b.Lambda, 'g', -1, 64), "propagate " + strconv.Itoa(b.Propagate), "4 points"} {
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

// TestTuneFeatureKNN: the feature-graph axis is searched on a partial
// network with features and collapsed to its first value on a full one,
// where every value fits the same; a negative value is an error.
func TestTuneFeatureKNN(t *testing.T) {
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
	base := dpmneConfigWith(func(c *dpmne.Config) {
		c.Dim = 8
		c.Autoencoder.Hidden = []int{16}
		c.Solver.Iterations = 2
		c.Autoencoder.Pretrain = 1
		c.Autoencoder.Batch = 64
	})
	g := Grid{FeatureKNN: []int{0, 8}}
	for _, tc := range []struct {
		name string
		net  *multiplex.Network
		want []int
	}{{"partial", partial, []int{0, 8}}, {"full", full, []int{0}}} {
		res, err := Tune(context.Background(), tc.net, base, g, 0.5, 2, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, r := range res {
			got = append(got, r.FeatureKNN)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s network: feature k-NN values tried %v, want %v", tc.name, got, tc.want)
		}
	}
	if _, err := Tune(context.Background(), partial, base, Grid{FeatureKNN: []int{-1}}, 0.5, 2, 1, nil); err == nil || !strings.Contains(err.Error(), "feature k-NN -1") {
		t.Errorf("feature k-NN -1: err = %v", err)
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

// TestTuneRefinePretrain: the second stage fits the grid's best point once
// more per new pretraining value (a value already in the grid, a repeat
// and 0 are skipped), the progress total grows by those fits, a point with
// identity encoders is not refined, and a negative value is an error.
func TestTuneRefinePretrain(t *testing.T) {
	net, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	base := dpmneConfigWith(func(c *dpmne.Config) {
		c.Dim = 8
		c.Autoencoder.Hidden = []int{16}
		c.Solver.Iterations = 2
		c.Autoencoder.Pretrain = 1
		c.Autoencoder.Batch = 64
	})
	g := Grid{Lambda: []float64{100, 1e4}, RefinePretrain: []int{2, 1, 2, 0}}
	var totals []int
	res, err := Tune(context.Background(), net, base, g, 0.5, 2, 1, func(done, total int, r TuneResult) { totals = append(totals, total) })
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || !slices.Equal(totals, []int{2, 2, 3}) {
		t.Fatalf("%d points, progress totals %v; want 3 points, totals [2 2 3]", len(res), totals)
	}
	var grid, refined []TuneResult
	for _, r := range res {
		if r.Pretrain == 2 {
			refined = append(refined, r)
		} else {
			grid = append(grid, r)
		}
	}
	if len(refined) != 1 || len(grid) != 2 {
		t.Fatalf("pretraining values %v, want 1, 1 and 2", res)
	}
	top := grid[0] // the grid's best: res is sorted, stable
	if refined[0].Lambda != top.Lambda {
		t.Errorf("refined λ = %g, the grid's best has λ = %g", refined[0].Lambda, top.Lambda)
	}
	if c := refined[0].Config(base); c.Autoencoder.Pretrain != 2 || c.Lambda != top.Lambda {
		t.Errorf("refined point's config: pretrain %d, λ %g", c.Autoencoder.Pretrain, c.Lambda)
	}
	id := Grid{Encoders: []string{"identity"}, RefinePretrain: []int{2}}
	idBase := base
	idBase.NoAutoencoder = true // else the base's own point, with autoencoders, joins the grid
	if res, err := Tune(context.Background(), net, idBase, id, 0.5, 2, 1, nil); err != nil || len(res) != 1 {
		t.Errorf("identity encoders: %d points, err %v; want 1, no refinement", len(res), err)
	}
	if _, err := Tune(context.Background(), net, base, Grid{RefinePretrain: []int{-1}}, 0.5, 2, 1, nil); err == nil || !strings.Contains(err.Error(), "-1") {
		t.Errorf("refine -1: err = %v", err)
	}
}

// TestTuneRefineLambdaB: the third stage fits the best point after the
// second once more per new B ridge (its own value, a repeat and 0 are
// skipped), the grid's points carry the base's λ_B, and a negative value
// is an error.
func TestTuneRefineLambdaB(t *testing.T) {
	net, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	base := dpmneConfigWith(func(c *dpmne.Config) {
		c.Dim = 8
		c.Autoencoder.Hidden = []int{16}
		c.Solver.Iterations = 2
		c.Autoencoder.Pretrain = 1
		c.Autoencoder.Batch = 64
		c.LambdaB = 2
	})
	g := Grid{Lambda: []float64{100, 1e4}, RefinePretrain: []int{2}, RefineLambdaB: []float64{0.5, 2, 0.5, 0}}
	var totals []int
	var seen []TuneResult
	res, err := Tune(context.Background(), net, base, g, 0.5, 2, 1, func(done, total int, r TuneResult) {
		totals = append(totals, total)
		seen = append(seen, r)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 || !slices.Equal(totals, []int{2, 2, 3, 4}) {
		t.Fatalf("%d points, progress totals %v; want 4 points, totals [2 2 3 4]", len(res), totals)
	}
	for _, r := range seen[:3] {
		if r.LambdaB != 2 {
			t.Errorf("grid or second-stage point with λ_B = %g, want the base's 2", r.LambdaB)
		}
	}
	got := checkRefined(t, seen, func(r *TuneResult) { r.LambdaB = 0.5 })
	if c := got.Config(base); c.LambdaB != 0.5 || c.Lambda != got.Lambda {
		t.Errorf("refined point's config: λ_B %g, λ %g", c.LambdaB, c.Lambda)
	}
	if _, err := Tune(context.Background(), net, base, Grid{RefineLambdaB: []float64{-1}}, 0.5, 2, 1, nil); err == nil || !strings.Contains(err.Error(), "-1") {
		t.Errorf("refine λ_B -1: err = %v", err)
	}
}

// TestTuneRefineNonzeroWeight: the fourth stage fits the best point after
// the third once more per new non-zero weight (its own value and 0 are
// skipped), the earlier points carry the base's weight (the default 8),
// identity encoders and the squared error are not refined, and a weight
// below 1 is an error.
func TestTuneRefineNonzeroWeight(t *testing.T) {
	net, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	base := dpmneConfigWith(func(c *dpmne.Config) {
		c.Dim = 8
		c.Autoencoder.Hidden = []int{16}
		c.Solver.Iterations = 2
		c.Autoencoder.Pretrain = 1
		c.Autoencoder.Batch = 64
	})
	seen := tuneSeen(t, net, base, Grid{Lambda: []float64{100, 1e4}, RefineLambdaB: []float64{0.5}, RefineNonzeroWeight: []float64{4, 8, 0}}, 4)
	for _, r := range seen[:3] {
		if r.NonzeroWeight != 8 {
			t.Errorf("point before the fourth stage with non-zero weight %g, want the default 8", r.NonzeroWeight)
		}
	}
	got := checkRefined(t, seen, func(r *TuneResult) { r.NonzeroWeight = 4 })
	if c := got.Config(base); c.Autoencoder.NonzeroWeight != 4 {
		t.Errorf("refined point's config: non-zero weight %g", c.Autoencoder.NonzeroWeight)
	}
	id := Grid{Encoders: []string{"identity"}, RefineNonzeroWeight: []float64{4}}
	idBase := base
	idBase.NoAutoencoder = true // else the base's own point, with autoencoders, joins the grid
	if res, err := Tune(context.Background(), net, idBase, id, 0.5, 2, 1, nil); err != nil || len(res) != 1 {
		t.Errorf("identity encoders: %d points, err %v; want 1, no refinement", len(res), err)
	}
	mse := base
	mse.Autoencoder.Loss = "mse"
	if res, err := Tune(context.Background(), net, mse, Grid{RefineNonzeroWeight: []float64{4}}, 0.5, 2, 1, nil); err != nil || len(res) != 1 {
		t.Errorf("squared error: %d points, err %v; want 1, no refinement", len(res), err)
	}
	if _, err := Tune(context.Background(), net, base, Grid{RefineNonzeroWeight: []float64{0.5}}, 0.5, 2, 1, nil); err == nil || !strings.Contains(err.Error(), "0.5") {
		t.Errorf("refine non-zero weight 0.5: err = %v", err)
	}
}

// TestTuneRefinePropagateAcross: the fifth stage fits the best point
// after the fourth once more per new step count along the featureless
// views' graphs (0 and repeats skipped; the earlier points have none), only
// on a network with views with and without features; a negative count is
// an error.
func TestTuneRefinePropagateAcross(t *testing.T) {
	net, err := load("") // the synthetic network: its third view has no features
	if err != nil {
		t.Fatal(err)
	}
	base := dpmneConfigWith(func(c *dpmne.Config) {
		c.Dim = 8
		c.Autoencoder.Hidden = []int{16}
		c.Solver.Iterations = 2
		c.Autoencoder.Pretrain = 1
		c.Autoencoder.Batch = 64
	})
	seen := tuneSeen(t, net, base, Grid{Lambda: []float64{100, 1e4}, RefineNonzeroWeight: []float64{4}, RefinePropagateAcross: []int{1, 0, 1}}, 4)
	for _, r := range seen[:3] {
		if r.PropagateAcross != 0 {
			t.Errorf("point before the fifth stage with %d steps across views, want 0", r.PropagateAcross)
		}
	}
	got := checkRefined(t, seen, func(r *TuneResult) { r.PropagateAcross = 1 })
	if c := got.Config(base); c.Features.PropagateAcross != 1 {
		t.Errorf("refined point's config: %d steps across views", c.Features.PropagateAcross)
	}
	cfg := synth.Default()
	cfg.Nodes, cfg.FeatureDims, cfg.FeatureNNZ, cfg.Signal = 300, []int{200, 100, 50}, []int{15, 10, 5}, []float64{0.3, 0.5, 0.5}
	featured, err := synth.Generate(cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := Tune(context.Background(), featured, base, Grid{RefinePropagateAcross: []int{1}}, 0.5, 2, 1, nil); err != nil || len(res) != 1 {
		t.Errorf("every view with features: %d points, err %v; want 1, no refinement", len(res), err)
	}
	if _, err := Tune(context.Background(), net, base, Grid{RefinePropagateAcross: []int{-1}}, 0.5, 2, 1, nil); err == nil || !strings.Contains(err.Error(), "-1") {
		t.Errorf("refine steps across views -1: err = %v", err)
	}
}

// TestTuneNonzeroWeightGrid: the grid's weights multiply its points, each
// fitted with its own weight, and the base's own point (weight 8) follows
// them; below 1 is an error naming the value.
func TestTuneNonzeroWeightGrid(t *testing.T) {
	net, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	base := dpmneConfigWith(func(c *dpmne.Config) {
		c.Dim = 8
		c.Autoencoder.Hidden = []int{16}
		c.Solver.Iterations = 2
		c.Autoencoder.Pretrain = 1
		c.Autoencoder.Batch = 64
	})
	var seen []float64
	res, err := Tune(context.Background(), net, base, Grid{Lambda: []float64{100, 1e4}, NonzeroWeight: []float64{1, 4}}, 0.5, 2, 1, func(done, total int, r TuneResult) { seen = append(seen, r.NonzeroWeight) })
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 5 || !slices.Equal(seen, []float64{1, 4, 1, 4, 8}) {
		t.Errorf("%d points with weights %v; want 5 with [1 4 1 4 8]", len(res), seen)
	}
	if a, b := res[0].Config(base), res[0]; a.Autoencoder.NonzeroWeight != b.NonzeroWeight {
		t.Errorf("best point's config: weight %g, want %g", a.Autoencoder.NonzeroWeight, b.NonzeroWeight)
	}
	mse := base
	mse.Autoencoder.Loss = "mse"
	for _, tc := range []struct {
		cfg  dpmne.Config
		w    float64
		want string
	}{
		{base, 0.5, "0.5"},
		{base, math.Inf(1), "+Inf"},
	} {
		if _, err := Tune(context.Background(), net, tc.cfg, Grid{NonzeroWeight: []float64{tc.w}}, 0.5, 2, 1, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("loss %q, weight %g: err = %v, want one naming %q", tc.cfg.Autoencoder.Loss, tc.w, err, tc.want)
		}
	}
	if res, err := Tune(context.Background(), net, mse, Grid{NonzeroWeight: []float64{1}}, 0.5, 2, 1, nil); err != nil || len(res) != 1 {
		t.Errorf("squared error, weight 1: %d points, err %v; want 1", len(res), err)
	}
}

// tuneSeen runs Tune on net with 2 folds and returns its points in the
// order it fitted them, failing unless there are want of them.
func tuneSeen(t *testing.T, net *multiplex.Network, base dpmne.Config, g Grid, want int) []TuneResult {
	t.Helper()
	var seen []TuneResult
	res, err := Tune(context.Background(), net, base, g, 0.5, 2, 1, func(done, total int, r TuneResult) { seen = append(seen, r) })
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != want || len(seen) != want {
		t.Fatalf("%d points, want %d: the grid's and one for each later stage", len(res), want)
	}
	return seen
}

// checkRefined fails unless the last point of seen (in fitted order) is
// the best point before it (firstBest) with set applied and nothing else
// changed, as a later stage of Tune fits it; it returns that last point.
func checkRefined(t *testing.T, seen []TuneResult, set func(*TuneResult)) TuneResult {
	t.Helper()
	last := seen[len(seen)-1]
	want := firstBest(seen[:len(seen)-1])
	set(&want)
	got := last
	got.MicroF1, got.MacroF1 = eval.Stat{}, eval.Stat{}
	want.MicroF1, want.MacroF1 = eval.Stat{}, eval.Stat{}
	if got != want {
		t.Errorf("refined point %+v, want the best so far with the stage's value: %+v", got, want)
	}
	return last
}

// firstBest returns the first point of the highest CV micro-F1, the one a
// later stage of Tune refines.
func firstBest(rs []TuneResult) TuneResult {
	top := rs[0]
	for _, r := range rs[1:] {
		if r.MicroF1.Mean > top.MicroF1.Mean {
			top = r
		}
	}
	return top
}

// TestTuneIncludesBase: whatever the grid, the base configuration's own
// point is one of Tune's, fitted once (after the grid's points where the
// grid lacks it; a point the grid repeats is fitted once too), and it
// fits the base: its score is that of the base's embedding, so the point
// ranked first scores at least as well.
func TestTuneIncludesBase(t *testing.T) {
	net, err := load("")
	if err != nil {
		t.Fatal(err)
	}
	base := dpmneConfigWith(func(c *dpmne.Config) {
		c.Dim = 8
		c.Autoencoder.Hidden = []int{16}
		c.Solver.Iterations = 2
		c.Autoencoder.Pretrain = 1
		c.Autoencoder.Batch = 64
		c.Lambda = 500
	})
	for _, tc := range []struct {
		name    string
		g       Grid
		lambdas []float64 // in fitting order
	}{
		{"grid without the base", Grid{Lambda: []float64{100, 1e4}}, []float64{100, 1e4, 500}},
		{"grid with the base", Grid{Lambda: []float64{500, 100}}, []float64{500, 100}},
		{"repeated values", Grid{Lambda: []float64{100, 100, 500, 100}}, []float64{100, 500}},
		{"other starts", Grid{Start: []string{"spectral"}}, []float64{500, 500}},
	} {
		var seen []TuneResult
		res, err := Tune(context.Background(), net, base, tc.g, 0.5, 2, 1, func(done, total int, r TuneResult) { seen = append(seen, r) })
		if err != nil {
			t.Fatal(err)
		}
		var got []float64
		for _, r := range seen {
			got = append(got, r.Lambda)
		}
		if !slices.Equal(got, tc.lambdas) || len(res) != len(tc.lambdas) {
			t.Errorf("%s: fitted λ %v, want %v", tc.name, got, tc.lambdas)
			continue
		}
		i := slices.IndexFunc(seen, func(r TuneResult) bool { return r.Lambda == 500 && r.Start == "codes" })
		if i < 0 {
			t.Errorf("%s: no point of the base's", tc.name)
			continue
		}
		own := seen[i]
		if c, want := own.Config(base).ForNetwork(net), base.ForNetwork(net); !reflect.DeepEqual(c, want) {
			t.Errorf("%s: the base's point fits %+v, want %+v", tc.name, c, want)
		}
		if res[0].MicroF1.Mean < own.MicroF1.Mean {
			t.Errorf("%s: first point scores %.4f, below the base's %.4f", tc.name, res[0].MicroF1.Mean, own.MicroF1.Mean)
		}
	}
}

// dpmneConfigWith returns dpmne.DefaultConfig with edit applied.
func dpmneConfigWith(edit func(*dpmne.Config)) dpmne.Config {
	c := dpmne.DefaultConfig()
	edit(&c)
	return c
}
