package dpmne

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/nn"
	"github.com/dpmne/dpmne/sparse"
)

// viewOf returns a view of the given feature rows (nil: no features),
// observed where observed says (nil: everywhere).
func viewOf(rows [][]float32, observed []bool) *multiplex.View {
	b := sparse.NewBuilder(len(rows), 3)
	for i, r := range rows {
		for j, f := range r {
			if f != 0 {
				b.Add(i, j, f)
			}
		}
	}
	x, _ := b.Build(sparse.MergeMax)
	if observed == nil {
		observed = make([]bool, len(rows))
		for i := range observed {
			observed[i] = true
		}
	}
	return &multiplex.View{Name: "v", Features: x, Observed: observed}
}

// TestFeatureKindOf: each kind from the values that define it, on the
// observed nodes only.
func TestFeatureKindOf(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rows     [][]float32
		observed []bool
		want     FeatureKind
	}{
		{"all zero", [][]float32{{0, 0, 0}, {0, 0, 0}}, nil, Binary},
		{"binary", [][]float32{{1, 0, 1}, {0, 1, 0}}, nil, Binary},
		{"unit interval", [][]float32{{1, 0, 0.25}, {0, 1, 0}}, nil, UnitInterval},
		{"counts", [][]float32{{1, 0, 3}, {0, 12, 0}}, nil, Counts},
		{"counts and fractions", [][]float32{{0.5, 0, 3}, {0, 12, 0}}, nil, NonNegative},
		{"real above 1", [][]float32{{1, 0, 2.5}, {0, 1, 0}}, nil, NonNegative},
		{"signed", [][]float32{{1, 0, 3}, {0, -0.1, 0}}, nil, Signed},
		{"signed, large", [][]float32{{-300, 0, 3.7}, {0, 1e6, 0}}, nil, Signed},
		{"signed on an unobserved node", [][]float32{{1, 0, 1}, {0, -4, 0}}, []bool{true, false}, Binary},
	} {
		if got := FeatureKindOf(viewOf(tc.rows, tc.observed)); got != tc.want {
			t.Errorf("%s: kind %s, want %s", tc.name, got, tc.want)
		}
	}
	if got := FeatureKindOf(&multiplex.View{Observed: []bool{true}}); got != AdjacencyRows {
		t.Errorf("no features: kind %s, want adjacency", got)
	}
}

// TestFeatureTallyMerge: the values tallied in two parts and merged give
// FeatureKindOf's kind of them all, wherever the values are split.
func TestFeatureTallyMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pool := []float32{0, 1, 0.25, 3, 2.5, -0.1, 1e6}
	for range 200 {
		row := make([]float32, 3)
		var a, b FeatureTally
		for j := range row {
			row[j] = pool[rng.IntN(len(pool))]
			if rng.IntN(2) == 0 {
				a.Add(row[j])
			} else {
				b.Add(row[j])
			}
		}
		if got, want := a.Merge(b).Kind(), FeatureKindOf(viewOf([][]float32{row}, nil)); got != want {
			t.Fatalf("%v: merged tallies give %s, FeatureKindOf %s", row, got, want)
		}
	}
}

// withView0 returns net with view0's features replaced by rows(i) for
// every node observed there.
func withView0(net *multiplex.Network, rows func(i int) []float32) *multiplex.Network {
	out := *net
	out.Views = slices.Clone(net.Views)
	v := *net.Views[0]
	b := sparse.NewBuilder(net.N(), len(rows(0)))
	for i := range net.N() {
		if !v.Observed[i] {
			continue
		}
		for j, f := range rows(i) {
			if f != 0 {
				b.Add(i, j, f)
			}
		}
	}
	v.Features, _ = b.Build(sparse.MergeMax)
	out.Views[0] = &v
	return &out
}

// signedNet is smallNet(n) with view0's features dense and signed, a text
// encoder's vectors as they come: 24 values per node, 10 times its class's
// standard normal prototype plus 5 (a mean the output's bias must carry),
// plus standard normal noise. Their variance is about 100 per entry.
func signedNet(t testing.TB, n int) *multiplex.Network {
	net := smallNet(t, n)
	rng := rand.New(rand.NewPCG(7, 7))
	proto := make([][]float32, len(net.Labels.Names))
	for c := range proto {
		proto[c] = make([]float32, 24)
		for j := range proto[c] {
			proto[c][j] = float32(rng.NormFloat64())
		}
	}
	return withView0(net, func(i int) []float32 {
		r := make([]float32, 24)
		for j := range r {
			r[j] = 5 + float32(rng.NormFloat64())
			if c := net.Labels.Class[i]; c >= 0 {
				r[j] += 10 * proto[c][j]
			}
		}
		return r
	})
}

// TestReconstructions: each kind under each loss gets the output layer,
// clipping and scaling that can represent it, or the refusal naming the
// view, node, value and what was expected.
func TestReconstructions(t *testing.T) {
	base := smallNet(t, 60)
	counts := withView0(base, func(i int) []float32 { return []float32{float32(i % 4), 0, 0, 1} })
	real := withView0(base, func(i int) []float32 { return []float32{0, 2.5, 0, 0} })
	signed := signedNet(t, 60)
	for _, tc := range []struct {
		name string
		net  *multiplex.Network
		cfg  Config
		want string // view0's reconstruction, or the error
	}{
		{"binary", base, DefaultConfig(), "binary: bce, sigmoid output"},
		{"binary, paper", base, Paper(), "binary: mse, sigmoid output"},
		{"binary, poisson", base, configWith(func(c *Config) { c.Autoencoder.Loss = "poisson" }), "binary: poisson, softplus output"},
		{"counts", counts, DefaultConfig(), "counts: poisson, softplus output"},
		{"counts, mse", counts, configWith(func(c *Config) { c.Autoencoder.Loss = "mse" }), "counts: mse, identity output, columns scaled"},
		{"counts, bce", counts, configWith(func(c *Config) { c.Autoencoder.Loss = "bce" }), `view "view0": node "2", feature 0 is 2: the cross-entropy loss (--loss bce) wants features in [0, 1]; rescale them, or leave --loss out: the view's features are counts, which take --loss poisson`},
		{"real", real, DefaultConfig(), "real: mse, identity output, columns scaled"},
		{"signed", signed, DefaultConfig(), "signed: mse, identity output, columns standardised"},
		{"signed, paper", signed, Paper(), "signed: mse, identity output, columns standardised"},
		{"signed, per view", signed, configWith(func(c *Config) { c.Autoencoder.Loss = "weighted-mse,auto,auto" }), "signed: weighted-mse, identity output, columns standardised"},
		{"signed, poisson", signed, configWith(func(c *Config) { c.Autoencoder.Loss = "poisson" }), `view "view0": node "0", feature 2 is -3.1387043: the Poisson loss (--loss poisson) wants features ≥ 0; leave --loss out: the view's features are signed, which take --loss mse`},
		{"two names", base, configWith(func(c *Config) { c.Autoencoder.Loss = "bce,mse" }), "loss = bce,mse: 2 names for 3 views: want one, or one per view"},
	} {
		recs, err := tc.cfg.Reconstructions(tc.net)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = recs[0].Kind.String() + ": " + recs[0].String()
			// The featureless view2 keeps its clipped cross-entropy
			// unless a loss is named.
			if r := recs[2]; tc.cfg.Autoencoder.Loss == "" && (r.Kind != AdjacencyRows || r.Loss != nn.CrossEntropy || !r.Clip) {
				t.Errorf("%s: adjacency rows read as %s", tc.name, r)
			}
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestFitSignedFeatures: a view of signed features of variance about 100
// (signedNet) is reconstructed by an identity output on its standardised
// columns to well below their variance, which after standardisation is
// 1 per entry: the reconstruction term after the fit is below a tenth of
// the observed entries' count. A sigmoid output could not go below about
// 0.6 of it (TestOutputCanReachTargets in package nn); on the raw values
// the issue saw the term stay near 5.65·10⁷. The model stores the scale,
// Embed reads a new node through it (as Embed without it reads the scaled
// row), it survives Save and Load, and Impute answers in the features' own
// units.
func TestFitSignedFeatures(t *testing.T) {
	full := signedNet(t, 240)
	net := *full
	net.Views = full.Views[:1] // the signed view alone, for its term
	cfg := quickConfig()
	cfg.Solver.Iterations = 20
	var recon float64
	m, err := Fit(context.Background(), &net, cfg, rand.New(rand.NewPCG(1, 1)), Options{Progress: func(it Iteration) { recon = it.Terms.Reconstruction }})
	if err != nil {
		t.Fatal(err)
	}
	v := m.Views[0]
	entries := float64(net.Views[0].NumObserved() * v.In)
	t.Logf("reconstruction term %.4g over %g standardised entries", recon, entries)
	if !(recon < entries/10) {
		t.Errorf("reconstruction term %.4g, want below a tenth of the %g standardised entries", recon, entries)
	}
	if m.Config.Autoencoder.Loss != "mse" || v.AE.Cfg.OutActivation != nn.Identity || v.Scale == nil || v.Scale.Shift == nil {
		t.Fatalf("loss %s, output %s, scale %v: want mse, identity, centred", m.Config.Autoencoder.Loss, v.AE.Cfg.OutActivation, v.Scale != nil)
	}

	// Embed reads the features through the scale.
	i := slices.Index(net.Views[0].Observed, true)
	x, has := nodeViews(&net, i)
	got, err := m.Embed(x, has)
	if err != nil {
		t.Fatal(err)
	}
	bare := &Model{Config: m.Config, IDs: m.IDs, Y: m.Y, Views: slices.Clone(m.Views), Filter: m.Filter}
	bare.Views[0].Scale = nil
	if raw, err := bare.Embed(x, has); err != nil || mat.Equal(raw, got) {
		t.Errorf("Embed without the scale: %v, or the same embedding: the scale is not read", err)
	}
	if scaled, err := bare.Embed([]*sparse.CSR{v.Scale.Apply(x[0], nil)}, has); err != nil || !mat.Equal(scaled, got) {
		t.Errorf("Embed of the scaled row without the scale differs from Embed with it (%v)", err)
	}

	// Save and Load keep it.
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadModel(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Views[0].Scale.Scale, v.Scale.Scale) || !slices.Equal(back.Views[0].Scale.Shift, v.Scale.Shift) {
		t.Error("the feature scale changed through Write and ReadModel")
	}
	if again, err := back.Embed(x, has); err != nil || !mat.Equal(again, got) {
		t.Errorf("Embed after Write and ReadModel differs (%v)", err)
	}
	bad := withHeader(b.Bytes(), func(js []byte) []byte {
		return bytes.Replace(js, []byte(`"scale":[`), []byte(`"scale":[0,`), 1)
	})
	if _, err := ReadModel(bytes.NewReader(bad), int64(len(bad))); err == nil || !strings.Contains(err.Error(), "view view0: feature scale of 25 columns (shift 24) for 24 features") {
		t.Errorf("a scale of the wrong width: err = %v", err)
	}

	// Impute answers in the features' units: its column means are the
	// features', about 5 plus the classes' prototypes, not the standardised
	// columns' 0.
	imp, err := m.Impute(0, m.Embedding())
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for j := range v.In {
		var mean float64
		var k int
		for i, o := range net.Views[0].Observed {
			if o {
				mean += imp.At(i, j)
				k++
			}
		}
		worst = max(worst, math.Abs(mean/float64(k)-float64(v.Scale.Shift[j]))*float64(v.Scale.Scale[j]))
	}
	t.Logf("imputed column means within %.3g standard deviations of the features'", worst)
	if worst > 0.5 {
		t.Errorf("imputed column means %.3g standard deviations from the features'", worst)
	}
}

// TestResumeRejectsOtherOutput: a checkpoint whose autoencoder has another
// output layer than the fit would build now (one from before the output
// followed the features, say) is refused, not resumed with the wrong
// activation.
func TestResumeRejectsOtherOutput(t *testing.T) {
	net := signedNet(t, 120)
	cfg := quickConfig()
	cfg.Solver.Iterations = 1
	var cp *Checkpoint
	if _, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{CheckpointEvery: 1, Checkpoint: func(c *Checkpoint) error { cp = c; return nil }}); err != nil {
		t.Fatal(err)
	}
	layers := cp.Model.Views[0].AE.Layers
	layers[len(layers)-1].Act = nn.Sigmoid
	cfg.Solver.Iterations = 2
	_, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{Resume: cp})
	if err == nil || !strings.Contains(err.Error(), `view "view0": layer 1 has activation sigmoid in the checkpoint, identity now`) {
		t.Errorf("err = %v", err)
	}
}

// TestReconstructionsOf: the readings from the views' summaries alone are
// Reconstructions's, a refusal names the view and its kind, and every
// kind's name reads back as the kind.
func TestReconstructionsOf(t *testing.T) {
	net := signedNet(t, 60)
	cfg := quickConfig()
	want, err := cfg.Reconstructions(net)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cfg.ReconstructionsOf(Summarize(net))
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("ReconstructionsOf = %+v, %v; want %+v", got, err, want)
	}
	cfg.Autoencoder.Loss = "bce"
	_, err = cfg.ReconstructionsOf([]ViewSummary{{Name: "v", Kind: Signed}})
	if err == nil || !strings.Contains(err.Error(), `view "v"`) || !strings.Contains(err.Error(), "signed") {
		t.Errorf("bce on signed features: %v, want a refusal naming the view and its kind", err)
	}
	for k := AdjacencyRows; k <= Signed; k++ {
		b, _ := k.MarshalText()
		var back FeatureKind
		if err := back.UnmarshalText(b); err != nil || back != k {
			t.Errorf("%v: read back as %v, %v", k, back, err)
		}
	}
	var k FeatureKind
	if err := k.UnmarshalText([]byte("complex")); err == nil {
		t.Error(`kind "complex": no error`)
	}
}
