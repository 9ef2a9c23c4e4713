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

// TestConfigValidate: each bad setting is reported by its flag name.
func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Loss: "l1"}, "loss = l1"},
		{Config{ViewWeights: []float64{1, -0.5}}, "view-weights[1] = -0.5"},
		{Config{ViewWeights: []float64{math.Inf(1)}}, "view-weights[0] = +Inf"},
		{Config{LearningRate: -1}, "learning-rate = -1"},
		{Config{YSolver: "newton"}, "y-solver = newton"},
		{Config{YSolver: "cg"}, "y-solver = cg: want gd or stiefel"}, // removed
		{Config{NonzeroWeight: 0.5}, "nonzero-weight = 0.5"},
		{Config{NonzeroWeight: math.Inf(1)}, "nonzero-weight = +Inf"},
		{Config{Loss: "mse", NonzeroWeight: 8}, "nonzero-weight = 8: want 1 with loss mse"},
		{Config{Loss: "mse,mse", NonzeroWeight: 8}, "nonzero-weight = 8: want 1 with loss mse"},
		{Config{Loss: "bce,l1"}, "loss = bce,l1: want auto, bce, mse, weighted-mse or poisson"},
	} {
		if err := tc.cfg.Defaults().Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.cfg, err, tc.want)
		}
	}
	for _, name := range []string{"default", "paper"} {
		c, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Defaults().Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	if d := (Config{}).Defaults(); d.Loss != "bce" || d.LearningRate != 1e-2 || d.Pretrain != 10 || d.EqualViewWeights || d.FilterTau != 2 || d.Propagate != 1 {
		t.Errorf("defaults: loss %s, step %v, pretraining %d, equal view weights %v, τ %v, propagate %d; want bce, 0.01, 10, false, 2, 1", d.Loss, d.LearningRate, d.Pretrain, d.EqualViewWeights, d.FilterTau, d.Propagate)
	}
	if p := Paper().Defaults(); p.Loss != "mse" || p.LearningRate != 1e-3 || p.Pretrain != 3 || !p.Uncentred || !p.EqualViewWeights || p.FilterTau >= 0 || p.ViewWeights != nil || p.Propagate >= 0 {
		t.Errorf("paper preset: %+v", p)
	}
	// The non-zero weight's default follows the loss: 8 where it weighs,
	// 1 for the squared error, which rejects any other; given, it stays.
	for _, tc := range []struct {
		loss string
		w    float64
		want float64
	}{{"", 0, 8}, {"bce", 0, 8}, {"weighted-mse", 0, 8}, {"mse", 0, 1}, {"bce", 1, 1}, {"weighted-mse", 3, 3}, {"poisson", 0, 8}, {"mse,mse", 0, 1}, {"bce,mse", 0, 8}} {
		if got := (Config{Loss: tc.loss, NonzeroWeight: tc.w}).Defaults().NonzeroWeight; got != tc.want {
			t.Errorf("loss %q, non-zero weight %g: default %g, want %g", tc.loss, tc.w, got, tc.want)
		}
	}
	if _, err := Preset("best"); err == nil || !strings.Contains(err.Error(), `"best"`) {
		t.Errorf("Preset(best): %v", err)
	}
}

// TestApplyPreset: the per-field copies rebuild Paper from the zero Config
// (so presetFields names every setting Paper makes), keep leaves the named
// fields alone, and "default" and unknown names behave.
func TestApplyPreset(t *testing.T) {
	var c Config
	if err := c.ApplyPreset("paper", nil); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, Paper()) {
		t.Errorf("ApplyPreset(paper) on the zero Config = %+v, want Paper() %+v", c, Paper())
	}
	c = Config{Loss: "bce", Pretrain: 7}
	if err := c.ApplyPreset("paper", func(flag string) bool { return flag == "loss" || flag == "pretrain" }); err != nil {
		t.Fatal(err)
	}
	if want := (Config{Loss: "bce", Pretrain: 7, LearningRate: Paper().LearningRate, Uncentred: true, EqualViewWeights: true, FilterTau: -1, Beta: 3000, Propagate: -1, OrthAllNodes: true}); !reflect.DeepEqual(c, want) {
		t.Errorf("ApplyPreset keeping loss and pretrain = %+v, want %+v", c, want)
	}
	c = Config{Loss: "bce"}
	if err := c.ApplyPreset("default", nil); err != nil || c.Loss != "bce" {
		t.Errorf("ApplyPreset(default) = %+v, %v: want no change", c, err)
	}
	if err := c.ApplyPreset("fast", nil); err == nil || !strings.Contains(err.Error(), `"fast"`) {
		t.Errorf("ApplyPreset(fast): err = %v", err)
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

// TestForNetwork: a network none of whose views has features takes β =
// 3000 where none is given and R(Y) over every node; a network with
// features keeps the defaults.
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
		{"features", featured, Config{}, 300, false},
		{"features, β given", featured, Config{Beta: 50}, 50, false},
		{"no features", bare, Config{}, 3000, true},
		{"no features, β given", bare, Config{Beta: 50}, 50, true},
		{"no features, paper preset", bare, Paper(), 3000, true},
	} {
		got := tc.cfg.ForNetwork(tc.net)
		if got.Beta != tc.beta || got.OrthAllNodes != tc.orthAll {
			t.Errorf("%s: β %v, OrthAllNodes %v; want %v, %v", tc.name, got.Beta, got.OrthAllNodes, tc.beta, tc.orthAll)
		}
		if again := got.ForNetwork(tc.net); !reflect.DeepEqual(again, got) {
			t.Errorf("%s: ForNetwork is not idempotent: %+v then %+v", tc.name, got, again)
		}
		want := tc.cfg
		want.Beta, want.OrthAllNodes = tc.beta, tc.orthAll
		if !reflect.DeepEqual(got, want.Defaults()) {
			t.Errorf("%s: the other settings are not Defaults'", tc.name)
		}
	}
	// Features outside [0, 1]: the squared error where no loss is named,
	// on that view alone (view2 has no features of its own: adjacency rows).
	realNet := smallNet(t, 60)
	_, val := realNet.Views[1].Features.Row(slices.Index(realNet.Views[1].Observed, true))
	val[0] = 2.5
	for _, tc := range []struct {
		cfg    Config
		loss   string
		weight float64
	}{
		{Config{}, "bce,mse,bce", 8},
		{Config{Loss: "auto"}, "bce,mse,bce", 8},
		{Config{Loss: "bce"}, "bce", 8},
		{Config{Loss: "mse"}, "mse", 1},
		{Config{Loss: "weighted-mse"}, "weighted-mse", 8},
		{Config{Loss: "auto,poisson,auto"}, "bce,poisson,bce", 8},
		{Config{Loss: "mse,auto,mse"}, "mse", 1},        // one name where the views agree
		{Config{Loss: "auto,mse"}, "auto,mse", 8},       // not one per view: Reconstructions refuses it
		{Config{NoAutoencoder: true}, "bce,mse,bce", 8}, // unused, but as a tune grid's autoencoder points need it
		{Config{NonzeroWeight: 4}, "bce,weighted-mse,bce", 4},
	} {
		got := tc.cfg.ForNetwork(realNet)
		if got.Loss != tc.loss || got.NonzeroWeight != tc.weight {
			t.Errorf("real-valued features, %+v: loss %q, weight %v; want %q, %v", tc.cfg, got.Loss, got.NonzeroWeight, tc.loss, tc.weight)
		}
		if again := got.ForNetwork(realNet); !reflect.DeepEqual(again, got) {
			t.Errorf("real-valued features: ForNetwork is not idempotent")
		}
	}
	if got := (Config{}).ForNetwork(featured); got.Loss != "bce" {
		t.Errorf("0/1 features: loss %q, want bce", got.Loss)
	}
	// Fit stores what it ran with.
	m, err := Fit(context.Background(), bare, quickConfig(), rand.New(rand.NewPCG(1, 2)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.Beta != 3000 || !m.Config.OrthAllNodes {
		t.Errorf("Fit on a network without features: β %v, OrthAllNodes %v; want 3000, true", m.Config.Beta, m.Config.OrthAllNodes)
	}
}

// TestValidateZeroAndEnums: a zero field is its default, so the zero Config
// and the presets validate; enumerations out of range do not (a model saved
// with one could not be loaded back).
func TestValidateZeroAndEnums(t *testing.T) {
	for _, c := range []Config{{}, {Dim: 16}, Paper()} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{YReg: 7}, "y-reg"},
		{Config{Norm: 9}, "proximity-norm"},
		{Config{Laplacian: 9}, "laplacian"},
		{Config{Activation: 42}, "activation"},
	} {
		if err := tc.cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.cfg, err, tc.want)
		}
	}
	if _, err := Fit(context.Background(), smallNet(t, 60), quickConfig(), nil, Options{}); err == nil || !strings.Contains(err.Error(), "nil random generator") {
		t.Errorf("Fit with a nil rng: err = %v", err)
	}
}
