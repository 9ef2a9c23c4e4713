package dpmne

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dpmne/dpmne/eval"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/sparse"
	"github.com/dpmne/dpmne/synth"

	"gonum.org/v1/gonum/mat"
)

func smallNet(t testing.TB, n int) *multiplex.Network {
	cfg := synth.Default()
	cfg.Nodes = n
	net, err := synth.Generate(cfg, rand.New(rand.NewPCG(11, 12)))
	if err != nil {
		t.Fatal(err)
	}
	return net
}

// fullNet is smallNet with no node missing from any view.
func fullNet(t testing.TB, n int) *multiplex.Network {
	cfg := synth.Default()
	cfg.Nodes, cfg.Missing = n, []float64{0}
	net, err := synth.Generate(cfg, rand.New(rand.NewPCG(11, 12)))
	if err != nil {
		t.Fatal(err)
	}
	return net
}

// stripEdges returns net with every edge of its first k nodes removed from
// every view: components of one node.
func stripEdges(net *multiplex.Network, k int) *multiplex.Network {
	out := *net
	out.Views = slices.Clone(net.Views)
	for s, v := range out.Views {
		v := *v
		v.Adj = v.Adj.Filter(func(i, j int, _ float32) bool { return i >= k && j >= k })
		out.Views[s] = &v
	}
	return &out
}

func quickConfig() Config {
	return configWith(func(c *Config) {
		c.Dim = 16
		c.Autoencoder.Hidden = []int{32}
		c.Solver.Iterations = 5
		c.Autoencoder.Pretrain = 3
		c.Autoencoder.Batch = 64
	})
}

// fitBytes fits net with quickConfig changed by set (seed 1) and returns
// the embedding's bytes.
func fitBytes(t testing.TB, net *multiplex.Network, set func(*Config)) []byte {
	t.Helper()
	c := quickConfig()
	set(&c)
	m, err := Fit(context.Background(), net, c, rand.New(rand.NewPCG(1, 1)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return embBytes(m)
}

func embBytes(m *Model) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, m.Y.RawMatrix().Data)
	return b.Bytes()
}

// TestFitDeterministic: same seed → byte-identical embedding.
func TestFitDeterministic(t *testing.T) {
	net := smallNet(t, 300)
	fit := func(seed uint64) []byte {
		m, err := Fit(context.Background(), net, quickConfig(), rand.New(rand.NewPCG(seed, 1)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return embBytes(m)
	}
	a, b, c := fit(1), fit(1), fit(2)
	if !bytes.Equal(a, b) {
		t.Error("same seed gave different embeddings")
	}
	if bytes.Equal(a, c) {
		t.Error("different seeds gave the same embedding")
	}
}

// TestFitLearnsClasses checks that the embedding of the synthetic default
// carries its planted classes: logistic regression on 50% of the nodes must
// beat chance (0.25) clearly. With this short fit (10 iterations, d = 16)
// and the default weights the measured micro-F1 was 0.68 (full), 0.81 (no
// autoencoder), 0.67 (no consistency), 0.43 (no proximity); the bound 0.4
// only guards against a broken pipeline, not quality.
func TestFitLearnsClasses(t *testing.T) {
	net := smallNet(t, 1000)
	cfg := quickConfig()
	cfg.Solver.Iterations = 10
	for _, ab := range []struct {
		name string
		set  func(*Config)
	}{
		{"full", func(*Config) {}},
		{"no-autoencoder", func(c *Config) { c.NoAutoencoder = true }},
		{"no-consistency", func(c *Config) { c.Alpha = 0 }},
		{"no-proximity", func(c *Config) { c.NoProximity = true }},
	} {
		c := cfg
		ab.set(&c)
		var iters []Iteration
		m, err := Fit(context.Background(), net, c, rand.New(rand.NewPCG(3, 3)), Options{Progress: func(it Iteration) { iters = append(iters, it) }})
		if err != nil {
			t.Fatalf("%s: %v", ab.name, err)
		}
		if len(iters) != c.Solver.Iterations+1 {
			t.Errorf("%s: %d progress reports, want %d", ab.name, len(iters), c.Solver.Iterations+1)
		}
		res, err := eval.Classify(context.Background(), m.Y.RawMatrix().Data, net.N(), c.Dim, net.Labels.Class,
			eval.ClassifyOptions{Repeats: 3, Seed: 1, Folds: 1, Cs: []float64{1}})
		if err != nil {
			t.Fatal(err)
		}
		last := iters[len(iters)-1].Terms
		t.Logf("%s: micro-F1 %.3f, O %.4g (cons %.4g prox %.4g regY %.4g recon %.4g)", ab.name, res.MicroF1.Mean,
			last.Total(), last.Consistency, last.Proximity, last.RegY, last.Reconstruction)
		if res.MicroF1.Mean < 0.4 {
			t.Errorf("%s: micro-F1 %.3f, want ≥ 0.4 (chance 0.25)", ab.name, res.MicroF1.Mean)
		}
	}
}

// TestFitCancel: a fit cancelled between iterations (here from Progress)
// saves its state though no checkpoint was due, and returns ErrCanceled
// with that iteration's model; resuming from the saved state gives the
// uninterrupted fit's bytes.
func TestFitCancel(t *testing.T) {
	net := smallNet(t, 200)
	cfg := quickConfig()
	cfg.Solver.Iterations = 6
	full, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var saved []*Checkpoint
	m, err := Fit(ctx, net, cfg, rand.New(rand.NewPCG(1, 1)), Options{
		CheckpointEvery: 100, // never due
		Checkpoint:      func(cp *Checkpoint) error { saved = append(saved, cp); return nil },
		Progress: func(it Iteration) {
			if it.Iteration == 3 {
				cancel()
			}
		},
	})
	if !errors.Is(err, ErrCanceled) || m == nil {
		t.Fatalf("err = %v, model %v: want ErrCanceled with the last model", err, m)
	}
	if len(saved) != 1 || saved[0].Iteration != 3 {
		t.Fatalf("%d checkpoints saved (%v), want one at iteration 3", len(saved), saved)
	}
	resumed, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{Resume: saved[0]})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(embBytes(full), embBytes(resumed)) {
		t.Error("the fit resumed from the interrupt's checkpoint differs from the uninterrupted fit")
	}
}

// TestFitCancelLeavesFilter: neither a fit cancelled between iterations
// nor its checkpoints compute the embedding's filter (seconds that nothing
// interrupts at d = 1024); the cancelled fit's model computes it once, at
// its first use, however many goroutines ask at once, and then holds what
// a fit of that many iterations would (its filter, its canonical signs);
// the checkpoints, without a filter, resume to the uninterrupted fit's
// bytes; a checkpoint's file is not read as a model.
func TestFitCancelLeavesFilter(t *testing.T) {
	net := smallNet(t, 200)
	cfg := quickConfig()
	cfg.Solver.Iterations = 6
	fit := func(ctx context.Context, cfg Config, opt Options) (*Model, error) {
		return Fit(ctx, net, cfg, rand.New(rand.NewPCG(1, 1)), opt)
	}
	full, err := fit(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	three := cfg
	three.Solver.Iterations = 3
	short, err := fit(context.Background(), three, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var saved []*Checkpoint
	before := filtersComputed.Load()
	m, err := fit(ctx, cfg, Options{
		CheckpointEvery: 2, // at 2, then at 3 as the fit is cancelled
		Checkpoint:      func(cp *Checkpoint) error { saved = append(saved, cp); return nil },
		Progress: func(it Iteration) {
			if it.Iteration == 3 {
				cancel()
			}
		},
	})
	if !errors.Is(err, ErrCanceled) || m == nil {
		t.Fatalf("err = %v, model %v: want ErrCanceled with the last model", err, m)
	}
	if n := filtersComputed.Load() - before; n != 0 || m.Filter != nil {
		t.Fatalf("a cancelled fit computed %d filters (its model's: %v), want none", n, m.Filter != nil)
	}
	if len(saved) != 2 || saved[1].Iteration != 3 {
		t.Fatalf("%d checkpoints saved, want 2, the last at iteration 3", len(saved))
	}
	for _, cp := range saved {
		if cp.Model.Filter != nil || !cp.Model.unfiltered {
			t.Errorf("checkpoint at iteration %d: filter %v, marked unfiltered %v; want none", cp.Iteration, cp.Model.Filter != nil, cp.Model.unfiltered)
		}
	}

	// The model computes its filter once, at its first use.
	embs := make([]*mat.Dense, 4)
	done := make(chan int)
	for k := range embs {
		go func() {
			embs[k] = m.Embedding()
			done <- k
		}()
	}
	for range embs {
		<-done
	}
	if n := filtersComputed.Load() - before; n != 1 {
		t.Errorf("the cancelled fit's model computed %d filters at its first uses, want 1", n)
	}
	for k, e := range embs {
		if !mat.Equal(e, embs[0]) {
			t.Errorf("embedding %d differs from the first", k)
		}
	}
	if m.Filter == nil || !mat.Equal(m.Filter, short.Filter) || !mat.Equal(m.Y, short.Y) || !mat.Equal(embs[0], short.Embedding()) {
		t.Error("the cancelled fit's model, filtered, differs from the fit of 3 iterations")
	}

	// The checkpoint, written and read, resumes to the uninterrupted
	// fit's bytes; it is not a model.
	var b bytes.Buffer
	if err := saved[1].Write(&b); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadModel(bytes.NewReader(b.Bytes()), int64(b.Len())); err == nil || !strings.Contains(err.Error(), "a checkpoint (dpmne train --checkpoint), not a model") {
		t.Errorf("a checkpoint read as a model: err = %v, want one saying it is a checkpoint", err)
	}
	cp, err := ReadCheckpoint(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if cp.Model.Filter != nil || !cp.Model.unfiltered {
		t.Errorf("checkpoint read back: filter %v, marked unfiltered %v; want none", cp.Model.Filter != nil, cp.Model.unfiltered)
	}
	before = filtersComputed.Load()
	resumed, err := fit(context.Background(), cfg, Options{Resume: cp})
	if err != nil {
		t.Fatal(err)
	}
	if n := filtersComputed.Load() - before; n != 1 {
		t.Errorf("the resumed fit computed %d filters, want 1", n)
	}
	var a, r bytes.Buffer
	if err := full.Write(&a); err != nil {
		t.Fatal(err)
	}
	if err := resumed.Write(&r); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), r.Bytes()) {
		t.Error("the fit resumed from the interrupt's checkpoint differs from the uninterrupted fit")
	}
	if _, err := ReadModel(bytes.NewReader(r.Bytes()), int64(r.Len())); err != nil {
		t.Errorf("the resumed fit's model does not read back: %v", err)
	}
}

// TestFitCancelWhileFiltering: a fit cancelled as its last phase, the
// embedding's filter, begins returns either its complete model or, where
// the cancellation won, ErrCanceled with the model, whose first use waits
// for the filter; either way the model is the uninterrupted fit's.
func TestFitCancelWhileFiltering(t *testing.T) {
	net := smallNet(t, 200)
	cfg := quickConfig()
	cfg.Solver.Iterations = 2
	full, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := full.Write(&want); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m, err := Fit(ctx, net, cfg, rand.New(rand.NewPCG(1, 1)), Options{Phase: func(what string) func() {
		if strings.HasPrefix(what, "filtering") {
			cancel()
		}
		return nil
	}})
	if m == nil || err != nil && (!errors.Is(err, ErrCanceled) || !strings.Contains(err.Error(), "after 2 iterations, while filtering the embedding")) {
		t.Fatalf("err = %v, model %v: want the model, with ErrCanceled while filtering or no error", err, m != nil)
	}
	t.Logf("cancelled as the filter began: %v", err)
	if !mat.Equal(m.Embedding(), full.Embedding()) {
		t.Error("the embedding differs from the uninterrupted fit's")
	}
	var got bytes.Buffer
	if err := m.Write(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Error("the model differs from the uninterrupted fit's")
	}
	// Cancelled before the filter began: the model computes it at its
	// first use.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	m, err = Fit(ctx, net, cfg, rand.New(rand.NewPCG(1, 1)), Options{Progress: func(it Iteration) {
		if it.Iteration == 2 {
			cancel()
		}
	}})
	if !errors.Is(err, ErrCanceled) || !strings.Contains(err.Error(), "after 2 iterations, before filtering the embedding") || m == nil {
		t.Fatalf("cancelled after the last iteration: err = %v, model %v; want ErrCanceled before filtering, with the model", err, m != nil)
	}
	got.Reset()
	if err := m.Write(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Error("the model cancelled before its filter, written, differs from the uninterrupted fit's")
	}
}

// countdownCtx is a context done after its Err has been asked a given
// number of times: a cancellation that lands at a chosen check.
type countdownCtx struct {
	context.Context
	left int
}

func (c *countdownCtx) Err() error {
	if c.left--; c.left < 0 {
		return context.Canceled
	}
	return nil
}

// TestFitCancelInside: a fit cancelled at any of its checks (the
// measurement's Lanczos products, pretraining minibatches, the initial Y, Y steps, the iterations' minibatches) stops
// there with ErrCanceled; cut short inside an iteration or before the
// first, it returns no model and saves nothing.
func TestFitCancelInside(t *testing.T) {
	net := smallNet(t, 200)
	cfg := quickConfig()
	cfg.Solver.Iterations = 3
	var checks countdownCtx
	checks.Context, checks.left = context.Background(), 1<<30
	if _, err := Fit(&checks, net, cfg, rand.New(rand.NewPCG(1, 1)), Options{}); err != nil {
		t.Fatal(err)
	}
	total := 1<<30 - checks.left
	phases := map[string]bool{}
	for k := 0; k < total; k += max(1, total/40) {
		ctx := &countdownCtx{context.Background(), k}
		saved := 0
		m, err := Fit(ctx, net, cfg, rand.New(rand.NewPCG(1, 1)), Options{
			CheckpointEvery: 100,
			Checkpoint:      func(*Checkpoint) error { saved++; return nil },
		})
		if !errors.Is(err, ErrCanceled) || !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at check %d of %d: err = %v, want ErrCanceled", k, total, err)
		}
		inside := strings.Contains(err.Error(), "during iteration") || strings.Contains(err.Error(), "pretraining") || strings.Contains(err.Error(), "initialising") || strings.Contains(err.Error(), "measuring")
		if inside && (m != nil || saved != 0) {
			t.Errorf("cancelled at check %d (%v): model %v, %d checkpoints saved; want none", k, err, m != nil, saved)
		}
		phase, _, _ := strings.Cut(strings.TrimPrefix(err.Error(), "dpmne: fit cancelled "), ":")
		phase, _, _ = strings.Cut(phase, ",")
		phases[strings.TrimRight(phase, "0123456789 ")] = true
	}
	for _, want := range []string{"while measuring the network", "during pretraining", "during iteration"} {
		if !phases[want] {
			t.Errorf("no cancellation %s among %v", want, phases)
		}
	}
}

// TestCanonicalSigns: every column of a fitted embedding has its
// largest-magnitude entry positive, with and without the heat filter; a
// model whose columns are flipped (a column of Y with the row of every B,
// or a column of the filter) is brought back to the same bytes, and its
// Embed answers are unchanged.
func TestCanonicalSigns(t *testing.T) {
	net := smallNet(t, 200)
	for _, tau := range []float64{0, 2} {
		cfg := quickConfig()
		cfg.FilterTau = tau
		cfg.Unbalanced = tau == 0 // no scale folded into a filter either
		m, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if (m.Filter != nil) != (tau > 0) {
			t.Fatalf("τ %v: filter %v", tau, m.Filter != nil)
		}
		e := m.Embedding()
		n, d := e.Dims()
		for j := range d {
			var big float64
			for i := range n {
				if math.Abs(e.At(i, j)) > math.Abs(big) {
					big = e.At(i, j)
				}
			}
			if big < 0 {
				t.Errorf("τ %v: column %d's largest-magnitude entry is %v", tau, j, big)
			}
		}
		want := embBytes(m)
		x := make([]*sparse.CSR, len(net.Views))
		for s, v := range net.Views {
			x[s] = v.FeatureMatrix()
		}
		wantEmbed, err := m.Embed(x, nil)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < d; j += 3 { // flip every third column
			m.flipColumn(j)
		}
		m.mean.Store(nil)
		m.embed.Store(nil)
		m.canonicalSigns()
		if !bytes.Equal(embBytes(m), want) {
			t.Errorf("τ %v: the flipped model's canonical embedding differs", tau)
		}
		got, err := m.Embed(x, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(got, wantEmbed, 1e-12) {
			t.Errorf("τ %v: Embed changed after flipping and canonicalising", tau)
		}
	}
}

// TestMissingNodesContributeNothing perturbs the features that nodes missing
// from a view would have there (rows the data model keeps empty, filled with
// junk here by bypassing validation): the reconstruction and consistency
// terms only read observed rows, so the embedding must not change at all.
func TestMissingNodesContributeNothing(t *testing.T) {
	for _, noAE := range []bool{false, true} {
		net := smallNet(t, 300)
		cfg := quickConfig()
		cfg.NoAutoencoder = noAE
		run := func(net *multiplex.Network) []byte {
			m, err := fitUnchecked(net, cfg, rand.New(rand.NewPCG(4, 4)))
			if err != nil {
				t.Fatal(err)
			}
			return embBytes(m)
		}
		clean := run(net)
		v := net.Views[0]
		b := sparse.NewBuilder(v.Features.Rows, v.Features.Cols)
		for i := range v.Features.Rows {
			ind, val := v.Features.Row(i)
			for k, j := range ind {
				b.Add(i, int(j), val[k])
			}
			if !v.Observed[i] {
				b.Add(i, i%v.Features.Cols, 7) // junk where the node is missing
			}
		}
		junk, err := b.Build(sparse.MergeSum)
		if err != nil {
			t.Fatal(err)
		}
		v.Features = junk
		if got := run(net); !bytes.Equal(got, clean) {
			t.Errorf("noAE=%v: features of missing nodes changed the embedding", noAE)
		}
	}
}

// TestDivergenceNamesTheTerm: a non-finite term stops the fit with an
// error naming it. (Adam's normalised steps keep even a learning rate of
// 1e30 finite with sigmoid units, so a NaN is injected into an observed
// feature, past validation, to make the autoencoder's loss non-finite.)
func TestDivergenceNamesTheTerm(t *testing.T) {
	if err := (Terms{Proximity: math.Inf(1)}).check(); err == nil || !strings.Contains(err.Error(), "proximity") {
		t.Errorf("check: %v, want the proximity term named", err)
	}
	if err := (Terms{Consistency: math.NaN()}).check(); err == nil || !strings.Contains(err.Error(), "consistency") {
		t.Errorf("check: %v, want the consistency term named", err)
	}
	net := smallNet(t, 200)
	v := net.Views[0]
	for i := range v.Features.Rows {
		if v.Observed[i] && v.Features.RowNNZ(i) > 0 {
			v.Features.Val[v.Features.Ptr[i]] = float32(math.NaN())
			break
		}
	}
	_, err := fitUnchecked(net, quickConfig(), rand.New(rand.NewPCG(1, 1)))
	if err == nil || !strings.Contains(err.Error(), "reconstruction loss is NaN") || !strings.Contains(err.Error(), "view0") {
		t.Errorf("Fit with a NaN feature: %v, want an error naming the view and the reconstruction term", err)
	}
}

// TestFitNarrowAndTiny: codes narrower than d (identity encoders on a
// 29-node, 3-view network with d = 128, as Vickers) used to panic in the
// initial SVD; now Y is completed with random orthonormal directions.
func TestFitNarrowAndTiny(t *testing.T) {
	cfg := synth.Default()
	cfg.Nodes, cfg.Classes = 29, 2
	cfg.FeatureDims, cfg.FeatureNNZ, cfg.Signal = []int{0}, []int{0}, []float64{0}
	net, err := synth.Generate(cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, noAE := range []bool{true, false} {
		m, err := Fit(context.Background(), net, configWith(func(c *Config) { c.NoAutoencoder = noAE; c.Solver.Iterations = 3; c.Autoencoder.Pretrain = 1 }), rand.New(rand.NewPCG(1, 1)), Options{})
		if err != nil {
			t.Fatalf("noAE=%v: %v", noAE, err)
		}
		for _, v := range m.Y.RawMatrix().Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("noAE=%v: non-finite embedding", noAE)
			}
		}
	}
}

// TestPretrainCap: with PretrainBatches below what Pretrain epochs take,
// pretraining runs on a random subset of the nodes, reproducibly; the fit
// differs from the uncapped one and is finite.
func TestPretrainCap(t *testing.T) {
	net := smallNet(t, 300)
	fit := func(cap int) []float64 {
		m, err := Fit(context.Background(), net, configWith(func(c *Config) {
			c.Solver.Iterations = 2
			c.Autoencoder.Pretrain = 2
			c.Autoencoder.PretrainBatches = cap
			c.Autoencoder.Batch = 16
		}), rand.New(rand.NewPCG(3, 3)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return m.Y.RawMatrix().Data
	}
	a, b, full := fit(2), fit(2), fit(0)
	if !slices.Equal(a, b) {
		t.Error("capped pretraining is not reproducible")
	}
	if slices.Equal(a, full) {
		t.Error("PretrainBatches = 2 gave the same fit as no cap")
	}
	for _, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatal("non-finite embedding")
		}
	}
}

// TestWeights: β and λ are per node, the objective's n·β and n·λ, α as
// given; NoProximity zeroes β alone. Exact: products by whole numbers.
func TestWeights(t *testing.T) {
	for _, tc := range []struct {
		n                   int
		alpha, beta, lambda float64
		noProximity         bool
		wa, wb, wl          float64
	}{
		{2708, 1, 0.5, 4, false, 1, 1354, 10832},
		{1, 2, 0.11, 3.7, false, 2, 0.11, 3.7},
		{1000, 0, 1.5, 0.25, true, 0, 0, 250},
	} {
		c := Config{Alpha: tc.alpha, Beta: tc.beta, Lambda: tc.lambda, NoProximity: tc.noProximity}
		a, b, l := c.Weights(tc.n)
		if a != tc.wa || b != tc.wb || l != tc.wl {
			t.Errorf("n %d, α %v, β %v, λ %v, no proximity %v: weights %v, %v, %v; want %v, %v, %v", tc.n, tc.alpha, tc.beta, tc.lambda, tc.noProximity, a, b, l, tc.wa, tc.wb, tc.wl)
		}
	}
}

// TestAutoViewWeights: the views are re-weighed at iterations 10, 20 and
// 30 only, the weights sum to the number of views, and the model records
// the last weights, through Save and Load (the weights' formula is
// ViewRoughness's, checked in package proximity). Explicit weights, a zero among them, are
// recorded as given.
func TestAutoViewWeights(t *testing.T) {
	net := smallNet(t, 300)
	cfg := quickConfig()
	cfg.Solver.Iterations = 32 // views re-weighed by default
	var at []int
	var last []float64
	m, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(5, 1)), Options{Progress: func(it Iteration) {
		if it.ViewWeights != nil {
			at, last = append(at, it.Iteration), it.ViewWeights
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(at) != "[10 20 30]" {
		t.Fatalf("re-weighed at iterations %v, want [10 20 30]", at)
	}
	var sum float64
	for s, w := range last {
		sum += w
		if m.Views[s].Weight != w {
			t.Errorf("view %d: model weight %v, last re-weighing %v", s, m.Views[s].Weight, w)
		}
	}
	if t0 := float64(len(net.Views)); math.Abs(sum-t0) > 1e-12 {
		t.Errorf("weights %v sum to %v, want %v", last, sum, t0)
	}
	back := saveLoad(t, m)
	for s := range m.Views {
		if back.Views[s].Weight != m.Views[s].Weight {
			t.Errorf("view %d: weight %v after Load, %v before", s, back.Views[s].Weight, m.Views[s].Weight)
		}
	}

	cfg.Solver.Iterations = 2
	cfg.Proximity.ViewWeights = make([]float64, len(net.Views))
	cfg.Proximity.ViewWeights[0] = 1.5
	m, err = Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(5, 1)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	back = saveLoad(t, m)
	for s, w := range cfg.Proximity.ViewWeights {
		if m.Views[s].Weight != w || back.Views[s].Weight != w {
			t.Errorf("view %d: weight %v, %v after Load; want %v", s, m.Views[s].Weight, back.Views[s].Weight, w)
		}
	}
	cfg.Proximity.ViewWeights = []float64{1}
	if _, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(5, 1)), Options{}); err == nil || !strings.Contains(err.Error(), "view-weights") {
		t.Errorf("one weight for %d views: err = %v", len(net.Views), err)
	}
}

// TestFitOrthAllNodes: on a connected network no row is left out of R(Y),
// so Config.Solver.OrthAllNodes changes no byte. With 20 nodes stripped of every
// edge, those are the rows left out (components of one node), solved
// exactly from their codes, and they hold a
// smaller share of ‖Y‖² than when R(Y) reaches them, where an
// orthonormal Y takes their indicators, null directions of L, at no
// proximity cost.
func TestFitOrthAllNodes(t *testing.T) {
	net := fullNet(t, 300)
	c := quickConfig()
	var graphs []*sparse.CSR
	for _, v := range net.Views {
		graphs = append(graphs, v.Adj)
	}
	if free, _ := smallComponentRows(graphs, net.N(), c.Dim); len(free) != 0 {
		t.Fatalf("connected network: rows %v left out of R(Y)", free)
	}
	fit := func(net *multiplex.Network, all bool) *Model {
		c := c
		c.Solver.OrthAllNodes = all
		m, err := Fit(context.Background(), net, c, rand.New(rand.NewPCG(1, 1)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	want := embBytes(fit(net, false))
	if !bytes.Equal(want, embBytes(fit(net, true))) {
		t.Error("connected network: OrthAllNodes changed the embedding")
	}

	const k = 20
	iso := stripEdges(net, k)
	graphs = graphs[:0]
	for _, v := range iso.Views {
		graphs = append(graphs, v.Adj)
	}
	if free, single := smallComponentRows(graphs, iso.N(), c.Dim); !slices.Equal(free, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}) || !slices.Equal(single, free) {
		t.Fatalf("rows left out of R(Y) = %v, of them without edges %v, want 0…%d for both", free, single, k-1)
	}
	share := func(m *Model) float64 {
		y := m.Y.RawMatrix().Data
		d := c.Dim
		return sumSq(y[:k*d]) / sumSq(y)
	}
	exact := fit(iso, false)
	def, all := share(exact), share(fit(iso, true))
	t.Logf("share of ‖Y‖² on the %d isolated rows: %.3f left out of R(Y), %.3f in it", k, def, all)
	if !(def < all) {
		t.Errorf("isolated rows hold %.3f of ‖Y‖² left out of R(Y), %.3f in it: want less", def, all)
	}
}

// TestFeatureRange: the cross-entropy refuses features outside [0, 1] on
// an observed node, and the Poisson loss negative ones, naming the view,
// node and value; the squared error, and unit-length rows, take them; and
// where no loss is named, the view with such features takes the loss of
// their kind, Poisson for counts and the squared error for signed values
// (Config.ForNetwork), the other views the cross-entropy.
func TestFeatureRange(t *testing.T) {
	for _, tc := range []struct {
		name     string
		value    float32
		cfg      func(*Config)
		want     string // "" for success
		wantLoss string // the fitted model's loss, on success
	}{
		{"above 1, bce", 7, func(c *Config) { c.Autoencoder.Loss = "bce" }, `view "view0": node "3", feature`, ""},
		{"negative, bce", -0.5, func(c *Config) { c.Autoencoder.Loss = "bce" }, "is -0.5: the cross-entropy loss", ""},
		{"within, no loss named", 0.5, func(*Config) {}, "", "bce"},
		{"above 1, no loss named", 7, func(*Config) {}, "", "poisson,bce,bce"},
		{"fraction above 1, no loss named", 7.5, func(*Config) {}, "", "mse,bce,bce"},
		{"negative, no loss named", -0.5, func(*Config) {}, "", "mse,bce,bce"},
		{"negative, poisson", -0.5, func(c *Config) { c.Autoencoder.Loss = "poisson" }, `node "3", feature 0 is -0.5: the Poisson loss (--loss poisson) wants features ≥ 0; leave --loss out: the view's features are signed, which take --loss mse`, ""},
		{"above 1, poisson", 7, func(c *Config) { c.Autoencoder.Loss = "poisson" }, "", "poisson"},
		{"two names for three views", 0.5, func(c *Config) { c.Autoencoder.Loss = "bce,mse" }, "loss = bce,mse: 2 names for 3 views: want one, or one per view", ""},
		{"above 1, mse", 7, func(c *Config) { c.Autoencoder.Loss = "mse" }, "", "mse"},
		{"identity encoders", 7, func(c *Config) { c.NoAutoencoder = true }, "", "poisson,bce,bce"},
	} {
		net := smallNet(t, 120)
		v := net.Views[0]
		if _, val := v.Features.Row(3); !v.Observed[3] || len(val) == 0 {
			t.Fatal("node 3 must be observed in view0, with features")
		} else {
			val[0] = tc.value
		}
		cfg := quickConfig()
		cfg.Solver.Iterations = 1
		tc.cfg(&cfg)
		m, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want == "" && m.Config.Autoencoder.Loss != tc.wantLoss:
			t.Errorf("%s: loss %q, want %q", tc.name, m.Config.Autoencoder.Loss, tc.wantLoss)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestWeightedAdjacencyRows: a view without features whose edge weights
// pass 1 gives its autoencoder its adjacency rows clipped to [0, 1], where
// the cross-entropy is bounded below by 0. Read raw, the term
// −x·log p − (1−x)·log(1−p) falls without bound for x > 1; clipped, the
// reconstruction term stays ≥ 0 throughout.
func TestWeightedAdjacencyRows(t *testing.T) {
	net := smallNet(t, 200)
	v := net.Views[2]
	if v.Features != nil {
		t.Fatal("view2 of the synthetic network should have no features")
	}
	for k := range v.Adj.Val {
		v.Adj.Val[k] = 100
	}
	cfg := quickConfig()
	cfg.Solver.Iterations = 20
	low := math.Inf(1)
	_, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{Progress: func(it Iteration) {
		low = math.Min(low, it.Terms.Reconstruction)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !(low >= 0) {
		t.Errorf("reconstruction term reached %g, want ≥ 0", low)
	}
}

// fitUnchecked is fit without Fit's validation of the network, with the
// views' reconstructions that cfg gives (none without autoencoders).
func fitUnchecked(net *multiplex.Network, cfg Config, rng *rand.Rand) (*Model, error) {
	var recs []ViewReconstruction
	if !cfg.NoAutoencoder {
		var err error
		if recs, err = cfg.Reconstructions(net); err != nil {
			return nil, err
		}
	}
	return fit(context.Background(), net, cfg, recs, rng, Options{})
}

// TestPretrainingProgress: Options.Pretraining hears every view's every
// pretraining epoch, counted up to Pretrain times the views, and the
// embedding is the same bytes as without it.
func TestPretrainingProgress(t *testing.T) {
	net := smallNet(t, 200)
	cfg := quickConfig()
	cfg.Autoencoder.Pretrain = 3
	var seen []int
	total := 0
	m, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{Pretraining: func(done, all int) {
		seen = append(seen, done)
		total = all
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := 3 * len(net.Views); total != want || len(seen) != want || !slices.IsSorted(seen) || seen[len(seen)-1] != want {
		t.Errorf("pretraining progress %v of %d, want 1…%d", seen, total, want)
	}
	plain, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(embBytes(m), embBytes(plain)) {
		t.Error("reporting the pretraining changed the fit")
	}
}
