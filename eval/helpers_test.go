package eval

import (
	"math"
	"math/rand/v2"
)

// blobs returns n points in d dimensions: point i has class i % k and is
// drawn from N(mu_c, sd²·I), where mu_c = sep·e_c (the c-th unit vector,
// wrapping when k > d, shifted by c/d along the next axis so that all means
// differ).
func blobs(n, d, k int, sep, sd float64, seed uint64) ([]float64, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := make([]float64, n*d)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		c := i % k
		y[i] = c
		for j := 0; j < d; j++ {
			x[i*d+j] = sd * rng.NormFloat64()
		}
		x[i*d+c%d] += sep
		x[i*d+(c+1)%d] += sep * float64(c/d)
	}
	return x, y
}

// randomMeans returns n points in d dimensions from k classes whose means
// are random N(0, I) vectors scaled by sep, with unit Gaussian noise: a
// Cora-like, non-separable problem for benchmarks.
func randomMeans(n, d, k int, sep float64, seed uint64) ([]float64, []int) {
	rng := rand.New(rand.NewPCG(seed, 11))
	mu := make([]float64, k*d)
	for i := range mu {
		mu[i] = sep * rng.NormFloat64() / math.Sqrt(float64(d))
	}
	x := make([]float64, n*d)
	y := make([]int, n)
	for i := 0; i < n; i++ {
		c := rng.IntN(k)
		y[i] = c
		for j := 0; j < d; j++ {
			x[i*d+j] = mu[c*d+j] + rng.NormFloat64()
		}
	}
	return x, y
}

func accuracy(y, p []int) float64 {
	var ok int
	for i := range y {
		if y[i] == p[i] {
			ok++
		}
	}
	return float64(ok) / float64(len(y))
}
