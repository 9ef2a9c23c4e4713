package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/eval"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/synth"
)

// oracle embeds each node as its one-hot class plus a little noise: every
// experiment must score it near perfectly, which checks the plumbing from
// registry to table without fitting anything.
var oracle = Method{Name: "test-oracle", Embed: func(_ context.Context, net *multiplex.Network, p Params) ([]float64, int, error) {
	emb, k := classEmbedding(net, 0.01, rand.New(rand.NewPCG(p.Seed, 3)))
	return emb, k, nil
}}

// classEmbedding embeds each node as its one-hot class plus Gaussian noise
// of standard deviation noise.
func classEmbedding(net *multiplex.Network, noise float64, rng *rand.Rand) ([]float64, int) {
	k := len(net.Labels.Names)
	emb := make([]float64, net.N()*k)
	for i, c := range net.Labels.Class {
		for j := range k {
			emb[i*k+j] = noise * rng.NormFloat64()
		}
		emb[i*k+c] += 1
	}
	return emb, k
}

func init() { Register(oracle) }

func load(string) (*multiplex.Network, error) {
	cfg := synth.Default()
	cfg.Nodes = 300
	return synth.Generate(cfg, rand.New(rand.NewPCG(1, 1)))
}

func TestRunOracle(t *testing.T) {
	for _, name := range []string{"table2", "table3", "pdr", "views"} {
		s, err := Named(name, []string{"synthetic"}, []string{"test-oracle"}, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		cells, err := Run(context.Background(), s, load, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cells {
			// Classes are separated by 1 against noise 0.01: perfect
			// scores, to rounding.
			if got := c.primary().Mean; got < 0.999 {
				t.Errorf("%s %s=%v: %v, want 1", name, c.Setting, c.Value, got)
			}
			// On a partial network each pattern of observed views scores
			// alone, and the patterns hold every labelled node.
			if c.Setting == "pdr" && c.Value > 0 && len(c.ByViews) < 2 {
				t.Errorf("pdr = %v: %d patterns of observed views, want ≥ 2", c.Value, len(c.ByViews))
			}
			nodes := 0
			for _, v := range c.ByViews {
				nodes += v.Nodes
				if v.MicroF1.Mean < 0.999 || v.Views == "" {
					t.Errorf("%s %s=%v: nodes observed in %q: %v, want 1", name, c.Setting, c.Value, v.Views, v.MicroF1.Mean)
				}
			}
			if c.Setting == "pdr" && len(c.ByViews) > 0 && nodes != 300 { // Partial keeps every node
				t.Errorf("%s %s=%v: patterns hold %d nodes, want 300", name, c.Setting, c.Value, nodes)
			}
		}
		var b strings.Builder
		if err := Markdown(&b, s, cells, "dpmne experiment "+name); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "| test-oracle |") || !strings.Contains(b.String(), "`dpmne experiment "+name+"`") ||
			(s.Setting == "pdr" && (!strings.Contains(b.String(), "| pdr = 0 | pdr = 0.2 | pdr = 0.4 | pdr = 0.6 |") ||
				!strings.Contains(b.String(), "Micro-F1 by the views a node is observed in (synthetic, pdr = 0.4;"))) {
			t.Errorf("%s markdown:\n%s", name, b.String())
		}
	}
}

// TestLinkPredictionOracle: class-level embeddings rank the synthetic
// model's held-out edges (three quarters or more inside a class) above random
// non-edges (a quarter inside a class with four classes), so the AUC must
// clearly exceed 0.5.
func TestLinkPredictionOracle(t *testing.T) {
	s, err := Named("linkpred", []string{"synthetic"}, []string{"test-oracle"}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := Run(context.Background(), s, load, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cells[0].AUC.Mean; got < 0.6 || got > 1 {
		t.Errorf("oracle AUC %v, want above 0.6", got)
	}
	// Each view's scores are those of its own pairs, recomputed here from
	// the same hold-outs and embeddings (to 1e-12).
	net, _ := load("")
	got := cells[0].LinksByView
	if len(got) != len(net.Views) {
		t.Fatalf("%d views scored, want %d", len(got), len(net.Views))
	}
	for v, view := range net.Views {
		var aucs, aps []float64
		edges := 0
		for r := range 2 {
			train, pairs, err := multiplex.HoldOutEdges(net, 0.1, rand.New(rand.NewPCG(1, uint64(100+r))))
			if err != nil {
				t.Fatal(err)
			}
			emb, d, _ := oracle.Embed(context.Background(), train, Params{Seed: 1 + uint64(r)})
			var sc []float64
			var pos []bool
			for _, pr := range pairs {
				if pr.View == v {
					sc = append(sc, cosine(emb[pr.U*d:(pr.U+1)*d], emb[pr.V*d:(pr.V+1)*d]))
					pos = append(pos, pr.Edge)
					if pr.Edge && r == 0 {
						edges++
					}
				}
			}
			aucs, aps = append(aucs, eval.AUC(sc, pos)), append(aps, eval.AveragePrecision(sc, pos))
		}
		a, p := eval.Summarize(aucs), eval.Summarize(aps)
		g := got[v]
		if g.View != view.Name || g.Edges != edges || math.Abs(g.AUC.Mean-a.Mean) > 1e-12 || math.Abs(g.AUC.Std-a.Std) > 1e-12 ||
			math.Abs(g.AP.Mean-p.Mean) > 1e-12 || math.Abs(g.AP.Std-p.Std) > 1e-12 {
			t.Errorf("view %d: %+v, want %s, %d edges, AUC %+v, AP %+v", v, g, view.Name, edges, a, p)
		}
	}
	var b strings.Builder
	if err := Markdown(&b, s, cells, "cmd"); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("(synthetic; held-out edges per hold-out in parentheses, each against as many of its non-edges):\n\n| method | %s AUC (%d) | %s AP |", got[0].View, got[0].Edges, got[0].View); !strings.Contains(b.String(), want) {
		t.Errorf("markdown lacks %q:\n%s", want, b.String())
	}
}

func TestWriteAll(t *testing.T) {
	s, _ := Named("dim", []string{"synthetic"}, []string{"test-oracle"}, 2, 1)
	s.Values = []float64{16, 32}
	cells, err := Run(context.Background(), s, load, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteAll(dir, s, cells, "cmd"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"dim.md", "dim.json", "dim.csv", "dim.png"} {
		if fi, err := os.Stat(dir + "/" + f); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	// The views experiment draws bars.
	v, _ := Named("views", []string{"synthetic"}, []string{"test-oracle"}, 2, 1)
	if cells, err = Run(context.Background(), v, load, nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(dir, v, cells, "cmd"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir + "/views.png"); err != nil || fi.Size() == 0 {
		t.Errorf("views.png: %v", err)
	}
}

func TestNamedErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []string
		want string
	}{
		{"table9", []string{"x"}, "unknown experiment"},
		{"table2", nil, "at least one data set"},
		{"pdr", []string{"a", "b"}, "one data set"},
	} {
		if _, err := Named(tc.name, tc.data, nil, 2, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Named(%s): %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "dpmne") {
		t.Errorf("Lookup: %v", err)
	}
}

// TestSetValues: pdr and dim take values of their own, sorted; the other
// experiments, empty lists, repeats and values out of range are refused.
func TestSetValues(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []float64
		want   []float64
		err    string
	}{
		{"pdr", []float64{0.5, 0, 0.3}, []float64{0, 0.3, 0.5}, ""},
		{"pdr", []float64{0.99}, []float64{0.99}, ""},
		{"dim", []float64{256, 8}, []float64{8, 256}, ""},
		{"pdr", []float64{1}, nil, "partial data ratio 1: want 0 ≤ pdr < 1"},
		{"pdr", []float64{-0.1}, nil, "partial data ratio -0.1"},
		{"pdr", []float64{math.NaN()}, nil, "partial data ratio NaN"},
		{"pdr", []float64{0.2, 0.2}, nil, "value 0.2 given twice"},
		{"pdr", nil, nil, "no values"},
		{"dim", []float64{2.5}, nil, "dimension 2.5: want a whole number"},
		{"dim", []float64{0}, nil, "dimension 0"},
		{"dim", []float64{math.Inf(1)}, nil, "dimension +Inf"},
		{"views", []float64{0}, nil, "its values cannot be given"},
		{"table2", []float64{0}, nil, "varies no setting"},
	} {
		s, err := Named(tc.name, []string{"cora"}, nil, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		err = s.SetValues(tc.values)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s %v: %v", tc.name, tc.values, err)
		case tc.err == "" && !slices.Equal(s.Values, tc.want):
			t.Errorf("%s %v: values %v, want %v", tc.name, tc.values, s.Values, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s %v: err = %v, want %q", tc.name, tc.values, err, tc.err)
		}
	}
}

// noisy is the oracle with noise as large as the class signal, so that its
// scores differ from one fit seed to the next.
var noisy = Method{Name: "test-noisy", Embed: func(_ context.Context, net *multiplex.Network, p Params) ([]float64, int, error) {
	emb, k := classEmbedding(net, 1, rand.New(rand.NewPCG(p.Seed, 5)))
	return emb, k, nil
}}

func init() { Register(noisy) }

// TestFitSeeds checks the pooled cells against their definition: the
// mean ± std over every fit's per-split (or per-k-means-seed) scores, each
// fit scored on the splits of Spec.Seed, and by group on a partial network
// as the per-repeat accuracies of every fit pooled. One fit seed gives the
// cells of the default.
func TestFitSeeds(t *testing.T) {
	const fits, seed, tol = 3, 4, 1e-12
	for _, name := range []string{"table2", "table3", "pdr"} {
		s, err := Named(name, []string{"synthetic"}, []string{"test-noisy"}, 2, seed)
		if err != nil {
			t.Fatal(err)
		}
		one, err := Run(context.Background(), s, load, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.FitSeeds = 1
		if again, err := Run(context.Background(), s, load, nil); err != nil || !reflect.DeepEqual(clearSeconds(again), clearSeconds(one)) {
			t.Errorf("%s: one fit seed (err %v) differs from the default", name, err)
		}
		s.FitSeeds = fits
		cells, err := Run(context.Background(), s, load, nil)
		if err != nil {
			t.Fatal(err)
		}
		base, _ := load("")
		for _, c := range cells {
			net := base
			if c.Setting == "pdr" {
				if net, err = multiplex.Partial(base, c.Value, rand.New(rand.NewPCG(seed, 7))); err != nil {
					t.Fatal(err)
				}
			}
			groups := net.ViewPatterns()
			var want []float64
			byGroup := make([][]float64, len(c.ByViews))
			for f := range fits {
				emb, d, _ := noisy.Embed(context.Background(), net, Params{Seed: seed + uint64(f)})
				if name == "table3" {
					r, err := eval.Cluster(context.Background(), emb, net.N(), d, net.Labels.Class, eval.ClusterOptions{Repeats: 2, Seed: seed, Normalize: true})
					if err != nil {
						t.Fatal(err)
					}
					for _, rr := range r.PerRepeat {
						want = append(want, rr.ACC)
					}
					continue
				}
				r, err := eval.Classify(context.Background(), emb, net.N(), d, net.Labels.Class, eval.ClassifyOptions{Repeats: 2, Seed: seed, Groups: groups})
				if err != nil {
					t.Fatal(err)
				}
				for _, rr := range r.PerRepeat {
					want = append(want, rr.MicroF1)
					for g := range byGroup {
						if rr.Tested[g] > 0 {
							byGroup[g] = append(byGroup[g], float64(rr.Correct[g])/float64(rr.Tested[g]))
						}
					}
				}
			}
			w := eval.Summarize(want)
			if got := c.primary(); math.Abs(got.Mean-w.Mean) > tol || math.Abs(got.Std-w.Std) > tol || c.Fits != fits {
				t.Errorf("%s %s=%v: %d fits pooled to %+v, want %d fits, %+v", name, c.Setting, c.Value, c.Fits, *got, fits, w)
			}
			if len(want) != 2*fits {
				t.Errorf("%s: %d scores, want %d", name, len(want), 2*fits)
			}
			for g, v := range c.ByViews {
				if w := eval.Summarize(byGroup[g]); math.Abs(v.MicroF1.Mean-w.Mean) > tol || math.Abs(v.MicroF1.Std-w.Std) > tol {
					t.Errorf("%s %s=%v, nodes in %s: %+v, want %+v", name, c.Setting, c.Value, v.Views, v.MicroF1, w)
				}
			}
			if c.Setting == "pdr" && c.Value > 0 && len(c.ByViews) < 2 {
				t.Errorf("pdr = %v: %d patterns of observed views, want ≥ 2", c.Value, len(c.ByViews))
			}
		}
		var b strings.Builder
		if err := Markdown(&b, s, cells, "cmd"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "Every cell pools 3 fits (fit seeds 4–6), each scored on the same 2 ") {
			t.Errorf("%s markdown does not say the cells pool fits:\n%s", name, b.String())
		}
	}
}

// TestFitSeedsNotes: each fit's note is listed after its seed.
func TestFitSeedsNotes(t *testing.T) {
	s, err := Named("table2", []string{"synthetic"}, []string{"test-noted"}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	s.FitSeeds = 2
	cells, err := Run(context.Background(), s, load, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "fit seed 1: chose 1; fit seed 2: chose 2"; cells[0].Note != want {
		t.Errorf("note %q, want %q", cells[0].Note, want)
	}
}

func TestFitSeedsErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		fits int
		want string
	}{
		{"table2", -1, "-1 fit seeds, want ≥ 1"},
		{"linkpred", 2, "give --repeats, not 2 fit seeds"},
	} {
		s, err := Named(tc.name, []string{"synthetic"}, []string{"test-oracle"}, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		s.FitSeeds = tc.fits
		if _, err := Run(context.Background(), s, load, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s with %d fit seeds: err = %v, want %q", tc.name, tc.fits, err, tc.want)
		}
	}
}

// clearSeconds zeroes the cells' timings, the one field that differs
// between two runs.
func clearSeconds(cells []Cell) []Cell {
	for i := range cells {
		cells[i].Seconds = 0
	}
	return cells
}

// broken methods return an embedding one row short, or one holding a NaN.
func init() {
	Register(Method{Name: "test-short", Description: "one row short", Embed: func(_ context.Context, net *multiplex.Network, _ Params) ([]float64, int, error) {
		return make([]float64, (net.N()-1)*4), 4, nil
	}})
	Register(Method{Name: "test-nan", Description: "a NaN", Embed: func(_ context.Context, net *multiplex.Network, _ Params) ([]float64, int, error) {
		emb := make([]float64, net.N()*4)
		for i := range emb {
			emb[i] = float64(i % 7)
		}
		emb[5] = math.NaN()
		return emb, 4, nil
	}})
}

// TestLinkPredictionBadEmbedding: link prediction refuses a method's
// embedding of the wrong length or with a non-finite value, as
// classification does (it used to panic, and to hang on a NaN score).
func TestLinkPredictionBadEmbedding(t *testing.T) {
	for _, tc := range []struct{ method, want string }{
		{"test-short", "want n·d"},
		{"test-nan", "non-finite"},
	} {
		s, err := Named("linkpred", []string{"synthetic"}, []string{tc.method}, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), s, load, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.method, err, tc.want)
		}
	}
}

// TestValidationLabels: about half the labelled nodes are kept (within 5
// standard deviations of a fair coin on 9,900 labelled nodes, 4,950 ± 249:
// 4,700–5,200), the same for a seed, others for another seed, and
// unlabelled nodes stay unlabelled.
func TestValidationLabels(t *testing.T) {
	labels := make([]int, 10000)
	for i := range labels {
		labels[i] = i % 3
		if i%100 == 0 {
			labels[i] = -1
		}
	}
	a, b, c := ValidationLabels(labels, 1), ValidationLabels(labels, 1), ValidationLabels(labels, 2)
	if !slices.Equal(a, b) {
		t.Error("the same seed held out different nodes")
	}
	if slices.Equal(a, c) {
		t.Error("seeds 1 and 2 held out the same nodes")
	}
	kept := 0
	for i, v := range a {
		switch {
		case labels[i] < 0 && v >= 0:
			t.Fatalf("node %d: unlabelled, kept as %d", i, v)
		case v >= 0 && v != labels[i]:
			t.Fatalf("node %d: label %d, kept as %d", i, labels[i], v)
		case v >= 0:
			kept++
		}
	}
	if kept < 4700 || kept > 5200 {
		t.Errorf("%d of 9,900 labelled nodes kept, want about half", kept)
	}
}

// TestPlotEmbedding: the map is a PNG for a labelled embedding and for one
// with unlabelled rows, sampled or not; shapes that do not agree are an
// error naming the file.
func TestPlotEmbedding(t *testing.T) {
	dir := t.TempDir()
	const n, d = 60, 3
	emb := make([]float64, n*d)
	class := make([]int, n)
	for i := range n {
		class[i] = i%3 - 1 // −1: unlabelled
		emb[i*d+i%3] = 1 + float64(i)/n
	}
	for _, points := range []int{0, 20} {
		path := filepath.Join(dir, "map.png")
		if err := PlotEmbedding(path, "test", emb, n, d, class, []string{"a", "b"}, points, 1); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
			t.Errorf("points %d: not a PNG (%v)", points, err)
		}
	}
	if err := PlotEmbedding(filepath.Join(dir, "x.png"), "test", emb, n, d, class[:5], nil, 0, 1); err == nil || !strings.Contains(err.Error(), "x.png") {
		t.Errorf("5 classes for %d rows: err = %v", n, err)
	}
}

// labelEcho is a supervised method that embeds each node as the one-hot of
// the label it was given (zero when none) and records how many labels each
// call received: were a test label among them, it would classify its test
// node perfectly.
var labelEcho = struct {
	Method
	given []int
}{}

func init() {
	labelEcho.Method = Method{Name: "test-label-echo", Supervised: true, Embed: func(_ context.Context, net *multiplex.Network, p Params) ([]float64, int, error) {
		k := len(net.Labels.Names)
		emb := make([]float64, net.N()*k)
		given := 0
		for i, c := range p.Labels {
			if c >= 0 {
				emb[i*k+c] = 1
				given++
			}
		}
		labelEcho.given = append(labelEcho.given, given)
		return emb, k, nil
	}}
	Register(labelEcho.Method)
}

// TestSupervisedHeldOut: a supervised method is embedded once per split
// from its training half (150 of the 300 labelled nodes) and scored on its
// test half, so an embedding of the labels it was given classifies the test
// nodes, all zero rows, no better than the largest class; table3 embeds
// once and clusters the test half; the tables mark it.
func TestSupervisedHeldOut(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls int
	}{{"table2", 3}, {"table3", 1}} {
		labelEcho.given = nil
		s, err := Named(tc.name, []string{"synthetic"}, []string{"test-label-echo", "test-oracle"}, 3, 1)
		if err != nil {
			t.Fatal(err)
		}
		cells, err := Run(context.Background(), s, load, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(labelEcho.given, slices.Repeat([]int{150}, tc.calls)) {
			t.Errorf("%s: labels given per call %v, want 150 in each of %d calls", tc.name, labelEcho.given, tc.calls)
		}
		if got := cells[0].primary().Mean; got > 0.5 {
			t.Errorf("%s: %s scores %.3f on test nodes it has no label of, want chance (≤ 0.5)", tc.name, cells[0].Method, got)
		}
		var b strings.Builder
		if err := Markdown(&b, s, cells, "dpmne experiment "+tc.name); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"| method | training labels |", "| test-label-echo | yes |", "| test-oracle | no |", "Training labels: test-label-echo is trained with node labels"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s markdown lacks %q:\n%s", tc.name, want, b.String())
			}
		}
	}
}

// TestVariants: the methods a user picks from (Methods) hold no variant
// of dpmne that restates its flags, every such variant is listed by
// Variants and still found by Lookup, and the two lists share no name.
func TestVariants(t *testing.T) {
	listed := Methods()
	for _, want := range []string{"dpmne", "dpmne-tuned", "spectral"} {
		if !slices.Contains(listed, want) {
			t.Errorf("Methods() lacks %s: %v", want, listed)
		}
	}
	variants := Variants()
	for _, want := range []string{"dpmne-paper", "dpmne-mse", "dpmne-no-ae", "dpmne-unbalanced"} {
		if !slices.Contains(variants, want) {
			t.Errorf("Variants() lacks %s: %v", want, variants)
		}
	}
	for _, v := range variants {
		if slices.Contains(listed, v) {
			t.Errorf("%s is both a method and a variant", v)
		}
		if m, err := Lookup(v); err != nil || !m.Variant {
			t.Errorf("Lookup(%s) = %v, %v: want the variant", v, m.Variant, err)
		}
	}
}
