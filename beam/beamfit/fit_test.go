package beamfit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/embfile"
	"github.com/dpmne/dpmne/eval"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/npy"
	"github.com/dpmne/dpmne/synth"
)

func TestMain(m *testing.M) {
	// Prism logs every job at INFO.
	beamlog.LogLevel = "warn"
	beamlog.SetupLoggingWithDefault()
	beam.Init()
	os.Exit(m.Run())
}

// testNetwork is a featureless partial multiplex SBM: n nodes, 3 classes,
// 2 views with 20% of the nodes missing from each.
func testNetwork(t *testing.T, n int) *multiplex.Network {
	t.Helper()
	net, err := synth.Generate(synth.Config{
		Nodes: n, Classes: 3, Views: 2,
		DegreeIn: []float64{6, 4}, DegreeOut: []float64{2, 3},
		FeatureDims: []int{0}, FeatureNNZ: []int{0}, Signal: []float64{0},
		Missing: []float64{0.2},
	}, rand.New(rand.NewPCG(7, 8)))
	if err != nil {
		t.Fatal(err)
	}
	return net
}

// testConfig is the default configuration with identity codes (what the
// Beam fit computes), small enough for a test.
func testConfig(iterations int) dpmne.Config {
	cfg := defaultConfig()
	cfg.NoAutoencoder = true
	cfg.Dim = 16
	cfg.Solver.Iterations = iterations
	return cfg
}

func beamFit(t *testing.T, net *multiplex.Network, cfg dpmne.Config, shards int, opt Options) (*Result, string) {
	t.Helper()
	root := t.TempDir()
	ctx := context.Background()
	if err := WriteGraph(ctx, root, net, shards); err != nil {
		t.Fatal(err)
	}
	res, err := Fit(ctx, root, cfg, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res, root
}

func microF1(t *testing.T, emb *mat.Dense, labels []int) float64 {
	t.Helper()
	n, d := emb.Dims()
	r, err := eval.Classify(context.Background(), emb.RawMatrix().Data, n, d, labels, eval.ClassifyOptions{Repeats: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return r.MicroF1.Mean
}

// subspaceCos returns the cosines of the principal angles between the
// column spaces of a and b, smallest first.
func subspaceCos(a, b *mat.Dense) []float64 {
	orth := func(x *mat.Dense) *mat.Dense {
		var qr mat.QR
		qr.Factorize(x)
		var q mat.Dense
		qr.QTo(&q)
		_, d := x.Dims()
		return mat.DenseCopyOf(q.Slice(0, q.RawMatrix().Rows, 0, d))
	}
	qa, qb := orth(a), orth(b)
	var m mat.Dense
	m.Mul(qa.T(), qb)
	var svd mat.SVD
	svd.Factorize(&m, mat.SVDNone)
	v := svd.Values(nil)
	for i, j := 0, len(v)-1; i < j; i, j = i+1, j-1 {
		v[i], v[j] = v[j], v[i]
	}
	return v
}

// TestAgreesWithInProcess: the Beam fit and dpmne.Fit with the same
// configuration (identity codes) on the same network give embeddings of
// the same quality, micro-F1 within 0.005, and subspaces as close as two
// in-process fits from different seeds are (median principal cosine at
// most 0.02 below theirs). The Beam fit's randomised start draws its test
// matrix per node, the in-process one in one stream, and their sums run
// in other orders, so the embeddings are not the same numbers;
// TestMatchesReference checks the pipelines' algebra to 1e-9.
func TestAgreesWithInProcess(t *testing.T) {
	net := testNetwork(t, 600)
	cfg := testConfig(20)
	fit := func(seed uint64) *mat.Dense {
		m, err := dpmne.Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(seed, 2)), dpmne.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return m.Embedding()
	}
	want, other := fit(1), fit(2)
	res, _ := beamFit(t, net, cfg, 4, Options{Seed: 1})
	median := func(c []float64) float64 { return c[len(c)/2] }
	cos, seeds := median(subspaceCos(want, res.Embedding)), median(subspaceCos(want, other))
	f1In, f1Beam := microF1(t, want, net.Labels.Class), microF1(t, res.Embedding, net.Labels.Class)
	t.Logf("micro-F1 in-process %.4f, Beam %.4f; median principal cosine Beam/in-process %.4f, in-process seed 1/seed 2 %.4f", f1In, f1Beam, cos, seeds)
	if math.Abs(f1In-f1Beam) > 0.005 {
		t.Errorf("micro-F1 %.4f (Beam) against %.4f (in process): want within 0.005", f1Beam, f1In)
	}
	if cos < seeds-0.02 {
		t.Errorf("median principal cosine %.4f against the in-process fit: want ≥ %.4f, that of two in-process seeds less 0.02", cos, seeds)
	}
}

// TestResume: a pipeline that fails in the middle of iteration 3 (one
// shard's update stage fails after writing part of its output; others
// may have written theirs) stops the fit with the error; the fit resumed
// from the same root starts from iteration 2, the last complete one (the
// only one kept), and ends at the embedding of the uninterrupted fit, to
// 1e-9 relative (the sums may be added in another order), with identity
// codes and with autoencoders (whose generators and Adam state resume
// too), read whole or sharded by node. A root holding a fit is refused
// without Resume, and a resume with another configuration is refused.
func TestResume(t *testing.T) {
	for _, c := range []struct {
		name     string
		ae       bool
		wideFrom int
	}{
		{"identity codes", false, 0},
		{"autoencoders whole", true, 0},
		{"autoencoders sharded", true, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := testConfig(5)
			cfg.Dim = 8
			if c.ae {
				cfg.NoAutoencoder = false
				cfg.Autoencoder.Hidden = []int{12}
				cfg.Autoencoder.Pretrain = 2
				cfg.Autoencoder.Batch = 32
			}
			testResume(t, cfg, Options{Seed: 5, wideFrom: c.wideFrom})
		})
	}
}

func testResume(t *testing.T, cfg dpmne.Config, opt Options) {
	ctx := context.Background()
	net := testNetwork(t, 200)
	whole, _ := beamFit(t, net, cfg, 3, opt)

	root := t.TempDir()
	if err := WriteGraph(ctx, root, net, 3); err != nil {
		t.Fatal(err)
	}
	failing := opt
	failing.failAt = &fault{iteration: 3, shard: 1}
	_, err := Fit(ctx, root, cfg, failing)
	if err == nil || !strings.Contains(err.Error(), "injected failure") {
		t.Fatalf("fit with a failing shard: error %v, want the injected failure", err)
	}
	for it, want := range []bool{false, false, true, false} {
		ok, err := exists(ctx, path.Join(itDir(root, it), "DONE"))
		if err != nil || ok != want {
			t.Fatalf("iteration %d complete and kept: %v (%v), want %v", it, ok, err, want)
		}
	}
	if _, err := Fit(ctx, root, cfg, opt); err == nil || !strings.Contains(err.Error(), "holds a fit") {
		t.Errorf("a second fit on the root without Resume: error %v, want one saying it holds a fit", err)
	}
	other := cfg
	other.Lambda *= 2
	// The state decides whether a view's autoencoder is read whole.
	opt.Resume, opt.wideFrom = true, 0
	if _, err := Fit(ctx, root, other, opt); err == nil || !strings.Contains(err.Error(), "another configuration") {
		t.Errorf("a resume with another λ: error %v, want one naming the configuration", err)
	}
	res, err := Fit(ctx, root, cfg, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 2 {
		t.Errorf("resumed from iteration %d, want 2", res.Resumed)
	}
	if r := maxRelDiff(whole.Embedding, res.Embedding); r > 1e-9 {
		t.Errorf("resumed embedding: relative difference %.3g from the uninterrupted fit, want ≤ 1e-9", r)
	}
	// The parts numpy reads are the embedding, row shard by row shard,
	// in float32, and name its nodes.
	var row int
	for sh := range 3 {
		a, err := npy.ReadFile(shardName(path.Join(root, "embedding"), "part", sh) + ".npy")
		if err != nil {
			t.Fatal(err)
		}
		v, err := a.Float64s()
		if err != nil {
			t.Fatal(err)
		}
		ids, err := embfile.ReadIDs(shardName(path.Join(root, "embedding"), "part", sh) + ".ids.txt")
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range ids {
			if id != res.IDs[row+i] {
				t.Fatalf("part %d names node %d %q, want %q", sh, i, id, res.IDs[row+i])
			}
			for c := range cfg.Dim {
				if got, want := v[i*cfg.Dim+c], float64(float32(res.Embedding.At(row+i, c))); got != want {
					t.Fatalf("part %d, row %d, column %d: %v, want %v", sh, i, c, got, want)
				}
			}
		}
		row += len(ids)
	}
	if row != len(res.IDs) {
		t.Errorf("the parts hold %d rows, want %d", row, len(res.IDs))
	}
}

// BenchmarkFit times the Beam fit on Prism (this process, GOMAXPROCS
// cores) beside the in-process fit with the same configuration, on
// partial multiplex SBMs of 3 views with about 10 neighbours per node and
// 20% of the nodes missing from each view: featureless with the default
// (autoencoders=true) or identity codes (false), and with features of
// their own in two views (features: 100 columns, 10 non-zeros a row; the
// default, which there finds the graphs' components first). It reports the
// time to the first iteration, the seconds, pipelines and MB shuffled per
// iteration (the Beam fit's, from its counters), and micro-F1 on the
// planted classes (2 splits).
func BenchmarkFit(b *testing.B) {
	const iterations = 5
	for _, n := range []int{1000, 10000, 100000} {
		gen := func(dims, nnz []int, signal []float64) *multiplex.Network {
			net, err := synth.Generate(synth.Config{
				Nodes: n, Classes: 4, Views: 3,
				DegreeIn: []float64{7}, DegreeOut: []float64{3},
				FeatureDims: dims, FeatureNNZ: nnz, Signal: signal,
				Missing: []float64{0.2},
			}, rand.New(rand.NewPCG(uint64(n), 1)))
			if err != nil {
				b.Fatal(err)
			}
			return net
		}
		featureless := gen([]int{0}, []int{0}, []float64{0})
		for _, kind := range []string{"autoencoders=true", "autoencoders=false", "features"} {
			net := featureless
			cfg := defaultConfig()
			cfg.Solver.Iterations = iterations
			switch kind {
			case "autoencoders=false":
				cfg.NoAutoencoder = true
			case "features":
				net = gen([]int{100, 100, 0}, []int{10, 10, 0}, []float64{0.3, 0.3, 0})
			}
			benchmarkFit(b, fmt.Sprintf("n=%d/%s", n, kind), net, cfg, iterations)
		}
	}
}

func benchmarkFit(b *testing.B, name string, net *multiplex.Network, cfg dpmne.Config, iterations int) {
	score := func(b *testing.B, emb *mat.Dense) {
		rows, d := emb.Dims()
		r, err := eval.Classify(context.Background(), emb.RawMatrix().Data, rows, d, net.Labels.Class, eval.ClassifyOptions{Repeats: 2, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.MicroF1.Mean, "micro-F1")
	}
	b.Run(name+"/in-process", func(b *testing.B) {
		for range b.N {
			start := time.Now()
			var first time.Duration
			m, err := dpmne.Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 2)), dpmne.Options{Progress: func(it dpmne.Iteration) {
				if it.Iteration == 0 {
					first = time.Since(start)
				}
			}})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(first.Seconds(), "init-s")
			b.ReportMetric((time.Since(start)-first).Seconds()/float64(iterations), "s/iteration")
			score(b, m.Embedding())
		}
	})
	b.Run(name+"/beam-prism", func(b *testing.B) {
		for range b.N {
			root := b.TempDir()
			ctx := context.Background()
			// Two shards: on one machine more only multiply the
			// partial sums a product shuffles (docs/beam.md).
			if err := WriteGraph(ctx, root, net, 2); err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			var first time.Duration
			var at0 Iteration
			var last Iteration
			res, err := Fit(ctx, root, cfg, Options{Seed: 1, Progress: func(it Iteration) {
				if it.Iteration == 0 {
					first, at0 = time.Since(start), it
				}
				last = it
			}})
			if err != nil {
				b.Fatal(err)
			}
			k := float64(iterations)
			b.ReportMetric(first.Seconds(), "init-s")
			b.ReportMetric((last.Time-at0.Time).Seconds()/k, "s/iteration")
			b.ReportMetric(float64(last.Pipelines-at0.Pipelines)/k, "pipelines/iteration")
			b.ReportMetric(float64(last.Shuffled-at0.Shuffled)/k/1e6, "MB-shuffled/iteration")
			b.ReportMetric(float64(at0.Shuffled)/1e6, "MB-shuffled-init")
			score(b, res.Embedding)
		}
	})
}

// defaultConfig is the configuration the Beam fit computes: dpmne's
// default without the balance, which it does not measure yet.
func defaultConfig() dpmne.Config {
	c := dpmne.DefaultConfig()
	c.Unbalanced = true
	return c
}
