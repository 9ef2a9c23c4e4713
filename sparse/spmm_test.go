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
			// MulAddDense: dst = m·x + a·y with a separate y, with y = dst
			// (in place), and with y = nil; 1e-12 relative as above.
			y := make([]float64, len(want))
			for i := range y {
				y[i] = rng.NormFloat64()
			}
			for _, mode := range []string{"separate", "in-place", "nil"} {
				dst := make([]float64, len(want))
				var a float64 = -0.7
				yy := y
				switch mode {
				case "in-place":
					copy(dst, y)
					yy = dst
				case "nil":
					yy = nil
				default:
					for i := range dst {
						dst[i] = math.NaN()
					}
				}
				m.MulAddDense(dst, x, tc.d, a, yy, workers)
				for i := range want {
					w := want[i]
					if mode != "nil" {
						w += a * y[i]
					}
					if math.Abs(dst[i]-w) > 1e-12*(1+math.Abs(w)) {
						t.Fatalf("MulAddDense %s %dx%d workers=%d: dst[%d] = %v, want %v", mode, tc.rows, tc.cols, workers, i, dst[i], w)
					}
				}
			}
		}
	}
}

// TestMulAddDense32 checks the float32 product against the float64 sum of
// the same (float32) inputs, in the three modes of MulAddDense, within
// 1e-6 of the sum of the terms' magnitudes (float32 rounding of a handful
// of terms per row).
func TestMulAddDense32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ rows, cols, nnz, d int }{{1, 1, 1, 1}, {7, 5, 12, 3}, {3000, 2000, 40000, 16}} {
		m := randomCSR(rng, tc.rows, tc.cols, tc.nnz)
		x := make([]float32, tc.cols*tc.d)
		y := make([]float32, tc.rows*tc.d)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		for i := range y {
			y[i] = float32(rng.NormFloat64())
		}
		const a = -0.7
		dm := dense(m)
		for _, workers := range []int{1, 2, 3} {
			for _, mode := range []string{"separate", "in-place", "nil"} {
				dst := make([]float32, len(y))
				yy := y
				switch mode {
				case "in-place":
					copy(dst, y)
					yy = dst
				case "nil":
					yy = nil
				default:
					for i := range dst {
						dst[i] = float32(math.NaN())
					}
				}
				m.MulAddDense32(dst, x, tc.d, a, yy, workers)
				for i := range tc.rows {
					for c := range tc.d {
						var w, mag float64
						if mode != "nil" {
							w, mag = a*float64(y[i*tc.d+c]), math.Abs(a*float64(y[i*tc.d+c]))
						}
						for j := range tc.cols {
							v := float64(dm[i][j]) * float64(x[j*tc.d+c])
							w += v
							mag += math.Abs(v)
						}
						if got := float64(dst[i*tc.d+c]); math.Abs(got-w) > 1e-6*(1+mag) {
							t.Fatalf("%s %dx%d workers=%d: dst[%d,%d] = %v, want %v", mode, tc.rows, tc.cols, workers, i, c, got, w)
						}
					}
				}
			}
		}
	}
}

// BenchmarkMulDense measures SpMM with ~10 non-zeros per row, the shape of
// one proximity step on a sparse graph: d = 128 in float64 and float32, and
// d = 256 in float32 (the random-walk proximity's two inputs side by side).
func BenchmarkMulDense(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
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
			for _, d := range []int{128, 256} {
				b.Run(fmt.Sprintf("n=%d/d=%d/workers=%d/float32", n, d, workers), func(b *testing.B) {
					rng := rand.New(rand.NewPCG(1, 1))
					m := randomCSR(rng, n, n, 10*n)
					x := make([]float32, n*d)
					dst := make([]float32, n*d)
					b.SetBytes(int64(m.NNZ()) * int64(d) * 4)
					for b.Loop() {
						m.MulAddDense32(dst, x, d, 0, nil, workers)
					}
				})
			}
		}
	}
}
