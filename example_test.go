package dpmne_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/synth"
)

func ExampleFit() {
	// The built-in synthetic partial multiplex network, smaller.
	cfg := synth.Default()
	cfg.Nodes = 300
	net, err := synth.Generate(cfg, rand.New(rand.NewPCG(1, 0)))
	if err != nil {
		panic(err)
	}
	// A short fit: the default configuration (Paper() is the
	// paper-faithful preset) with a smaller d and fewer iterations.
	fc := dpmne.DefaultConfig()
	fc.Dim, fc.Solver.Iterations = 16, 5
	m, err := dpmne.Fit(context.Background(), net, fc, rand.New(rand.NewPCG(1, 0)), dpmne.Options{
		Progress: func(it dpmne.Iteration) {
			if it.Iteration == 5 {
				fmt.Println("terms finite:", it.Terms.Total() > 0)
			}
		},
	})
	if err != nil {
		panic(err)
	}
	n, d := m.Embedding().Dims()
	fmt.Println(n, "nodes,", d, "dimensions,", len(m.Views), "views")
	// Output:
	// terms finite: true
	// 300 nodes, 16 dimensions, 3 views
}

// ExamplePaperOf applies the paper-faithful settings to a configuration
// but keeps a setting given beside them, as dpmne train --preset paper
// --loss bce does.
func ExamplePaperOf() {
	cfg := dpmne.PaperOf(dpmne.DefaultConfig())
	cfg.Autoencoder.Loss = "bce"
	fmt.Println(cfg.Autoencoder.Loss, cfg.Autoencoder.LearningRate, cfg.Autoencoder.Pretrain, cfg.Uncentred)
	// Output: bce 0.001 3 true
}
