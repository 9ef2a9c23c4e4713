package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/multiplex"
)

func TestGenerateMatchesConfig(t *testing.T) {
	cfg := Config{
		Nodes: 20000, Classes: 5, Views: 2,
		DegreeIn: []float64{8, 2}, DegreeOut: []float64{2, 6},
		FeatureDims: []int{50, 0}, FeatureNNZ: []int{6, 0}, Signal: []float64{0.5, 0},
		Missing: []float64{0.1, 0.3},
	}
	net, err := Generate(cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := net.Validate(); err != nil {
		t.Fatal(err)
	}
	counts, _ := net.Labels.Counts()
	for c, k := range counts {
		// Classes are drawn uniformly: 4000 ± 4σ (σ ≈ 57).
		if math.Abs(float64(k)-4000) > 230 {
			t.Errorf("class %d has %d nodes, want about 4000", c, k)
		}
	}
	for v, view := range net.Views {
		// Missing: PDR within 0.01 of the configured rate (a few nodes are
		// restored because they went missing from both views).
		if got, want := view.PDR(), cfg.Missing[v]; got > want || got < want-0.04 {
			t.Errorf("view %d: PDR %.3f, want just under %.2f", v, got, want)
		}
		// Degrees: among observed nodes the mean degree is about
		// (in+out)·(1−pdr), and the within-class fraction about in/(in+out);
		// tolerances 5% relative, 0.02 absolute.
		var deg, within float64
		obs := 0
		for i := range net.N() {
			if !view.Observed[i] {
				continue
			}
			obs++
			ind, _ := view.Adj.Row(i)
			deg += float64(len(ind))
			for _, j := range ind {
				if net.Labels.Class[j] == net.Labels.Class[i] {
					within++
				}
			}
		}
		in, out := cfg.DegreeIn[v], cfg.DegreeOut[v]
		keep := 1 - view.PDR()
		if got, want := deg/float64(obs), (in+out)*keep; math.Abs(got-want) > 0.05*want {
			t.Errorf("view %d: mean degree %.2f, want about %.2f", v, got, want)
		}
		if got, want := within/deg, in/(in+out); math.Abs(got-want) > 0.02 {
			t.Errorf("view %d: within-class edge fraction %.3f, want about %.3f", v, got, want)
		}
	}
	f := net.Views[0].Features
	if f.Cols != 50 {
		t.Errorf("feature dims %d, want 50", f.Cols)
	}
	for i := range net.N() {
		if net.Views[0].Observed[i] && f.RowNNZ(i) != 6 {
			t.Fatalf("node %d has %d features, want 6", i, f.RowNNZ(i))
		}
	}
	// Signal: a fraction 0.5 of features is drawn from the class block, the
	// rest outside it: expect 0.5 ± 0.01 (σ of the mean ≈ 0.003 here).
	var inBlock, total float64
	for i := range net.N() {
		ind, _ := f.Row(i)
		for _, j := range ind {
			total++
			if int(j)%cfg.Classes == net.Labels.Class[i] {
				inBlock++
			}
		}
	}
	if got := inBlock / total; math.Abs(got-0.5) > 0.01 {
		t.Errorf("fraction of features in the class block %.3f, want about 0.5", got)
	}
	if net.Views[1].Features != nil {
		t.Error("view 1 has features, want adjacency rows")
	}
}

// TestGenerateDeterministic writes the same bytes for the same seed, and
// different ones for another seed.
func TestGenerateDeterministic(t *testing.T) {
	write := func(seed uint64) string {
		net, err := Generate(Default(), rand.New(rand.NewPCG(seed, 0)))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := multiplex.WriteNative(net, dir); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, name := range []string{"manifest.json", "labels.txt", "view0.edges", "view0.features", "view2.observed"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			b.Write(data)
		}
		return b.String()
	}
	a, b, c := write(5), write(5), write(6)
	if a != b {
		t.Error("same seed wrote different files")
	}
	if a == c {
		t.Error("different seeds wrote the same files")
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"nodes", func(c *Config) { c.Nodes = 1 }, "nodes = 1"},
		{"classes", func(c *Config) { c.Classes = 0 }, "classes = 0"},
		{"per-view length", func(c *Config) { c.DegreeIn = []float64{1, 2} }, "degree-in has 2 values"},
		{"negative degree", func(c *Config) { c.DegreeOut = []float64{-1} }, "degrees"},
		{"nnz above dims", func(c *Config) { c.FeatureNNZ = []int{500, 10, 0} }, "feature-nnz 500"},
		{"signal", func(c *Config) { c.Signal = []float64{2} }, "signal 2"},
		{"missing", func(c *Config) { c.Missing = []float64{1} }, "missing 1"},
		{"empty view", func(c *Config) {
			c.DegreeIn, c.DegreeOut = []float64{0}, []float64{0}
			c.FeatureDims = []int{0}
		}, "neither edges nor features"},
	}
	for _, tc := range tests {
		cfg := Default()
		tc.change(&cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
}

// BenchmarkGenerate reports the cost of generating three views with about
// ten edges per node per view and 20 feature non-zeros per node; memory per
// node should stay flat as n grows (linear total).
func BenchmarkGenerate(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			cfg := Config{Nodes: n, Classes: 10, Views: 3, DegreeIn: []float64{7}, DegreeOut: []float64{3},
				FeatureDims: []int{1000}, FeatureNNZ: []int{20}, Signal: []float64{0.3}, Missing: []float64{0.2}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Generate(cfg, rand.New(rand.NewPCG(1, 1))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestGenerateNilRNG: a nil generator is an error, not a panic.
func TestGenerateNilRNG(t *testing.T) {
	if _, err := Generate(Default(), nil); err == nil || !strings.Contains(err.Error(), "nil random generator") {
		t.Errorf("err = %v", err)
	}
}
