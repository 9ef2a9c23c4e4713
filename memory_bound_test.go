package dpmne

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/dpmne/dpmne/internal/testenv"
	"github.com/dpmne/dpmne/multiplex"
	"github.com/dpmne/dpmne/proximity"
	"github.com/dpmne/dpmne/synth"
)

// TestEstimateMemoryBound: the bound from a data set's headers is at most
// EstimateMemory of the loaded network, part by part, under settings that
// move each part; on the synthetic default, whose nodes file gives its
// nodes, the part in n and d alone is exact.
func TestEstimateMemoryBound(t *testing.T) {
	// The synthetic default written in the native format (nodes.txt,
	// text edges and features with "feature_dim"), and the named data
	// sets that are present.
	net, err := synth.Generate(synth.Default(), rand.New(rand.NewPCG(1, 0)))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "synth")
	if err := multiplex.WriteNative(net, dir); err != nil {
		t.Fatal(err)
	}
	sources := []string{dir}
	if !testing.Short() {
		// Bounds from a LINQS content file, labels.npy with csr
		// features, and labels.npy with coo adjacencies.
		sources = append(sources, "cora", "dblp4057", "freebase")
	}
	configs := []Config{
		DefaultConfig(),
		configWith(func(c *Config) { c.Dim = 16; c.Autoencoder.Hidden = []int{64, 8} }),
		configWith(func(c *Config) { c.NoAutoencoder = true }),
		configWith(func(c *Config) { c.Solver.Y = Stiefel; c.Proximity.Laplacian = proximity.Normalized }),
		configWith(func(c *Config) { c.Autoencoder.NegativeSamples = 0 }),
		configWith(func(c *Config) { c.NoProximity = true; c.Features.Propagate = 0 }),
	}
	for _, src := range sources {
		data := ""
		if src != dir {
			data = testenv.DataDir(t)
		}
		m, err := multiplex.Resolve(src, data)
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.Bounds(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		net, err := m.Load()
		if err != nil {
			t.Logf("%s: %v", src, err) // not fetched
			continue
		}
		if src == dir && b.Nodes != net.N() {
			t.Errorf("%s: bound of %d nodes, want %d (nodes.txt)", src, b.Nodes, net.N())
		}
		cfgs := configs
		if src != dir {
			cfgs = configs[:3]
		}
		for _, cfg := range cfgs {
			lo, est := EstimateMemoryBound(b, cfg), EstimateMemory(net, cfg)
			parts := [][3]any{{"data", lo.Data, est.Data}, {"proximity", lo.Proximity, est.Proximity}, {"subspace", lo.Subspace, est.Subspace},
				{"codes", lo.Codes, est.Codes}, {"autoencoders", lo.Autoencoders, est.Autoencoders}, {"transient", lo.Transient, est.Transient}}
			for _, p := range parts {
				if p[1].(int64) > p[2].(int64) {
					t.Errorf("%s, %+v: %s bound %d > estimate %d", filepath.Base(src), cfg, p[0], p[1], p[2])
				}
			}
			// With every node bounded, the parts in n and d alone are
			// exact.
			if src == dir && lo.Transient != est.Transient {
				t.Errorf("%s, %+v: transient bound %d, want the estimate's %d", filepath.Base(src), cfg, lo.Transient, est.Transient)
			}
		}
	}
}
