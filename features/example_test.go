package features_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/dpmne/dpmne/features"
	"github.com/dpmne/dpmne/synth"
)

// Prepare smooths each view's own features once along its graph; the view
// without features of its own (synth's third) keeps its adjacency rows.
func ExamplePrepare() {
	sc := synth.Default()
	sc.Nodes = 200
	net, err := synth.Generate(sc, rand.New(rand.NewPCG(1, 0)))
	if err != nil {
		panic(err)
	}
	views, err := features.Prepare(net.Views, features.Config{Propagate: 1}, nil, nil, 0)
	if err != nil {
		panic(err)
	}
	for s, v := range views {
		x := net.Views[s].FeatureMatrix()
		fmt.Printf("%s: %d columns, denser: %v\n", net.Views[s].Name, v.X.Cols, v.X.NNZ() > x.NNZ())
	}
	// Output:
	// view0: 200 columns, denser: true
	// view1: 100 columns, denser: true
	// view2: 200 columns, denser: false
}
