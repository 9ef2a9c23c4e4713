package lanczos_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmne/dpmne/internal/lanczos"
	"github.com/dpmne/dpmne/sparse"
)

// The three largest eigenvalues of a path of 10 nodes, from sparse
// products alone, against their closed form 2cos(πk/11).
func ExampleEigs_EigsLargest() {
	const n = 10
	b := sparse.NewBuilder(n, n)
	for i := 0; i+1 < n; i++ {
		b.Add(i, i+1, 1)
		b.Add(i+1, i, 1)
	}
	a, _ := b.Build(sparse.MergeMax)
	mul := func(dst, x []float64) {
		for i := range n {
			ind, val := a.Row(i)
			dst[i] = 0
			for k, j := range ind {
				dst[i] += float64(val[k]) * x[j]
			}
		}
	}
	vals, _, err := lanczos.Eigs{K: 3}.EigsLargest(context.Background(), n, mul, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		panic(err)
	}
	for k, v := range vals {
		fmt.Printf("%.6f %.6f\n", v, 2*math.Cos(math.Pi*float64(k+1)/(n+1)))
	}
	// Output:
	// 1.918986 1.918986
	// 1.682507 1.682507
	// 1.309721 1.309721
}
