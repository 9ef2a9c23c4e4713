package dpmne

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/dpmne/dpmne/multiplex"
)

// TestEstimateMemory compares the estimate with the live heap of a fit,
// measured after a forced collection at every iteration (so garbage not yet
// collected does not count) and before the fit for the network itself. The
// estimate counts the arrays the code allocates, so it should be close:
// the live peak must lie within [0.6, 1.3] of it (the rest: slices
// allocated at their final size but not all live at once, Go runtime
// overhead, small buffers the model leaves out).
func TestEstimateMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("forces a garbage collection every iteration")
	}
	net := smallNet(t, 3000)
	for _, cfg := range []Config{
		configWith(func(c *Config) { c.Solver.Iterations = 3; c.Autoencoder.Pretrain = 1; c.Features.Propagate = 0 }),
		// The smoothed features are allocated by the fit and counted.
		configWith(func(c *Config) { c.Solver.Iterations = 3; c.Autoencoder.Pretrain = 1 }),
		configWith(func(c *Config) { c.Solver.Iterations = 3; c.Autoencoder.Pretrain = 1; c.Features.Propagate = 2 }),
		// The re-linked views' graphs, and the propagation along them.
		configWith(func(c *Config) { c.Solver.Iterations = 3; c.Autoencoder.Pretrain = 1; c.Features.KNN = 8 }),
	} {
		d := cfg
		t.Run(fmt.Sprintf("propagate=%d/knn=%d", d.Features.Propagate, d.Features.KNN), func(t *testing.T) { estimateMemory(t, net, cfg) })
	}
}

func estimateMemory(t *testing.T, net *multiplex.Network, cfg Config) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	peak := uint64(0)
	m, err := Fit(context.Background(), net, cfg, rand.New(rand.NewPCG(1, 1)), Options{Progress: func(Iteration) {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}})
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(m)
	est := EstimateMemory(net, cfg)
	live := float64(peak-base) + float64(est.Data) // the network was live before
	ratio := live / float64(est.Total())
	t.Logf("estimate %v; live peak %.0f MiB (ratio %.2f)", est, live/(1<<20), ratio)
	if ratio < 0.6 || ratio > 1.3 {
		t.Errorf("live peak / estimate = %.2f, want within [0.6, 1.3]", ratio)
	}
}

// TestEstimateMemoryExactLoss checks that the exact reconstruction loss
// (NegativeSamples 0) counts its dense batches: for each view, three
// float32 arrays (output, its gradient, the densified target) of
// max(1,024, Batch) rows by the view's width, 1,024 being the rows of
// reconTerms' batches. The sampled loss (NegativeSamples 5) needs none of
// them, so its estimate is smaller.
func TestEstimateMemoryExactLoss(t *testing.T) {
	net := smallNet(t, 3000)
	for _, batch := range []int{256, 4096} {
		exact := EstimateMemory(net, configWith(func(c *Config) {
			c.Autoencoder.NegativeSamples = 0
			c.Autoencoder.Batch = batch
		}))
		sampled := EstimateMemory(net, configWith(func(c *Config) {
			c.Autoencoder.NegativeSamples = 5
			c.Autoencoder.Batch = batch
		}))
		var dense int64
		for _, v := range net.Views {
			dense += 3 * 4 * int64(max(1024, batch)) * int64(v.FeatureMatrix().Cols)
		}
		if exact.Autoencoders < dense {
			t.Errorf("batch %d: exact loss: autoencoders %d bytes, below its dense batches' %d", batch, exact.Autoencoders, dense)
		}
		if exact.Total() <= sampled.Total() {
			t.Errorf("batch %d: exact loss estimated at %v, not above the sampled loss's %v", batch, exact, sampled)
		}
	}
}
