package beamfit

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"gonum.org/v1/gonum/mat"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/eval"
	"github.com/dpmne/dpmne/multiplex"
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
	cfg := dpmne.DefaultConfig()
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
// from the same root starts from iteration 2, the last complete one, and
// ends at the embedding of the uninterrupted fit, to 1e-9 relative (the
// sums may be added in another order). A root holding a fit is refused
// without Resume, and a resume with another configuration is refused.
func TestResume(t *testing.T) {
	ctx := context.Background()
	net := testNetwork(t, 200)
	cfg := testConfig(5)
	cfg.Dim = 8
	whole, _ := beamFit(t, net, cfg, 3, Options{Seed: 5})

	root := t.TempDir()
	if err := WriteGraph(ctx, root, net, 3); err != nil {
		t.Fatal(err)
	}
	_, err := Fit(ctx, root, cfg, Options{Seed: 5, failAt: &fault{iteration: 3, shard: 1}})
	if err == nil || !strings.Contains(err.Error(), "injected failure") {
		t.Fatalf("fit with a failing shard: error %v, want the injected failure", err)
	}
	for it, want := range []bool{true, true, true, false} {
		ok, err := exists(ctx, path.Join(itDir(root, it), "DONE"))
		if err != nil || ok != want {
			t.Fatalf("iteration %d complete: %v (%v), want %v", it, ok, err, want)
		}
	}
	if _, err := Fit(ctx, root, cfg, Options{Seed: 5}); err == nil || !strings.Contains(err.Error(), "holds a fit") {
		t.Errorf("a second fit on the root without Resume: error %v, want one saying it holds a fit", err)
	}
	other := cfg
	other.Lambda *= 2
	if _, err := Fit(ctx, root, other, Options{Seed: 5, Resume: true}); err == nil || !strings.Contains(err.Error(), "another configuration") {
		t.Errorf("a resume with another λ: error %v, want one naming the configuration", err)
	}
	res, err := Fit(ctx, root, cfg, Options{Seed: 5, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 2 {
		t.Errorf("resumed from iteration %d, want 2", res.Resumed)
	}
	if r := maxRelDiff(whole.Embedding, res.Embedding); r > 1e-9 {
		t.Errorf("resumed embedding: relative difference %.3g from the uninterrupted fit, want ≤ 1e-9", r)
	}
}
