package dpmne

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestDenseCodes checks the float32 codes' blocked products against plain
// loops in float64 (H·X added to what dst holds, and HᵀQ), and
// mulRightInPlace against gemm, on sizes below one block, across several
// blocks and ranges, for 1–3 goroutines; relative tolerance 1e-12 per inner
// term (only the summation order differs).
func TestDenseCodes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(9, 10))
	for _, procs := range []int{1, 2, 3} {
		runtime.GOMAXPROCS(procs)
		for _, sz := range []struct{ n, h, d int }{{5, 3, 2}, {700, 7, 4}, {3000, 16, 9}} {
			name := fmt.Sprintf("procs=%d/%dx%dx%d", procs, sz.n, sz.h, sz.d)
			n, h, d := sz.n, sz.h, sz.d
			c := &denseCodes{n: n, h: h, data: make([]float32, n*h)}
			for i := range c.data {
				c.data[i] = float32(rng.NormFloat64())
			}
			x, q := randSlice(rng, h*d), randSlice(rng, n*d)
			dst := randSlice(rng, n*d)
			want := append([]float64(nil), dst...)
			for i := range n {
				for j := range d {
					for k := range h {
						want[i*d+j] += float64(c.data[i*h+k]) * x[k*d+j]
					}
				}
			}
			c.MulRightAdd(dst, x, d)
			for i := range want {
				if math.Abs(dst[i]-want[i]) > 1e-12*(1+math.Abs(want[i]))*float64(h) {
					t.Fatalf("%s: MulRightAdd[%d] = %v, want %v", name, i, dst[i], want[i])
				}
			}
			lt := make([]float64, h*d)
			c.MulLeftT(lt, q, d)
			for k := range h {
				for j := range d {
					var w float64
					for i := range n {
						w += float64(c.data[i*h+k]) * q[i*d+j]
					}
					if math.Abs(lt[k*d+j]-w) > 1e-12*(1+math.Abs(w))*float64(n) {
						t.Fatalf("%s: MulLeftT[%d,%d] = %v, want %v", name, k, j, lt[k*d+j], w)
					}
				}
			}
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
