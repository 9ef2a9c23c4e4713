package proximity_test

import (
	"fmt"

	"github.com/dpmne/dpmne/proximity"
	"github.com/dpmne/dpmne/sparse"
)

func ExampleOperator_ApplyL() {
	// A path 0 – 1 – 2, one view, first-order proximity only.
	b := sparse.NewBuilder(3, 3)
	for _, e := range [][2]int{{0, 1}, {1, 2}} {
		b.Add(e[0], e[1], 1)
		b.Add(e[1], e[0], 1)
	}
	adj, _ := b.Build(sparse.MergeMax)
	op, err := proximity.New([]*sparse.CSR{adj}, proximity.Config{Weights: []float64{1}, Norm: proximity.NormNone})
	if err != nil {
		panic(err)
	}
	// L·y for y = (0, 1, 2): the Laplacian D − E of the path.
	y := []float64{0, 1, 2}
	ly := make([]float64, 3)
	op.ApplyL(ly, y, 1)
	fmt.Println(op.Degrees(), ly, proximity.Quadratic(y, ly))
	// Output: [1 2 1] [-1 0 1] 2
}
