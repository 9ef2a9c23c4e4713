package structure

import (
	"fmt"
	"math/rand/v2"
)

// Agreement is how far the leading directions of two sources over the
// same nodes coincide, beyond what the same directions placed on the nodes
// at random share.
type Agreement struct {
	// K is the number of directions compared on each side.
	K int `json:"k"`
	// Cos2 is the mean squared cosine of the K principal angles between
	// the two sides' spans, ‖AᵀB‖²_F/K for orthonormal bases A and B: 1
	// for the same span, about K/n for unrelated ones on n nodes.
	Cos2 float64 `json:"cos2"`
	// Null is the largest Cos2 over agreeCopies copies whose second side
	// has its nodes permuted: chance's share, on these very vectors.
	Null float64 `json:"null"`
	// Agree reports Cos2 > (1 + Margin)·Null.
	Agree bool `json:"agree"`
}

// agreeCopies is the number of node permutations Agree measures chance
// on: unrelated sides exceed the largest with probability 1/(copies+1).
const agreeCopies = 19

// Agree compares the span of the ka vectors a with that of the kb
// vectors b, each row-major over the same n nodes (vector i is
// a[i·n : (i+1)·n]) and orthonormal, on the first k = min(ka, kb) of
// each, against copies of b with its nodes permuted, drawn from rng.
func Agree(a []float64, ka int, b []float64, kb int, n int, rng *rand.Rand) (Agreement, error) {
	if len(a) != ka*n || len(b) != kb*n {
		return Agreement{}, fmt.Errorf("structure: Agree: %d and %d values for %d and %d vectors of %d nodes", len(a), len(b), ka, kb, n)
	}
	k := min(ka, kb)
	g := Agreement{K: k}
	if k == 0 || n < 2 {
		return g, nil
	}
	g.Cos2 = cos2(a, b, k, n, nil)
	perm := make([]int, n)
	for range agreeCopies {
		for i := range perm {
			perm[i] = i
		}
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		g.Null = max(g.Null, cos2(a, b, k, n, perm))
	}
	g.Agree = g.Cos2 > (1+Margin)*g.Null
	return g, nil
}

// cos2 returns ‖AᵀB‖²_F/k for the first k vectors of a and b, b's node i
// read at perm[i] (perm nil: i).
func cos2(a, b []float64, k, n int, perm []int) float64 {
	var s float64
	for i := range k {
		ai := a[i*n : (i+1)*n]
		for j := range k {
			bj := b[j*n : (j+1)*n]
			var dot float64
			if perm == nil {
				for u, v := range ai {
					dot += v * bj[u]
				}
			} else {
				for u, v := range ai {
					dot += v * bj[perm[u]]
				}
			}
			s += dot * dot
		}
	}
	return s / float64(k)
}
