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
	// A short fit; a zero field of Config means its default (Paper() is
	// the paper-faithful preset).
	m, err := dpmne.Fit(context.Background(), net, dpmne.Config{Dim: 16, Iterations: 5}, rand.New(rand.NewPCG(1, 0)), dpmne.Options{
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

// ExampleConfig_ApplyPreset applies the paper-faithful preset but keeps a
// setting given beside it, as dpmne train --preset paper --loss bce does.
func ExampleConfig_ApplyPreset() {
	cfg := dpmne.Config{Loss: "bce"}
	if err := cfg.ApplyPreset("paper", func(flag string) bool { return flag == "loss" }); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Loss, cfg.LearningRate, cfg.Pretrain, cfg.Uncentred)
	// Output: bce 0.001 3 true
}
