package codes_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dpmne/dpmne/codes"
)

func ExampleSign() {
	// Five nodes in a 4-dimensional embedding (row-major).
	y := []float64{
		0.9, 0.2, -0.5, 1.0,
		0.8, 0.1, -0.4, 1.0,
		-0.7, 0.3, 0.6, 1.0,
		-0.9, -0.2, 0.5, 1.0,
		0.7, -0.1, -0.6, 1.0,
	}
	c := codes.Sign(y, 5, 4)
	for i := range c.N {
		fmt.Printf("node %d: ", i)
		for j := range c.Bits {
			if c.Bit(i, j) {
				fmt.Print("1")
			} else {
				fmt.Print("0")
			}
		}
		fmt.Println()
	}
	// The nearest codes to node 0's, node 0 itself excluded.
	for _, h := range c.HammingTopK(c.Row(0), 3, 0, 1) {
		fmt.Printf("node %d at distance %g\n", h.Index, h.Score)
	}
	// Output:
	// node 0: 1100
	// node 1: 1100
	// node 2: 0110
	// node 3: 0010
	// node 4: 1000
	// node 1 at distance 0
	// node 4 at distance 1
	// node 2 at distance 2
}

func ExampleITQ() {
	// 400 nodes whose 8-dimensional embedding is a rotation of ±1 codes
	// plus noise: ITQ finds a rotation that makes the codes nearly exact.
	const n, d = 400, 8
	rng := rand.New(rand.NewPCG(1, 2))
	y := make([]float64, n*d)
	for i := range n {
		for j := range d {
			b := float64(2*rng.IntN(2) - 1)
			y[i*d+j] = b + 0.1*rng.NormFloat64()
		}
		// Rotate each pair of coordinates by 45°.
		for j := 0; j < d; j += 2 {
			a, b := y[i*d+j], y[i*d+j+1]
			y[i*d+j], y[i*d+j+1] = (a-b)/1.4142135623730951, (a+b)/1.4142135623730951
		}
	}
	res, err := codes.ITQ(y, n, d, 50, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		fmt.Println(err)
		return
	}
	first, last := res.Loss[0], res.Loss[len(res.Loss)-1]
	fmt.Printf("codes: %d × %d bits\n", res.Codes.N, res.Codes.Bits)
	fmt.Printf("loss fell by more than 90%%: %v\n", last < 0.1*first)
	fmt.Printf("loss per bit below 0.05: %v\n", last/(n*d) < 0.05)
	fmt.Printf("new rows encode like the training rows: %v\n",
		res.Encode(y[:d], 1).Row(0)[0] == res.Codes.Row(0)[0])
	// Output:
	// codes: 400 × 8 bits
	// loss fell by more than 90%: true
	// loss per bit below 0.05: true
	// new rows encode like the training rows: true
}

// FitCCA on two views of four rows: view x holds a signal s and an
// unrelated column u, view y holds s plus noise e (s, u, e centred and
// mutually orthogonal). The best combination of x ignores u; its
// correlation with y is ‖s‖/√(‖s‖² + ‖e‖²) = √(20/24), and its weight on
// s makes a unit-variance variate, 1/std(s) = √(3/20).
func ExampleFitCCA() {
	s := []float64{-3, -1, 1, 3}
	u := []float64{-1, 3, -3, 1}
	e := []float64{1, -1, -1, 1}
	const n = 4
	x := make([]float64, 2*n)
	y := make([]float64, n)
	for i := range n {
		x[2*i], x[2*i+1] = s[i], u[i]
		y[i] = s[i] + e[i]
	}
	c, err := codes.FitCCA([][]float64{x, y}, n, []int{2, 1}, 1, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("canonical correlation %.4f (√(20/24) = %.4f)\n", c.Corr[0], math.Sqrt(20.0/24))
	fmt.Printf("x's weights (%.4f, %.4f)\n", c.W[0][0], c.W[0][1]+0) // +0: no "-0.0000"
	// Output:
	// canonical correlation 0.9129 (√(20/24) = 0.9129)
	// x's weights (0.3873, 0.0000)
}
