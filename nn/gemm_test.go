package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGemm checks the tiled gemm against the definition
// C = alpha·op(A)·op(B) + beta·C, computed in float64, for every
// transposition and for shapes that span several tiles — among them a
// transposed A with m far above k (a hidden layer wider than the batch),
// whose row offset i0·lda once ran past A's end.
func TestGemm(t *testing.T) {
	const tol = 1e-5 // relative to alpha·Σ|a·b| + |beta·c| + 1: float32 accumulation
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range []struct{ m, n, k int }{
		{1, 1, 1}, {3, 5, 7}, {64, 192, 10}, {65, 193, 3}, {512, 128, 256}, {300, 20, 2}, {20, 400, 2},
	} {
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				t.Run(fmt.Sprintf("m=%d/n=%d/k=%d/tA=%v/tB=%v", sz.m, sz.n, sz.k, tA, tB), func(t *testing.T) {
					m, n, k := sz.m, sz.n, sz.k
					// A is m×k (k×m when transposed), B is k×n (n×k), row-major.
					a := make([]float32, m*k)
					b := make([]float32, k*n)
					c := make([]float32, m*n)
					for _, v := range [][]float32{a, b, c} {
						for i := range v {
							v[i] = float32(rng.NormFloat64())
						}
					}
					lda, ldb := k, n
					at := func(i, l int) float64 { return float64(a[i*lda+l]) }
					if tA {
						lda = m
						at = func(i, l int) float64 { return float64(a[l*lda+i]) }
					}
					bt := func(l, j int) float64 { return float64(b[l*ldb+j]) }
					if tB {
						ldb = k
						bt = func(l, j int) float64 { return float64(b[j*ldb+l]) }
					}
					const alpha, beta = 0.5, -2
					want := make([]float64, m*n)
					scale := make([]float64, m*n)
					for i := range m {
						for j := range n {
							s, abs := 0.0, 0.0
							for l := range k {
								p := at(i, l) * bt(l, j)
								s += p
								abs += math.Abs(p)
							}
							cij := float64(c[i*n+j])
							want[i*n+j] = alpha*s + beta*cij
							scale[i*n+j] = alpha*abs + math.Abs(beta*cij) + 1
						}
					}
					gemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, n)
					for i, w := range want {
						if d := math.Abs(float64(c[i]) - w); d > tol*scale[i] {
							t.Fatalf("C[%d,%d] = %v, want %v (|diff| %.3g > %.0e·%.3g)", i/n, i%n, c[i], w, d, tol, scale[i])
						}
					}
				})
			}
		}
	}
}
