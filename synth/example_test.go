package synth_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/dpmne/dpmne/synth"
)

func ExampleGenerate() {
	cfg := synth.Default()
	cfg.Nodes = 500
	net, err := synth.Generate(cfg, rand.New(rand.NewPCG(1, 0)))
	if err != nil {
		panic(err)
	}
	fmt.Println(net.N(), "nodes,", len(net.Views), "views,", len(net.Labels.Names), "classes")
	for _, v := range net.Views {
		fmt.Printf("%s: PDR %.2f\n", v.Name, v.PDR())
	}
	// Output:
	// 500 nodes, 3 views, 4 classes
	// view0: PDR 0.20
	// view1: PDR 0.20
	// view2: PDR 0.19
}
