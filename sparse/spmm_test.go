package sparse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestMulDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct{ rows, cols, nnz, d int }{{1, 1, 1, 1}, {7, 5, 12, 3}, {3000, 2000, 40000, 16}} {
		m := randomCSR(rng, tc.rows, tc.cols, tc.nnz)
		x := make([]float64, tc.cols*tc.d)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		want := make([]float64, tc.rows*tc.d)
		dm := dense(m)
		for i := range tc.rows {
			for j := range tc.cols {
				for c := range tc.d {
					want[i*tc.d+c] += float64(dm[i][j]) * x[j*tc.d+c]
				}
			}
		}
		for _, workers := range []int{1, 2, 3} {
			got := make([]float64, len(want))
			for i := range got {
				got[i] = math.NaN() // MulDense must overwrite dst
			}
			m.MulDense(got, x, tc.d, workers)
			for i := range want {
				// Summation order matches the dense loop's: equal to
				// rounding, 1e-12 relative.
				if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
					t.Fatalf("%dx%d workers=%d: dst[%d] = %v, want %v", tc.rows, tc.cols, workers, i, got[i], want[i])
				}
			}
		}
	}
}

// BenchmarkMulDense measures SpMM with ~10 non-zeros per row and d = 128,
// the shape of one proximity step on a sparse graph.
func BenchmarkMulDense(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("n=%d/d=128/workers=%d", n, workers), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				m := randomCSR(rng, n, n, 10*n)
				x := make([]float64, n*128)
				dst := make([]float64, n*128)
				b.SetBytes(int64(m.NNZ()) * 128 * 8)
				for b.Loop() {
					m.MulDense(dst, x, 128, workers)
				}
			})
		}
	}
}
