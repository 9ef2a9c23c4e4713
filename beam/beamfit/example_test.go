package beamfit_test

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"os"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/dpmne/dpmne"
	"github.com/dpmne/dpmne/beam/beamfit"
	"github.com/dpmne/dpmne/synth"
)

// A fit of a generated featureless network on Prism, in this process:
// partition it under a state root, then fit; an interrupted fit
// continues with Options.Resume on the same root.
func ExampleFit() {
	net, err := synth.Generate(synth.Config{
		Nodes: 120, Classes: 2, Views: 2,
		DegreeIn: []float64{5}, DegreeOut: []float64{1},
		FeatureDims: []int{0}, FeatureNNZ: []int{0}, Signal: []float64{0},
		Missing: []float64{0.2},
	}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		log.Fatal(err)
	}
	root, err := os.MkdirTemp("", "beamfit")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	ctx := context.Background()
	if err := beamfit.WriteGraph(ctx, root, net, 2); err != nil {
		log.Fatal(err)
	}
	cfg := dpmne.DefaultConfig()
	cfg.NoAutoencoder = true // the Beam fit's codes are the adjacency rows
	cfg.Unbalanced = true    // the Beam fit does not measure the sources yet
	cfg.Dim, cfg.Solver.Iterations = 8, 3
	res, err := beamfit.Fit(ctx, root, cfg, beamfit.Options{Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	n, d := res.Embedding.Dims()
	fmt.Printf("%d×%d embedding, first node %s\n", n, d, res.IDs[0])
	// Output: 120×8 embedding, first node 0
}
