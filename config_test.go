package dpmne

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/multiplex"
)

// TestConfigValidate: each bad setting is reported by its field.
func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{configWith(func(c *Config) { c.Autoencoder.Loss = "l1" }), "Autoencoder.Loss = l1"},
		{configWith(func(c *Config) { c.Autoencoder.Loss = "" }), "Autoencoder.Loss"},
		{configWith(func(c *Config) { c.Proximity.ViewWeights = []float64{1, -0.5} }), "Proximity.ViewWeights[1] = -0.5"},
		{configWith(func(c *Config) { c.Proximity.ViewWeights = []float64{math.Inf(1)} }), "Proximity.ViewWeights[0] = +Inf"},
		{configWith(func(c *Config) { c.Autoencoder.LearningRate = -1 }), "Autoencoder.LearningRate = -1"},
		{configWith(func(c *Config) { c.Solver.Y = 7 }), "Solver.Y = YSolver(7): want gd or stiefel"},
		{configWith(func(c *Config) { c.Autoencoder.NonzeroWeight = 0.5 }), "Autoencoder.NonzeroWeight = 0.5"},
		{configWith(func(c *Config) { c.Autoencoder.NonzeroWeight = math.Inf(1) }), "Autoencoder.NonzeroWeight = +Inf"},
		{configWith(func(c *Config) { c.Autoencoder.Loss = "bce,l1" }), "Autoencoder.Loss = bce,l1: want auto, bce, mse, weighted-mse or poisson"},
		{configWith(func(c *Config) { c.Features.Propagate = -1 }), "Features.Propagate = -1: want ≥ 0"},
		{configWith(func(c *Config) { c.FilterTau = -1 }), "FilterTau = -1"},
		{configWith(func(c *Config) { c.Autoencoder.Pretrain = 0 }), "Autoencoder.Pretrain = 0: want ≥ 1"},
		{configWith(func(c *Config) { c.Dim = 0 }), "Dim = 0"},
		{configWith(func(c *Config) { c.Alpha = 0; c.NoProximity = true }), "leave nothing"},
	} {
		if err := tc.cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.cfg, err, tc.want)
		}
	}
	for _, name := range []string{"default", "paper"} {
		c, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	if d := DefaultConfig(); d.Autoencoder.Loss != "auto" || d.Autoencoder.LearningRate != 1e-2 || d.Autoencoder.Pretrain != 10 || d.Proximity.EqualViewWeights || d.FilterTau != 2 || d.Features.Propagate != 1 {
		t.Errorf("defaults: loss %s, step %v, pretraining %d, equal view weights %v, τ %v, propagate %d; want auto, 0.01, 10, false, 2, 1", d.Autoencoder.Loss, d.Autoencoder.LearningRate, d.Autoencoder.Pretrain, d.Proximity.EqualViewWeights, d.FilterTau, d.Features.Propagate)
	}
	if p := Paper(); p.Autoencoder.Loss != "mse" || p.Autoencoder.LearningRate != 1e-3 || p.Autoencoder.Pretrain != 3 || !p.Uncentred || !p.Proximity.EqualViewWeights || p.FilterTau != 0 || p.Proximity.ViewWeights != nil || p.Features.Propagate != 0 {
		t.Errorf("paper preset: %+v", p)
	}
	if _, err := Preset("best"); err == nil || !strings.Contains(err.Error(), `"best"`) {
		t.Errorf("Preset(best): %v", err)
	}
}

// TestPaperOf: PaperOf changes only the paper's settings, and of the
// default configuration it makes Paper.
func TestPaperOf(t *testing.T) {
	c := configWith(func(c *Config) { c.Dim = 16; c.Solver.Iterations = 7 })
	p := PaperOf(c)
	if p.Dim != 16 || p.Solver.Iterations != 7 || p.Autoencoder.Loss != "mse" || p.Beta != paperBeta {
		t.Errorf("PaperOf kept %d, %d, set %s, %v; want 16, 7, mse, 1.1", p.Dim, p.Solver.Iterations, p.Autoencoder.Loss, p.Beta)
	}
	if !reflect.DeepEqual(PaperOf(DefaultConfig()), Paper()) {
		t.Error("PaperOf(DefaultConfig()) differs from Paper()")
	}
}

// withoutFeatures returns net with every view's features dropped (each
// autoencoder then reads the view's adjacency rows).
func withoutFeatures(net *multiplex.Network) *multiplex.Network {
	out := *net
	out.Views = slices.Clone(net.Views)
	for s, v := range out.Views {
		v := *v
		v.Features = nil
		out.Views[s] = &v
	}
	return &out
}

// TestForNetwork: β = 0 resolves to 0.11 per node on a network with
// features and to 1.1 on one none of whose views has features, which also takes R(Y)
// over every node; a β given stays.
func TestForNetwork(t *testing.T) {
	featured := smallNet(t, 60)
	bare := withoutFeatures(featured)
	for _, tc := range []struct {
		name    string
		net     *multiplex.Network
		cfg     Config
		beta    float64
		orthAll bool
	}{
		{"features", featured, DefaultConfig(), featuredBeta, false},
		{"features, β 0", featured, configWith(func(c *Config) { c.Beta = 0 }), featuredBeta, false},
		{"features, β given", featured, configWith(func(c *Config) { c.Beta = 50 }), 50, false},
		{"no features", bare, DefaultConfig(), featurelessBeta, true},
		{"no features, β given", bare, configWith(func(c *Config) { c.Beta = 50 }), 50, true},
		{"no features, paper preset", bare, Paper(), paperBeta, true},
	} {
		got := tc.cfg.ForNetwork(tc.net)
		if got.Beta != tc.beta || got.Solver.OrthAllNodes != tc.orthAll {
			t.Errorf("%s: β %v, OrthAllNodes %v; want %v, %v", tc.name, got.Beta, got.Solver.OrthAllNodes, tc.beta, tc.orthAll)
		}
		if again := got.ForNetwork(tc.net); !reflect.DeepEqual(again, got) {
			t.Errorf("%s: ForNetwork is not idempotent: %+v then %+v", tc.name, got, again)
		}
		want := tc.cfg
		want.Beta, want.Solver.OrthAllNodes = tc.beta, tc.orthAll
		want.Autoencoder.Loss = got.Autoencoder.Loss
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: ForNetwork changed other settings", tc.name)
		}
	}
	// Features outside [0, 1]: the squared error where no loss is named,
	// on that view alone (view2 has no features of its own: adjacency rows).
	realNet := smallNet(t, 60)
	_, val := realNet.Views[1].Features.Row(slices.Index(realNet.Views[1].Observed, true))
	val[0] = 2.5
	for _, tc := range []struct {
		cfg  Config
		loss string
	}{
		{DefaultConfig(), "bce,mse,bce"},
		{configWith(func(c *Config) { c.Autoencoder.Loss = "bce" }), "bce"},
		{configWith(func(c *Config) { c.Autoencoder.Loss = "mse" }), "mse"},
		{configWith(func(c *Config) { c.Autoencoder.Loss = "weighted-mse" }), "weighted-mse"},
		{configWith(func(c *Config) { c.Autoencoder.Loss = "auto,poisson,auto" }), "bce,poisson,bce"},
		{configWith(func(c *Config) { c.Autoencoder.Loss = "mse,auto,mse" }), "mse"},     // one name where the views agree
		{configWith(func(c *Config) { c.Autoencoder.Loss = "auto,mse" }), "auto,mse"},    // not one per view: Reconstructions refuses it
		{configWith(func(c *Config) { c.NoAutoencoder = true }), "bce,mse,bce"},          // unused, but as a tune grid's autoencoder points need it
		{configWith(func(c *Config) { c.Autoencoder.NonzeroWeight = 4 }), "bce,mse,bce"}, // the weight does not choose the loss
	} {
		got := tc.cfg.ForNetwork(realNet)
		if got.Autoencoder.Loss != tc.loss {
			t.Errorf("real-valued features, %+v: loss %q, want %q", tc.cfg, got.Autoencoder.Loss, tc.loss)
		}
		if again := got.ForNetwork(realNet); !reflect.DeepEqual(again, got) {
			t.Errorf("real-valued features: ForNetwork is not idempotent")
		}
	}
	if got := (DefaultConfig()).ForNetwork(featured); got.Autoencoder.Loss != "bce" {
		t.Errorf("0/1 features: loss %q, want bce", got.Autoencoder.Loss)
	}
	// Fit stores what it ran with.
	m, err := Fit(context.Background(), bare, quickConfig(), rand.New(rand.NewPCG(1, 2)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.Beta != featurelessBeta || !m.Config.Solver.OrthAllNodes {
		t.Errorf("Fit on a network without features: β %v, OrthAllNodes %v; want 1.1, true", m.Config.Beta, m.Config.Solver.OrthAllNodes)
	}
}

// TestValidateZeroAndEnums: the default configuration and the presets
// validate; enumerations out of range do not (a model saved with one could
// not be loaded back).
func TestValidateZeroAndEnums(t *testing.T) {
	for _, c := range []Config{DefaultConfig(), configWith(func(c *Config) { c.Dim = 16 }), Paper()} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{configWith(func(c *Config) { c.Solver.YReg = 7 }), "Solver.YReg"},
		{configWith(func(c *Config) { c.Proximity.Norm = 9 }), "Proximity.Norm"},
		{configWith(func(c *Config) { c.Proximity.Laplacian = 9 }), "Proximity.Laplacian"},
		{configWith(func(c *Config) { c.Autoencoder.Activation = 42 }), "Autoencoder.Activation"},
	} {
		if err := tc.cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.cfg, err, tc.want)
		}
	}
	if _, err := Fit(context.Background(), smallNet(t, 60), quickConfig(), nil, Options{}); err == nil || !strings.Contains(err.Error(), "nil random generator") {
		t.Errorf("Fit with a nil rng: err = %v", err)
	}
}

// configWith returns DefaultConfig with edit applied.
func configWith(edit func(*Config)) Config {
	c := DefaultConfig()
	edit(&c)
	return c
}

// TestConfigSetGet: Set reads each kind of setting from its text form, Get
// gives it back, and an unknown field, a group or a value that does not
// parse is an error naming it.
func TestConfigSetGet(t *testing.T) {
	for _, tc := range []struct {
		path, value, want string // want: Get's text after Set ("" for value)
	}{
		{"Dim", "16", ""},
		{"Beta", "3000", ""},
		{"Lambda", "1e4", "10000"},
		{"Uncentred", "true", ""},
		{"Autoencoder.Loss", "auto,mse", ""},
		{"Autoencoder.Hidden", "64, 32", "64,32"},
		{"Autoencoder.Activation", "relu", ""},
		{"Proximity.Norm", "sym", ""},
		{"Proximity.Laplacian", "normalized", ""},
		{"Proximity.Weights", "1,0.5", ""},
		{"Solver.YReg", "fro", ""},
		{"Solver.Y", "stiefel", ""},
		{"Features.KNN", "8", ""},
	} {
		c := DefaultConfig()
		if err := c.Set(tc.path, tc.value); err != nil {
			t.Errorf("Set(%s, %s): %v", tc.path, tc.value, err)
			continue
		}
		want := tc.want
		if want == "" {
			want = tc.value
		}
		if got, err := c.Get(tc.path); err != nil || got != want {
			t.Errorf("Get(%s) after Set %q = %q, %v; want %q", tc.path, tc.value, got, err, want)
		}
	}
	for _, tc := range []struct{ path, value, want string }{
		{"Lambada", "1", `unknown setting "Lambada"`},
		{"Autoencoder", "1", `setting "Autoencoder" is a group`},
		{"Dim.X", "1", `unknown setting "Dim.X"`},
		{"Dim", "1.5", `Dim = "1.5": want an integer`},
		{"Beta", "x", `Beta = "x": want a number`},
		{"Uncentred", "maybe", "want true or false"},
		{"Autoencoder.Hidden", "8,x", "want comma-separated integers"},
		{"Autoencoder.Activation", "swish", `Autoencoder.Activation = "swish"`},
	} {
		c := DefaultConfig()
		if err := c.Set(tc.path, tc.value); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Set(%s, %s): err = %v, want %q", tc.path, tc.value, err, tc.want)
		}
	}
}

// TestParseYSolver: the names round-trip through the text form; "cg", the
// solver since removed, and any other name are errors saying what to give.
func TestParseYSolver(t *testing.T) {
	for _, y := range []YSolver{GD, Stiefel} {
		b, err := y.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back YSolver
		if err := back.UnmarshalText(b); err != nil || back != y {
			t.Errorf("%v: round trip gave %v, %v", y, back, err)
		}
	}
	for in, want := range map[string]string{
		"cg":     "(--y-solver cg) was removed: fit again with --y-solver gd or stiefel",
		"newton": `unknown Y solver "newton": want gd or stiefel`,
		"":       `unknown Y solver "": want gd or stiefel`,
	} {
		if _, err := ParseYSolver(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseYSolver(%q): %v, want %q", in, err, want)
		}
	}
}
