package dpmne

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestDenseCodes checks the codes' blocked products against plain loops in
// float64 (H·X added to what dst holds, and HᵀQ), and mulRightInPlace
// against gemm, on sizes below one block, across several blocks and ranges,
// for 1–3 goroutines. Relative tolerance per inner term: 1e-12 for the
// float64 products (only the summation order differs); 1e-6 for the float32
// ones (the other factor rounded to float32, 6e-8, and sums of up to
// codeBlock float32 products).
func TestDenseCodes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(9, 10))
	for _, procs := range []int{1, 2, 3} {
		runtime.GOMAXPROCS(procs)
		for _, sz := range []struct{ n, h, d int }{{5, 3, 2}, {700, 7, 4}, {3000, 16, 9}} {
			for _, f64 := range []bool{true, false} {
				name := fmt.Sprintf("procs=%d/%dx%dx%d/f64=%v", procs, sz.n, sz.h, sz.d, f64)
				tol := 1e-6
				if f64 {
					tol = 1e-12
				}
				n, h, d := sz.n, sz.h, sz.d
				c := &denseCodes{n: n, h: h, data: make([]float32, n*h), f64: f64}
				for i := range c.data {
					c.data[i] = float32(rng.NormFloat64())
				}
				x, q := randSlice(rng, h*d), randSlice(rng, n*d)
				dst := randSlice(rng, n*d)
				want := append([]float64(nil), dst...)
				scale := make([]float64, n*d) // Σ |terms|, the scale of rounding
				for i := range n {
					for j := range d {
						for k := range h {
							p := float64(c.data[i*h+k]) * x[k*d+j]
							want[i*d+j] += p
							scale[i*d+j] += math.Abs(p)
						}
					}
				}
				c.MulRightAdd(dst, x, d)
				for i := range want {
					if math.Abs(dst[i]-want[i]) > tol*(1+math.Abs(want[i])+scale[i]) {
						t.Fatalf("%s: MulRightAdd[%d] = %v, want %v", name, i, dst[i], want[i])
					}
				}
				lt := make([]float64, h*d)
				c.MulLeftT(lt, q, d)
				for k := range h {
					for j := range d {
						var w, sc float64
						for i := range n {
							p := float64(c.data[i*h+k]) * q[i*d+j]
							w += p
							sc += math.Abs(p)
						}
						if math.Abs(lt[k*d+j]-w) > tol*(1+math.Abs(w)+sc) {
							t.Fatalf("%s: MulLeftT[%d,%d] = %v, want %v", name, k, j, lt[k*d+j], w)
						}
					}
				}
				if got, want := c.SqNorm(), sumSq32(c.data); got != want {
					t.Fatalf("%s: SqNorm = %v, want %v", name, got, want)
				}
				c.data[0]++
				c.changed()
				if got, want := c.SqNorm(), sumSq32(c.data); got != want {
					t.Fatalf("%s: SqNorm after changed = %v, want %v", name, got, want)
				}
			}
			name := fmt.Sprintf("procs=%d/%dx%d", procs, sz.n, sz.d)
			n, d := sz.n, sz.d
			q := randSlice(rng, n*d)
			m := randSlice(rng, d*d)
			xm := append([]float64(nil), q...)
			wantM := make([]float64, n*d)
			gemm(false, false, -0.5, q, n, d, m, d, d, 0, wantM)
			wantDot := dot(q, wantM)
			gotDot := mulRightInPlace(xm, n, d, m, -0.5)
			for i := range wantM {
				if math.Abs(xm[i]-wantM[i]) > 1e-12*(1+math.Abs(wantM[i]))*float64(d) {
					t.Fatalf("%s: mulRightInPlace[%d] = %v, want %v", name, i, xm[i], wantM[i])
				}
			}
			if math.Abs(gotDot-wantDot) > 1e-10*(1+math.Abs(wantDot)) {
				t.Fatalf("%s: mulRightInPlace's dot = %v, want %v", name, gotDot, wantDot)
			}
		}
	}
}

func sumSq32(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return s
}

// BenchmarkDenseCodes measures the two products of one view's codes per
// iteration, H·X (n×h times h×d) and HᵀQ, h = d = 128, in float32 (the
// default) and float64.
func BenchmarkDenseCodes(b *testing.B) {
	const h, d = 128, 128
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		for _, f64 := range []bool{false, true} {
			b.Run(fmt.Sprintf("n=%d/f64=%v", n, f64), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				c := &denseCodes{n: n, h: h, data: make([]float32, n*h), f64: f64}
				for i := range c.data {
					c.data[i] = float32(rng.NormFloat64())
				}
				x, q := randSlice(rng, h*d), randSlice(rng, n*d)
				dst, lt := make([]float64, n*d), make([]float64, h*d)
				b.SetBytes(int64(n) * (h + d) * 2 * 4)
				for b.Loop() {
					c.MulRightAdd(dst, x, d)
					c.MulLeftT(lt, q, d)
				}
			})
		}
	}
}
